"""Snapshot pictures of the console on demo scenarios, at 80x24 and 120x40, frozen clock.

Regenerate deliberately with `pytest tests/ui --snapshot-update` and look at the report.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import make_app, settle

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario,version,refreshes", [
    ("showcase", "2.3", 6),
    ("healthy", "2.1", 1),
    ("degraded", "2.3", 6),
    ("resilvering", "2.1", 1),
])
def test_console_pictures(snap_compare: Any, size: tuple[int, int], scenario: str,
                          version: str, refreshes: int) -> None:
    app = make_app(scenario, version)

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=refreshes)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", ["light", "high-contrast"])
def test_themes_picture(snap_compare: Any, theme: str) -> None:
    app = make_app("degraded", "2.3", theme=theme, read_only=True)

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=6)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_performance_columns_picture(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app("showcase", "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=6)
        await pilot.press("m")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hundred_disks_last_vdev_picture(snap_compare: Any, size: tuple[int, int]) -> None:
    """big100 (tank: 10 raidz2 x 10) with the keyboard on tank's last row: the page has
    scrolled to it and the last raidz2 and its disks are drawn (issue 11). Every raidz2
    unfolded first (healthy ones are folded on a big pool, issue 29: enter unfolds one;
    the folded pool's picture is tests/ui/test_problems_only.py's)."""
    from zconsole.ui.screens.pools.pool_block import PoolBlock
    from zconsole.ui.screens.pools.pools_view import PoolsView

    app = make_app("big100", "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        view = app.screen.query_one(PoolsView)
        view.toggled = {k for b in app.screen.query(PoolBlock) for k in b.table.folded}
        view.redraw()
        await pilot.wait_for_scheduled_animations()
        for _ in range(3):
            await pilot.pause(0.02)
        blocks = list(app.screen.query(PoolBlock))
        table = blocks[-1].table
        table.focus()
        # focusing scrolls the page to the table with an animation (Textual's Screen.set_focus):
        # let it end before the key, or the two scrolls race
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await pilot.press("ctrl+end")
        # The page scrolls after the next refresh (VdevTable.reveal_cursor_row); on a busy
        # machine that is more than two frames away, so wait for the page itself to have
        # scrolled down (tank is the last pool) and come to rest.
        page = table.parent
        while page is not None and not getattr(page, "allow_vertical_scroll", False):
            page = page.parent
        assert page is not None
        for _ in range(500):
            if (table.cursor_row == table.row_count - 1 and page.scroll_y > 0
                    and page.scroll_y == page.scroll_target_y
                    and not app.animator.is_being_animated(page, "scroll_y")):
                break
            await pilot.pause(0.01)
        else:
            raise AssertionError(f"page never scrolled to tank's last row: {page.scroll_y}")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_advice_picture(snap_compare: Any, size: tuple[int, int], tmp_path: Any,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Advice screen (key 8) on the demo advice host, its first finding opened."""
    from tests.ui.test_advice_screen import open_advice

    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path))  # nobody's muted advice
    app = make_app("advice")

    async def run_before(pilot: Any) -> None:
        screen = await open_advice(app, pilot)
        screen.query_one("AdviceItem").focus()
        await pilot.press("enter")
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
