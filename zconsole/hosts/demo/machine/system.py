"""The demo machine's system side, as far as the fix-it panels read it: sshd's effective
settings, the journal, name lookups, systemd's boot figures, networkd's links, unit states
and netplan's YAML. The sshd_config files themselves are in `Machine.files`.

The values are the shapes captured on the Debian 12 host guest (tests/fixtures/host/); a
scenario changes the few that make its fault."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class JournalEntry:
    at: float  # epoch seconds
    unit: str  # the unit it is filed under (ssh.service, systemd-logind.service, ...)
    ident: str  # SYSLOG_IDENTIFIER: the writer's own word
    pid: int
    message: str
    comm: str = ""  # the writer's process name (_COMM) when not `ident` (e.g. logger)
    uid: int = 0  # the writer's uid (_UID)


@dataclass(frozen=True)
class Lookup:
    """`getent hosts ADDR`: what it prints, its exit code and how long it takes."""

    stdout: str
    rc: int
    seconds: float


@dataclass
class System:
    # sshd -T: keyword -> values, for every client; and per client address prefix the
    # keywords a Match block changes (what `sshd -T -C addr=...` prints)
    sshd: dict[str, list[str]] = field(default_factory=dict)
    sshd_match: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    journal: list[JournalEntry] = field(default_factory=list)
    lookups: dict[str, Lookup] = field(default_factory=dict)  # "hosts ADDR", "ahosts NAME"
    startup: str = ""  # `systemd-analyze`
    blame: list[tuple[str, str]] = field(default_factory=list)  # (time as printed, unit)
    chain: str = ""  # `systemd-analyze critical-chain network-online.target`
    links: list[tuple[int, str, str, str, str]] = field(default_factory=list)
    enabled: dict[str, str] = field(default_factory=dict)
    active: dict[str, str] = field(default_factory=dict)
    wanted_by: list[str] = field(default_factory=list)  # of network-online.target
    netplan: str = ""
    # the running sshd: the UseDNS it read at its last (re)load (None: what `sshd` says),
    # and the seconds a login waits for the reverse lookup while it is `yes`
    running_usedns: str | None = None
    dns_delay: float = 0.0
    login_base: float = 0.31  # seconds of a login apart from the lookup (a loaded VM: more)
    logins: int = 0  # fresh logins made on the host (`ssh localhost`)
    # the boot fixes (tools/boot.py): netplan's version as dpkg knows it, directories made
    # with mkdir, the state a masked unit had before, the daemon-reloads made
    netplan_version: str = "0.106-2"
    dirs: set[str] = field(default_factory=set)
    unmasked: dict[str, str] = field(default_factory=dict)
    reloads: int = 0
    # the session setup (tools/session.py): the session daemons' processes (comm -> pid and
    # ps state letters; "T": stopped), logind's restarts
    daemons: dict[str, tuple[int, str]] = field(default_factory=lambda: {
        "dbus-daemon": (424, "Ss"), "systemd-logind": (428, "Ss")})
    logind_restarts: int = 0
