"""Network: bridges with their ports, VLANs and the bridges on top of them, addresses."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.message import Message
from textual.worker import get_current_worker

from zconsole.hosts.base import Host
from zconsole.model.network import NetworkView
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.network.view import NetworkPanel
from zconsole.ui.state import ViewState


class NetworkRead(Message):
    def __init__(self, view: NetworkView) -> None:
        super().__init__()
        self.view = view


class NetworkReadFailed(Message):
    def __init__(self, error: str, at: float) -> None:
        super().__init__()
        self.error = error
        self.at = at


class NetworkScreen(ZScreen):
    MODE = "network"
    TITLE = "Network"
    KEY = "5"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.view: NetworkView | None = None
        self.error: str | None = None
        self.error_at: float | None = None
        self.reads = 0
        self._now = 0.0

    def compose_body(self) -> ComposeResult:
        yield NetworkPanel(classes="network")

    def show_state(self, state: ViewState) -> None:
        """Each refresh reads the network again, in a worker (a few cheap `ip -j` calls)."""
        self._now = state.now
        self._redraw()
        self.run_worker(lambda: self._read(state.host, state.now), thread=True,
                        exclusive=True, group="network")

    def _read(self, host: Host, now: float) -> None:
        from zconsole.services.read.network import collect_network

        worker = get_current_worker()
        try:
            view = collect_network(host)
        except Exception as e:  # noqa: BLE001 - any failure must reach the screen
            if not worker.is_cancelled:
                self.post_message(NetworkReadFailed(f"{type(e).__name__}: {e}", now))
            return
        if not worker.is_cancelled:
            self.post_message(NetworkRead(view))

    def on_network_read(self, message: NetworkRead) -> None:
        self.view = message.view
        self.error = None
        self.error_at = None
        self.reads += 1
        self._redraw()

    def on_network_read_failed(self, message: NetworkReadFailed) -> None:
        self.error = message.error
        self.error_at = message.at
        self.reads += 1
        self._redraw()

    def _redraw(self) -> None:
        try:
            panel = self.query_one(NetworkPanel)
        except Exception:  # noqa: BLE001 - not composed yet
            return
        panel.show(self.view, self.error, max(self._now, self.zapp.clock()), self.error_at)
