"""What the fix-it panels read and conclude: sshd's settings with where each comes from, the
phases of logins from the journal, systemd's boot figures and networkd's links; and a
diagnosis (a verdict, its evidence, the fixes narrowest first with what each costs).

Read-only: nothing here changes a host. The fixes are text for the operator (the plans that
carry them out are a later step).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.model.finding import Finding
from zconsole.model.reading import Part

# --------------------------------------------------------------------------------- sshd


@dataclass(frozen=True)
class ConfigLine:
    """One keyword line of sshd_config or a file it includes, where it was written.

    `keyword` is lower case (as `sshd -T` prints it), `value` the rest of the line as written.
    `match` is the `Match` line whose block the line belongs to (None: global)."""

    file: str
    line_no: int
    keyword: str
    value: str
    match: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line_no}"


@dataclass(frozen=True)
class SshdSources:
    """Every keyword line sshd reads, in the order it reads them (drop-ins where the Include
    stands, in name order), and the files read."""

    lines: tuple[ConfigLine, ...]
    files: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()  # an Include that matched nothing readable, ...

    def origin(self, keyword: str) -> ConfigLine | None:
        """The line that sets `keyword` for every client: the first global one (sshd keeps
        the first value it obtains)."""
        k = keyword.lower()
        return next((c for c in self.lines if c.keyword == k and c.match is None), None)

    def in_match(self, keyword: str) -> tuple[ConfigLine, ...]:
        """Lines setting `keyword` inside Match blocks (they apply to matching clients)."""
        k = keyword.lower()
        return tuple(c for c in self.lines if c.keyword == k and c.match is not None)

    def all_of(self, keyword: str) -> tuple[ConfigLine, ...]:
        k = keyword.lower()
        return tuple(c for c in self.lines if c.keyword == k)


def match_criteria(match: str) -> tuple[tuple[str, str], ...] | None:
    """A `Match` line's criteria as (criterion in lower case, its pattern list) pairs, in
    order, `All` left out (it takes no value); None when a criterion lacks its value."""
    words = match.split()[1:]
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        crit = words[i].lower()
        if crit == "all":
            i += 1
            continue
        if i + 1 >= len(words):
            return None
        out.append((crit, words[i + 1]))
        i += 2
    return tuple(out)


# ------------------------------------------------------------------------------ journal


@dataclass(frozen=True)
class JournalLine:
    """One journal entry: as `journalctl -o json` gives it (`trusted`), or as
    `-o short-iso-precise` prints it (pasted or older captured text).

    `ident` is the writer's own word (SYSLOG_IDENTIFIER: `logger -t sshd` says "sshd").
    From JSON, `pid`, `unit`, `comm` and `uid` are journald's (`_PID`, `_SYSTEMD_UNIT`,
    `_COMM`, `_UID`: taken from the kernel, never from the writer); from text they are
    None or the writer's word, and `trusted` is False."""

    at: float  # epoch seconds
    stamp: str  # as printed (JSON: the time in UTC, as short-iso-precise prints it)
    host: str
    ident: str  # sshd, systemd-logind, systemd ...
    pid: int | None
    message: str
    unit: str | None = None  # _SYSTEMD_UNIT (init.scope for PID 1)
    comm: str | None = None  # _COMM: the process' name (sshd, systemd-logind, logger ...)
    uid: int | None = None  # _UID
    trusted: bool = False  # pid, unit, comm and uid are journald's own fields

    @property
    def text(self) -> str:
        pid = f"[{self.pid}]" if self.pid is not None else ""
        return f"{self.stamp} {self.ident}{pid}: {self.message}"


@dataclass(frozen=True)
class Login:
    """One login as the journal shows it: sshd's lines for its process, and the session
    setup lines (logind, the user's manager) that belong to it.

    Times are epoch seconds, None when the journal has no such line (sshd logs the TCP
    connection only at LogLevel VERBOSE)."""

    pid: int
    user: str | None = None
    addr: str | None = None
    method: str | None = None
    connected_at: float | None = None  # "Connection from" (VERBOSE only)
    first_at: float | None = None  # sshd's first line for this process
    reverse_at: float | None = None  # first reverse-DNS complaint
    accepted_at: float | None = None
    opened_at: float | None = None  # pam_unix: session opened
    session_at: float | None = None  # logind: New session N of user U
    session_id: str | None = None
    scope_at: float | None = None  # systemd: Started session-N.scope (CreateSession done)
    session_failed: str | None = None  # pam_systemd: Failed to create session: ...
    session_failed_at: float | None = None
    manager_started: tuple[float, float] | None = None  # user@UID.service start..started
    uid: int | None = None
    lines: tuple[JournalLine, ...] = ()
    reverse_lines: tuple[JournalLine, ...] = ()

    @property
    def setup_done_at(self) -> float | None:
        """When session setup ended: logind's session and its scope (the scope starts after
        the user's manager when that had to start), or pam_systemd's failure."""
        ends = [t for t in (self.session_at, self.scope_at, self.session_failed_at)
                if t is not None]
        return max(ends) if ends else None

    @property
    def auth_seconds(self) -> float | None:
        """From sshd's first line (or the connection) to `Accepted`."""
        start = self.connected_at if self.connected_at is not None else self.first_at
        if start is None or self.accepted_at is None:
            return None
        return max(0.0, self.accepted_at - start)

    @property
    def setup_seconds(self) -> float | None:
        """From `session opened` to the end of session setup."""
        end = self.setup_done_at
        if self.opened_at is None or end is None:
            return None
        return max(0.0, end - self.opened_at)


# ------------------------------------------------------------------------------- boot


@dataclass(frozen=True)
class BlameEntry:
    seconds: float
    unit: str
    text: str  # the time as systemd printed it ("2min 359ms")


@dataclass(frozen=True)
class StartupTimes:
    """`systemd-analyze`: the phases of the last boot (kernel, userspace, ...), and the total."""

    phases: tuple[tuple[str, float], ...]
    total: float
    text: str

    def phase(self, name: str) -> float | None:
        return next((s for n, s in self.phases if n == name), None)


@dataclass(frozen=True)
class ChainUnit:
    """One line of `systemd-analyze critical-chain`: `unit @at +took` at a depth."""

    depth: int
    unit: str
    at: float | None
    took: float | None


@dataclass(frozen=True)
class NetLink:
    """One row of `networkctl list`."""

    index: int
    name: str
    type: str
    operational: str
    setup: str


# -------------------------------------------------------------------------- readings


@dataclass(frozen=True)
class Timed:
    """A command's output and how long it took (the NSS lookup is timed like sshd's)."""

    text: str
    seconds: float
    returncode: int = 0


@dataclass(frozen=True)
class UnitFile:
    """One file of `systemctl cat UNIT`: its path and its lines as written (line 1 is the
    file's first line)."""

    path: str
    lines: tuple[str, ...]

    @property
    def vendor(self) -> bool:
        """A file of the packages (/usr/lib, /lib), not the admin's (/etc) or runtime (/run)."""
        return self.path.startswith(("/usr/lib/", "/lib/"))

    @property
    def dropin(self) -> bool:
        return ".d/" in self.path


@dataclass(frozen=True)
class SshReading:
    """What the SSH panel read; every part has its own outcome."""

    taken_at: float
    is_root: bool
    client: str | None  # the client address looked at (the operator's own, if known)
    client_source: str  # where `client` came from ("$SSH_CONNECTION", "journal", ...)
    effective: Part[dict[str, tuple[str, ...]]]  # sshd -T
    effective_client: Part[dict[str, tuple[str, ...]]]  # sshd -T -C user=,addr=,host=
    sources: Part[SshdSources]
    logins: Part[tuple[Login, ...]]
    lookup: Part[Timed]  # getent hosts CLIENT (the PTR lookup sshd makes with UseDNS yes)
    forward: Part[Timed]  # getent ahosts NAME (sshd then checks the name it got, forward)
    resolv: Part[str]  # /etc/resolv.conf
    pam_systemd: Part[tuple[str, ...]]  # the pam_systemd lines of common-session
    services: Part[dict[str, str]]  # systemd-logind / dbus / ssh: is-active
    # `systemctl cat user@UID.service` of the user managers the journal saw starting for a
    # login (unit -> text: the unit and its drop-ins, each after a `# PATH` line)
    user_units: Part[dict[str, str]] | None = None
    # the session daemons' processes when a login's session failed (`ps`: comm ->
    # (pid, state letters): T = stopped)
    daemons: Part[dict[str, tuple[int, str]]] | None = None
    # `loginctl list-sessions` timed, when a login's session failed: does logind answer now?
    logind_now: Part[Timed] | None = None
    # the login journal's lines that look like sshd's, logind's or systemd's login lines
    # but came from another process (e.g. `logger -t sshd` in a user's session): ignored
    journal_ignored: tuple[JournalLine, ...] = ()
    journal_unreadable: int = 0  # its lines that were not a readable JSON entry: skipped
    # why the host could not be reached (ssh's reason), when a read found so: the reads
    # after it were not attempted, and `is_root` is then not known (False)
    unreachable: str | None = None


@dataclass(frozen=True)
class BootReading:
    taken_at: float
    is_root: bool
    startup: Part[StartupTimes]
    blame: Part[tuple[BlameEntry, ...]]
    chain: Part[tuple[ChainUnit, ...]]
    links: Part[tuple[NetLink, ...]]
    wait_online_enabled: Part[str]
    wait_online_journal: Part[tuple[JournalLine, ...]]
    wanted_by: Part[tuple[str, ...]]  # who wants network-online.target
    netplan: Part[str]  # `netplan get`
    booted_at: Part[float] | None = None  # when this boot began (epoch s, from /proc/uptime)
    boot_id: Part[str] | None = None  # /proc/sys/kernel/random/boot_id: which boot this is
    # wait-online's ExecStart commands as systemd has them loaded (drop-ins applied): what
    # the next boot runs (None: not read)
    wait_online_exec: Part[tuple[tuple[str, ...], ...]] | None = None
    # networking.service's journal of this boot (ifupdown's `ifup -a`: dhclient's lines)
    networking_journal: Part[tuple[JournalLine, ...]] | None = None
    # lines of the readings above that could not be read and were left out, the readable
    # ones kept: one sentence per reading (`critical chain: 1 line could not be read (line
    # 5: ...)`)
    skipped: tuple[str, ...] = ()
    unreachable: str | None = None  # as SshReading's: ssh's reason, when not reached


@dataclass(frozen=True)
class AppliedBootFix:
    """A boot fix applied from zconsole (read back from its plan record), as the boot panel
    judges it after the next boot: which fix, what it changed, when, and how long
    wait-online took at the boot it was applied on (None: not known)."""

    plan_id: str
    fix: str  # netplan-optional | wait-online-interface | wait-online-any | ifupdown-hotplug | mask
    what: str  # one line: "optional: true for eno2 in /etc/netplan/90-zconsole.yaml"
    applied_at: float
    wait_before: float | None
    boot_id: str | None = None  # the boot it was applied in (None: not known)
    # applied in a boot that did not wait (a fix undone since): how long the next boot would
    # have waited (the panel's "will wait up to", wait-online's timeout; None: not known)
    wait_limit: float | None = None
    # the unit whose time judges the fix: wait-online, or networking.service for ifupdown's
    # allow-hotplug when ifupdown held the boot it was applied in
    unit: str = "systemd-networkd-wait-online.service"


# ------------------------------------------------------------------------ diagnosis


@dataclass(frozen=True)
class Fix:
    """One fix, as text: what to change and what it costs or breaks. Never executed here.
    `plan`: the fix-it plan kind that applies it (the Host screen's `f`), "" if none."""

    title: str
    change: str
    cost: str
    plan: str = ""


@dataclass(frozen=True)
class Diagnosis:
    """A panel's conclusion. `verdict` is the one line; `findings` (the verdict's first)
    carry the evidence; `fixes` are narrowest first; `unread` says what could not be read
    (and what needs root) so an empty verdict is never mistaken for "all well"."""

    panel: str  # "ssh" | "boot"
    verdict: Finding
    findings: tuple[Finding, ...] = ()
    fixes: tuple[Fix, ...] = ()
    unread: tuple[str, ...] = ()
    advice: tuple[str, ...] = field(default_factory=tuple)  # for the operator's workstation
