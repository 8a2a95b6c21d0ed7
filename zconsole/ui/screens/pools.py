"""Pools: health, capacity, scan progress, the vdev tree, the slow disk."""

from __future__ import annotations

from textual.app import ComposeResult

from zconsole.ui.pools import PoolsView
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState


class PoolsScreen(ZScreen):
    MODE = "pools"
    TITLE = "Pools"
    KEY = "1"

    def compose_body(self) -> ComposeResult:
        yield PoolsView(classes="pools")

    def show_state(self, state: ViewState) -> None:
        if state.snapshot is not None:
            self.query_one(PoolsView).show(state.snapshot, state.findings)
