"""Timeline: "since when?" and "what changed?" in one list, newest first.

The screen reads `zpool events -v`, `zpool history -il`, the host's time zone and zconsole's
own audit log in a worker (`services.read.timeline.read_timeline`) when it is shown, when the
operator refreshes (ctrl+r) and at most once a minute with the refreshes; what zconsole saw
change between two refreshes (the session's `StateWatch`), what its SMART polls found (a
counter that grew, a self-test result: `SmartFollow.entries`) and the summary line are taken
from every refresh. Keys: `o` pool (`p` is the console's pause), `v` vdev, `k` kind (each cycles), `s` since (type a
time), `x` clears the filters; `[` and `]` page to older and newer entries (400 a page); `w`
wraps each entry whole (cut to one line by default: the newest on screen at once at 80x24).
The page is the list: it has the focus (the `/` and since fields give it back), and the
arrows, PageUp/PageDown, Home and End scroll it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input

from zconsole.hosts.base import Host
from zconsole.hosts.journal import AuditLog
from zconsole.model.pool import Pool
from zconsole.model.timeline import Entry, Kind, Source, Timeline
from zconsole.services import fmt
from zconsole.services.health.timeline import summary
from zconsole.services.read.timeline import (
    filter_entries,
    fold_self_tests,
    merge,
    parse_since,
    read_timeline,
)
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.timeline.panel import Filters, TimelinePanel, pages
from zconsole.ui.state import ViewState

GROUP = "timeline"
REREAD_S = 60.0  # with the refreshes, the sources are read again after this long


def _read(host: Host, audit_path: str | None, pools: tuple[Pool, ...]) -> Timeline:
    audit = AuditLog(audit_path) if audit_path and Path(audit_path).exists() else None
    return read_timeline(host, audit=audit, pools=pools)


class TimelineScreen(ZScreen):
    BINDINGS = [
        Binding("o", "cycle('pool')", "Pool"),
        Binding("v", "cycle('vdev')", "Vdev"),
        Binding("k", "cycle('kind')", "Kind"),
        Binding("s", "since", "Since"),
        Binding("x", "clear", "Clear"),
        Binding("w", "wrap", "Wrap long entries", show=False),
        Binding("slash", "filter", "Find", show=False),
        Binding("left_square_bracket", "page(1)", "Older", show=False),
        Binding("right_square_bracket", "page(-1)", "Newer", show=False),
    ]

    DEFAULT_CSS = """
    TimelineScreen #tl-since {
        display: none;
        dock: bottom;
        margin: 0 0 1 0;
    }
    TimelineScreen #tl-since.open {
        display: block;
    }
    """

    class Loaded(PartLoaded[Timeline]):
        """The sources were read."""

    def __init__(self) -> None:
        super().__init__()
        self.timeline: Timeline | None = None
        self.error: str | None = None
        self.reads = 0
        self.filters = Filters()
        self.summary: list[str] = []
        self.shown: list[Entry] = []
        self.page = 0  # 0: the newest SHOWN_MAX entries; a new filter goes back to it
        self._paged = self.filters
        self._asked_at: float | None = None
        self._forced = -1
        self._state: ViewState | None = None

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Input(placeholder="since (03:00, 03:00:30 or 2026-11-21 03:00; empty: all)",
                    id="tl-since")

    def compose_body(self) -> ComposeResult:
        yield TimelinePanel(id="tl-panel")

    def on_mount(self) -> None:
        self._redraw()

    # -- reading --------------------------------------------------------------------------
    def show_state(self, state: ViewState) -> None:
        self._state = state
        due = (self._asked_at is None or state.forced != self._forced
               or state.mono - self._asked_at >= REREAD_S)
        if due:
            self._asked_at = state.mono
            self._forced = state.forced
            pools = tuple(state.reading.pool_status.value or ()) if state.reading else ()
            self.read(self.Loaded, partial(_read, state.host, self._audit_path(), pools),
                      group=GROUP, asked_at=state.mono)
        self._redraw()

    def _audit_path(self) -> str | None:
        from zconsole.ui.wizards.backend import audit_path_for

        try:
            return audit_path_for(self.console_app)
        except (OSError, ValueError):
            return None

    def on_timeline_screen_loaded(self, message: Loaded) -> None:
        self.timeline = message.value
        self.error = None
        self.reads += 1
        self._redraw()

    def on_part_failed(self, message: PartFailed) -> None:
        self.error = message.error
        self.reads += 1
        self._redraw()

    # -- what is shown --------------------------------------------------------------------
    def observed(self) -> tuple[Entry, ...]:
        """What zconsole saw happen this session: pool and vdev states between refreshes
        (the session's `StateWatch`) and what its SMART polls found (a counter that grew, a
        self-test result: `SmartFollow.entries`)."""
        session = self.console_app.session
        states, smart = session.watch.entries, session.smart.entries
        return merge(states, smart) if smart else states

    def entries(self) -> tuple[Entry, ...]:
        """Every entry: the sources' and what zconsole saw change this session; a self-test
        result both zconsole's audit and its SMART poll hold, once (`fold_self_tests`)."""
        observed = self.observed()
        base = self.timeline.entries if self.timeline is not None else ()
        return fold_self_tests(merge(base, observed)) if observed else base

    def _choices(self, what: str) -> list[str]:
        everything = self.entries()
        if what == "pool":
            return sorted({e.pool for e in everything if e.pool})
        pool = self.filters.pool
        return sorted({e.vdev for e in everything if e.vdev and (pool is None or e.pool == pool)})

    def action_cycle(self, what: str) -> None:
        f = self.filters
        if what == "kind":
            kinds: list[Kind | None] = [None, *Kind]
            nxt = kinds[(kinds.index(f.kind) + 1) % len(kinds)]
            self.filters = Filters(f.pool, f.vdev, nxt, f.since, f.since_text)
        else:
            options: list[str | None] = [None, *self._choices(what)]
            cur = f.pool if what == "pool" else f.vdev
            nxt_s = options[(options.index(cur) + 1) % len(options)] if cur in options \
                else None
            self.filters = (Filters(nxt_s, None, f.kind, f.since, f.since_text)
                            if what == "pool" else
                            Filters(f.pool, nxt_s, f.kind, f.since, f.since_text))
        self._redraw()

    def action_since(self) -> None:
        box = self.query_one("#tl-since", Input)
        box.add_class("open")
        box.value = self.filters.since_text
        box.focus()

    def action_filter(self) -> None:
        self.query_one(TimelinePanel).open_filter()

    def action_wrap(self) -> None:
        """`w`: every entry whole, wrapped under its pool (its source's raw class or detail
        too); again: one line each, cut to the width."""
        self.query_one(TimelinePanel).toggle_whole()

    def action_clear(self) -> None:
        self.filters = Filters()
        self._redraw()

    def action_page(self, step: int) -> None:
        """`[` the older page, `]` the newer one (the list is newest first)."""
        self.page = min(max(self.page + step, 0), pages(len(self.shown)) - 1)
        self._redraw()

    def set_since(self, text: str) -> bool:
        """Show what changed since `text` (the host's wall clock); "" shows everything.
        False when `text` is not a time."""
        f = self.filters
        if not text.strip():
            self.filters = Filters(f.pool, f.vdev, f.kind)
            self._redraw()
            return True
        offset = self.timeline.zone if self.timeline is not None else None
        at = parse_since(text, self._host_now(), offset)
        if at is None:
            self.notify(f"not a time: {text!r} (try 03:00 or 2026-11-21 03:00)",
                        severity="warning", markup=False)
            return False
        self.filters = Filters(f.pool, f.vdev, f.kind, at, text.strip())
        self._redraw()
        return True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "tl-since":
            return
        event.stop()
        if self.set_since(event.value):
            event.input.remove_class("open")
            self.query_one(TimelinePanel).focus()

    def key_escape(self) -> None:
        """Escape closes the since field; on the page, it clears the `/` words (as on every
        list)."""
        box = self.query_one("#tl-since", Input)
        if box.has_class("open"):
            box.remove_class("open")
        else:
            self.query_one(TimelinePanel).words.clear()

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        state = self._state
        everything = self.entries()
        f = self.filters
        unfiltered = filter_entries(everything, pool=f.pool, vdev=f.vdev, kind=f.kind)
        self.shown = filter_entries(unfiltered, since=f.since)
        hidden = len(unfiltered) - len(self.shown)
        if state is not None and state.reading is not None:
            pools = state.reading.pool_status.value or ()
            offset = self.timeline.zone if self.timeline is not None else None
            self.summary = summary(pools, everything, state.scan_estimates, self._host_now(),
                                   offset)
        if f != self._paged:  # another filter: back to the newest page
            self._paged, self.page = f, 0
        self.page = min(self.page, pages(len(self.shown)) - 1)
        reading = state.reading if state is not None else None
        self.query_one(TimelinePanel).show(
            self.summary, self.timeline, self.error, self.shown,
            sum(e.source is Source.OBSERVED for e in everything), f, hidden, self.page,
            fmt.clock_offset(reading.clock_offset if reading is not None else None))

    def _host_now(self) -> float:
        """The host's clock now: the Timeline's times are the host's, and so is its "now"
        (its clock at the reading plus the console's monotonic time since)."""
        state = self._state
        if state is None or state.reading is None:
            return self.console_app.clock()
        return state.reading.host_time(state.mono)
