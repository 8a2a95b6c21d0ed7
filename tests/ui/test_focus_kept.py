"""Keys that stay where they are (issue 29): every screen focuses its main list on arrival, and
a refresh (or three) with no key pressed changes neither the focus, nor the cursor's row, nor
the scroll, nor the footer's keys. A screen whose page is its list (ARC, Network, Host,
Timeline) focuses the page itself: its arrows scroll it.

The screens are the registry's (as in test_screen_matrix.py), so a new screen is here without
anyone remembering to add it; Fleet is a fleet of three demo hosts (a cursor needs rows)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable

from tests.ui.conftest import FROZEN, settle
from zconsole.hosts.demo import DemoHost
from zconsole.services.monitor.member import Member
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.footer import ZFooter
from zconsole.ui.screens.advice.advice_panel import AdviceItem
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.datasets.tree_table import TreeTable
from zconsole.ui.screens.registry import SCREENS

# what each screen's main list is; a screen without one is a failure here, not a skip
MAIN: dict[str, str] = {
    "pools": "VdevTable", "disks": "DisksTable", "datasets": "TreeTable", "arc": "page",
    "network": "page", "host": "page", "timeline": "page", "advice": "AdviceItem",
    "fleet": "FleetTable",
}
# the scenario each screen is tried on: one with enough rows (or lines) to move twice
SCENARIO = {"advice": "advice", "timeline": "degraded", "host": "slow-ssh"}
# the main list's own keys the footer offers on arrival (and still offers after the refreshes)
FOOTER: dict[str, set[str]] = {
    "pools": {"Attach", "Replace"}, "disks": {"Filter", "Sort"}, "datasets": {"Open/close"},
    "advice": {"Why", "Mute/unmute", "Run as a plan"}, "fleet": {"Show host"},
    "timeline": {"Since", "Clear"}, "host": {"Fix"},
}
SIZE = {"network": (80, 14)}  # its page fits 80x24 in every scenario: shorter, it scrolls


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice or audit log."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


class Clock:
    """The console's and the demo hosts' clock, moved by hand: five seconds a refresh, as
    the console's own, so what a refresh reads has changed (the Advice screen's counters,
    the ages), the way it does on a real host."""

    def __init__(self) -> None:
        self.t = FROZEN

    def __call__(self) -> float:
        return self.t


def console(mode: str, clock: Clock) -> ZConsoleApp:
    if mode != "fleet":
        host = DemoHost(SCENARIO.get(mode, "showcase"), zfs_version="2.3", clock=clock, seed=0)
        return ZConsoleApp(host, clock=clock, refresh_interval=3600)
    members = [Member.of(f"demo-{s}", DemoHost(s, zfs_version="2.3", clock=clock, seed=0),
                         clock=clock, mono=clock, timeout=60)
               for s in ("showcase", "degraded", "resilvering")]
    return ZConsoleApp(members[0].host, fleet=members, clock=clock, refresh_interval=3600)


def kind_of(screen: ZScreen, w: Widget | None) -> str | None:
    if w is None:
        return None
    if isinstance(w, VerticalScroll) and w.has_class("body") and w.parent is screen:
        return "page"
    return type(w).__name__


Where = tuple[str | None, object, object, object, tuple[tuple[str, str, bool], ...]]


def where(screen: ZScreen) -> Where:
    """What the operator sees of the keys: the focused widget, its cursor's row, the page's
    and the widget's scroll, and the footer's keys."""
    w = screen.focused
    cursor: object = None
    if isinstance(w, DataTable):
        cursor = w.cursor_row
    elif isinstance(w, TreeTable):
        cursor = w.cursor
    elif isinstance(w, AdviceItem):
        cursor = list(screen.query(AdviceItem)).index(w)
    page = screen.query_one(".body", VerticalScroll)
    footer = screen.query_one(ZFooter).keys
    return (kind_of(screen, w), cursor, page.scroll_offset,
            w.scroll_offset if w is not None else None,
            tuple((k.key, k.description, k.disabled) for k in footer))


async def arrive(app: ZConsoleApp, pilot: Any, key: str) -> ZScreen:
    """Press `key` and wait until its screen has settled and focused what it focuses."""
    await settle(app, pilot)
    await pilot.press(key)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ZScreen)
    for _ in range(1000):  # a screen that reads for itself has read once
        if getattr(screen, "reads", 1) and screen.settled() and screen.focused is not None:
            break
        await pilot.pause(0.01)
    await pilot.pause()
    return screen


async def down_on_advice(app: ZConsoleApp, pilot: Any, findings: int) -> ZScreen:
    """Advice (`8`), its focus moved `findings` findings down."""
    screen = await arrive(app, pilot, "8")
    for _ in range(findings):
        await pilot.press("down")
    await pilot.pause()
    return screen


async def refreshed(app: ZConsoleApp, pilot: Any, screen: ZScreen, clock: Clock) -> None:
    """One refresh, no key pressed, five seconds later: the frame's tick, the refresh and
    the screen's own read."""
    reads = getattr(screen, "reads", 0)
    clock.t += 5
    app._tick_frame()
    app.action_refresh()
    await settle(app, pilot)
    if screen.MODE in ("advice", "network"):  # these read again after every refresh
        for _ in range(1000):
            if getattr(screen, "reads", 0) > reads and screen.settled():
                break
            await pilot.pause(0.01)
        assert getattr(screen, "reads", 0) > reads
    await pilot.pause()


@pytest.mark.parametrize("entry", SCREENS, ids=lambda e: e.mode)
async def test_the_main_list_keeps_focus_cursor_and_scroll(entry: Any) -> None:
    clock = Clock()
    app = console(entry.mode, clock)
    async with app.run_test(size=SIZE.get(entry.mode, (80, 24))) as pilot:
        screen = await arrive(app, pilot, entry.key)
        assert kind_of(screen, screen.focused) == MAIN[entry.mode]
        start = where(screen)
        shown = {description for _, description, disabled in start[4] if not disabled}
        assert FOOTER.get(entry.mode, set()) <= shown, shown
        await pilot.press("down", "down")
        await pilot.pause()
        await settle(app, pilot)
        moved = where(screen)
        assert moved[0] == start[0]
        assert moved[1:4] != start[1:4], "down twice moved nothing"
        for _ in range(3):
            await refreshed(app, pilot, screen, clock)
        assert where(screen) == moved


async def test_advice_keeps_a_finding_below_the_fold_across_refreshes() -> None:
    """The advisor's counters move between two refreshes, so each refresh brings new
    findings' texts (the focus was lost at the next refresh, issue 29): the same finding
    keeps the focus, the page does not move, and the text is the new one."""
    from zconsole.ui.screens.advice.advice_panel import AdvicePanel

    clock = Clock()
    app = console("advice", clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await down_on_advice(app, pilot, 12)
        await settle(app, pilot)
        chosen = screen.focused
        assert isinstance(chosen, AdviceItem)
        page = screen.query_one(".body", VerticalScroll)
        assert page.scroll_offset.y > 0  # below the first screenful
        before = where(screen)
        panel = screen.query_one(AdvicePanel)
        shown = panel.shown
        texts = [i.body().plain for i in screen.query(AdviceItem)]
        await refreshed(app, pilot, screen, clock)
        assert panel.shown != shown  # new figures: the slog finding's counters moved
        assert [i.body().plain for i in screen.query(AdviceItem)] != texts
        assert screen.focused is chosen
        assert where(screen) == before


async def on_the_fifth_finding(app: Any, pilot: Any) -> tuple[Any, AdviceItem, Any, list[Any]]:
    """The Advice screen with the fifth finding focused: the screen, that finding, the
    panel and the findings shown."""
    from zconsole.ui.screens.advice.advice_panel import AdvicePanel

    screen = await down_on_advice(app, pilot, 5)
    chosen = screen.focused
    assert isinstance(chosen, AdviceItem)
    return (screen, chosen, screen.query_one(AdvicePanel),
            [i.advice for i in screen.query(AdviceItem)])


async def test_advice_keeps_the_focused_finding_when_the_list_changes() -> None:
    """A finding above the focused one goes (fixed, or muted elsewhere): the list is built
    again and the focus stays on the same finding; when the focused one goes, the one now
    in its place takes the focus."""

    app = console("advice", Clock())
    async with app.run_test(size=(80, 24)) as pilot:
        screen, chosen, panel, findings = await on_the_fifth_finding(app, pilot)
        await panel.show(findings[1:], "")
        await pilot.pause()
        again = screen.focused
        assert isinstance(again, AdviceItem) and again is not chosen
        assert again.key == chosen.key
        assert list(screen.query(AdviceItem)).index(again) == 4
        gone = [a for a in findings[1:] if (a.kind, a.subject) != chosen.key[:2]]
        await panel.show(gone, "")
        await pilot.pause()
        after = screen.focused
        assert isinstance(after, AdviceItem)
        assert list(screen.query(AdviceItem)).index(after) == 4
        assert after.advice == findings[6]


async def test_advice_puts_the_focus_back_when_the_new_list_took_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual gives the focus of a removed widget to another focusable one: when that is
    the rebuilt list's first finding (it came first on a loaded CI run), the focus still
    goes back to the finding the operator was on."""
    from zconsole.ui.screens.advice.advice_panel import AdvicePanel

    app = console("advice", Clock())
    async with app.run_test(size=(80, 24)) as pilot:
        screen, chosen, panel, findings = await on_the_fifth_finding(app, pilot)
        mount_all = AdvicePanel.mount_all

        def mounted_then_first_focused(self: AdvicePanel, *a: Any, **k: Any) -> Any:
            done = mount_all(self, *a, **k)

            async def then() -> None:
                await done
                screen.set_focus(screen.query(AdviceItem).first(), scroll_visible=False)
            return then()

        monkeypatch.setattr(AdvicePanel, "mount_all", mounted_then_first_focused)
        await panel.show(findings[1:], "")
        await pilot.pause()
        again = screen.focused
        assert isinstance(again, AdviceItem) and again.key == chosen.key
        assert list(screen.query(AdviceItem)).index(again) == 4
