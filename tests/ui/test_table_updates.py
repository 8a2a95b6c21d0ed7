"""Tables are updated in place (issue 11): while the tree's shape is unchanged the rows are
kept and only the cells whose text changed are updated; nothing at all when nothing changed.
Work is counted (calls to clear, add_row, update_cell; lines dropped for redrawing)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.ui.conftest import make_app, settle
from tests.ui.test_datasets_screen import open_dataset, open_screen, quiet, wait_for
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.levels import LevelTable
from zconsole.ui.screens.disks.disk_table import DisksTable
from zconsole.ui.screens.pools.pool_block import PoolBlock


def spy(table: LevelTable) -> tuple[Counter[str], list[tuple[str, str]]]:
    """Count the table's clear/add_row calls and list the cells update_cell changed."""
    calls: Counter[str] = Counter()
    cells: list[tuple[str, str]] = []
    clear, add_row, update_cell = table.clear, table.add_row, table.update_cell

    def counted_clear(*a: Any, **k: Any) -> Any:
        calls["clear"] += 1
        return clear(*a, **k)

    def counted_add_row(*a: Any, **k: Any) -> Any:
        calls["add_row"] += 1
        return add_row(*a, **k)

    def counted_update_cell(row: Any, col: Any, *a: Any, **k: Any) -> Any:
        calls["update_cell"] += 1
        cells.append((str(getattr(row, "value", row)), str(getattr(col, "value", col))))
        return update_cell(row, col, *a, **k)

    table.clear = counted_clear  # type: ignore[method-assign]
    table.add_row = counted_add_row  # type: ignore[method-assign]
    table.update_cell = counted_update_cell  # type: ignore[method-assign]
    return calls, cells


async def refresh(app: ZConsoleApp, pilot: Any) -> None:
    seen = app.refreshes
    app.action_refresh()
    await wait_for(pilot, lambda: app.refreshes > seen and app.refresh_started is None,
                   "a refresh")
    await pilot.pause()


async def test_vdev_table_keeps_its_rows_and_updates_only_changed_cells() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        rows_before = [k.value for k in block.table.rows]
        calls, cells = spy(block.table)
        await refresh(app, pilot)  # the frozen machine: the same tree, the same figures
        assert calls == Counter() and cells == []
        # an error count changes on one disk: that one cell, nothing rebuilt
        host = app.host
        leaf = host.machine.pools["tank"].root.children[1].children[0]  # type: ignore[attr-defined]
        leaf.read_errors = 3
        await refresh(app, pilot)
        assert calls["clear"] == 0 and calls["add_row"] == 0
        changed = [c for c in cells if c[1] == "READ"]
        assert len(changed) == 1 and changed[0][0].startswith("tank:vdevs:mirror-1/")
        assert [k.value for k in block.table.rows] == rows_before
        assert "3" in str(block.table.get_cell(changed[0][0], "READ"))


async def test_rows_whose_figures_did_not_change_are_not_even_built() -> None:
    """Issue 11: at 100 disks building and comparing every cell cost ~25 ms a refresh with
    nothing changed. A row whose signature is unchanged is not built at all; one changed
    disk builds its row (and its parents', whose subtree figures it is part of: none here);
    a theme switch compares every cell again and recolours them."""
    from zconsole.ui.screens.pools.vdev_table import VdevTable

    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        # the first table took the focus once it was filled (issue 29: the main list is
        # focused on arrival), which restyles its cells once: compared again at the next
        # refresh; the one after names the slow disk (it takes three readings)
        assert app.screen.focused is not None
        for _ in range(2):
            await refresh(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        built: list[str] = []
        real = VdevTable._vdev_cells

        def counted(self: VdevTable, prefix: str, path: tuple[str, ...], v: Any,
                    *a: Any) -> Any:
            built.append(v.name)
            return real(self, prefix, path, v, *a)

        VdevTable._vdev_cells = counted  # type: ignore[method-assign]
        try:
            await refresh(app, pilot)
            assert built == []
            leaf = app.host.machine.pools["tank"].root.children[1].children[0]  # type: ignore[attr-defined]
            leaf.read_errors = 5
            _calls, cells = spy(block.table)
            await refresh(app, pilot)
            # the rows built are exactly those with a changed cell: that disk's READ (and
            # the slow disk's factor, where the demo's latency moved)
            assert ("READ" in {col for key, col in cells if key.endswith(leaf.name())})
            assert sorted(set(built)) == sorted({key.rsplit("/", 1)[-1] for key, _ in cells})
            built.clear()
            ok_before = block.table.level_style("ok")
            app.action_next_theme()
            await pilot.pause()
            await refresh(app, pilot)
            vdev_rows = [str(k.value) for k in block.table.rows if str(k.value).count(":") == 2]
            assert vdev_rows and {k.rsplit("/", 1)[-1].rsplit(":", 1)[-1]  # every one again
                                  for k in vdev_rows} <= set(built)
            assert block.table.level_style("ok") != ok_before
            state = block.table.get_cell(f"tank:vdevs:{'/'.join(['mirror-1'])}", "STATE")
            assert state.style == block.table.level_style("ok")
        finally:
            VdevTable._vdev_cells = real  # type: ignore[method-assign]


def drawn_rows(table: LevelTable) -> list[str]:
    """Each row's line as the table draws it now (row by row, whatever is on screen)."""
    from rich.segment import Segment

    out = []
    for key in table.rows:
        fixed, scrollable = table._render_line_in_row(
            key, 0, table.rich_style, table.cursor_coordinate, table.hover_coordinate)
        cells = [*fixed, *scrollable]
        out.append("".join(seg.text for cell in cells for seg in Segment.filter_control(cell)))
    return out


async def test_one_changed_cell_redraws_its_row_only() -> None:
    """Textual's DataTable renders every visible cell again when one changes; the tables
    here draw only the changed row again (the others keep what was drawn), and what is
    drawn is what a table drawn from scratch shows."""
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        table = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank").table
        await pilot.pause()
        before = drawn_rows(table)
        rendered: list[str] = []
        real = table._render_cell

        def counted(row_index: int, column_index: int, *a: Any, **k: Any) -> Any:
            rendered.append(str(table._row_locations.get_key(row_index).value)
                            if row_index >= 0 else "header")
            return real(row_index, column_index, *a, **k)

        table._render_cell = counted  # type: ignore[method-assign]
        leaf = app.host.machine.pools["tank"].root.children[1].children[0]  # type: ignore[attr-defined]
        leaf.read_errors = 3
        updates = table.in_place_updates  # the SMART poll's NOTE cells came in place too
        await refresh(app, pilot)
        await pilot.pause()
        assert table.in_place_updates - updates == 1
        app.screen.refresh()
        await pilot.pause()
        key = next(k for k in rendered if k.startswith("tank:vdevs:mirror-1/"))
        # no other row was rendered again (the header line may be)
        assert set(rendered) - {"header"} == {key}, set(rendered)
        after = drawn_rows(table)
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert [str(k.value) for k in table.rows][changed[0]] == key and len(changed) == 1
        assert " 3 " in after[changed[0]]
        # the same as a table that draws everything afresh
        table._update_count += 1
        assert drawn_rows(table) == after


async def test_vdev_table_is_rebuilt_when_the_tree_changes_shape() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        calls, _ = spy(block.table)
        rc, _, err = app.host.answer(  # type: ignore[attr-defined]
            ["zpool", "detach", "tank", "ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT"])
        assert rc == 0, err
        await refresh(app, pilot)
        assert calls["clear"] >= 1 and calls["add_row"] == block.table.row_count


async def test_disks_table_keeps_its_rows_when_nothing_changed() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        await pilot.press("2")
        await settle(app, pilot)
        table = app.screen.query_one(DisksTable)
        assert table.row_count > 10
        calls, cells = spy(table)
        await refresh(app, pilot)
        assert calls == Counter() and cells == []


async def test_dataset_tree_draws_nothing_again_when_nothing_changed() -> None:
    app = make_app("snapshots")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        await quiet(app, pilot)
        assert len(table._strips) > 0  # lines on screen were drawn
        await refresh(app, pilot)
        await quiet(app, pilot)
        assert table.redrawn == 0
        assert sum(r.kind == "snapshot" for r in table.rows) == 500


async def test_text_that_did_not_change_is_not_updated() -> None:
    """A Static's update lays the whole screen out again: the problems panel and the pool
    summaries and findings are updated only when their text changed; the header (one
    widget, two lines) is drawn again only when a line changed."""
    from textual.widgets import Static

    from zconsole.ui.kit.header import HeaderBar

    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=2)
        # (a pool's findings line is made with its first finding: none here)
        widgets = [w for w in app.screen.query(Static)
                   if w.has_class("problems")
                   or w.has_class("pool-summary") or w.has_class("findings")]
        assert len(widgets) >= 2
        updated: Counter[str] = Counter()
        for w in widgets:
            def counted(*a: Any, w: Static = w, real: Any = w.update, **k: Any) -> Any:
                updated[str(w.id or w.classes)] += 1
                return real(*a, **k)
            w.update = counted  # type: ignore[method-assign]
        header = app.screen.query_one(HeaderBar)

        def drawn(*a: Any, real: Any = header.refresh, **k: Any) -> Any:
            updated["header"] += 1
            return real(*a, **k)
        header.refresh = drawn  # type: ignore[method-assign]
        await refresh(app, pilot)  # the frozen machine: nothing to say anew
        # not even the status line: a refresh that ends within a second is not announced
        assert updated == Counter()
        app.host.machine.pools["tank"].root.children[0].children[0].read_errors = 7  # type: ignore[attr-defined]
        await refresh(app, pilot)
        assert set(updated) - {"header"}  # the findings or the summary said something new
        before = updated["header"]
        app.paused = True
        app.screen.refresh_frame(app.view_state())  # type: ignore[attr-defined]
        assert updated["header"] == before + 1  # "PAUSED": the header drawn again
        assert "PAUSED" in header.render().plain


async def test_a_text_that_keeps_its_line_count_is_drawn_without_a_layout() -> None:
    """update_if_changed lays the screen out again only when the new text needs another
    number of lines at the widget's width (a figure changing in place moves nothing)."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from zconsole.ui.kit.text import update_if_changed

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("resilver 10 % done", id="s")

    app = One()
    async with app.run_test(size=(40, 10)) as pilot:
        widget = app.query_one("#s", Static)
        await pilot.pause()
        layouts: list[bool] = []
        real = widget.refresh

        def counted(*a: Any, **k: Any) -> Any:
            layouts.append(bool(k.get("layout")))
            return real(*a, **k)

        widget.refresh = counted  # type: ignore[method-assign]
        assert update_if_changed(widget, 11, lambda: "resilver 11 % done")
        assert not any(layouts)  # same one line: drawn again, no layout
        await pilot.pause()
        assert "11 %" in str(widget.render())
        layouts.clear()
        assert update_if_changed(widget, 12, lambda: "resilver 12 % done\nsdb FAULTED")
        assert any(layouts)  # two lines now: the screen is laid out again
        await pilot.pause()
        assert widget.size.height == 2
        layouts.clear()
        assert not update_if_changed(widget, 12, lambda: "not asked for")
        assert layouts == []


async def test_cells_are_drawn_as_datatable_draws_them() -> None:
    """Issue 11: LevelTable draws a cell itself (without Rich's generic passes); every cell
    of the Pools tables (health and performance columns) and the Disks table, with and
    without the cursor and the hover on it, is the same characters in the same styles as
    Textual's DataTable draws it, at 120 and 80 columns."""
    from rich.segment import Segment
    from textual.widgets import DataTable

    def chars(lines: list[list[Segment]]) -> list[list[tuple[str, object]]]:
        return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]

    for size in ((120, 40), (80, 24)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            compared = 0
            for key in ("1", "m", "2"):
                await pilot.press(key)
                await settle(app, pilot)
                for table in app.screen.query(LevelTable):
                    for r in range(-1, table.row_count):  # -1: the header
                        for c, column in enumerate(table.ordered_columns):
                            width = column.get_render_width(table)
                            for cursor, hover in ((False, False), (True, False), (False, True)):
                                table._cell_render_cache.clear()
                                theirs = chars(DataTable._render_cell(
                                    table, r, c, table.rich_style, width, cursor, hover))
                                table._cell_render_cache.clear()
                                ours = chars(table._render_cell(
                                    r, c, table.rich_style, width, cursor, hover))
                                assert ours == theirs, (type(table).__name__, r, c)
                                compared += 1
            assert compared > 500
