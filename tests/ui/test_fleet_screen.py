"""The Fleet screen (key 9): one row per host, a dead host's row says since when it does not
answer (never its last ONLINE), a host that does not answer never holds the others' refreshes,
and enter shows the highlighted host on every screen. The demo fleet: the demo host in
several scenarios and a host that never answers (hosts.silent), on a frozen clock."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.ui.conftest import FROZEN, settle
from tests.ui.test_hostile_host import screen_text
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.fleet import demo_fleet, make_host
from zconsole.hosts.silent import SilentHost
from zconsole.services.fleet import Member
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.fleet.screen import FleetScreen
from zconsole.ui.screens.pools.screen import PoolsScreen

SIZES = [(80, 24), (120, 40)]


class Clock:
    """A frozen clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = FROZEN

    def __call__(self) -> float:
        return self.t


def fleet_app(clock: Clock, members: list[Member] | None = None) -> ZConsoleApp:
    if members is None:
        members = [Member.of(e.name, make_host(e, clock=clock), e.tags, timeout=60)
                   for e in demo_fleet()]
    return ZConsoleApp(members[0].host, fleet=members, clock=clock, refresh_interval=3600)


@pytest.fixture
def woken() -> Iterator[list[ZConsoleApp]]:
    """Apps whose silent hosts are woken at the end (their waits end with the test)."""
    apps: list[ZConsoleApp] = []
    yield apps
    for app in apps:
        for m in app.members:
            if isinstance(m.host, SilentHost):
                m.host.wake()


async def answered(app: ZConsoleApp, pilot: Any) -> None:
    """Every host that answers has been read once (the silent one is still waiting)."""
    for _ in range(2000):
        if all(m.session.last is not None for m in app.members
               if not isinstance(m.host, SilentHost)):
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the answering hosts were never read")
    await settle(app, pilot)


async def open_fleet(app: ZConsoleApp, pilot: Any, clock: Clock, later: float = 40) -> FleetScreen:
    await answered(app, pilot)
    await pilot.press("9")
    clock.t += later
    await pilot.pause()
    app._tick_frame()  # the frame's one-second tick, now
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    return screen


async def test_one_row_per_host_and_the_dead_one_says_since_when(
        woken: list[ZConsoleApp]) -> None:
    clock = Clock()
    app = fleet_app(clock)
    woken.append(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_fleet(app, pilot, clock)
        rows = {r.name: r for r in screen.rows}
        assert list(rows) == ["demo-showcase", "demo-degraded", "demo-resilvering",
                              "demo-no-answer"]
        # two mirrors down to one disk each: CRITICAL on the one scale (health/severity.py)
        assert rows["demo-degraded"].state.name == "CRITICAL"
        # the table shows them worst first; the cursor stays on the host on screen
        assert [screen.rows[i].name for i in screen.order] == [
            "demo-degraded", "demo-no-answer", "demo-showcase", "demo-resilvering"]
        assert screen.highlighted() == 0  # demo-showcase, the host on screen
        assert rows["demo-resilvering"].scans[0].startswith("tank: resilver ")
        dead = rows["demo-no-answer"]
        assert dead.state.name == "UNKNOWN" and dead.age == "no answer for 40 s"
        # the dead host held nobody: every other host was read while it still waits
        dead_member = app.members[-1]
        assert dead_member.session.running and dead_member.session.last is None
        assert all(m.session.refreshes == 1 for m in app.members[:-1])
        text = screen_text(app)
        assert "no answer for 40 s" in text and "✖ CRITICAL" in text
        await pilot.press("up", "up")  # the line under the table: its highest finding
        await pilot.pause()
        assert "demo-degraded: tank: no redundancy left in mirror-0 " in screen_text(app)
        clock.t += 60
        app._tick_frame()
        await pilot.pause()
        assert "no answer for 1 min" in screen_text(app)


async def test_a_host_that_stops_answering_never_shows_its_last_state(
        woken: list[ZConsoleApp]) -> None:
    clock = Clock()
    members = [Member.of("a", DemoHost("healthy", clock=clock)),
               Member.of("b", DemoHost("degraded", clock=clock))]
    app = fleet_app(clock, members)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_fleet(app, pilot, clock, later=10)
        assert [r.state.name for r in screen.rows] == ["OK", "CRITICAL"]
        clock.t += app.stale_after + 50  # no refresh since (refresh interval 1 h)
        app._tick_frame()
        await pilot.pause()
        assert [r.state.name for r in screen.rows] == ["UNKNOWN", "UNKNOWN"]
        assert all(r.age.startswith("no answer for ") for r in screen.rows)
        assert "✔ OK" not in screen_text(app)


async def test_enter_shows_that_host_on_every_screen(woken: list[ZConsoleApp]) -> None:
    clock = Clock()
    app = fleet_app(clock)
    woken.append(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_fleet(app, pilot, clock)
        assert app.host.label == "demo: showcase"
        await pilot.press("2")  # the Disks screen, made for the first host
        await pilot.press("9", "up", "up", "enter")  # demo-degraded: the first row, the worst
        await pilot.pause()
        assert app.current is app.members[1] and app.host.label == "demo: degraded"
        assert app.session is app.members[1].session
        assert isinstance(app.screen, PoolsScreen)
        await settle(app, pilot)
        shot = screen_text(app)
        assert "demo: degraded" in shot and "DEGRADED" in shot
        await pilot.press("2")  # made again, for this host
        await pilot.pause()
        assert "demo: degraded" in screen_text(app)
        await pilot.press("9")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        assert "demo: degraded" in screen_text(app)
        # the dead host can be shown too: its screens say it does not answer (the next row)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.host.label == "demo: no-answer"
        assert app.reading is None


async def test_host_names_are_shown_as_plain_text(woken: list[ZConsoleApp]) -> None:
    clock = Clock()
    members = [Member.of("[b]nas[/b] \x1b[31m", DemoHost("healthy", clock=clock))]
    app = fleet_app(clock, members)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_fleet(app, pilot, clock, later=1)
        shot = screen_text(app)
        assert "[b]nas[/b] \\x1b[31m" in shot


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fleet_pictures(snap_compare: Any, size: tuple[int, int],
                        woken: list[ZConsoleApp]) -> None:
    clock = Clock()
    app = fleet_app(clock)
    woken.append(app)

    async def run_before(pilot: Any) -> None:
        await open_fleet(app, pilot, clock)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_the_header_names_the_host_as_the_hosts_file_does(
        woken: list[ZConsoleApp]) -> None:
    """A hosts-file name ("nas1") is what the operator calls the host: the header shows it,
    with the ssh destination (here the demo's host name) beside it when they differ."""
    clock = Clock()
    members = [Member.of("nas1", DemoHost("healthy", clock=clock)),
               Member.of("b", DemoHost("degraded", clock=clock))]
    members[1] = Member.of(members[1].host.label, members[1].host)  # the same name
    app = fleet_app(clock, members)
    async with app.run_test(size=(120, 40)) as pilot:
        await answered(app, pilot)
        label = members[0].host.label
        assert label != "nas1"
        assert f"zconsole · Pools · nas1 ({label}) · OpenZFS" in screen_text(app)
        await pilot.press("9", "up", "enter")  # the degraded host: the first row, the worst
        await settle(app, pilot)
        text = screen_text(app)
        other = members[1].host.label
        assert f"· {other} · OpenZFS" in text and f"({other})" not in text


async def test_plans_in_flight_on_another_host_are_offered_and_continued_there(
        tmp_path: Any) -> None:
    """A plan left in flight on the second host of a fleet is found (not only the first
    host's), offered under that host's name, and continued on it: the screens switch to it."""
    from zconsole.hosts.journal import PlanStore
    from zconsole.services.ops.engine.plan_io import plan_to_dict
    from zconsole.services.ops.fixit import ssh as fix_ssh
    from zconsole.ui.wizards.resume import ResumeScreen
    from zconsole.ui.wizards.screen import WizardScreen

    clock = Clock()
    slow = DemoHost("slow-ssh", clock=clock)
    plan = fix_ssh.plan_for(slow)
    PlanStore(tmp_path / "plans").save(plan_to_dict(plan), [])  # stopped before its 1st step
    members = [Member.of("nas1", DemoHost("healthy", clock=clock)), Member.of("nas2", slow)]
    app = ZConsoleApp(members[0].host, fleet=members, clock=clock, refresh_interval=3600,
                      state_directory=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(500):
            if isinstance(app.screen, ResumeScreen):
                break
            await pilot.pause(0.01)
        offer = app.screen
        assert isinstance(offer, ResumeScreen) and offer.where == "nas2"
        await pilot.pause()
        assert "1 operation in flight on nas2" in screen_text(app)
        assert app.current is members[0]
        await pilot.press("enter")
        for _ in range(500):
            if isinstance(app.screen, WizardScreen):
                break
            await pilot.pause(0.01)
        assert isinstance(app.screen, WizardScreen)
        assert app.current is members[1] and app.host is slow
        assert app.screen.host is slow


async def test_the_frame_tick_between_mount_and_compose_draws_nothing(
        woken: list[ZConsoleApp]) -> None:
    """CI of 2026-11-29 05:28: the one-second frame tick reached the Fleet screen after its
    mount and before its table was composed, and `query_one(FleetTable)` ended the console
    (NoMatches). A tick with no table yet draws the header and nothing else."""
    from zconsole.ui.screens.fleet.screen import FleetTable

    clock = Clock()
    app = fleet_app(clock)
    woken.append(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_fleet(app, pilot, clock)
        await screen.query_one(FleetTable).remove()  # as before the compose
        clock.t += 1
        app._tick_frame()
        await pilot.pause()
        assert app.is_running and app.screen is screen
