"""The common frame of every screen and the contract screens implement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Static

from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.kit.problems import ProblemsPanel
from zconsole.ui.state import ViewState

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp


def screen_tabs() -> list[tuple[str, str]]:
    from zconsole.ui.screens.registry import SCREENS  # the registry imports this module

    return [(s.KEY, s.TITLE) for s in SCREENS]


class ZScreen(Screen[None]):
    """Header (host, versions, age, badges), the screen's body, problems panel, footer.

    Subclasses implement `compose_body()` and `show_state(state)`. `show_state` is called on
    the UI thread after every completed refresh while the screen is active, and when the
    screen becomes active again. It must be quick: anything that needs the host runs in a
    worker (`self.run_worker(fn, thread=True)`) and comes back through a message.
    """

    # Mode name (also the palette entry "Screen: <TITLE>") and its key.
    MODE = ""
    TITLE = ""
    KEY = ""

    def compose(self) -> ComposeResult:
        yield HeaderBar(classes="header")
        notice = self.zapp.notice
        if notice:
            yield Static(notice, classes="notice")
        with VerticalScroll(classes="body"):
            yield from self.compose_body()
            yield ProblemsPanel(classes="problems")
        yield Footer(compact=True)

    @property
    def zapp(self) -> ZConsoleApp:
        from zconsole.ui.app import ZConsoleApp

        app = self.app
        assert isinstance(app, ZConsoleApp)
        return app

    def compose_body(self) -> ComposeResult:
        yield from ()

    def show_state(self, state: ViewState) -> None:
        """Update the body from the latest refresh."""

    def on_screen_resume(self) -> None:
        state = self.zapp.view_state()
        self.refresh_frame(state)
        if state.reading is not None or state.last_error:
            self.show_state(state)

    def refresh_frame(self, state: ViewState) -> None:
        """Header and problems panel, common to every screen."""
        app = self.zapp
        try:
            header = self.query_one(HeaderBar)
            problems = self.query_one(ProblemsPanel)
            header.query_one("#facts")  # HeaderBar composes its labels after mounting
        except NoMatches:  # not composed yet: the next tick will do it
            return
        header.show(host=app.host, reading=state.reading, now=state.now,
                    refreshing_since=app.refresh_started, paused=app.paused,
                    read_only=app.read_only, error=state.last_error, title=self.TITLE,
                    tabs=screen_tabs())
        problems.show(state.reading, state.last_error, state.now)
