"""What the first frame styles (issue 28's first-frame budget on Python 3.10): each widget
styled is a node the stylesheet is applied to, again at every change of its pseudo-classes
(the pools' first table is focused), and each component class one more node each time. The
levels' colours are resolved from the theme without component classes, and they follow a
theme switch. What is checked is what is styled and shown, never how long it took."""

from __future__ import annotations

from typing import Any

import pytest
from rich.color import Color as RichColor
from textual.color import Color
from textual.widgets import DataTable

from tests.ui.conftest import make_app, settle
from zconsole.ui.kit.levels import LEVEL_STYLE, LevelTable
from zconsole.ui.screens.pools.vdev_table import VdevTable


def _hex(colour: RichColor | None) -> str:
    assert colour is not None and colour.triplet is not None
    return colour.triplet.hex.upper()


def test_a_level_table_styles_no_node_per_level() -> None:
    # six `level--*` component classes were six more nodes styled at each styling of a
    # table: its mount, and each focus change
    assert LevelTable.COMPONENT_CLASSES == DataTable.COMPONENT_CLASSES
    assert VdevTable.COMPONENT_CLASSES == DataTable.COMPONENT_CLASSES


async def test_the_levels_colours_are_the_themes_and_follow_a_switch() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for _ in app.theme_files:
            theme = next(t for t in app.theme_files.values() if t.name == app.theme)
            table = app.screen.query(VdevTable).first()
            variables = {**theme.variables, "primary": theme.primary}
            for level, style in LEVEL_STYLE.items():
                want = Color.parse(variables[style.removeprefix("$")]).hex.upper()
                assert _hex(table.level_style(level).color) == want, (theme.name, level)
            # a cell as the table draws it: the state word in its level's colour
            cell = table.state_cell("ONLINE")
            assert _hex(cell.style.color) == Color.parse(  # type: ignore[union-attr]
                theme.variables["health-ok"]).hex.upper()
            await pilot.press("t")
            await settle(app, pilot)


async def test_a_pools_findings_line_is_made_with_its_first_finding() -> None:
    """No pool of the showcase has a finding on the first frame: no findings line (a
    hidden widget is styled, mounted and laid out all the same). The slow disk found
    after a few refreshes makes the line, between the pool's summary and its table; a
    reading without it hides the line again."""
    import dataclasses

    from zconsole.ui.screens.pools.pool_block import PoolBlock

    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert not list(app.screen.query(".findings"))
        for _ in range(8):
            if app.findings:
                break
            await settle(app, pilot, refreshes=1)
            app.action_refresh()
        await settle(app, pilot)
        slow = [f for f in app.findings if f.kind == "slow-disk"]
        assert slow and slow[0].pool == "tank"
        tank = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        assert tank.findings is not None and tank.findings.display
        assert list(tank.children) == [tank.summary, tank.findings, tank.table]
        assert slow[0].message in str(tank.findings.render())
        fast = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "fast")
        assert fast.findings is None
        app.screen.show_state(dataclasses.replace(app.view_state(), findings=()))  # type: ignore[attr-defined]
        await pilot.pause()
        assert not tank.findings.display


async def test_the_problems_only_line_is_made_with_the_first_x() -> None:
    """Hidden until `x`, the problems-only line is not on the first frame; `x` makes it,
    above the pools, and `x` again hides it."""
    from textual.widgets import Static

    from zconsole.ui.screens.pools.pools_view import PoolsView

    app = make_app("degraded", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one(PoolsView)
        assert not list(view.query("#pools-scope"))
        await pilot.press("x")
        await pilot.pause()
        line = view.query_one("#pools-scope", Static)
        assert view.children[0] is line and line.display
        assert str(line.render()).startswith("Problems only (")
        await pilot.press("x")
        await pilot.pause()
        assert not line.display


async def test_a_table_keeps_its_drawn_rows_while_its_width_stays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool table's first Resize comes after its first drawing, at the width it was drawn
    at: its rows are not drawn again (DataTable forgets them at every resize). A width that
    changes, the table's or a column's, draws every row again, to the new widths."""
    from textual import events
    from textual.geometry import Region

    from tests.ui.test_first_frame_drawing import Rows
    from zconsole.ui.kit.textual_private import FastCellsTable

    app = Rows()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(FastCellsTable)
        drawn: list[object] = []
        real = FastCellsTable._render_cell

        def counted(self: FastCellsTable, *a: Any, **k: Any) -> Any:
            drawn.append(a[:2])
            return real(self, *a, **k)

        monkeypatch.setattr(FastCellsTable, "_render_cell", counted)
        table.post_message(events.Resize(table.size, table.virtual_size))  # the same width
        await pilot.pause()
        table.refresh()  # every line drawn again: from the rows drawn before
        table.render_lines(Region(0, 0, table.size.width, table.size.height))
        assert drawn == []
        await pilot.resize_terminal(50, 20)
        await pilot.pause()
        lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
        assert drawn and table.size.width == 50
        assert all(line.cell_length == 50 for line in lines)
        # a column made wider in place (as a screen sizes its columns to the terminal,
        # with no update DataTable counts): every row drawn again to the new column
        drawn.clear()
        name = next(iter(table.columns.values()))
        name.auto_width, name.width = False, 20
        table.refresh()
        lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
        row = lines[1].text  # the NAME cell: 20 cells and its padding
        assert drawn and row[:22] == " disk0".ljust(22) and row[22:].startswith(" ONLINE")
