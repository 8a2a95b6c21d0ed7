"""The pools view: one block per pool (`pool_block.py`), each with its vdev table
(`vdev_table.py`); or one message when there is no pool to show."""

from __future__ import annotations

from textual import events
from textual.containers import Vertical
from textual.widgets import Static

from zconsole.ui.kit.text import plain
from zconsole.ui.screens.pools.pool_block import PoolBlock
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
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.performance = False
        self._state: ViewState | None = None
        self._last_key: str | None = None  # row key of the last selected row

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
                block = PoolBlock(entry.name)
                self.mount(block)
            block.show(entry, state, self.performance)
        for stale in blocks.values():
            stale.remove()
        self._show_cursor()

    def _show_cursor(self) -> None:
        """One cursor on screen: on the focused pool table (the first one when none has
        the focus); none at all when read-only (no wizard acts on a selection then)."""
        read_only = self._state is None or self._state.read_only
        tables = [b.table for b in self.query(PoolBlock)]
        focused = next((t for t in tables if t.has_focus), None)
        for i, t in enumerate(tables):
            t.show_cursor = not read_only and (t is focused or (focused is None and i == 0))

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
