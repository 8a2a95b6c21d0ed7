"""How the first frame draws the pools' tables (issue 28's first-frame budget): the first
pool's table has the focus before it is first drawn (never drawn, then restyled and drawn
again for its focus colours), and one drawing pass of a table works out the table's style,
colours and columns once, not once per line. What is checked is the work done (when the
focus came, how often a style was worked out), never how long it took."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.geometry import Region

from tests.ui.conftest import make_app, settle
from zconsole.ui.kit.textual_private import FastCellsTable
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import VdevTable


async def test_the_first_pools_table_is_focused_before_it_is_first_drawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[tuple[int, bool]] = []  # (table, focused) at each table's first drawing
    render_lines = VdevTable.render_lines

    def first_drawing(self: VdevTable, crop: Region) -> Any:
        if all(t != id(self) for t, _ in drawn):
            drawn.append((id(self), self.has_focus))
        return render_lines(self, crop)

    monkeypatch.setattr(VdevTable, "render_lines", first_drawing)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tables = list(app.screen.query(VdevTable))
        assert len(tables) == 2 and app.screen.focused is tables[0]
        first = dict(drawn)
        assert first[id(tables[0])] is True  # focused when first drawn
        assert first[id(tables[1])] is False


async def test_each_pools_table_is_sized_as_its_rows_are_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's rows are added when it mounts; its size (rows and header) is worked out
    then (`FastCellsTable.dimensions_now`), not at its idle: any layout after that places
    the table at its rows' height, and no second layout of the whole screen follows to grow
    it (left to the idle, a pool's table was laid out at 0 lines, then at 16). Checked the
    moment each drawing of a block returns, before anything else can run."""
    sized: list[tuple[int, int]] = []  # (rows and header, the table's height) at each drawing
    draw = PoolBlock._draw

    def drawn(self: PoolBlock) -> None:
        draw(self)
        table = self.table
        header = table.header_height if table.show_header else 0
        sized.append((table.row_count + header, table.virtual_size.height))

    monkeypatch.setattr(PoolBlock, "_draw", drawn)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tables = list(app.screen.query(VdevTable))
        assert len(tables) == 2
        assert len(sized) >= 2 and all(rows > 2 for rows, _ in sized), sized
        assert all(height == rows for rows, height in sized), sized
        assert [t.size.height for t in tables] == [t.row_count + 1 for t in tables]


class Rows(App[None]):
    """One FastCellsTable of twelve rows (also test_first_frame_styling's)."""

    def compose(self) -> ComposeResult:
        table: FastCellsTable = FastCellsTable()
        table.add_columns("NAME", "STATE")
        for i in range(12):
            table.add_row(f"disk{i}", "ONLINE", key=f"d{i}")
        yield table


async def test_a_drawing_pass_works_out_the_tables_style_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Rows()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(FastCellsTable)
        worked_out: list[str] = []
        style_of = DOMNode.rich_style.fget
        assert style_of is not None

        def counted(node: DOMNode) -> Any:
            if node is table:
                worked_out.append("style")
            return style_of(node)

        monkeypatch.setattr(DOMNode, "rich_style", property(counted))
        table.refresh()  # every line drawn again
        lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
        assert len(lines) == table.size.height >= 13  # the header and the 12 rows
        assert worked_out == ["style"]  # once for the pass, not once per line
        # outside a pass nothing is kept: a new colour is the table's style at once
        table.styles.color = "red"
        assert table.rich_style.color is not None
        assert table.rich_style.color.triplet == (255, 0, 0)
        assert table.ordered_columns == list(table.columns.values())


@pytest.mark.parametrize("theme", [None, "light", "high-contrast"])
def test_only_the_starting_themes_colours_are_worked_out(
        monkeypatch: pytest.MonkeyPatch, theme: str | None) -> None:
    """App's `__init__` asks for its own default theme's CSS variables before the console
    sets its first theme: that theme's colour system was worked out and never used. The
    console's theme is the only one worked out, and its variables are the stylesheet's."""
    from textual.theme import Theme

    worked_out: list[str] = []
    colour_system = Theme.to_color_system

    def counted(self: Theme) -> Any:
        worked_out.append(self.name)
        return colour_system(self)

    monkeypatch.setattr(Theme, "to_color_system", counted)
    app = make_app(theme=theme)
    assert worked_out == [app.current_theme.name]
    assert app.theme_variables["primary"] == app.current_theme.primary
