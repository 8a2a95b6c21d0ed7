"""Network: bridges, ports, VLANs, addresses."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState


class NetworkScreen(ZScreen):
    MODE = "network"
    TITLE = "Network"
    KEY = "5"

    def compose_body(self) -> ComposeResult:
        yield Static("This screen is being built.", classes="placeholder")

    def show_state(self, state: ViewState) -> None:
        pass
