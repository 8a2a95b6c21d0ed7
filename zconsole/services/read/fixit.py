"""The fix-it panels' reads: what a slow SSH login and a boot held by wait-online depend on.

Read only. Each read is a `Part` with its own outcome; a read that needs root says so
exactly when zconsole is not root (`sshd -T` cannot read the host keys as a user and stops
with `sshd: no hostkeys available -- exiting.`; the journal shows a user only their own
lines unless they are in group adm or systemd-journal). Nothing is guessed.

The client address looked at is the operator's own (`$SSH_CONNECTION` of the session
zconsole runs in, given by the caller), else the address of the last login in the journal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from zconsole.hosts.base import (
    CommandFailed,
    Host,
    HostError,
    HostUnreachable,
    PathNotFound,
    PermissionDenied,
)
from zconsole.model.fixit import (
    BlameEntry,
    BootReading,
    ChainUnit,
    JournalLine,
    Login,
    NetLink,
    SshdSources,
    SshReading,
    StartupTimes,
    Timed,
)
from zconsole.model.reading import Part
from zconsole.parsers.errors import ParseError, Skipped, skipped_words
from zconsole.parsers.journal import (
    login_lines,
    logins_from_journal,
    parse_journal,
    parse_journal_json,
)
from zconsole.parsers.sshd import parse_sshd_config, parse_sshd_T
from zconsole.parsers.systemd import (
    parse_blame,
    parse_critical_chain,
    parse_exec_start,
    parse_networkctl_list,
    parse_startup,
)
from zconsole.services.read.boot_record import RECORDS, BootRecord
from zconsole.services.read.netplan_memo import MEMO as NETPLAN

T = TypeVar("T")

SSHD = "/usr/sbin/sshd"
SSHD_T: tuple[str, ...] = (SSHD, "-T")
SSHD_CONFIG = "/etc/ssh/sshd_config"
SSHD_CONFIG_D = "/etc/ssh/sshd_config.d"
RESOLV_CONF = "/etc/resolv.conf"
COMMON_SESSION = "/etc/pam.d/common-session"
PAM_GREP: tuple[str, ...] = ("grep", "-n", "pam_systemd", COMMON_SESSION)
def login_journal(since: str = "-2h") -> tuple[str, ...]:
    """The journal of logins since `since` (journalctl's form: `-2h`, `@EPOCH`, a date), as
    JSON: who wrote each line is journald's word (`_PID`, `_SYSTEMD_UNIT`, `_COMM`), not the
    writer's; the user scopes in this selection hold whatever their users log."""
    return ("journalctl", "--no-pager", "-o", "json", "--since", since,
            "-u", "ssh.service", "-u", "systemd-logind.service", "-u", "user@*.service",
            "-u", "session-*.scope")


LOGIN_JOURNAL: tuple[str, ...] = login_journal()
SERVICES: tuple[str, ...] = ("systemd-logind.service", "dbus.service", "ssh.service",
                             "ssh.socket")
IS_ACTIVE: tuple[str, ...] = ("systemctl", "is-active", *SERVICES)

DAEMONS = ("systemd-logind", "dbus-daemon")
PS_DAEMONS: tuple[str, ...] = ("ps", "-o", "pid=,stat=,comm=", "-C", ",".join(DAEMONS))
LOGINCTL: tuple[str, ...] = ("loginctl", "--no-pager", "--no-legend", "list-sessions")
USER_UNITS_MAX = 3  # user managers read (the newest that started for a login)


def unit_cat(unit: str) -> tuple[str, ...]:
    """`systemctl cat UNIT`: the unit file and its drop-ins, each after a `# PATH` line."""
    return ("systemctl", "cat", "--no-pager", unit)


SYSTEMD_ANALYZE: tuple[str, ...] = ("systemd-analyze",)
BLAME: tuple[str, ...] = ("systemd-analyze", "blame", "--no-pager")
CHAIN: tuple[str, ...] = ("systemd-analyze", "critical-chain", "--no-pager",
                          "network-online.target")
NETWORKCTL: tuple[str, ...] = ("networkctl", "list", "--no-pager")
WAIT_ONLINE = "systemd-networkd-wait-online.service"
IS_ENABLED_WAIT: tuple[str, ...] = ("systemctl", "is-enabled", WAIT_ONLINE)
WAIT_JOURNAL: tuple[str, ...] = ("journalctl", "--no-pager", "-b", "-u", WAIT_ONLINE, "-o",
                                 "short-iso-precise")
NETWORKING_JOURNAL: tuple[str, ...] = ("journalctl", "--no-pager", "-b", "-u",
                                       "networking.service", "-o", "short-iso-precise")
WANTS_ONLINE: tuple[str, ...] = ("systemctl", "list-dependencies", "--reverse", "--plain",
                                 "--no-pager", "network-online.target")
NETPLAN_GET: tuple[str, ...] = ("netplan", "get")
# as tests/integration/capture_host_fixtures.py captured it (show-wait-online.txt); only
# ExecStart is read
SHOW_WAIT: tuple[str, ...] = ("systemctl", "show", "-p", "ExecStart", "-p", "DropInPaths",
                              "-p", "ActiveState", "-p", "Result", WAIT_ONLINE)
UPTIME = "/proc/uptime"
BOOT_ID = "/proc/sys/kernel/random/boot_id"

TIMEOUT = 30.0
SLOW_TIMEOUT = 90.0  # systemd-analyze asks PID 1, slow on a loaded host
LOOKUP_TIMEOUT = 40.0  # a lookup that never answers costs glibc 2 x 5 s per server

NO_HOSTKEYS = "no hostkeys available"
# no line, only whether journalctl would show this user the system's lines (its hint)
JOURNAL_ACCESS: tuple[str, ...] = ("journalctl", "--no-pager", "-n", "0")
JOURNAL_NOT_ALL = ("not seeing messages from other users and the system",
                   "No journal files were opened due to insufficient permissions")


class NeedsRoot(HostError):
    """A read that only root can make, refused to a user."""


def sshd_t_connection(user: str, addr: str) -> tuple[str, ...]:
    """`sshd -T -C user=,addr=,host=`: the settings a login from `addr` gets, Match blocks
    applied. `host=` is the address: with UseDNS no that is what `Match Host` sees."""
    return (SSHD, "-T", "-C", f"user={user},addr={addr},host={addr}")


def client_from_ssh_connection(value: str | None) -> str | None:
    """The client address of `$SSH_CONNECTION` ("CLIENT CPORT SERVER SPORT")."""
    words = (value or "").split()
    return words[0] if len(words) == 4 else None


def _cmd(argv: Sequence[str]) -> str:
    return " ".join(argv)


class _Reader:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.unreachable: str | None = None
        try:
            self.is_root = bool(host.is_root())
        except HostUnreachable as e:  # not known, and no read after it can be made
            self.is_root = False
            self.unreachable = str(e)
        except HostError:
            self.is_root = False

    def part(self, source: str, fn: Callable[[], T]) -> Part[T]:
        if self.unreachable is not None:
            return Part(None, self.host.now(), source, f"not attempted: {self.unreachable}",
                        "Skipped")
        try:
            return Part(fn(), self.host.now(), source)
        except HostUnreachable as e:
            self.unreachable = str(e)
            return Part(None, self.host.now(), source, str(e), type(e).__name__)
        except (NeedsRoot, PermissionDenied) as e:
            return Part(None, self.host.now(), source, str(e), type(e).__name__,
                        needs_root=not self.is_root)
        except (HostError, ParseError, OSError) as e:
            return Part(None, self.host.now(), source, str(e) or type(e).__name__,
                        type(e).__name__)

    def run(self, argv: Sequence[str], timeout: float = TIMEOUT, check: bool = True) -> str:
        return self.host.run(argv, timeout=timeout, check=check).stdout

    def sshd_t(self, argv: Sequence[str]) -> dict[str, tuple[str, ...]]:
        try:
            return parse_sshd_T(self.run(argv))
        except CommandFailed as e:
            if NO_HOSTKEYS in e.stderr and not self.is_root:
                raise NeedsRoot(f"{_cmd(argv[:2])} needs root: as a user sshd cannot read "
                                f"the host keys ({e.stderr.strip()})") from None
            raise

    def journal_text(self, argv: Sequence[str]) -> str:
        if not self.is_root and "json" in argv:
            # journalctl keeps its "not seeing messages from other users" hint to itself in
            # JSON mode (systemd 252, host guest): asked in text, for no line at all
            self._system_journal_readable()
        r = self.host.run(argv, timeout=TIMEOUT, check=False)
        if any(s in r.stderr for s in JOURNAL_NOT_ALL) and not self.is_root:
            raise NeedsRoot("the system journal needs root (or group adm or "
                            "systemd-journal): journalctl showed a user only their own "
                            "lines")
        if r.returncode != 0:
            raise CommandFailed(r)
        return r.stdout

    def _system_journal_readable(self) -> None:
        r = self.host.run(JOURNAL_ACCESS, timeout=TIMEOUT, check=False)
        if any(s in r.stderr for s in JOURNAL_NOT_ALL):
            raise NeedsRoot("the system journal needs root (or group adm or "
                            "systemd-journal): journalctl showed a user only their own "
                            "lines")

    def journal(self, argv: Sequence[str], skipped: list[Skipped] | None = None
                ) -> tuple[JournalLine, ...]:
        """A system unit's journal as text (-o short-iso-precise): `-u UNIT` selects the
        unit's own processes (`_SYSTEMD_UNIT`) and what PID 1 or root says about it, so no
        user writes into it (on the host guest, a user's `logger --journald` lines naming
        UNIT=, OBJECT_SYSTEMD_UNIT= or COREDUMP_UNIT= of wait-online were not selected).
        The login journal, whose session scopes hold the users' own lines, is JSON."""
        return parse_journal(self.journal_text(argv), skipped=skipped)


def read_sshd_sources(host: Host) -> SshdSources:
    files = {SSHD_CONFIG: host.read_text(SSHD_CONFIG)}
    try:
        names = host.list_dir(SSHD_CONFIG_D)
    except PathNotFound:
        names = []
    problems: list[str] = []
    for name in sorted(names):
        path = f"{SSHD_CONFIG_D}/{name}"
        try:
            files[path] = host.read_text(path)
        except (PermissionDenied, OSError, HostError) as e:
            if isinstance(e, PathNotFound):
                continue
            problems.append(f"{path} could not be read: {e}")
    src = parse_sshd_config(SSHD_CONFIG, files)
    if problems:
        return SshdSources(src.lines, src.files, (*src.problems, *problems))
    return src


def _pam_systemd(text: str) -> tuple[str, ...]:
    """`grep -n pam_systemd` of common-session: its uncommented lines, as FILE:LINE: TEXT."""
    out = []
    for raw in text.split("\n"):  # PAM's lines end at \n only
        num, sep, line = raw.partition(":")
        if sep and num.isdigit() and not line.lstrip().startswith("#"):
            out.append(f"{COMMON_SESSION}:{num}: {' '.join(line.split())}")
    return tuple(out)


def _grep(r: _Reader, argv: Sequence[str]) -> str:
    res = r.host.run(argv, timeout=TIMEOUT, check=False)
    if res.returncode not in (0, 1):  # 1: no line matched, an answer too
        raise CommandFailed(res)
    return res.stdout


def _is_active(text: str) -> dict[str, str]:
    words = [w.strip() for w in text.split("\n") if w.strip()]
    if len(words) != len(SERVICES):
        raise ParseError("systemctl is-active", f"{len(words)} answers for {len(SERVICES)} "
                         "units")
    return dict(zip(SERVICES, words, strict=True))


def read_ssh(host: Host, client: str | None = None, client_source: str = "$SSH_CONNECTION",
             user: str = "root", since: str = "-2h") -> SshReading:
    """Everything the SSH panel shows. `client`: the operator's own address (from
    `$SSH_CONNECTION`); without it, the address of the last login in the journal. `since`:
    how far back logins are judged (the last two hours; after a change, since the change)."""
    journal_argv = login_journal(since)
    r = _Reader(host)
    effective = r.part(_cmd(SSHD_T), lambda: r.sshd_t(SSHD_T))
    sources = r.part(f"{SSHD_CONFIG} + {SSHD_CONFIG_D}/*.conf", lambda: read_sshd_sources(host))
    logins, ignored, unreadable = _logins(r, journal_argv)
    if client is None and logins.value:
        last = next((lg for lg in reversed(logins.value) if lg.addr), None)
        if last is not None:
            client, client_source = last.addr, "the last login in the journal"
            user = last.user or user
    if client is None:
        client_source = "no client address known"
    if client is not None:
        argv_c = sshd_t_connection(user, client)
        effective_client = r.part(_cmd(argv_c), lambda: r.sshd_t(argv_c))
        lookup_argv = ("getent", "hosts", client)

        def lookup() -> Timed:
            res = host.run(lookup_argv, timeout=LOOKUP_TIMEOUT, check=False)
            if res.returncode not in (0, 2):  # 2: not found, an answer too
                raise CommandFailed(res)
            return Timed(res.stdout, res.duration, res.returncode)

        looked: Part[Timed] = r.part(_cmd(lookup_argv), lookup)
        words = looked.value.text.split() if looked.value is not None else []
        if len(words) > 1:
            fwd_argv = ("getent", "ahosts", words[1])

            def forward() -> Timed:
                res = host.run(fwd_argv, timeout=LOOKUP_TIMEOUT, check=False)
                if res.returncode not in (0, 2):
                    raise CommandFailed(res)
                return Timed(res.stdout, res.duration, res.returncode)

            forwarded: Part[Timed] = r.part(_cmd(fwd_argv), forward)
        else:
            forwarded = Part(None, host.now(), "getent ahosts",
                             "the address has no name to check", "Skipped")
    else:
        effective_client = Part(None, host.now(), "sshd -T -C", "no client address known",
                                "Skipped")
        looked = Part(None, host.now(), "getent hosts", "no client address known", "Skipped")
        forwarded = Part(None, host.now(), "getent ahosts", "no client address known",
                         "Skipped")
    resolv = r.part(RESOLV_CONF, lambda: host.read_text(RESOLV_CONF))
    pam = r.part(_cmd(PAM_GREP), lambda: _pam_systemd(_grep(r, PAM_GREP)))
    services = r.part(_cmd(IS_ACTIVE), lambda: _is_active(r.run(IS_ACTIVE, check=False)))
    units = _managers(r, logins.value or ())
    if any(lg.session_failed for lg in logins.value or ()):
        daemons = r.part(_cmd(PS_DAEMONS), lambda: _ps(_grep(r, PS_DAEMONS)))

        def ask_logind() -> Timed:  # a logind that does not answer costs sd-bus's 25 s
            res = host.run(LOGINCTL, timeout=LOOKUP_TIMEOUT, check=False)
            return Timed(res.stdout + res.stderr, res.duration, res.returncode)

        logind_now: Part[Timed] = r.part(_cmd(LOGINCTL), ask_logind)
    else:
        daemons = Part(None, host.now(), _cmd(PS_DAEMONS), "no login's session failed",
                       "Skipped")
        logind_now = Part(None, host.now(), _cmd(LOGINCTL), "no login's session failed",
                          "Skipped")
    return SshReading(taken_at=host.now(), is_root=r.is_root, client=client,
                      client_source=client_source, effective=effective,
                      effective_client=effective_client, sources=sources, logins=logins,
                      lookup=looked, forward=forwarded, resolv=resolv, pam_systemd=pam,
                      services=services, user_units=units, daemons=daemons,
                      logind_now=logind_now, journal_ignored=ignored,
                      journal_unreadable=unreadable, unreachable=r.unreachable)


def _logins(r: _Reader, argv: Sequence[str]
            ) -> tuple[Part[tuple[Login, ...]], tuple[JournalLine, ...], int]:
    """The logins in the login journal, the lines that looked like login lines but came from
    other processes (ignored), and how many lines were no readable entry (skipped)."""
    skipped: list[tuple[tuple[JournalLine, ...], int]] = []

    def read() -> tuple[Login, ...]:
        lines, unreadable = parse_journal_json(r.journal_text(argv))
        skipped.append((login_lines(lines)[1], unreadable))
        return logins_from_journal(lines)

    part = r.part(_cmd(argv), read)
    ignored, unreadable = skipped[0] if skipped else ((), 0)
    return part, ignored, unreadable


def _managers(r: _Reader, logins: Sequence[Login]) -> Part[dict[str, str]]:
    """`systemctl cat` of the user managers that started for a login (the newest few): where
    their drop-ins are, and what they run before the manager starts."""
    units: list[str] = []
    for lg in reversed(logins):
        if lg.manager_started is not None and lg.uid is not None:
            unit = f"user@{lg.uid}.service"
            if unit not in units:
                units.append(unit)
    units = units[:USER_UNITS_MAX]
    source = _cmd(unit_cat("user@UID.service"))
    if not units:
        return Part(None, r.host.now(), source, "no user manager started for a login",
                    "Skipped")
    return r.part(source, lambda: {u: r.run(unit_cat(u)) for u in units})


def _ps(text: str) -> dict[str, tuple[int, str]]:
    """`ps -o pid=,stat=,comm=` lines as comm -> (pid, state letters)."""
    out: dict[str, tuple[int, str]] = {}
    for line in text.split("\n"):  # a command line may hold U+2028: not a new line
        words = line.split()
        if len(words) == 3 and words[0].isdigit():
            out[words[2]] = (int(words[0]), words[1])
    return out


def _wanted_by(text: str) -> tuple[str, ...]:
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    return tuple(ln for ln in lines[1:])


def read_boot(host: Host) -> BootReading:
    """Everything the boot panel shows (none of it needs root on systemd 252). The boot's
    own record (startup, blame, critical chain) is read once per boot and Host object
    (`boot_record`); the rest at every reading."""
    r = _Reader(host)
    boot_id = r.part(BOOT_ID, lambda: host.read_text(BOOT_ID).strip())
    bad: dict[str, list[Skipped]] = {"critical chain": [], "wait-online journal": [],
                                     "networking journal": []}
    kept = RECORDS.get(host, boot_id.value) if boot_id.value else None
    record = kept if kept is not None else _read_record(r, boot_id, bad["critical chain"])
    links: Part[tuple[NetLink, ...]] = r.part(
        _cmd(NETWORKCTL), lambda: parse_networkctl_list(r.run(NETWORKCTL)))
    enabled = r.part(_cmd(IS_ENABLED_WAIT),
                     lambda: r.run(IS_ENABLED_WAIT, check=False).strip())
    journal = r.part(_cmd(WAIT_JOURNAL),
                     lambda: r.journal(WAIT_JOURNAL, bad["wait-online journal"]))
    networking = r.part(_cmd(NETWORKING_JOURNAL),
                        lambda: r.journal(NETWORKING_JOURNAL, bad["networking journal"]))
    wanted = r.part(_cmd(WANTS_ONLINE), lambda: _wanted_by(r.run(WANTS_ONLINE)))
    netplan = r.part(_cmd(NETPLAN_GET), lambda: NETPLAN.get(
        host, lambda: r.run(NETPLAN_GET, SLOW_TIMEOUT)))
    exec_start = r.part(_cmd(SHOW_WAIT), lambda: parse_exec_start(r.run(SHOW_WAIT)))
    booted = r.part(UPTIME, lambda: _booted_at(host))
    if kept is None and not bad["critical chain"]:
        RECORDS.keep(host, record)
    return BootReading(taken_at=host.now(), is_root=r.is_root, startup=record.startup,
                       blame=record.blame, chain=record.chain, links=links,
                       wait_online_enabled=enabled, wait_online_journal=journal,
                       wanted_by=wanted, netplan=netplan, booted_at=booted, boot_id=boot_id,
                       wait_online_exec=exec_start, networking_journal=networking,
                       unreachable=r.unreachable,
                       skipped=tuple(f"{what}: {skipped_words(lines, 'line')}, left out"
                                     for what, lines in bad.items() if lines))


def _read_record(r: _Reader, boot_id: Part[str], chain_bad: list[Skipped]) -> BootRecord:
    """The boot's record read now (its `boot_id` empty when that could not be read)."""
    startup: Part[StartupTimes] = r.part(
        _cmd(SYSTEMD_ANALYZE), lambda: parse_startup(r.run(SYSTEMD_ANALYZE, SLOW_TIMEOUT)))
    blame: Part[tuple[BlameEntry, ...]] = r.part(
        _cmd(BLAME), lambda: parse_blame(r.run(BLAME, SLOW_TIMEOUT)))
    chain: Part[tuple[ChainUnit, ...]] = r.part(
        _cmd(CHAIN), lambda: parse_critical_chain(r.run(CHAIN, SLOW_TIMEOUT),
                                                  skipped=chain_bad))
    return BootRecord(boot_id.value or "", startup, blame, chain)


def _booted_at(host: Host) -> float:
    """When this boot began: the host's clock less /proc/uptime's first figure."""
    text = host.read_text(UPTIME)
    try:
        return host.now() - float(text.split()[0])
    except (ValueError, IndexError):
        raise ParseError(UPTIME, "not `SECONDS IDLE`", 1, text[:80]) from None
