"""The zconsole Textual app: header with host facts and badges, the pools view, footer.

Data arrives from a worker thread that calls `services.snapshot.collect()`; the worker posts a
typed message and the handler updates widgets. The next refresh is armed only after the
previous one completed, so a slow host never piles up refreshes, and a hung command never
freezes the screen: the panels keep their old data and say how old it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.snapshot import HostSnapshot
from zconsole.ui.pools import PoolsView
from zconsole.ui.themes import DEFAULT_THEME, load_themes
from zconsole.ui.widgets import HeaderBar, ProblemsPanel


class SnapshotReady(Message):
    def __init__(self, snapshot: HostSnapshot, findings: tuple[Finding, ...]) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.findings = findings


class RefreshFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class ThemeCommands(Provider):
    """Command palette: one entry per theme."""

    async def search(self, query: str) -> Hits:
        app = self.app
        assert isinstance(app, ZConsoleApp)
        matcher = self.matcher(query)
        for short, theme in app.zthemes.items():
            label = f"Theme: {short}"
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label),
                          lambda name=theme.name: setattr(app, "theme", name),
                          help=f"switch to the {short} theme")


class ZConsoleApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "zconsole"
    COMMANDS = App.COMMANDS | {ThemeCommands}

    BINDINGS = [
        Binding("r", "refresh", "Refresh"),
        Binding("p", "toggle_pause", "Pause"),
        Binding("t", "next_theme", "Theme"),
        Binding("q", "quit", "Quit"),
    ]

    paused: reactive[bool] = reactive(False)

    def __init__(
        self,
        host: Host,
        *,
        notice: str | None = None,
        theme_name: str | None = None,
        read_only: bool = False,
        refresh_interval: float = 5.0,
        clock: Callable[[], float] | None = None,
        iostat_interval: int = 1,
    ) -> None:
        super().__init__()
        self.host = host
        self.notice = notice
        self.read_only = read_only
        self.refresh_interval = max(1.0, refresh_interval)
        self.clock = clock or time.time
        self.iostat_interval = iostat_interval
        self.zthemes = load_themes()
        for theme in self.zthemes.values():
            self.register_theme(theme)
        short = theme_name or DEFAULT_THEME
        if short not in self.zthemes:
            raise ValueError(f"unknown theme {short!r}; choose from {', '.join(self.zthemes)}")
        self.theme = self.zthemes[short].name
        self.snapshot: HostSnapshot | None = None
        self.findings: tuple[Finding, ...] = ()
        self.refresh_started: float | None = None
        self.last_error: str | None = None
        self._sampler: Any = None

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        if self.notice:
            yield Static(self.notice, id="notice")
        with VerticalScroll(id="main"):
            yield PoolsView(id="pools")
            yield ProblemsPanel(id="problems")
        yield Footer()

    def on_mount(self) -> None:
        self._update_header()
        self.set_interval(1.0, self._update_header)
        self.action_refresh()

    # -- refresh cycle -----------------------------------------------------------------------
    def action_refresh(self) -> None:
        if self.refresh_started is not None:
            return  # one refresh at a time; the next is armed when this one ends
        self.refresh_started = self.clock()
        self._update_header()
        self._collect()

    @work(thread=True, exclusive=True, group="refresh")
    def _collect(self) -> None:
        from zconsole.services.live import Live

        worker = get_current_worker()
        try:
            if self._sampler is None:
                self._sampler = Live(self.host, iostat_interval=self.iostat_interval)
            snapshot, findings = self._sampler.refresh()
        except Exception as e:  # noqa: BLE001 - any failure must reach the screen, not kill the app
            if not worker.is_cancelled:
                self.post_message(RefreshFailed(f"{type(e).__name__}: {e}"))
            return
        if not worker.is_cancelled:
            self.post_message(SnapshotReady(snapshot, findings))

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        self.snapshot = message.snapshot
        self.findings = message.findings
        self.last_error = None
        self._refresh_done()
        self.query_one(PoolsView).show(message.snapshot, message.findings)
        self.query_one(ProblemsPanel).show(message.snapshot, None, self.clock())

    def on_refresh_failed(self, message: RefreshFailed) -> None:
        self.last_error = message.error
        self._refresh_done()
        self.query_one(ProblemsPanel).show(self.snapshot, message.error, self.clock())

    def _refresh_done(self) -> None:
        self.refresh_started = None
        self._update_header()
        if not self.paused:
            self.set_timer(self.refresh_interval, self._refresh_tick)

    def _refresh_tick(self) -> None:
        if not self.paused:
            self.action_refresh()

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self.action_refresh()
        self._update_header()

    def action_next_theme(self) -> None:
        names = [t.name for t in self.zthemes.values()]
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]

    def _update_header(self) -> None:
        try:
            header = self.query_one(HeaderBar)
        except Exception:  # noqa: BLE001 - not mounted yet
            return
        header.show(
            host=self.host,
            snapshot=self.snapshot,
            now=self.clock(),
            refreshing_since=self.refresh_started,
            paused=self.paused,
            read_only=self.read_only,
            error=self.last_error,
        )
