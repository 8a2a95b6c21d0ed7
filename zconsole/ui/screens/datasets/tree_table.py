"""The virtualised tree table of the Datasets screen (Line API).

It keeps a plain list of rows (`rows.py`) and renders only the lines on screen, so an opened
dataset with 10 000 snapshots costs one list, not 10 000 widgets or 10 000 measured DataTable
cells (DataTable measures every cell of every row it is given: about 1.3 s for 10 000 rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from zconsole.services import fmt
from zconsole.ui.kit.filter import ListFilter, open_filter, tree_keep
from zconsole.ui.kit.text import fit, plain
from zconsole.ui.screens.datasets.rows import TreeRow


def ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def pad(text: str, width: int) -> str:
    """Cut in the middle (keeps the start and the distinguishing end), or pad, to `width`."""
    return fit(text, width, "middle").ljust(max(0, width))


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int
    right: bool = True


# Every column but NAME, in the order shown; each with its width (MOUNTPOINT and NOTE: the
# least they are shown in, they take more up to CAPS when there is room). QUOTA and REFQUOTA
# only when a row shown has one (most hosts set none: no two columns of "-").
COLUMNS = (Column("used", "USED", 7), Column("avail", "AVAIL", 7),
           Column("refer", "REFER", 7), Column("quota", "QUOTA", 7),
           Column("refquota", "REFQUOTA", 8), Column("usedsnap", "USEDSNAP", 8),
           Column("ratio", "RATIO", 5), Column("created", "CREATED", 7),
           Column("mountpoint", "MOUNTPOINT", 12, right=False),
           Column("note", "NOTE", 20, right=False))
# The order they are given room in: on a narrow screen the last ones are left out. A quota
# comes before MOUNTPOINT: a dataset near its quota is what an admin looks for; NOTE (a
# clone's origin, a warning) before RATIO.
IMPORTANCE = ("used", "avail", "refer", "quota", "refquota", "mountpoint", "usedsnap",
              "created", "note", "ratio")
NEAR_QUOTA = 0.80  # a QUOTA/REFQUOTA cell this full is in the warning colour
FULL_QUOTA = 0.95  # ... and this full in the critical one
CAPS = {"name": 48, "mountpoint": 32, "note": 48}
NAME_MIN = 20  # NAME keeps this (or what its longest name needs, when less) before any column
NOTE_MIN_WIDTH = 100  # the NOTE column appears from this table width


@dataclass(frozen=True)
class Needs:
    """The widest cell of the rows shown, per column that grows (NAME, MOUNTPOINT, NOTE),
    and whether a row shown has a quota, a refquota."""

    name: int = 0
    mountpoint: int = 0
    note: int = 0
    quota: bool = False
    refquota: bool = False


def needs_of(rows: Sequence[TreeRow]) -> Needs:
    """What the rows' longest name, mountpoint and note need (clone and note rows span the
    whole line and need nothing)."""
    shown = [r for r in rows if r.kind not in ("clone", "note")]
    sets = [r.dataset for r in shown if r.dataset is not None]
    return Needs(max((len(r.guide) + len(r.label) for r in shown), default=0),
                 max((len(d.mountpoint or "") for d in sets), default=0),
                 max((len(r.note) for r in shown), default=0),
                 any(d.quota for d in sets), any(d.refquota for d in sets))


def layout(width: int, needs: Needs | None = None) -> list[Column]:
    """NAME gets what its longest name needs, up to a cap; the other columns the rest, the
    most important first; a narrow screen leaves out the least important columns rather than
    cut NAME to nothing. NOTE only on wide screens."""
    need = needs or Needs(CAPS["name"], CAPS["mountpoint"], CAPS["note"], True, True)
    name_need = max(12, min(CAPS["name"], need.name))
    room = width - 1 - min(NAME_MIN, name_need)
    by_key = {c.key: c for c in COLUMNS}
    chosen: set[str] = set()
    for key in IMPORTANCE:
        c = by_key[key]
        if (key == "note" and width < NOTE_MIN_WIDTH) or (key == "quota" and not need.quota) \
                or (key == "refquota" and not need.refquota):
            continue
        if c.width + 1 <= room:
            chosen.add(key)
            room -= c.width + 1
    name = min(NAME_MIN, name_need)
    grow = min(room, name_need - name)  # NAME first takes what it needs, up to its cap
    name += grow
    room -= grow
    widths = {c.key: c.width for c in COLUMNS if c.key in chosen}
    for key, want in (("mountpoint", need.mountpoint), ("note", need.note)):
        if key in widths:
            more = max(0, min(room, min(CAPS[key], want) - widths[key]))
            widths[key] += more
            room -= more
    return [Column("name", "NAME", name, right=False),
            *(Column(c.key, c.title, widths[c.key], c.right) for c in COLUMNS
              if c.key in chosen)]


def row_cells(row: TreeRow, now: float) -> dict[str, str]:
    d = row.dataset
    cells = {"name": row.guide + row.label, "note": row.note}
    if d is None:
        return cells
    cells["used"] = fmt.size(d.used, short=True)
    cells["refer"] = fmt.size(d.refer, short=True)
    if row.kind == "dataset":
        cells["avail"] = fmt.size(d.avail, short=True)
        cells["usedsnap"] = fmt.size(d.usedbysnapshots, short=True)
        cells["ratio"] = ratio(d.compressratio)
        cells["mountpoint"] = d.mountpoint or "-"
        cells["quota"] = fmt.size(d.quota, short=True)  # None (no quota, a volume): "-"
        cells["refquota"] = fmt.size(d.refquota, short=True)
    cells["created"] = (fmt.duration(now - d.creation, coarse=True) if d.creation is not None
                        else "-")
    return cells


def quota_levels(row: TreeRow) -> dict[str, str]:
    """The QUOTA/REFQUOTA cells of a dataset near its limit: "warn" from NEAR_QUOTA full,
    "bad" from FULL_QUOTA. A quota bounds USED (the dataset, its children and snapshots), a
    refquota REFER (zfsprops(7))."""
    d = row.dataset
    if d is None or row.kind != "dataset":
        return {}
    out = {}
    for key, limit, spent in (("quota", d.quota, d.used), ("refquota", d.refquota, d.refer)):
        if limit and spent is not None and spent >= NEAR_QUOTA * limit:
            out[key] = "bad" if spent >= FULL_QUOTA * limit else "warn"
    return out


class TreeTable(ScrollView, can_focus=True):
    """A sticky header line and rows; only the lines on screen are rendered."""

    DEFAULT_CSS = """
    TreeTable {
        height: 1fr;
        min-height: 5;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    TreeTable > .treetable--header {
        text-style: bold;
        color: $foreground;
        background: $panel;
    }
    TreeTable > .treetable--cursor {
        background: $primary 40%;
        text-style: bold;
    }
    TreeTable:focus > .treetable--cursor {
        background: $primary;
        color: $background;
    }
    TreeTable > .treetable--muted {
        color: $muted;
    }
    TreeTable > .treetable--warn {
        color: $health-warn;
    }
    TreeTable > .treetable--bad {
        color: $health-bad;
    }
    """

    COMPONENT_CLASSES = {"treetable--header", "treetable--cursor", "treetable--muted",
                         "treetable--warn", "treetable--bad"}

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("enter", "activate('toggle')", "Open/close"),
        Binding("right", "activate('open')", "Open", show=False),
        Binding("left", "activate('close')", "Close", show=False),
        Binding("slash", "filter", "Find", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=False)

    class Highlighted(Message):
        def __init__(self, row: TreeRow | None) -> None:
            super().__init__()
            self.row = row

    class Activated(Message):
        def __init__(self, row: TreeRow, action: str) -> None:
            super().__init__()
            self.row = row
            self.action = action

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.rows: list[TreeRow] = []
        self.source: Sequence[TreeRow] = ()  # the rows given, before the `/` words
        self._index: dict[str, int] = {}
        self.now = 0.0
        self._layout: tuple[int, Needs, list[Column]] = (-1, Needs(), [])
        self.needs = Needs()  # what the rows shown need: NAME, MOUNTPOINT, NOTE widths
        # Rendered rows, as Textual's Log keeps them: (row, on the cursor, focused, width).
        self._strips: LRUCache[tuple[int, bool, bool, int], Strip] = LRUCache(1024)
        self.redrawn = 0  # rendered lines the last `set_rows` dropped (they draw again)
        self.words = ListFilter()  # `/`: the rows whose text holds the words, and their parents

    # -- data ------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[TreeRow], now: float, keep: str | None = None) -> None:
        """Replace the rows; the cursor stays on `keep` (a row key) when it is still there.

        While the same rows are listed (same keys in the same order), only the rendered
        lines whose text changed are drawn again, and nothing at all when none did.
        With `/` words, only the rows that hold them are kept, with their parents."""
        self.source = rows
        new = self.narrow(rows, now)
        old, old_now = self.rows, self.now
        same_rows = len(new) == len(old) and all(
            a.key == b.key for a, b in zip(old, new, strict=True))
        self.rows = new
        self.now = now
        needs = needs_of(new)
        moved = needs != self.needs  # the columns move: every line draws again
        if moved:
            self.needs = needs
            self._strips.clear()
        if same_rows:
            stale = [k for k in self._strips.keys()
                     if old[k[0]] != new[k[0]]
                     or row_cells(old[k[0]], old_now) != row_cells(new[k[0]], now)]
            for k in stale:
                self._strips.discard(k)
            self.redrawn = len(stale)
            here = self.cursor
            if (not stale and not moved and (not 0 <= here < len(new) or old[here] == new[here])
                    and (keep is None or self._index.get(keep) in (None, here))):
                return  # nothing to draw; the cursor and the scroll stay where they are
        else:
            self._index = {r.key: i for i, r in enumerate(self.rows)}
            self.redrawn = len(self._strips)
            self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        target = self._index.get(keep, None) if keep is not None else None
        if target is None:
            target = min(self.cursor, max(0, len(self.rows) - 1))
        changed = target != self.cursor
        self.cursor = target
        if not changed:
            self.post_message(self.Highlighted(self.current))
        self._scroll_cursor_into_view()
        self.refresh()

    def on_key(self, event: events.Key) -> None:
        """Escape on the list clears the `/` words, as escape in their bar does."""
        if event.key == "escape" and self.words.clear():
            event.stop()

    def action_filter(self) -> None:
        open_filter(self.words, anchor=self, redraw=self.redraw)

    def redraw(self) -> None:
        """The rows last given, narrowed by the words as they are now."""
        self.set_rows(self.source, self.now, keep=self.current.key if self.current else None)

    def narrow(self, rows: Sequence[TreeRow], now: float) -> list[TreeRow]:
        """The rows the `/` words leave (each row's cells as shown and its whole name)."""
        if not self.words.active:
            self.words.count(len(rows), len(rows))
            return list(rows)
        texts = [" ".join((*row_cells(r, now).values(), r.key)) for r in rows]
        kept, matched = tree_keep(texts, [len(r.guide) // 3 for r in rows], self.words.words)
        self.words.count(matched, len(rows))
        return [r for r, k in zip(rows, kept, strict=True) if k]

    @property
    def current(self) -> TreeRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def index_of(self, key: str) -> int | None:
        return self._index.get(key)

    def move_to(self, key: str) -> bool:
        """Jump to a row; a jump out of view puts it mid-screen, with what is under it."""
        i = self._index.get(key)
        if i is None:
            return False
        top = int(self.scroll_y)
        h = self._body_height()
        if not top + 1 <= i < top + h - 1:
            self.scroll_to(y=max(0, i - h // 2), animate=False, force=True)
        self.cursor = i
        return True

    # -- cursor ----------------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.Highlighted(self.current))

    def _body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        """Keep the cursor on screen with one row of context above and below it (what a
        snapshot's clone row, right under it, says matters)."""
        top = int(self.scroll_y)
        h = self._body_height()
        margin = 1 if h >= 5 else 0
        if self.cursor < top + margin:
            self.scroll_to(y=max(0, self.cursor - margin), animate=False, force=True)
        elif self.cursor >= top + h - margin:
            self.scroll_to(y=self.cursor - h + 1 + margin, animate=False, force=True)

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * self._body_height())

    def action_jump(self, where: int) -> None:
        if self.rows:
            self.cursor = 0 if where == 0 else len(self.rows) - 1

    def action_activate(self, action: str) -> None:
        row = self.current
        if row is not None:
            self.post_message(self.Activated(row, action))

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            i = int(self.scroll_y) + event.y - 1
            if 0 <= i < len(self.rows):
                self.cursor = i
                if event.chain >= 2:
                    self.action_activate("toggle")

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows) + 1)
        self._scroll_cursor_into_view()

    # -- rendering ---------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # the theme or the focus changed the rows' colours

    def _columns(self, width: int) -> list[Column]:
        if self._layout[:2] != (width, self.needs):
            self._layout = (width, self.needs, layout(width, self.needs))
        return self._layout[2]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("treetable--header")
            text = " ".join(pad(c.title, c.width) if not c.right else c.title.rjust(c.width)
                            for c in self._columns(width))
            return Strip([Segment(pad(text, width), style)], width)
        i = int(self.scroll_y) + y - 1
        if i >= len(self.rows):
            return Strip([Segment(" " * width, base)], width)
        key = (i, i == self.cursor, self.has_focus, width)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = self._render_row(self.rows[i], i, width)
        return strip

    def _render_row(self, row: TreeRow, i: int, width: int) -> Strip:
        style = self.rich_style
        if row.level:
            style = style + self.get_component_rich_style(f"treetable--{row.level}")
        levels = quota_levels(row)
        if levels:
            return self._render_cells(row, i, width, style, levels)
        if i == self.cursor:
            style = style + self.get_component_rich_style("treetable--cursor")
        if row.kind in ("clone", "note"):
            # names are host text: shown through plain(), never as markup
            return Strip([Segment(pad(plain(row.guide + row.label).plain, width), style)],
                         width)
        cells = row_cells(row, self.now)
        parts = []
        for c in self._columns(width):
            v = cells.get(c.key, "")
            if c.key == "note":
                v = fit(v, c.width)
            parts.append(pad(v, c.width) if not c.right else v[-c.width:].rjust(c.width))
        return Strip([Segment(pad(plain(" ".join(parts)).plain, width), style)], width)

    def _render_cells(self, row: TreeRow, i: int, width: int, style: Style,
                      levels: dict[str, str]) -> Strip:
        """A row with cells in their own colour (a quota nearly used up), cell by cell; the
        cursor's style over all of them."""
        cursor = self.get_component_rich_style("treetable--cursor") if i == self.cursor \
            else None
        line_style = style + cursor if cursor is not None else style
        cells = row_cells(row, self.now)
        segments = []
        for n, c in enumerate(self._columns(width)):
            v = cells.get(c.key, "")
            if c.key == "note":
                v = fit(v, c.width)
            text = plain(pad(v, c.width) if not c.right else v[-c.width:].rjust(c.width)).plain
            cell = style
            if c.key in levels:
                cell = cell + self.get_component_rich_style(f"treetable--{levels[c.key]}")
            if n:
                segments.append(Segment(" ", line_style))
            segments.append(Segment(text, cell + cursor if cursor is not None else cell))
        return Strip(segments).adjust_cell_length(width, line_style)

    def visible_text(self) -> list[str]:
        """The rows as plain lines (for tests and screen readers)."""
        cols = self._columns(max(40, self.scrollable_content_region.width))
        out = []
        for row in self.rows:
            if row.kind in ("clone", "note"):
                out.append(row.guide + row.label)
                continue
            cells = row_cells(row, self.now)
            out.append(" ".join(cells.get(c.key, "") for c in cols).rstrip())
        return out

