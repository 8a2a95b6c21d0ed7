"""Disks: every block device that matters, its identity and I/O."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState


class DisksScreen(ZScreen):
    MODE = "disks"
    TITLE = "Disks"
    KEY = "2"

    def compose_body(self) -> ComposeResult:
        yield Static("This screen is being built.", classes="placeholder")

    def show_state(self, state: ViewState) -> None:
        pass
