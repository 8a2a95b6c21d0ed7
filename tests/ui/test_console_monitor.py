"""Issue 28 §2: the console records its refreshes through the headless monitor
(services/monitor): its subscribers hear every host the console reads, with the verdict the
Fleet row shows; a refresh that raised is UNKNOWN there."""

from __future__ import annotations

from tests.ui.test_fleet_screen import Clock, answered, fleet_app
from zconsole.hosts.demo import DemoHost
from zconsole.model.finding import Severity
from zconsole.services.fleet import Member, fleet_row
from zconsole.services.health.severity import HostVerdict
from zconsole.ui.app import ZConsoleApp


async def test_the_consoles_refreshes_go_through_the_monitor() -> None:
    clock = Clock()
    members = [Member.of("a", DemoHost("healthy", clock=clock)),
               Member.of("b", DemoHost("degraded", clock=clock))]
    app: ZConsoleApp = fleet_app(clock, members)
    heard: list[tuple[str, HostVerdict]] = []
    app.monitor.subscribe(lambda name, _reading, verdict: heard.append((name, verdict)))
    assert app.monitor.members == app.members
    async with app.run_test(size=(120, 40)) as pilot:
        await answered(app, pilot)
        assert {n: v.level for n, v in heard} == {"a": Severity.OK, "b": Severity.CRITICAL}
        for m in app.members:
            assert fleet_row(m, app.mono(), app.stale_after).state is app.monitor.verdict(
                m).level
        app.post_message(ZConsoleApp.RefreshFailed("RuntimeError: gone", members[0]))
        await pilot.pause()
        assert heard[-1][0] == "a" and heard[-1][1].level is Severity.UNKNOWN
        assert fleet_row(members[0], app.mono(), app.stale_after).state is Severity.UNKNOWN
