"""The pools view: one block per pool (`pool_block.py`), each with its vdev table
(`vdev_table.py`); or one message when there is no pool to show.

What the tables show can be narrowed: `/` (the words typed, `kit/filter.py`), `x` (only
what is not healthy: pools, vdevs and disks not ONLINE, with errors, slow or resilvering,
as `zpool status -x` only shows the pools that are not), and, on a big pool, its healthy
mirrors and raidz are folded to one line each, which enter unfolds (`vdev_table.Shape`)."""

from __future__ import annotations

from textual import events
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import DataTable, Static

from zconsole.model.hosttext import visible
from zconsole.ui.kit.filter import ListFilter, open_filter
from zconsole.ui.kit.text import plain
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import Shape, VdevTable
from zconsole.ui.state import ViewState


class PoolsView(Vertical):
    """One block per pool. Blocks are kept and updated in place across refreshes.

    Unless the console is read-only, each table shows a row cursor (Tab moves between
    pools): the wizards act on the row it selects, and the cursor stays on the same vdev
    across refreshes (rows are found again by key, not by position).
    """

    # As tall as its blocks (a Vertical is 1fr by default): the page around it scrolls. At
    # 1fr the view was cut at the page's height, and the page did not scroll: on 100 disks
    # the rows below the first screenful could never be reached.
    DEFAULT_CSS = """
    PoolsView {
        height: auto;
    }
    PoolsView > #pools-message {
        padding: 1;
    }
    PoolsView > #pools-scope {
        height: auto;
        color: $primary;
        display: none;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.performance = False
        self._state: ViewState | None = None
        self._last_key: str | None = None  # row key of the last selected row
        self.filter = ListFilter()  # `/`
        self.problems_only = False  # `x`
        self.toggled: set[str] = set()  # healthy vdevs (row keys) enter (un)folded

    @property
    def shape(self) -> Shape:
        return Shape(self.filter.words, self.problems_only, frozenset(self.toggled))

    def redraw(self) -> None:
        """Show the last reading again (a filter or a fold changed)."""
        if self._state is not None:
            self.show(self._state)

    def on_key(self, event: events.Key) -> None:
        """Escape on the list clears the `/` words, as escape in their bar does."""
        if event.key == "escape" and self.filter.clear():
            event.stop()

    def open_filter(self) -> None:
        open_filter(self.filter, anchor=self, redraw=self.redraw, back=self._table())

    def toggle_problems(self) -> None:
        self.problems_only = not self.problems_only
        self.redraw()

    def _table(self) -> Widget:
        tables = [b.table for b in self.query(PoolBlock) if b.display]
        return next((t for t in tables if t.has_focus), tables[0] if tables else self)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a healthy mirror or raidz folds or unfolds it; on any other row it shows
        the row's whole name, state and note, which a narrow table cuts."""
        key = event.row_key.value
        table = event.data_table
        if isinstance(table, VdevTable) and key in table.foldable:
            event.stop()
            self.toggled ^= {str(key)}
            self.redraw()
        elif isinstance(table, VdevTable) and (whole := table.whole_row(str(key))):
            event.stop()
            self.app.notify(visible(whole), markup=False, timeout=15)  # host text: never markup

    def selected_key(self) -> str | None:
        """Row key under the cursor of the focused pool table (or the last one focused)."""
        focused = self.screen.focused
        blocks = list(self.query(PoolBlock))
        for block in blocks:
            if block.table is focused:
                key = block.table.cursor_key
                if key is not None:
                    self._last_key = key
                return key
        if self._last_key is not None:
            for block in blocks:
                if self._last_key in {k.value for k in block.table.rows}:
                    return self._last_key
        return blocks[0].table.cursor_key if blocks else None

    def toggle_columns(self) -> None:
        self.performance = not self.performance
        if self._state is not None:
            self.show(self._state)

    def show(self, state: ViewState) -> None:
        self._state = state
        reading = state.reading
        if reading is None:
            return
        entries = reading.pools
        if not reading.zfs.present:
            self._message(reading.zfs.message)
            return
        if not entries:
            if reading.pool_status.ok:
                self._message("No pools are imported on this host.")
            else:
                self._message(f"Pools could not be read: {reading.pool_status.error}")
            return
        self._message(None)
        blocks = {b.pool_name: b for b in self.query(PoolBlock)}
        for entry in entries:
            block = blocks.pop(entry.name, None)
            if block is None:
                block = PoolBlock(entry.name, counted=self._count)
                self.mount(block)
            block.show(entry, state, self.performance, self.shape)
        for stale in blocks.values():
            stale.remove()
        self._show_cursor()
        self._count()

    def _count(self) -> None:
        """The filter's "N of M shown", and the line that says the problems-only view is
        on (and whether anything is left in it)."""
        blocks = list(self.query(PoolBlock))
        matched = sum(b.matched for b in blocks)
        self.filter.count(matched, sum(b.total for b in blocks))
        # the problems-only line above the pools: made the first time `x` is pressed
        # (hidden until then, it was a widget styled, mounted and laid out on the first
        # frame for nothing: issue 28)
        scope = next(self.query("#pools-scope").results(Static), None)
        if scope is None:
            if not self.problems_only:
                return
            scope = Static(id="pools-scope")
            if self.children:
                self.mount(scope, before=0)
            else:
                self.mount(scope)
        scope.display = self.problems_only and bool(blocks)
        if self.problems_only:
            scope.update(plain(f"Problems only ({matched} found; x shows everything)"
                               if matched else "Problems only: every pool, vdev and disk is "
                               "healthy (x shows everything)"))

    def _show_cursor(self) -> None:
        """One cursor on screen: on the focused pool table (the first one when none has
        the focus). Read-only too: no wizard acts on it then, but the keyboard moves
        through the rows with it, and enter shows a leaf's whole name or folds a vdev."""
        tables = [b.table for b in self.query(PoolBlock)]
        focused = next((t for t in tables if t.has_focus), None)
        for i, t in enumerate(tables):
            t.show_cursor = t is focused or (focused is None and i == 0)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._show_cursor()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._show_cursor()

    def _message(self, text: str | None) -> None:
        existing = self.query("#pools-message")
        if text is None:
            existing.remove()
            return
        for b in self.query(PoolBlock):
            b.remove()
        if existing:
            existing.first(Static).update(plain(text))
        else:
            self.mount(Static(plain(text), id="pools-message"))
