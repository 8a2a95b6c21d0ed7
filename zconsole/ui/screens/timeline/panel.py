"""The Timeline screen's body: the summary line for the screen share, what each source gave
(and how far back `zpool events` reaches), the filters, then the entries, newest first.

Newest first: the question during an incident is "what changed?", and the latest change has
to be on screen at once, under the summary, on an 80x24 terminal, without scrolling; each day
starts with its date line, and the "since" marker closes the list at the time asked for.
Every name and word from the host is shown through `plain` (never markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from zconsole.model.timeline import Entry, Kind, Source, Timeline, Zone, as_tz, readable_epoch
from zconsole.services import fmt
from zconsole.services.read.timeline import BAD_STATES
from zconsole.ui.kit.filter import ListFilter, open_filter
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, Para, fit, para, plain

MUTED = LEVEL_STYLE["muted"]
SHOWN_MAX = 400  # entries drawn at once: one page (the newest first; `[` and `]` page)
UNREADABLE = "time out of range (unreadable)"  # the day line of entries no clock can show
SOURCE_TAG = {Source.EVENTS: "event", Source.HISTORY: "history", Source.AUDIT: "zconsole",
              Source.OBSERVED: "seen"}


@dataclass(frozen=True)
class Filters:
    pool: str | None = None
    vdev: str | None = None
    kind: Kind | None = None
    since: float | None = None
    since_text: str = ""

    def words(self) -> str:
        return (f"pool {self.pool or 'all'} · vdev {self.vdev or 'all'} · "
                f"kind {self.kind.value if self.kind else 'all'} · "
                f"since {self.since_text or '-'}")


def host_time(at: float, offset: Zone) -> datetime | None:
    """`at` on the host's wall clock (its zone's rules when known: an entry from summer
    shows its summer time); None for a time no clock can show (`readable_epoch`): a
    `zpool history` record dated 0001-01-01 or 9999-12-31 is an entry with an unreadable
    time, never a crash of the screen (issue 27)."""
    if not readable_epoch(at):
        return None
    return datetime.fromtimestamp(at, as_tz(offset)).replace(tzinfo=None)


def filters_line(filters: Filters) -> Content:
    """The filters as one line: a pool or vdev name is host text, and a line break in it (an
    event's `pool` string can hold one) is shown as `\\x0a`, never as a line of its own."""
    return plain(f"{filters.words()}   (o pool, v vdev, k kind, s since, x clear, w wrap)",
                 multiline=False)


def zone_words(t: Timeline, clock: str = "") -> str:
    """Which clock the times are on: always the host's (its events' own times), and `clock`
    ("host clock 1 h 0 min behind", `fmt.clock_offset`) when it is off the console's."""
    off = f"; {clock} the console's" if clock else ""
    if t.utc_offset is None:
        return f"times in UTC (the host's time zone could not be read), on its clock{off}"
    sign = "+" if t.utc_offset >= 0 else "-"
    h, m = divmod(abs(t.utc_offset) // 60, 60)
    name = f" {t.tz_name}" if t.tz_name else ""
    rules = f", {t.rules} rules" if t.rules is not None else ""
    return (f"times in the host's time zone (UTC{sign}{h:02d}:{m:02d}{name}{rules}), "
            f"on its clock{off}")


def sources_text(t: Timeline, observed: int, clock: str = "") -> Hanging:
    paras = []
    for s in t.sources:
        if s.source is Source.OBSERVED:
            continue
        if s.error is not None:
            paras.append(para(f"{s.source.value} could not be read: {s.error}", "✖ ",
                              LEVEL_STYLE["bad"]))
            continue
        words = f"{s.source.value}: {fmt.plural(s.entries, 'entry', 'entries')}"
        oldest = host_time(s.oldest, t.zone) if s.oldest is not None else None
        if oldest is not None:
            words += f", back to {oldest:%Y-%m-%d %H:%M}"
        elif s.oldest is not None:
            words += ", back to a time out of range (unreadable)"
        if s.source is Source.EVENTS:
            words += f" ({s.note}: nothing before the last boot)"
        elif s.note:  # history: the records whose end and user could not be told
            words += f" ({s.note})"
        paras.append(para(words, "• ", MUTED))
    paras.append(para(f"zconsole observed: {fmt.plural(observed, 'change', 'changes')} "
                      f"this session · {zone_words(t, clock)}", "• ", MUTED))
    return Hanging(*paras)


def _style(e: Entry) -> str:
    if e.state in BAD_STATES:
        return LEVEL_STYLE["bad"] if e.state != "DEGRADED" else LEVEL_STYLE["warn"]
    if e.state == "ONLINE":
        return LEVEL_STYLE["ok"]
    if e.kind is Kind.ERROR:
        return LEVEL_STYLE["warn"]
    if e.kind is Kind.INTERNAL:
        return MUTED
    return ""


def pages(count: int) -> int:
    """How many pages of SHOWN_MAX entries `count` entries fill (1 when there are none)."""
    return max(1, -(-count // SHOWN_MAX))


def page_of(entries: Sequence[Entry], page: int) -> tuple[Sequence[Entry], int, int]:
    """Page `page` (0: the newest SHOWN_MAX, 1: the SHOWN_MAX before them, …; clamped):
    its entries oldest first, how many newer entries and how many older ones are not on it."""
    page = min(max(page, 0), pages(len(entries)) - 1)
    end = len(entries) - page * SHOWN_MAX
    start = max(0, end - SHOWN_MAX)
    return entries[start:end], len(entries) - end, start


def entry_text(e: Entry) -> str:
    """What `/` looks for in an entry: its kind, pool, vdev, words, detail and source."""
    return " ".join(x for x in (e.kind.value, e.pool, e.vdev, e.words, e.detail,
                                SOURCE_TAG[e.source]) if x)


def entry_line(e: Entry, t: datetime | None, pool_w: int, width: int,
               whole: bool = False) -> Content | Para:
    """One entry: its time, kind, pool, words and source, on one line cut to `width`; or
    `whole` (`w`), every word and the source's raw class or detail, wrapped under the
    pool's column."""
    tag = SOURCE_TAG[e.source]
    head = Content.styled(f"{f'{t:%H:%M:%S}' if t is not None else '--:--:--'} "
                          f"{e.kind.value:<8} ", MUTED)
    shows_detail = e.detail and (whole or e.source is not Source.EVENTS)
    words = (e.words + (f" ({e.detail})" if shows_detail else "")).replace("\n", " ")
    if whole:
        return Para(head, Content.assemble(
            plain(e.pool.ljust(pool_w) + "  ", multiline=False),
            plain(words, _style(e), multiline=False), Content.styled(f"  {tag}", MUTED)))
    room = max(10, width - head.cell_length - pool_w - 2 - len(tag) - 3)
    return Content.assemble(
        head,
        plain(fit(e.pool, pool_w).ljust(pool_w) + "  ", multiline=False),
        plain(fit(words, room).ljust(room), _style(e), multiline=False),
        Content.styled(f"  {tag}", MUTED))


def entry_lines(entries: Sequence[Entry], offset: Zone, width: int,
                since: tuple[float, str] | None, hidden: int, page: int = 0,
                whole: bool = False) -> Content | Hanging:
    """The entries of `page`, newest first, a date line where the day changes, the since
    marker; a line above and below says how many newer and older entries the other pages
    hold. `whole`: each entry wrapped whole (`entry_line`), not cut to the width."""
    pool_w = min(12, max((len(e.pool) for e in entries), default=4))
    parts: list[Content | Para] = []
    day: object = None
    drawn, newer, older = page_of(entries, page)
    if newer:
        parts.append(Content.styled(
            f"… {fmt.plural(newer, 'newer entry', 'newer entries')} on the pages before "
            f"(] newer; page {page + 1} of {pages(len(entries))})", MUTED))
    for e in reversed(drawn):
        t = host_time(e.at, offset)
        if (t.date() if t is not None else UNREADABLE) != day:
            day = t.date() if t is not None else UNREADABLE
            parts.append(Content.styled(f"── {day:%Y-%m-%d %a} ──" if t is not None
                                        else f"── {UNREADABLE} ──", "bold"))
        parts.append(entry_line(e, t, pool_w, width, whole))
    if older:
        parts.append(Content.styled(
            f"… {fmt.plural(older, 'older entry', 'older entries')} on the next pages "
            f"([ older; page {min(page, pages(len(entries)) - 1) + 1} of "
            f"{pages(len(entries))})", MUTED))
    if since is not None:
        parts.append(Content.styled(
            f"── since {since[1]}: {fmt.plural(hidden, 'older entry', 'older entries')} "
            "hidden ──", LEVEL_STYLE["primary"]))
    if not entries:
        parts.append(Content.styled("nothing to show with these filters", MUTED))
    if whole:
        return Hanging(*parts)
    return Content("\n").join(p for p in parts if isinstance(p, Content))


class TimelinePanel(Vertical):
    DEFAULT_CSS = """
    TimelinePanel {
        height: auto;
    }
    TimelinePanel #tl-summary {
        height: auto;
        text-style: bold;
    }
    TimelinePanel #tl-sources {
        height: auto;
        margin: 1 0 0 0;
    }
    TimelinePanel #tl-filters {
        height: auto;
        color: $primary;
        margin: 1 0 0 0;
    }
    TimelinePanel #tl-entries {
        height: auto;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="tl-summary")
        yield Static(id="tl-sources")
        yield Static(id="tl-filters")
        yield Static(id="tl-entries")

    _last: tuple[Any, ...] | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.words = ListFilter()  # `/`: the entries whose text holds the words typed
        self.whole = False  # `w`: each entry wrapped whole, not cut to one line

    def open_filter(self) -> None:
        """`/` above the entries; enter or escape give the focus back to the page (the
        entries themselves cannot take it), so its keys work at once."""
        open_filter(self.words, anchor=self.query_one("#tl-entries"), redraw=self.redraw,
                    back=self.page_widget)

    def page_widget(self) -> Widget | None:
        """The scrolling page the panel is on (what the arrows and pages scroll)."""
        return next((a for a in self.ancestors if isinstance(a, Widget) and a.focusable),
                    None)

    def toggle_whole(self) -> None:
        self.whole = not self.whole
        self.redraw()

    def redraw(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)  # the entries are cut to the width

    def show(self, summary: Sequence[str], timeline: Timeline | None, error: str | None,
             entries: Sequence[Entry], observed: int, filters: Filters, hidden: int,
             page: int = 0, clock: str = "") -> None:
        """`clock`: how far the host's clock is off the console's, when it is
        (`fmt.clock_offset`): the times shown are the host's."""
        self._last = (summary, timeline, error, entries, observed, filters, hidden, page, clock)
        entries = self.words.keep(entries, entry_text)
        # before the first layout: the screen's width less the body's padding and scroll bar
        width = max(40, self.content_size.width or self.app.size.width - 5)
        self.query_one("#tl-summary", Static).update(
            Hanging(*(para(line, "") for line in summary)) if summary else "")
        sources = self.query_one("#tl-sources", Static)
        entries_w = self.query_one("#tl-entries", Static)
        if timeline is None:
            sources.update(plain(f"✖ the timeline could not be read: {error}",
                                 LEVEL_STYLE["bad"]) if error
                           else Content.styled("reading zpool events and zpool history…",
                                               MUTED))
            entries_w.update("")
        else:
            sources.update(sources_text(timeline, observed, clock))
            since = (filters.since, filters.since_text) if filters.since is not None else None
            entries_w.update(entry_lines(entries, timeline.zone, width, since, hidden,
                                         page, self.whole))
        self.query_one("#tl-filters", Static).update(filters_line(filters))
