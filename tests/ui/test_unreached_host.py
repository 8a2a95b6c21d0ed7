"""Issue 32: the console on a host it cannot reach says why in ssh's words, judges its pools
UNKNOWN, and its header claims nothing about the host (no NOT ROOT: whether zconsole is root
there is not known)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tests.ui.conftest import frozen, settle
from zconsole.hosts.base import DEFAULT_TIMEOUT, HostUnreachable, Result
from zconsole.hosts.hold import Held
from zconsole.model.finding import Severity
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar

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
