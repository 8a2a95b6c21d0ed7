"""Pools: health, capacity, scan progress, the vdev tree, the slow disk."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from zconsole.ui.pools import PoolsView
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState

PERF_LEGEND = (
    "BUSY: share of the last interval with a request outstanding (on SSD/NVMe this is not "
    "saturation) · R/W AWAIT: kernel per-request latency, ms · ZFS R/W: ZFS disk_wait, read/"
    "write, ms · TREND: worst latency over the last refreshes, one scale per pool"
)


class PoolsScreen(ZScreen):
    MODE = "pools"
    TITLE = "Pools"
    KEY = "1"

    BINDINGS = [Binding("m", "toggle_columns", "Health/Perf")]

    def compose_body(self) -> ComposeResult:
        yield PoolsView(classes="pools")
        legend = Static(PERF_LEGEND, classes="legend")
        legend.display = False
        yield legend

    def show_state(self, state: ViewState) -> None:
        self.query_one(PoolsView).show(state)

    def action_toggle_columns(self) -> None:
        view = self.query_one(PoolsView)
        view.toggle_columns()
        self.query_one(".legend", Static).display = view.performance
