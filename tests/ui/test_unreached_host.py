"""Issue 32: the console on a host it cannot reach says why in ssh's words, judges its pools
UNKNOWN, and its header claims nothing about the host (no NOT ROOT: whether zconsole is root
there is not known). So do the Disks screen (its "disk identities" read, not "all failed")
and the Host screen's fix-it panels (not "zconsole is not root")."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from textual.widgets import Static

from tests.ui.conftest import frozen, settle
from tests.ui.test_host_screen import panels_read
from zconsole.hosts.base import DEFAULT_TIMEOUT, HostUnreachable, Result
from zconsole.hosts.hold import Held
from zconsole.model.finding import Severity
from zconsole.services.read.catalogue import SYS_CLASS_BLOCK, ZFS_MODULE_VERSION
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.screens.disks.screen import DisksScreen
from zconsole.ui.screens.host.screen import HostScreen

WHY = ("cannot reach bad..host over ssh: Could not resolve hostname bad..host: Name or service "
       "not known")


class Unreached:
    """Every call fails as SshHost's do for a name that does not resolve."""

    kind = "ssh"
    simulated = False
    concurrent_reads = False
    label = "bad..host"

    def _fail(self) -> HostUnreachable:
        return HostUnreachable(WHY)

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        raise self._fail()

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *, timeout: float = DEFAULT_TIMEOUT,
                     check: bool = True) -> Result:
        raise self._fail()

    def hold(self, argv: Sequence[str], *, stdin: str,
             timeout: float = DEFAULT_TIMEOUT) -> Held | Result:
        raise self._fail()

    def read_text(self, path: str) -> str:
        raise self._fail()

    def list_dir(self, path: str) -> list[str]:
        raise self._fail()

    def realpath(self, path: str) -> str:
        raise self._fail()

    def now(self) -> float:
        return frozen()

    def is_root(self) -> bool:
        raise self._fail()

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        raise self._fail()


async def test_the_console_on_an_unreached_host() -> None:
    app = ZConsoleApp(Unreached(), clock=frozen, refresh_interval=3600)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        bar = app.screen.query_one(HeaderBar)
        assert "notroot" not in bar.badges
        assert app.reading is not None and not app.reading.reached
        # the host's verdict, as the monitor holds it for Fleet, `check` and the metrics
        verdict = app.monitor.verdict(app.current)
        assert verdict.level is Severity.UNKNOWN, verdict
        assert [f.message for f in verdict.findings] == [f"pool health unknown: {WHY}"]
        # and the screen says it in ssh's words
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "Could not resolve hostname bad..host" in shown


class UnreachedDisksFirst(Unreached):
    """As `Unreached`, reading in parallel as SshHost does, where the disk identities' reads
    (/sys/class/block, lsblk, udevadm) fail first and the refresh's other reads only after
    them: the inventory is then the read that finds the host unreachable, as it was with a
    real ssh when its thread happened to be first. (Which OpenZFS runs there is asked
    before the parallel reads: not held.)"""

    concurrent_reads = True
    FIRST = (("lsblk",), ("udevadm",), ("zfs", "version"))

    def __init__(self) -> None:
        self.disks_tried = threading.Event()

    def _after_the_disks(self) -> HostUnreachable:
        self.disks_tried.wait(timeout=10)
        return self._fail()

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        first = any(tuple(argv[:len(p)]) == p for p in self.FIRST)
        raise self._fail() if first else self._after_the_disks()

    def read_text(self, path: str) -> str:
        raise self._fail() if path == ZFS_MODULE_VERSION else self._after_the_disks()

    def list_dir(self, path: str) -> list[str]:
        if path == SYS_CLASS_BLOCK:
            self.disks_tried.set()
        raise self._fail()


def drawn(app: ZConsoleApp) -> str:
    """Every text the screen draws, each on one line (a long line is wrapped on screen)."""
    return "\n".join(" ".join(str(w.render()).split()) for w in app.screen.query(Static))


async def test_the_disks_screen_says_why_in_sshs_words() -> None:
    app = ZConsoleApp(UnreachedDisksFirst(), clock=frozen,  # type: ignore[arg-type]
                      refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        assert isinstance(app.screen, DisksScreen)
        shown = drawn(app)
        assert f"✖ Disks could not be listed: {WHY}" in shown, shown
        assert f"✖ disk identities: {WHY}" in shown, shown  # the problems panel's row
        assert "all failed" not in shown and "cannot list block devices" not in shown
        # the reading's "disk identities" row, as the monitor and Fleet have it
        assert app.reading is not None
        disks = app.reading.disks
        assert (disks.error, disks.error_type) == (WHY, "HostUnreachable"), disks


async def test_the_host_screen_says_why_never_not_root() -> None:
    app = ZConsoleApp(Unreached(), clock=frozen, refresh_interval=3600)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("6")
        screen = app.screen
        assert isinstance(screen, HostScreen)
        assert await panels_read(screen, pilot), "the fix-it panels were never read"
        await pilot.pause()
        verdicts = [" ".join(str(w.render()).split())
                    for w in screen.query(".fix-verdict").results(Static)]
        assert verdicts == [f"? Not judged: {WHY}"] * 2, verdicts
        shown = drawn(app)
        assert "not root" not in shown and "needs root" not in shown, shown
