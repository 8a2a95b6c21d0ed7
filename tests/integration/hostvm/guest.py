"""The running host guest, as tests and fault recipes use it.

`HostGuest` wraps tools/testvm's `HostInstance`: commands over the ssh master connection
(`exec`), fresh OpenSSH logins timed like an operator's (`login_seconds`), QEMU's monitor,
reboots, and systemd's own boot figures (`boot_figures`, `blame`) parsed into seconds.
"""

from __future__ import annotations

import re
import shlex
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vmguest import VmGuest

if TYPE_CHECKING:
    from zconsole.hosts.ssh import SshHost

ALIAS = "hostvm"


def parse_timespan(text: str) -> float:
    """systemd's time spans in seconds: '2min 359ms', '1.085s', '945ms', '1h 2min 3.5s', '12us'."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
    total = 0.0
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(us|µs|ms|min|s|h|d)\b", text)
    if not parts:
        raise ValueError(f"not a systemd time span: {text!r}")
    for value, unit in parts:
        total += float(value) * units["us" if unit == "µs" else unit]
    return total


@dataclass(frozen=True)
class BootFigures:
    """`systemd-analyze` of the current boot."""

    kernel_s: float
    userspace_s: float
    total_s: float
    text: str


def parse_systemd_analyze(text: str) -> BootFigures:
    """'Startup finished in 6.967s (kernel) + 2min 9.636s (userspace) = 2min 16.603s'."""
    m = re.search(r"Startup finished in (.+?) \(kernel\) \+ (.+?) \(userspace\) = (.+?)\s*$",
                  text, re.M)
    if not m:
        raise ValueError(f"no 'Startup finished' in: {text!r}")
    return BootFigures(parse_timespan(m.group(1)), parse_timespan(m.group(2)),
                       parse_timespan(m.group(3)), m.group(0))


def parse_blame(text: str) -> list[tuple[float, str]]:
    """`systemd-analyze blame` lines as (seconds, unit), slowest first."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*(.+?)\s+(\S+\.(?:service|mount|device|socket|target|timer|swap|scope|path|slice))\s*$", line)
        if m:
            try:
                rows.append((parse_timespan(m.group(1)), m.group(2)))
            except ValueError:
                continue
    return rows


# What `systemd-analyze blame` reads of each unit (systemd 252, src/analyze/
# analyze-time-data.c, acquire_time_data: the same in v252.31): activating, activated,
# deactivated, in microseconds of CLOCK_MONOTONIC
BLAME_PROPERTIES = ("InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic",
                    "InactiveEnterTimestampMonotonic")


def blame_seconds(show: str) -> float | None:
    """A unit's seconds as `systemd-analyze blame` says them, from `systemctl show` of
    BLAME_PROPERTIES (`Name=value` lines: `--value` would give them in the bus's order, not
    in -p order), by blame's own arithmetic (systemd 252 acquire_time_data): activated -
    activating when activated >= activating, else deactivated - activating (a unit that
    failed, as wait-online's timeout), else 0. None where blame lists no line: the unit never
    started (activating 0) or took no time. Blame prints it cut to the millisecond
    (format_timespan); this is the microsecond it is made of. On the system manager outside a
    container blame subtracts no offset (acquire_boot_times: reverse_offset stays 0)."""
    props = dict(line.split("=", 1) for line in show.splitlines() if "=" in line)
    try:
        activating, activated, deactivated = (int(props[name]) for name in BLAME_PROPERTIES)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"not `systemctl show` of {BLAME_PROPERTIES}: {show!r}") from exc
    if activated >= activating:
        usec = activated - activating
    elif deactivated >= activating:
        usec = deactivated - activating
    else:
        usec = 0
    return None if activating == 0 or usec <= 0 else usec / 1e6


class HostGuest(VmGuest):
    """A booted host guest (shared by the test session: tests leave it as they found it)."""

    alias = ALIAS

    def __init__(self, instance: Any, install_times: dict[str, float] | None = None) -> None:
        super().__init__(instance)
        # zconsole's install in this guest (conftest host_zconsole): the seconds of each step;
        # empty until then
        self.install_times = dict(install_times or {})
        # a developer's running guest (ZCONSOLE_HOSTVM_ATTACH): zconsole is not reinstalled
        self.attached = False
        self._console_host: SshHost | None = None  # console_host(): this boot's

    def console_host(self) -> SshHost:
        """zconsole's SshHost into the guest as root, one for this boot, shared by the
        session's tests as an operator's console keeps one for its session (issue 33). What
        zconsole keeps per Host object and boot is then read once a boot, not once a test:
        the boot's record (services/read/boot_record.py; on this guest `systemd-analyze
        blame` cost 10.5 guest CPU s and the critical chain 3.3 in one Host screen test,
        2026-11-30) and netplan's answer. `reboot` lets it go: a new boot, a new console."""
        if self._console_host is None:
            from zconsole.hosts.ssh import SshHost

            self._console_host = SshHost(f"root@{self.alias}", ssh_config=str(self.ssh_config))
        return self._console_host

    def _drop_console_host(self) -> None:
        host, self._console_host = self._console_host, None
        if host is not None:
            host.close()

    @property
    def instance(self) -> Any:
        """tools/testvm's HostInstance underneath (for install_zconsole and the like)."""
        return self._inst

    # -- commands --------------------------------------------------------------------------
    def write_file(self, path: str, text: str, mode: str = "0644") -> None:
        q = shlex.quote(path)
        self.exec(f"mkdir -p \"$(dirname {q})\" && cat > {q} && chmod {mode} {q}", input=text)

    # -- ssh as an operator ----------------------------------------------------------------
    def ssh_argv(self, *remote: str, fresh: bool = True, tty: bool = False) -> list[str]:
        """OpenSSH argv into the guest. fresh: a new connection and login (no master)."""
        argv = ["ssh", "-F", str(self.ssh_config)]
        if fresh:
            # no keepalive either, as in OpenSSH's defaults: the ssh_config's 10 s x 6 would
            # end a login that waits in PAM (sshd answers no keepalive meanwhile) after 60 s
            argv += ["-o", "ControlMaster=no", "-o", "ControlPath=none",
                     "-o", "ServerAliveInterval=0"]
        if tty:
            argv.append("-t")
        return [*argv, self.alias, *remote]

    def login_seconds(self, samples: int = 3, timeout: float = 300.0,
                      pause: float = 0.0) -> list[float]:
        """Seconds of `ssh hostvm true`, each a new connection and login, like an operator's."""
        out = []
        for i in range(samples):
            if i and pause:
                time.sleep(pause)
            t0 = time.monotonic()
            proc = subprocess.run(self.ssh_argv("true"), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=timeout)
            elapsed = time.monotonic() - t0
            if proc.returncode != 0:
                raise AssertionError(f"ssh true failed (rc {proc.returncode}): {proc.stderr}")
            out.append(round(elapsed, 2))
        return out

    @staticmethod
    def median(values: Sequence[float]) -> float:
        return round(statistics.median(values), 2)

    def close_master(self) -> None:
        """Close the ssh master connection (its login session ends in the guest)."""
        self._inst._close_master()

    def open_master(self) -> None:
        self._inst._start_master()

    # -- boot ------------------------------------------------------------------------------
    def reboot(self, timeout: float = 600.0) -> float:
        """systemctl reboot; seconds until ssh answers on the new boot (boot may go on). The
        boot's console host goes with it (`console_host`)."""
        self._drop_console_host()
        return float(self._inst.reboot(timeout=timeout))

    def wait_booted(self, timeout: float = 600.0) -> str:
        """Wait for the end of boot: systemd's state ('running', 'degraded', ...)."""
        return str(self._inst.wait_booted(timeout=timeout))

    def boot_figures(self) -> BootFigures:
        return parse_systemd_analyze(self.exec("systemd-analyze", timeout=300).stdout)

    def blame(self) -> list[tuple[float, str]]:
        # generous: PID 1 answers slowly on a loaded TCG guest (60 s was seen to run out)
        return parse_blame(self.exec("systemd-analyze blame --no-pager", timeout=300).stdout)

    def unit_show(self, unit: str) -> str:
        """`systemctl show` of what blame reads of the unit (BLAME_PROPERTIES)."""
        argv = ["systemctl", "show", *(a for p in BLAME_PROPERTIES for a in ("-p", p)), unit]
        return self.exec(argv, timeout=300).stdout

    def unit_seconds(self, unit: str) -> float | None:
        """The unit's start-up time as `systemd-analyze blame` says it, None when blame has
        no line for it (it did not run). From the unit's own timestamps (blame_seconds): a
        whole blame asks PID 1 for every unit's properties (10.5 guest CPU s under TCG,
        2026-11-30), this for one unit's. `blame()` is there for a cross-check and for
        failure messages."""
        return blame_seconds(self.unit_show(unit))

    def journal(self, *args: str, since_boot: bool = True) -> str:
        argv = ["journalctl", "--no-pager", "-o", "short-precise", *(["-b"] if since_boot else []),
                *args]
        return self.exec(argv, check=False, timeout=60).stdout

    def sshd_effective(self, connection: str | None = "user=root,host=10.0.2.2,addr=10.0.2.2"
                       ) -> dict[str, str]:
        """`sshd -T` (with `-C connection`: the settings a login from QEMU's gateway gets,
        Match blocks applied) as a dict of lower-case keyword -> value."""
        argv = ["sshd", "-T"] + (["-C", connection] if connection else [])
        out = self.exec(argv, timeout=60).stdout
        return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)

    def __repr__(self) -> str:
        return f"HostGuest(ssh_config={str(self.ssh_config)!r})"


OPERATOR = "zcop"  # a second account, so root's ssh master connection keeps nothing alive


def guest_now(g: HostGuest) -> str:
    """The guest's clock as `journalctl --since` takes it (`@EPOCH`)."""
    return "@" + g.exec("date +%s").stdout.strip()


def ensure_operator(g: HostGuest) -> None:
    """The operator account (OPERATOR) with root's authorized key, made once."""
    g.exec(f"""id {OPERATOR} >/dev/null 2>&1 || useradd -m -s /bin/bash {OPERATOR}
install -d -m 700 -o {OPERATOR} -g {OPERATOR} /home/{OPERATOR}/.ssh
install -m 600 -o {OPERATOR} -g {OPERATOR} /root/.ssh/authorized_keys /home/{OPERATOR}/.ssh/""")
