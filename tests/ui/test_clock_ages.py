"""Ages on one clock, as the console shows them (issue 27, item 6): a host whose clock is an
hour behind reads "refreshed 0 s ago" right after a refresh, with the offset beside it; a
host whose clock stopped says a read that just failed was tried seconds ago; and no health
word is shown once its reading is older than the limit on the console's clock. The console's
clock is a fake one moved by hand (its monotonic clock is the same: `ZConsoleApp(clock=)`)."""

from __future__ import annotations

import re

from tests.fakes import StatusFails
from tests.ui.conftest import FROZEN, settle
from tests.ui.test_hostile_host import screen_text
from zconsole.hosts.demo import DemoHost
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.kit.problems import ProblemsPanel

HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.t = FROZEN

    def __call__(self) -> float:
        return self.t


UNITS = {"s": 1, "min": 60, "h": 3600, "d": 86400}


def seconds(age: str) -> int:
    """'1 h 0 min' -> 3600 (fmt.duration's words back to seconds)."""
    words = age.split()
    return sum(int(n) * UNITS[u] for n, u in zip(words[::2], words[1::2], strict=True))


def refreshed_age(app: ZConsoleApp) -> str:
    found = re.search(r"refreshed (.+?) ago", app.screen.query_one(HeaderBar).status)
    assert found, app.screen.query_one(HeaderBar).status
    return found.group(1)


async def test_an_hour_behind_is_refreshed_seconds_ago_with_the_offset_said() -> None:
    clock = Clock()
    host = DemoHost("healthy", clock=lambda: clock.t - HOUR)
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        status = app.screen.query_one(HeaderBar).status
        assert refreshed_age(app) == "0 s"  # was "1 h 0 min"
        assert "host clock 1 h 0 min behind" in status
        assert "ONLINE" in screen_text(app)
        clock.t += 9
        app._tick_frame()
        await pilot.pause()
        assert refreshed_age(app) == "9 s"


async def test_a_stopped_host_clock_tried_just_now() -> None:
    clock = Clock()
    stopped = FROZEN - (6 * 86400 + 17 * 3600)
    host = StatusFails(DemoHost("healthy", clock=lambda: stopped))
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        problems = str(app.screen.query_one(ProblemsPanel).render())
        assert "pool status: " in problems and "(tried 0 s ago)" in problems  # was 6 d 17 h
        assert refreshed_age(app) == "0 s"
        assert "host clock 6 d 17 h behind" in app.screen.query_one(HeaderBar).status


async def test_no_health_word_older_than_its_reading() -> None:
    """Whatever the host's clock says, a pool's health word is on screen only while the
    header's age of its reading is within the console's limit; past it, ? UNKNOWN."""
    for host_clock in (lambda t: t - HOUR, lambda t: FROZEN - 86400):
        clock = Clock()
        host = DemoHost("healthy", clock=lambda hc=host_clock, c=clock: hc(c.t))  # type: ignore[misc]
        app = ZConsoleApp(host, clock=clock, refresh_interval=5)
        async with app.run_test(size=(120, 40)) as pilot:
            app.paused = True  # no refresh comes: the reading only ages
            await settle(app, pilot)
            limit = app.stale_after
            for later in (0.0, limit - 1, limit + 1):
                clock.t = FROZEN + later
                app._tick_frame()
                await pilot.pause()
                text = screen_text(app)
                if "ONLINE" in text:
                    assert seconds(refreshed_age(app)) <= limit, (later, text)
                else:
                    assert later > limit and "UNKNOWN" in text
            assert "ONLINE" not in screen_text(app)


async def test_network_and_timeline_of_a_host_an_hour_behind() -> None:
    """The Network screen's age is the console's; the Timeline's times and durations are the
    host's own (its clock then and now), and it says its clock is behind the console's."""
    from tests.ui.test_network_screen import show_network, text_of
    from tests.ui.test_timeline_screen import show_timeline, text

    clock = Clock()
    host = DemoHost("degraded", clock=lambda: clock.t - HOUR)
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        network = await show_network(app, pilot)
        assert "read with ip -j 0 s ago" in text_of(network, "#net-summary")  # was 1 h 0 min
        timeline = await show_timeline(app, pilot)
        # the demo's pool went DEGRADED 3 d 4 h before its own start, on its own clock
        assert timeline.summary[0].startswith("✖ CRITICAL tank DEGRADED since 2026-11-18 17:43 "
                                              "(3 d 4 h)")  # was (3 d 5 h): console less host
        sources = text(timeline, "#tl-sources").replace("\n", " ")
        assert ("times in the host's time zone (UTC+00:00 UTC), on its clock; host clock "
                "1 h 0 min behind the console's") in sources
