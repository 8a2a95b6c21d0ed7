"""Datasets and snapshots: the tree, clones, blast radius."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState


class DatasetsScreen(ZScreen):
    MODE = "datasets"
    TITLE = "Datasets"
    KEY = "3"

    def compose_body(self) -> ComposeResult:
        yield Static("This screen is being built.", classes="placeholder")

    def show_state(self, state: ViewState) -> None:
        pass
