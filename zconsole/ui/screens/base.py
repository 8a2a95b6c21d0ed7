"""The common frame of every screen and the contract screens implement."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from zconsole.ui.kit.footer import ZFooter
from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.kit.problems import ProblemsPanel
from zconsole.ui.kit.reading import PartLoaded, start_read
from zconsole.ui.kit.text import plain
from zconsole.ui.kit.textual_private import laid_out_size, quiet_toast_rack, styled_as_of
from zconsole.ui.state import ViewState

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp

T = TypeVar("T")


def screen_tabs() -> list[tuple[str, str]]:
    from zconsole.ui.screens.registry import SCREENS

    return [(s.key, s.title) for s in SCREENS if s.tab]


class ZScreen(Screen[None]):
    """Header (host, versions, age, badges), the screen's body, problems panel, footer.

    Subclasses implement `compose_body()` and `show_state(state)`. `show_state` is called on
    the UI thread after every completed refresh while the screen is active, and when the
    screen becomes active again. It must be quick: anything that needs the host runs in a
    worker (`self.read(...)`, see `kit/reading.py`) and comes back through a message.
    """

    # Mode name (also the palette entry "Screen: <TITLE>") and its key: a screen of the
    # registry takes them from its entry (`__init_subclass__`), never writes them again.
    MODE = ""
    TITLE = ""
    KEY = ""
    # The screen's main list (a selector): focused on arrival, and again whenever the focus
    # is lost (a list a refresh rebuilt, a field closed), so its keys always work and the
    # footer shows them. ".body", the page itself, on a screen whose page is its list (its
    # arrows scroll it); any other list leaves the page out of the focus chain, so Tab moves
    # between the lists only. Textual's AUTO_FOCUS follows it.
    MAIN: ClassVar[str] = ".body"
    AUTO_FOCUS = MAIN

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.AUTO_FOCUS = cls.MAIN
        from zconsole.ui.screens.registry import entry_for

        entry = entry_for(cls.__module__, cls.__name__)
        if entry is not None:
            cls.MODE, cls.KEY, cls.TITLE = entry.mode, entry.key, entry.title

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        # Workers of this screen whose end has not been handled here yet (see `busy`).
        self._unreported: set[Worker[object]] = set()
        self._resumed = False  # shown once already (see `on_screen_resume`)
        # Styled as of the app's stylesheet now: the app styles a new screen as it registers
        # it, right after this. Textual 8.2 starts a screen at -1, which makes the app's
        # `_init_mode` re-parse every rule and restyle the whole app for each mode's first
        # screen (twice over: the re-parse also empties the parse cache), ~7 ms of the first
        # frame for nothing: no rule or variable changed in between. A later theme change
        # counts up again and restyles this screen as usual.
        try:
            app = self.app  # the app making this screen (Textual's context), if any
        except RuntimeError:  # NoActiveAppError: a screen made outside an app
            return
        styled_as_of(self, app)

    def compose(self) -> ComposeResult:
        yield HeaderBar(classes="header")
        notice = self.console_app.notice
        if notice:
            yield Static(plain(notice), classes="notice")
        with VerticalScroll(classes="body") as body:
            body.can_focus = self.MAIN == ".body"
            yield from self.compose_body()
            yield ProblemsPanel(classes="problems")
        yield ZFooter()

    @property
    def console_app(self) -> ZConsoleApp:
        """The app, typed (screens only ever run inside ZConsoleApp)."""
        return cast("ZConsoleApp", self.app)

    @property
    def zapp(self) -> ZConsoleApp:
        """Old name of `console_app`, kept while pools/screen.py (branch h-ops) uses it."""
        return self.console_app

    def compose_body(self) -> ComposeResult:
        yield from ()

    def show_state(self, state: ViewState) -> None:
        """Update the body from the latest refresh."""

    def member_refreshed(self, state: ViewState) -> None:
        """Another host of the fleet (not the one on screen) ended a refresh: only the
        Fleet screen shows it."""

    def system_commands(self) -> Iterable[SystemCommand]:
        """This screen's own command palette entries (the app adds the screens, themes
        and Textual's own)."""
        return ()

    # -- reads of its own and readiness -------------------------------------------------------
    def read(self, loaded: type[PartLoaded[T]], fn: Callable[[], T], *, group: str,
             key: str = "", asked_at: float = 0.0, exclusive: bool = True) -> Worker[None]:
        """Run `fn()` in a worker; `loaded(value)` or a `PartFailed` comes back to this
        screen (see kit/reading.py)."""
        return start_read(self, loaded, fn, group=group, key=key, asked_at=asked_at,
                          exclusive=exclusive)

    @property
    def busy(self) -> bool:
        """True while work this screen started (a read, a listing) is still under way, or
        its result has not been handled yet. Screens with pending work of another kind (a
        timer about to read) extend it. A cancelled worker does not count: it posts nothing
        (a newer read of its group replaced it)."""
        mine = self._unreported.union(w for w in self.app.workers if w.node is self)
        return any(not w.is_cancelled and (w in self._unreported or not w.is_finished)
                   for w in mine)

    @on(Worker.StateChanged)
    def _track_worker(self, event: Worker.StateChanged) -> None:
        # A worker posts its result before its end, to this screen: once the end is handled
        # here, so is the result.
        if event.worker.node is not self:
            return
        if event.state in (WorkerState.PENDING, WorkerState.RUNNING):
            self._unreported.add(event.worker)
        else:
            self._unreported.discard(event.worker)

    def settled(self) -> bool:
        """Nothing on this screen is about to change by itself: what a test or a picture
        waits for after a refresh or a key."""
        return self.is_mounted and not self.busy

    # -- the focus ---------------------------------------------------------------------------
    def focus_main(self) -> None:
        """Focus the main list (its first widget) unless something has the focus: what the
        operator chose stays chosen. Nothing yet when the list is not there (Pools before its
        first reading): the next refresh tries again."""
        if self.focused is not None or not self.is_attached:
            return
        target = next((w for w in self.query(self.MAIN) if w.focusable), None)
        if target is not None:
            self.set_focus(target, scroll_visible=False)

    def keep_focus(self) -> None:
        """After a change that may have taken the focus away (a list rebuilt, a refresh):
        the main list again, once the change is on screen."""
        if self.focused is None:
            self.call_after_refresh(self.focus_main)

    def action_keys_help(self) -> None:
        """`?` or F1 (the app's binding): this screen's keys as they work now (kit/help.py)."""
        from zconsole.ui.kit.help import open_keys

        open_keys(self, self.TITLE)

    # -- the frame ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        quiet_toast_rack(self)  # see textual_private: one layout of the whole screen less

    def on_resize(self, event: events.Resize) -> None:
        """A Resize to the size the screen is laid out at already is not laid out again:
        Textual passes the terminal's size on to the screen even when it did not change (at
        start-up the app posts it once more after the first frame), and the screen lays
        every widget out again for it (~8 ms of the first frame on Python 3.10, issue 28).
        Whatever asked for a layout meanwhile is laid out at the screen's next update."""
        if event.size == laid_out_size(self):
            event.prevent_default()

    def on_screen_resume(self, event: events.ScreenResume | None = None) -> None:
        if event is not None and not self._resumed:
            # The first resume comes right after the mount, every node of the screen just
            # styled as it mounted: Textual's restyle of the whole screen on a resume
            # (~5 ms of the first frame) is for a screen coming back, not a new one.
            event.refresh_styles = False
        self._resumed = True
        state = self.console_app.view_state()
        self.refresh_frame(state)
        if state.reading is not None or state.last_error:
            self.show_state(state)

    def refresh_frame(self, state: ViewState) -> None:
        """Header and problems panel, common to every screen."""
        app = self.console_app
        try:
            header = self.query_one(HeaderBar)
            problems = self.query_one(ProblemsPanel)
        except NoMatches:  # not composed yet: the next tick will do it
            return
        header.show(host=app.host, reading=state.reading, now=state.mono,
                    refreshing_since=app.refresh_started, paused=app.paused,
                    read_only=app.read_only, error=state.last_error, title=self.TITLE,
                    tabs=screen_tabs(), name=app.current.name)
        problems.show(state.reading, state.last_error, state.mono)
        self.keep_focus()
