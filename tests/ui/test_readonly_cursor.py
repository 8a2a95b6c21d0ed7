"""A focused list shows its cursor, read-only too (issue 29): the Pools tables of a `--read-only`
console had none, so the arrows did not move through the rows and enter (a leaf's whole name,
a healthy vdev folded) did nothing. No wizard acts on the cursor there: its keys stay refused."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable

from tests.ui.conftest import make_app
from tests.ui.test_focus_kept import arrive
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import VdevTable
from zconsole.ui.screens.registry import SCREENS


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice or audit log."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


async def until(pilot: Any, ready: Any, what: str) -> None:
    for _ in range(500):
        if ready():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"{what} never came")


async def test_read_only_pools_table_shows_a_cursor_that_down_moves_and_enter_uses() -> None:
    app = make_app("showcase", read_only=True)  # two pools: tank and fast
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await arrive(app, pilot, "1")
        table = screen.focused
        assert isinstance(table, VdevTable)
        assert table.show_cursor and table.cursor_row == 0
        await pilot.press("down")
        await pilot.pause()
        assert table.cursor_row == 1
        await pilot.press("up")
        await pilot.pause()
        assert table.cursor_row == 0
        # enter on a disk of tank (Tab: from the first table to the next): its whole name
        tank = next(b.table for b in screen.query(PoolBlock) if b.pool_name == "tank")
        if tank is not table:
            await pilot.press("tab")
            await pilot.pause()
        assert screen.focused is tank and tank.show_cursor
        keys = [str(k.value) for k in tank.rows]
        disk = next(k for k in reversed(keys) if k not in tank.foldable
                    and (tank.whole_row(k) or "").startswith("ata-"))
        name = (tank.whole_row(disk) or "").split(" · ")[0]
        for _ in range(keys.index(disk) - tank.cursor_row):
            await pilot.press("down")
        await pilot.pause()
        assert tank.cursor_key == disk
        await pilot.press("enter")
        await until(pilot, lambda: bool(list(app._notifications)), "the whole name")
        shown = " ".join(str(n.message) for n in app._notifications)
        assert name in shown, shown
        # one cursor on screen: the other pool's table shows none
        others = [b.table for b in screen.query(PoolBlock) if b.table is not tank]
        assert others and not any(t.show_cursor for t in others)
        # still read-only: a wizard's key opens nothing
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is screen


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "read-write"])
async def test_every_focused_table_shows_its_cursor(read_only: bool) -> None:
    """Whatever table a screen focuses on arrival, and every table Tab reaches, shows its
    row cursor (ARC's figures table has none, and Tab never reaches it: its page scrolls)."""
    app = make_app("degraded-spare", read_only=read_only)
    async with app.run_test(size=(120, 40)) as pilot:
        for entry in SCREENS:
            screen = await arrive(app, pilot, entry.key)
            for widget in screen.focus_chain:
                if isinstance(widget, DataTable):
                    widget.focus()
                    await pilot.pause()
                    assert widget.show_cursor, (entry.mode, widget)
                    assert widget.cursor_type == "row", (entry.mode, widget)
