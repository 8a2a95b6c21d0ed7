"""ARC: size vs target vs c_max, hit ratio and its trend, demand vs prefetch, MRU/MFU,
L2ARC, memory throttle; each with one plain sentence, then the figures."""

from __future__ import annotations

from textual.app import ComposeResult

from zconsole.services.health import arc as arc_health
from zconsole.services.health.arc import ArcReport
from zconsole.ui.screens.arc.arc_panels import ArcView
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState


class ArcScreen(ZScreen):
    def __init__(self) -> None:
        super().__init__()
        self.report: ArcReport | None = None

    def compose_body(self) -> ComposeResult:
        yield ArcView(classes="arc")

    def show_state(self, state: ViewState) -> None:
        snap = state.reading
        history = state.sampler.arc_history if state.sampler is not None else ()
        pools = (snap.pool_status.value or ()) if snap is not None else ()
        # The ARC readings are kept by the session, so they accumulate on every screen.
        self.report = arc_health.report(
            self.console_app.session.arc,
            snap.arc if snap is not None else None, history, now=state.mono,
            refresh_interval=self.console_app.refresh_interval, pools=pools,
            zfs_version=snap.zfs.version if snap is not None else None)
        self.query_one(ArcView).show(self.report)
