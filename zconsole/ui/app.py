"""The zconsole Textual app: one mode per screen, one refresh loop for all of them.

The host's state lives in a `services.session.HostSession`; a worker thread calls its
`refresh()`, posts a typed message, and the handler records the outcome through the headless
monitor (`services.monitor`: the session, then the host's verdict) and hands a `ViewState`
to the active screen. The next refresh is armed only after the previous one completed, so a
slow host never piles up refreshes, and a hung command never freezes the screen: the
screens keep their old data and say how old it is.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import get_current_worker

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.hosttext import visible
from zconsole.model.reading import HostReading
from zconsole.services.monitor.loop import Monitor
from zconsole.services.monitor.member import Member
from zconsole.services.session import HostSession, Refresh
from zconsole.ui.collector import release_collector
from zconsole.ui.first_reading import FirstReading
from zconsole.ui.kit.css_cache import parsed_css_kept
from zconsole.ui.kit.textual_private import refresh_truecolor_filter
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.registry import SCREENS
from zconsole.ui.state import ViewState
from zconsole.ui.themes import DEFAULT_THEME, load_themes, next_theme

if TYPE_CHECKING:
    from zconsole.model.advice import Mute
    from zconsole.services.ops.engine.resume import Resumable


UI_SWITCH_INTERVAL = 0.001
"""The interpreter's thread switch interval while the console runs (seconds)."""


def _demo_state_named() -> bool:
    from zconsole.hosts.journal import demo_state_named

    return demo_state_named()


class ZConsoleApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "zconsole"
    MODES = {s.mode: s for s in SCREENS}  # each entry makes its screen when first shown
    DEFAULT_MODE = SCREENS[0].mode

    BINDINGS = [
        # Screen keys are shown in the header's tab strip, not in the footer (room at 80 cols).
        *(Binding(s.key, f"switch_mode('{s.mode}')", s.title, show=False) for s in SCREENS),
        Binding("ctrl+r", "refresh(True)", "Refresh", key_display="^r"),
        Binding("f5", "refresh(True)", "Refresh", show=False),
        Binding("p", "toggle_pause", "Pause"),
        Binding("t", "next_theme", "Theme", show=False),
        Binding("question_mark,f1", "screen.keys_help", "Keys of this screen", show=False),
        Binding("q", "quit", "Quit"),
    ]

    # The refresh's messages are plain classes, not dataclasses: a dataclass costs ~1 ms to
    # make on Python 3.10, each, on the first frame's path (issue 28).
    class RefreshDone(Message):
        """A refresh completed (posted by the refresh worker); `member`: of which host
        (None: the host on screen); `mutes`: the host's mutes as the refresh found them
        (None: not read)."""

        def __init__(self, result: Refresh, member: Member | None = None,
                     mutes: tuple[Mute, ...] | None = None) -> None:
            super().__init__()
            self.result, self.member, self.mutes = result, member, mutes

    class RefreshProgress(Message):
        """The running refresh's pools answered before its other reads (posted early)."""

        def __init__(self, result: Refresh, member: Member | None = None) -> None:
            super().__init__()
            self.result, self.member = result, member

    class RefreshFailed(Message):
        """A refresh raised: `error` reads `ExceptionName: text`."""

        def __init__(self, error: str, member: Member | None = None) -> None:
            super().__init__()
            self.error, self.member = error, member

    class ResumeFound(Message):
        """Plans left in flight on this host (services.ops.engine.resume), found at
        start-up, and the saved plans that could not be read; `member`: the host they are
        on (None: the one on screen)."""

        def __init__(self, found: list[Resumable] | None = None,
                     problems: list[str] | None = None, member: Member | None = None) -> None:
            super().__init__()
            self.found: list[Resumable] = found if found is not None else []
            self.problems: list[str] = problems if problems is not None else []
            self.member = member

    def __init__(
        self,
        host: Host,
        *,
        notice: str | None = None,
        theme_name: str | None = None,
        read_only: bool = False,
        refresh_interval: float = 5.0,
        clock: Callable[[], float] | None = None,
        mono: Callable[[], float] | None = None,
        iostat_interval: int = 1,
        state_directory: str | None = None,
        offer_resume: bool | None = None,
        collector_held: bool = False,
        fleet: Sequence[Member] | None = None,
    ) -> None:
        """`state_directory`: where the wizards keep the audit log and saved plans (default
        `hosts.journal.state_dir()`; `demo_state_dir()` for the demo host). `offer_resume`:
        look for plans left in flight at start-up (default: yes, except on the demo host
        whose state is this run's own: a fresh demo machine has nothing in flight).
        `collector_held`: the caller (`zconsole`'s main) held the cyclic garbage collector
        for start-up; it is frozen and let go once the first reading is on screen.
        `fleet`: several hosts, each with its own session and refresh loop (the Fleet
        screen); `host` is then the first member's, the host every screen shows until the
        operator picks another (`switch_host`). `clock`: the console's wall clock (dates,
        mutes); `mono`: its monotonic clock, the one every age is counted on (default
        time.monotonic, or `clock` when only that is given: a frozen clock in tests)."""
        super().__init__()
        self._collector_held = collector_held
        # Reads, parses and scans run in worker threads; a pure-Python parse holds the
        # interpreter lock for a whole switch interval (5 ms by default) each time the UI
        # thread asks for it, and a key needs several turns of the UI's loop. At 1 ms, keys
        # stay under 100 ms during the 100 000-snapshot scan (bench/budgets.py).
        sys.setswitchinterval(min(sys.getswitchinterval(), UI_SWITCH_INTERVAL))
        self.state_directory = state_directory
        self.offer_resume = (offer_resume if offer_resume is not None
                             else not host.simulated or state_directory is not None
                             or _demo_state_named())
        self.host = host
        self.notice = notice
        self.read_only = read_only
        self.refresh_interval = max(1.0, refresh_interval)
        self.clock = clock or time.time
        self.mono = mono or clock or time.monotonic
        self.iostat_interval = iostat_interval
        self.theme_files = load_themes()  # short name (file stem) -> Theme
        for theme in self.theme_files.values():
            self.register_theme(theme)
        short = theme_name or DEFAULT_THEME
        if short not in self.theme_files:
            raise ValueError(f"unknown theme {short!r}; choose from "
                             f"{', '.join(self.theme_files)}")
        self._start_theme(self.theme_files[short].name)
        self.paused = False
        self.forced_refreshes = 0  # ctrl+r / F5 so far (ViewState.forced)
        if fleet:
            self.members = list(fleet)
            self.host = self.members[0].host
        else:
            self.members = [Member(host.label, host,
                                   HostSession(host, iostat_interval=iostat_interval))]
        for m in self.members:  # one clock for every age the console shows
            m.session.use_clocks(self.clock, self.mono)
        self.current = self.members[0]
        self.session = self.current.session
        # the headless monitor holds each member's verdict: the refreshes below (Textual's
        # workers) are recorded through it, so the console's verdicts are `check`'s
        self.monitor = Monitor(self.members, stale_after=self.stale_after)
        self._refresh_timers: dict[int, Timer] = {}  # id(member) -> its next refresh
        self._first: FirstReading[Message] = FirstReading()  # on_load waits for it
        self._shown_stale = False

    _theme_started = False

    def get_css_variables(self) -> dict[str, str]:
        """The theme's CSS variables, from the console's first theme on (`_start_theme`).
        App's `__init__` asks for them once before that, for its own default theme,
        whose colour system (about 8 M instructions on Python 3.10: ~150 colours
        mixed) the console never uses: nothing is parsed before `_start_theme` sets the
        variables of the theme it starts in (issue 28)."""
        if not self._theme_started:
            return {}
        return super().get_css_variables()

    def _start_theme(self, name: str) -> None:
        """Start in theme `name` without Textual's theme watcher: it would parse the whole
        stylesheet again after the start (and, the first screen's CSS then being out of
        date, once more when it is mounted): two of the three parses of every rule in a
        start, ~15 % of the first frame. Before the first parse, setting what the watcher
        sets (the variables, the theme's classes, the ANSI colour filter) is enough; any
        later switch goes through the watcher as usual."""
        self.set_reactive(App.theme, name)
        self._theme_started = True
        theme = self.current_theme
        self.set_class(False, *(c for c in self.classes if c.startswith("-theme-")),
                       update=False)
        self.set_class(True, f"-theme-{theme.name}", update=False)
        self.set_class(theme.dark, "-dark-mode", update=False)
        self.set_class(not theme.dark, "-light-mode", update=False)
        refresh_truecolor_filter(self)
        self.stylesheet.set_variables(self.get_css_variables())

    # -- what screens read -------------------------------------------------------------------
    @property
    def reading(self) -> HostReading | None:
        return self.session.reading

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.session.findings

    @property
    def refresh_started(self) -> float | None:
        return self.session.started

    @property
    def last_error(self) -> str | None:
        return self.session.last_error

    @property
    def refreshes(self) -> int:
        return self.session.refreshes

    @property
    def stale_after(self) -> float:
        """Seconds without a good `zpool status` after which every pool is ? UNKNOWN."""
        return self.refresh_interval + self.session.timeout

    def view_state(self) -> ViewState:
        r = self.session.last
        now, mono = self.clock(), self.mono()
        reading = r.reading if r is not None else None
        if reading is not None:
            reading = self.session.aged(reading, mono, self.stale_after)
        return ViewState(
            host=self.host, reading=reading, findings=r.findings if r is not None else (),
            sample=r.sample if r is not None else None, sampler=self.session.sampler,
            now=now, mono=mono, read_only=self.read_only, last_error=self.last_error,
            scan_estimates=r.scan_estimates if r is not None else {},
            leaves=r.leaves if r is not None else {}, forced=self.forced_refreshes,
            mutes=self.current.mutes, smart=self.session.smart)

    @property
    def active_screen(self) -> ZScreen | None:
        """The console screen on top, if any: none while the app is shutting down (a refresh
        timer can still fire after the last screen left the stack), nor before the first
        screen is mounted (the first reading starts in `on_load`; a screen shows what was
        read when it is resumed, right after its mount)."""
        try:
            s = self.screen
        except ScreenStackError:
            return None
        return s if isinstance(s, ZScreen) and s.is_mounted else None

    # -- the command palette -----------------------------------------------------------------
    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own (its Keys made this screen's), every screen and theme, the fix-its,
        the demo's, the screen's (ui/palette.py)."""
        from zconsole.ui.palette import system_commands

        return system_commands(self, screen, super().get_system_commands(screen))

    def open_fixit(self, panel: str) -> None:
        """The Host screen, scrolled to one fix-it panel ("ssh" or "boot")."""
        from zconsole.ui.screens.host.screen import HostScreen

        self.switch_mode(HostScreen.MODE)
        screen = self.screen
        if isinstance(screen, HostScreen):
            self.call_after_refresh(screen.focus_panel, panel)

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self, **kwargs: Any) -> None:
        """The console as the operator starts it: with the CSS the last run parsed, and
        keeping what this one parses for the next (kit/css_cache.py)."""
        with parsed_css_kept(self):
            return super().run(**kwargs)  # what the app exited with (a test's picture)

    async def on_load(self) -> None:
        """The first reading starts before the first screen is made, and the screen waits a
        moment for it (ui/first_reading.py): one that comes quickly is handled here, and the
        first frame shows the pools. A slower one runs in its worker while the app builds
        and styles the screen; a reading that lands before the screen is mounted is shown by
        the screen's `on_screen_resume`."""
        self.action_refresh()
        outcome = await self._first.wait()
        if isinstance(outcome, self.RefreshDone):
            self.on_zconsole_app_refresh_done(outcome)
        elif isinstance(outcome, self.RefreshProgress):
            self.on_zconsole_app_refresh_progress(outcome)
            self.call_after_refresh(self._first.drawn)  # the rest of the reading goes on
        elif isinstance(outcome, self.RefreshFailed):
            self.on_zconsole_app_refresh_failed(outcome)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick_frame)
        for m in self.members[1:]:
            self._refresh_member(m)
        if self.offer_resume:
            for m in self.members:  # each host on its own: one that hangs holds only its own
                self.run_worker(partial(self._find_resumable, m), thread=True,
                                exclusive=True, exit_on_error=False, group=f"resume-{id(m)}",
                                name=f"plans in flight on {m.name}")

    # -- plans left in flight (wizards) ------------------------------------------------------
    def _find_resumable(self, m: Member) -> None:
        from zconsole.ui.wizards.resume import find

        try:
            found, problems = find(self, m.host)
        except Exception as e:  # noqa: BLE001 - never block the console over this
            self.post_message(self.ResumeFound(
                [], [f"could not look for plans in flight on {m.name}: {e}"], m))
            return
        self.post_message(self.ResumeFound(found, problems, m))

    def on_zconsole_app_resume_found(self, message: ResumeFound) -> None:
        from zconsole.ui.wizards.resume import announce

        announce(self, message.found, message.problems, message.member or self.current)

    def notify_plain(self, message: str, *, title: str = "",
                     severity: SeverityLevel = "information", timeout: float | None = None
                     ) -> None:
        """A notification whose text may hold host text (names, errors): never markup, and
        escapes shown visibly (`model.hosttext.visible`)."""
        self.notify(visible(message, multiline=True), title=visible(title),
                    severity=severity, timeout=timeout, markup=False)

    def _tick_frame(self) -> None:
        screen = self.active_screen
        if screen is None:
            return
        state = self.view_state()
        screen.refresh_frame(state)
        stale = self.session.status_stale(state.mono, self.stale_after)
        if stale != self._shown_stale:  # the pools' reading just aged past its limit
            self._shown_stale = stale
            screen.show_state(state)

    # -- refresh cycle: one loop per host ----------------------------------------------------
    def action_refresh(self, force: bool = False, *, scheduled: bool = False) -> None:
        """Start a refresh of the host on screen (none while one runs). `force` (ctrl+r or
        F5) also re-reads what is otherwise kept between refreshes: ZFS version, kernel,
        disk identity. `scheduled` (the refresh timer's): the frame is not drawn now. Its
        age line would say "1 s ago" for the few milliseconds until the refresh ends and
        says "0 s ago" again: two redraws of the screen a second, at `--refresh 1`, to say
        nothing; a refresh that takes longer is shown by the once-a-second frame tick
        ("refreshing for N s")."""
        self._refresh_member(self.current, force, scheduled=scheduled)

    def _refresh_member(self, m: Member, force: bool = False, *,
                        scheduled: bool = False) -> None:
        """Start `m`'s refresh in a worker of its own: a host that does not answer holds its
        own loop, never another's (its next refresh is armed when this one ends)."""
        now = self.mono()
        if not m.session.begin(now):
            return  # one refresh at a time per host
        if m.asked_at is None:
            m.asked_at = now
        if m is self.current:
            if force:
                self.forced_refreshes += 1
            if not scheduled:
                self._tick_frame()
        self.run_worker(partial(self._collect, m, force), thread=True, exclusive=True,
                        exit_on_error=False, group=f"refresh-{id(m)}",
                        name=f"refresh {m.name}")

    def _collect(self, m: Member, force: bool = False) -> None:
        from zconsole.ui.journal import read_mutes

        worker = get_current_worker()

        def early(result: Refresh) -> None:
            if not worker.is_cancelled and self._post_outcome(self.RefreshProgress(result, m)):
                self._first.hold_until_drawn(lambda: worker.is_cancelled)

        try:
            result = m.session.refresh(force=force, on_progress=early,
                                       cancelled=lambda: worker.is_cancelled)
        except Exception as e:  # noqa: BLE001 - any failure must reach the screen, not kill the app
            if not worker.is_cancelled:
                self._post_outcome(self.RefreshFailed(f"{type(e).__name__}: {e}", m))
            return
        if not worker.is_cancelled:
            self._post_outcome(self.RefreshDone(result, m, read_mutes(
                self, m.session.host, str(result.reading.host))))

    def _post_outcome(self, message: Message) -> bool:
        """A refresh's outcome, from its worker: to `on_load` while it waits for the first
        (ui/first_reading.py: True), else to the app's queue."""
        if self._first.take(message):
            return True
        self.post_message(message)
        return False

    def set_mutes(self, m: Member, mutes: tuple[Mute, ...]) -> None:
        """The operator muted or unmuted a finding: every face judges with it from now."""
        if mutes != m.mutes:
            self.monitor.advise(m, m.advice, mutes)

    def on_zconsole_app_refresh_progress(self, message: RefreshProgress) -> None:
        m = message.member or self.current
        if m.session.running:  # not after the refresh already ended
            m.session.progress(message.result)
            screen = self.active_screen
            if screen is not None and m is self.current:
                state = self.view_state()
                screen.refresh_frame(state)
                screen.show_state(state)

    def on_zconsole_app_refresh_done(self, message: RefreshDone) -> None:
        m = message.member or self.current
        if message.mutes is not None:
            self.set_mutes(m, message.mutes)
        self.monitor.record(m, message.result)
        self._refresh_done(m)

    def on_zconsole_app_refresh_failed(self, message: RefreshFailed) -> None:
        m = message.member or self.current
        self.monitor.record_failure(m, message.error)
        self._refresh_done(m)

    def _refresh_done(self, m: Member | None = None) -> None:
        m = m or self.current
        screen = self.active_screen
        if screen is not None:
            state = self.view_state()
            if m is self.current:
                screen.refresh_frame(state)
                screen.show_state(state)
            else:
                screen.member_refreshed(state)
        old = self._refresh_timers.pop(id(m), None)
        if old is not None:
            old.stop()
        if not self.paused:
            self._refresh_timers[id(m)] = self.set_timer(
                self.refresh_interval, partial(self._refresh_tick, m))
        if self._collector_held:
            self._collector_held = False
            self.call_after_refresh(release_collector)
        from zconsole.ui.smart_poll import poll_if_due  # its own cadence, never on a refresh

        poll_if_due(self, m)

    def _refresh_tick(self, m: Member | None = None) -> None:
        if not self.paused:
            self._refresh_member(m or self.current)

    # -- several hosts -----------------------------------------------------------------------
    def switch_host(self, m: Member, mode: str = SCREENS[0].mode) -> None:
        """Every screen shows `m` from now on: the screens made for the previous host are
        dropped (each is made again, for this host, when shown) and `mode` is shown."""
        if m is not self.current:
            self.current = m
            self.host = m.host
            self.session = m.session
            self._shown_stale = False
            for entry in SCREENS:
                if entry.mode != self.current_mode:
                    self.remove_mode(entry.mode)
                    self.add_mode(entry.mode, entry)
            if m.asked_at is None:
                self._refresh_member(m)
        self.switch_mode(mode)

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            for m in self.members:
                self._refresh_member(m)
        self._tick_frame()

    def action_next_theme(self) -> None:
        short, self.theme = next_theme(self.theme_files, self.theme)
        self.notify(f"Theme: {short}", markup=False)  # says which one it chose (issue 29)
