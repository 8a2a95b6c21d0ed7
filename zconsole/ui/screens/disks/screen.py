"""Disks: every block device that matters, its identity and I/O."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.disks.view import DisksView
from zconsole.ui.state import ViewState


class DisksScreen(ZScreen):
    MODE = "disks"
    TITLE = "Disks"
    KEY = "2"
    AUTO_FOCUS = "#disks-table"

    BINDINGS = [
        Binding("f", "cycle_filter", "Filter"),
        Binding("s", "cycle_sort", "Sort"),
        Binding("x", "toggle_partitions", "Partitions"),
    ]

    DEFAULT_CSS = """
    DisksScreen .body {
        overflow-y: auto;
    }
    DisksView {
        height: 1fr;
        min-height: 16;
    }
    DisksView #disks-summary {
        height: auto;
    }
    DisksView #disks-table {
        height: auto;
        overflow-x: hidden;
    }
    DisksView #disks-io-note {
        height: auto;
        color: $muted;
    }
    DisksView DiskDetail {
        height: 1fr;
        min-height: 6;
        border-top: solid $panel;
    }
    DisksView DiskDetail:focus {
        border-top: solid $primary;
    }
    DisksView #detail-text {
        height: auto;
    }
    DisksView .spark-row {
        height: 1;
    }
    DisksView .spark-label {
        width: 11;
        color: $muted;
    }
    DisksView Sparkline {
        width: 1fr;
        max-width: 60;
        margin: 0 1 0 0;
    }
    DisksView Sparkline > .sparkline--max-color {
        color: $primary;
    }
    DisksView Sparkline > .sparkline--min-color {
        color: $primary 30%;
    }
    DisksView .spark-note {
        width: auto;
        color: $muted;
    }
    """

    def compose_body(self) -> ComposeResult:
        yield DisksView(classes="disks")

    def show_state(self, state: ViewState) -> None:
        if state.reading is not None:
            self.query_one(DisksView).show(state)

    def on_resize(self, event: Resize) -> None:
        self.query_one(DisksView).relayout()

    def action_cycle_filter(self) -> None:
        self.query_one(DisksView).cycle_filter()

    def action_cycle_sort(self) -> None:
        self.query_one(DisksView).cycle_sort()

    def action_toggle_partitions(self) -> None:
        self.query_one(DisksView).toggle_partitions()
