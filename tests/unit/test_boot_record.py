"""The boot's own record (startup line, blame, critical chain) is read once per boot and
Host object: the panel's next reading of the same boot, and a plan's re-check, take it
from there; a reboot, another Host object, a boot still starting or a failed read read it
anew (services/read/boot_record.py)."""

from __future__ import annotations

from collections.abc import Sequence

from tests.unit.test_services_fixit import FixtureHost
from zconsole.hosts.base import DEFAULT_TIMEOUT, CommandFailed, PathNotFound, Result
from zconsole.services.health.boot import diagnose_boot
from zconsole.services.read import fixit as read
from zconsole.services.read.netplan_memo import NETPLAN_FILES

RECORD = (read.SYSTEMD_ANALYZE, read.BLAME, read.CHAIN)


class BootingHost(FixtureHost):
    """The captured wait-online hang, with a boot id and an uptime, and what systemd says
    while the boot is still starting (`starting`)."""

    def __init__(self, boot_id: str = "b0") -> None:
        super().__init__("wait-online-hang")
        self.boot_id = boot_id
        self.starting = False
        self.blame_fails = False

    def read_text(self, path: str) -> str:
        if path == read.BOOT_ID:
            return self.boot_id + "\n"
        if path == read.UPTIME:
            return "600.00 500.00\n"
        return super().read_text(path)

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        a = tuple(argv)
        if a == read.SYSTEMD_ANALYZE and self.starting:
            self.ran.append(a)
            return Result(a, 0, "Bootup is not yet finished (org.freedesktop.systemd1.Manager"
                          ".FinishTimestampMonotonic=0).\n", "", 0.0)
        if a == read.BLAME and self.blame_fails:
            self.ran.append(a)
            raise CommandFailed(Result(a, 1, "", "Failed to get unit list: timed out", 0.0))
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def record_reads(host: FixtureHost) -> int:
    return sum(a in RECORD for a in host.ran)


def test_the_same_boot_is_read_once_and_judged_alike() -> None:
    host = BootingHost()
    first = read.read_boot(host)
    assert record_reads(host) == 3
    ran = len(host.ran)
    second = read.read_boot(host)
    assert record_reads(host) == 3  # startup, blame and chain not asked again
    assert len(host.ran) - ran == ran - 3  # every other read made again
    assert second.blame == first.blame and second.chain == first.chain
    assert second.startup == first.startup and second.boot_id is not None
    assert second.boot_id.value == "b0"
    assert diagnose_boot(second).verdict == diagnose_boot(first).verdict
    assert diagnose_boot(first).verdict.kind == "boot-wait-online"


def test_a_reboot_reads_the_record_again() -> None:
    host = BootingHost()
    read.read_boot(host)
    host.boot_id = "b1"
    read.read_boot(host)
    assert record_reads(host) == 6
    read.read_boot(host)
    assert record_reads(host) == 6


def test_another_host_object_reads_its_own() -> None:
    a, b = BootingHost(), BootingHost()
    read.read_boot(a)
    read.read_boot(b)
    assert record_reads(a) == record_reads(b) == 3


def test_a_boot_still_starting_is_read_every_time() -> None:
    host = BootingHost()
    host.starting = True
    r = read.read_boot(host)
    assert not r.startup.ok and "not finished" in (r.startup.error or "")
    read.read_boot(host)
    assert record_reads(host) == 6
    host.starting = False  # the boot ends: its record is read, then kept
    read.read_boot(host)
    read.read_boot(host)
    assert record_reads(host) == 9


def test_a_failed_read_is_not_kept() -> None:
    host = BootingHost()
    host.blame_fails = True
    r = read.read_boot(host)
    assert not r.blame.ok
    host.blame_fails = False
    again = read.read_boot(host)
    assert again.blame.ok and record_reads(host) == 6
    read.read_boot(host)
    assert record_reads(host) == 6


def test_without_a_boot_id_nothing_is_kept() -> None:
    class NoBootId(BootingHost):
        def read_text(self, path: str) -> str:
            if path == read.BOOT_ID:
                raise PathNotFound(path)
            return super().read_text(path)

    host = NoBootId()
    read.read_boot(host)
    read.read_boot(host)
    assert record_reads(host) == 6


# ------------------------------------------------------------------ netplan get, kept

class NetplanHost(BootingHost):
    """Answers the listing of netplan's files (`find`) from `files`, which a test changes."""

    def __init__(self) -> None:
        super().__init__()
        self.files = "/etc/netplan/01-hostvm.yaml 412 1764000000.5 1764000000.5\n"

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        a = tuple(argv)
        if a == NETPLAN_FILES:
            self.ran.append(a)
            return Result(a, 0, self.files, "", 0.0)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def netplan_reads(host: FixtureHost) -> int:
    return host.ran.count(read.NETPLAN_GET)


def test_netplan_is_asked_again_only_when_its_files_changed() -> None:
    host = NetplanHost()
    first = read.read_boot(host)
    assert first.netplan.ok and "lan1" in (first.netplan.value or "")
    second = read.read_boot(host)
    assert netplan_reads(host) == 1 and second.netplan.value == first.netplan.value
    host.files = host.files.replace("1764000000.5\n", "1764000099.1\n")  # written (ctime)
    read.read_boot(host)
    assert netplan_reads(host) == 2
    host.files += "/etc/netplan/90-zconsole.yaml 60 1764000100.0 1764000100.0\n"
    read.read_boot(host)
    read.read_boot(host)
    assert netplan_reads(host) == 3


def test_netplan_is_asked_every_time_without_a_listing() -> None:
    host = BootingHost()  # its `find` was not captured: a HostError
    read.read_boot(host)
    read.read_boot(host)
    assert netplan_reads(host) == 2


def test_netplan_files_are_listed_as_one_argv() -> None:
    assert NETPLAN_FILES[:2] == ("find", "-L") and "-printf" in NETPLAN_FILES
    assert NETPLAN_FILES[-1] == "%p %s %T@ %C@\\n"  # find's own escape for a newline
