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


async def test_a_resize_to_the_same_size_lays_nothing_out_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual passes the terminal's size on to the screen even when it did not change (at
    start-up once more after the first frame), and the screen laid every widget out again
    for it. A Resize to the size the screen has is not laid out again; a new size is."""
    from textual import events
    from textual.geometry import Size
    from textual.screen import Screen

    layouts: list[Size] = []
    refresh_layout = Screen._refresh_layout

    def counted(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        layouts.append(self.size)
        refresh_layout(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        layouts.clear()
        size = Size(120, 40)
        screen.post_message(events.Resize(size, size, size))
        await pilot.pause()
        await pilot.pause()
        assert layouts == []  # nothing changed: nothing laid out
        await pilot.resize_terminal(100, 30)
        for _ in range(200):  # the app passes a new size on at its resize timer
            if layouts:
                break
            await pilot.pause(0.01)
        assert layouts and screen.size == Size(100, 30)
        assert screen.query_one(PoolBlock).size.width <= 100


async def test_the_toast_rack_is_hidden_before_the_first_layout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The app hides a new screen's toast rack a moment after the screen is up (no
    notification): hidden then, it laid the whole screen out again after the first frame.
    The console's screen hides it as it mounts, so it is hidden at the first layout already;
    a notification still shows it."""
    from textual.geometry import Size
    from textual.screen import Screen

    seen: list[bool] = []  # the rack hidden by its own style (not only by its CSS) at each layout
    refresh_layout = Screen._refresh_layout

    def layout(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        rack = next(iter(self.query("#textual-toastrack")), None)
        if rack is not None:
            seen.append(rack.styles.inline.has_rule("display") and not rack.display)
        refresh_layout(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", layout)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(app, pilot)
        assert seen and all(seen)  # from the first layout on: hiding it later changes nothing
        app.notify("hello")
        for _ in range(100):
            if app.screen.query_one("#textual-toastrack").display:
                break
            await pilot.pause(0.01)
        assert app.screen.query_one("#textual-toastrack").display
