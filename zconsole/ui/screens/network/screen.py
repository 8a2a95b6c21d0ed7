"""Network: bridges with their ports, VLANs and the bridges on top of them, addresses.

The screen reads the network itself after each refresh (a few cheap `ip -j` calls), with the
kit's screen-owned read (`ZScreen.read`); the panel (`network_panel.py`) only draws.
"""

from __future__ import annotations

from functools import partial

from textual.app import ComposeResult

from zconsole.model.network import NetworkView
from zconsole.services.read.network import collect_network
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.network.network_panel import NetworkPanel
from zconsole.ui.state import ViewState

GROUP = "network"


class NetworkScreen(ZScreen):
    class Loaded(PartLoaded[NetworkView]):
        """The network was read."""

    def __init__(self) -> None:
        super().__init__()
        self.view: NetworkView | None = None
        self.error: str | None = None
        self.error_at: float | None = None  # console monotonic clock, as `seen`
        self.seen: float | None = None  # when `view` arrived (console monotonic clock)
        self.reads = 0
        self._now = 0.0

    def compose_body(self) -> ComposeResult:
        yield NetworkPanel(classes="network")

    def on_mount(self) -> None:
        self._redraw()

    def show_state(self, state: ViewState) -> None:
        """Each refresh reads the network again."""
        self._now = state.mono
        self._redraw()
        self.read(self.Loaded, partial(collect_network, state.host), group=GROUP,
                  asked_at=state.now)

    def on_network_screen_loaded(self, message: Loaded) -> None:
        self.view = message.value
        self.seen = self.console_app.mono()
        self.error = None
        self.error_at = None
        self.reads += 1
        self._redraw()

    def on_part_failed(self, message: PartFailed) -> None:
        self.error = message.error
        self.error_at = self.console_app.mono()
        self.reads += 1
        self._redraw()

    def _redraw(self) -> None:
        if not self.is_mounted:
            return  # on_mount draws
        self.query_one(NetworkPanel).show(self.view, self.error,
                                          max(self._now, self.console_app.mono()),
                                          self.error_at, self.seen)
