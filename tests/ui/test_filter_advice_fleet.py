"""`/` on Advice (key 8) and Fleet (key 9), as on Pools, Disks, Datasets and Timeline
(issue 29): typing keeps the findings (the hosts) whose text holds every word, the bar says
"N of M shown", the words hold across refreshes, enter and escape give the focus back to the
list, escape clears the words (in the bar, or on the list)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from tests.ui.conftest import make_app
from tests.ui.test_advice_screen import headings, open_advice
from tests.ui.test_filter import count_text, refresh, type_filter
from tests.ui.test_fleet_screen import Clock, fleet_app, open_fleet
from zconsole.hosts.silent import SilentHost
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.advice.advice_panel import AdviceItem, AdvicePanel
from zconsole.ui.screens.advice.screen import AdviceScreen
from zconsole.ui.screens.fleet.screen import FleetScreen, FleetTable


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


def messages(screen: AdviceScreen) -> list[str]:
    return [i.advice.message for i in screen.query(AdviceItem)]


async def quiet(screen: AdviceScreen, pilot: Any) -> None:
    """The findings drawn again (a key typed, a refresh judged): the screen settled."""
    for _ in range(1000):
        await pilot.pause(0.01)
        if screen.settled():
            break
    await pilot.pause()


async def advice_refresh(app: ZConsoleApp, screen: AdviceScreen, pilot: Any) -> None:
    """A new reading, judged again and drawn."""
    reads = screen.reads
    await refresh(app, pilot)
    for _ in range(1000):
        if screen.reads > reads and screen.settled():
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the advice was not judged again")
    await quiet(screen, pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_advice_filter_narrows_counts_survives_a_refresh_and_escape_restores(
        size: tuple[int, int]) -> None:
    app = make_app("advice")
    async with app.run_test(size=size) as pilot:
        screen = await open_advice(app, pilot)
        every = messages(screen)
        assert len(every) == 18 and type(app.focused).__name__ == "AdviceItem"
        bar = await type_filter(pilot, "SCRATCH")
        await quiet(screen, pilot)
        kept = messages(screen)
        assert kept == [m for m in every if "scratch" in m.lower()]
        assert 0 < len(kept) < len(every)
        assert count_text(bar) == f"{len(kept)} of {len(every)} shown"
        # the headings count what is shown
        assert sum(int(h.rsplit("(", 1)[1].rstrip(")")) for h in headings(screen)) == len(kept)
        # enter: the filter stays, the focus is on a finding again and the arrows move
        await pilot.press("enter")
        await quiet(screen, pilot)
        assert isinstance(app.focused, AdviceItem) and app.focused.advice.message == kept[0]
        await pilot.press("down")
        assert isinstance(app.focused, AdviceItem) and app.focused.advice.message == kept[1]
        for _ in range(3):  # the words narrow every new reading; focus and cursor stay
            await advice_refresh(app, screen, pilot)
            assert messages(screen) == kept
            assert count_text(bar) == f"{len(kept)} of {len(every)} shown"
            assert isinstance(app.focused, AdviceItem)
            assert app.focused.advice.message == kept[1]
        # escape on the finding: every finding again, the bar closed, the focus kept
        await pilot.press("escape")
        await quiet(screen, pilot)
        assert messages(screen) == every and not bar.display
        assert isinstance(app.focused, AdviceItem) and app.focused.advice.message == kept[1]


async def test_advice_filter_on_the_severity_and_no_match_says_so() -> None:
    app = make_app("advice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_advice(app, pilot)
        every = len(messages(screen))
        bar = await type_filter(pilot, "info tank")
        await quiet(screen, pilot)
        kept = [i.advice for i in screen.query(AdviceItem)]
        assert kept and all(a.severity.name == "INFO" and "tank" in a.message for a in kept)
        assert headings(screen) == [f"• INFO  Worth knowing ({len(kept)})"]
        for ch in " nosuchword":
            await pilot.press("space" if ch == " " else ch)
        await quiet(screen, pilot)
        assert messages(screen) == [] and count_text(bar) == f"0 of {every} shown"
        notes = [str(w.render()) for w in screen.query(AdvicePanel).first().children]
        assert any("No finding matches “info tank nosuchword”" in n for n in notes), notes
        # escape in the bar: every finding, and the focus on the first one
        await pilot.press("escape")
        await quiet(screen, pilot)
        assert len(messages(screen)) == every and not bar.display
        assert isinstance(app.focused, AdviceItem)
        assert app.focused is screen.query(AdviceItem).first()


def fleet_names(screen: FleetScreen) -> list[str]:
    return [screen.rows[i].name for i in screen.order]


async def test_fleet_filter_narrows_counts_survives_refreshes_and_escape_restores() -> None:
    clock = Clock()
    app = fleet_app(clock)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_fleet(app, pilot, clock)
            table = screen.query_one(FleetTable)
            every = fleet_names(screen)
            assert len(every) == 4 and app.focused is table
            bar = await type_filter(pilot, "Resilver")
            assert fleet_names(screen) == ["demo-resilvering"] and table.row_count == 1
            assert count_text(bar) == f"1 of {len(every)} shown"
            await pilot.press("escape")  # in the bar: every host, the table focused
            await pilot.pause()
            assert fleet_names(screen) == every and app.focused is table and not bar.display
            # the tags are searched though 80 columns do not show them: every host is "demo"
            await type_filter(pilot, "demo degraded")
            assert fleet_names(screen) == ["demo-degraded"]
            await pilot.press("enter")
            await pilot.pause()
            assert app.focused is table and screen.highlighted() == 1
            for _ in range(3):  # the ages tick, a host refreshes: the same one row
                clock.t += 5
                app._tick_frame()
                await refresh(app, pilot)
                assert fleet_names(screen) == ["demo-degraded"]
                assert count_text(bar) == f"1 of {len(every)} shown"
                assert app.focused is table and screen.highlighted() == 1
            await pilot.press("escape")  # on the table: the words cleared too
            await pilot.pause()
            assert fleet_names(screen) == every and not bar.display
            assert app.focused is table and screen.highlighted() == 1  # the same host
            await type_filter(pilot, "nosuchhost")
            assert table.row_count == 0 and screen.highlighted() is None
            detail = str(screen.query_one("#fleet-detail").render())
            assert "No host matches “nosuchhost”" in detail
            assert isinstance(app.focused, Input)
    finally:
        for m in app.members:
            if isinstance(m.host, SilentHost):
                m.host.wake()

