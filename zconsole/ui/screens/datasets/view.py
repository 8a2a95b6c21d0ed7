"""Widgets of the Datasets screen: a virtualised tree table and the blast-radius panel.

The tree table is a Line-API widget: it keeps a plain list of rows and renders only the lines
on screen, so an opened dataset with 10 000 snapshots costs one list, not 10 000 widgets or
10 000 measured DataTable cells (DataTable measures every cell of every row it is given:
about 1.3 s for 10 000 rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from zconsole.model.dataset import Dataset
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.read.datasets import BlastRadius, DatasetTree, short_snapshot
from zconsole.ui.kit.text import fit

# -- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeRow:
    """One line of the tree: a dataset, a snapshot, a clone drawn under its origin, or a note.

    `key` is the dataset or snapshot name (clone rows: "clone:" + snapshot + ">" + clone;
    notes: "note:" + dataset). `target` is the dataset a clone row points to.
    """

    key: str
    kind: str  # "dataset" | "snapshot" | "clone" | "note"
    guide: str
    label: str
    dataset: Dataset | None = None
    target: str | None = None
    level: str = ""  # "", "muted", "warn", "bad"
    note: str = ""

    @property
    def name(self) -> str:
        """The dataset or snapshot this row stands for (a clone row: the clone)."""
        if self.kind == "clone" and self.target:
            return self.target
        if self.kind == "note" and self.target:
            return self.target
        return self.key


@dataclass(frozen=True)
class OpenState:
    """The opened dataset's snapshot listing: loading, loaded (part ok) or failed."""

    dataset: str
    part: Part[tuple[Dataset, ...]] | None  # None while loading


def _guide(lead: str, last: bool) -> str:
    return lead + ("└─ " if last else "├─ ")


def _child_lead(lead: str, last: bool) -> str:
    return lead + ("   " if last else "│  ")


def snapshot_clones(tree: DatasetTree, snap: Dataset) -> tuple[str, ...]:
    """Clones of a snapshot: from origins (authoritative) plus the possibly truncated
    `clones` column."""
    out = list(tree.clones_of.get(snap.name, ()))
    out.extend(c for c in snap.clones if c not in out)
    return tuple(out)


def build_rows(tree: DatasetTree, opened: OpenState | None) -> list[TreeRow]:
    """Datasets depth-first with tree guides; the opened dataset's snapshots (and the clones
    made from each) come right after it, before its child datasets."""
    rows: list[TreeRow] = []

    def visit(name: str, lead: str, last: bool, root: bool) -> None:
        ds = tree.datasets[name]
        is_open = opened is not None and opened.dataset == name
        marker = "▾ " if is_open else "▸ "
        guide = "" if root else _guide(lead, last)
        label = marker + (name if root else name.rsplit("/", 1)[-1])
        note = ""
        if ds.origin:
            note = f"clone of {ds.origin}"
        held = tree.origin_snapshots.get(name, ())
        if held:
            note = (note + "; " if note else "") + (
                f"{len(held)} held by clones" if note else
                f"{len(held)} snapshot{'s' if len(held) != 1 else ''} held by clones")
        rows.append(TreeRow(name, "dataset", guide, label, ds, level="", note=note))
        lead_next = "" if root else _child_lead(lead, last)
        kids = tree.children.get(name, ())
        if is_open and opened is not None:
            rows.extend(_snapshot_rows(tree, opened, lead_next, bool(kids)))
        for i, c in enumerate(kids):
            visit(c, lead_next, i == len(kids) - 1, False)

    for r in tree.roots:
        visit(r, "", True, True)
    return rows


def _snapshot_rows(tree: DatasetTree, opened: OpenState, lead: str, more_after: bool
                   ) -> list[TreeRow]:
    name = opened.dataset
    part = opened.part
    if part is None:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        f"… listing the snapshots of {name}", target=name, level="muted")]
    if not part.ok or part.value is None:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        f"✖ could not list the snapshots: {part.error}", target=name,
                        level="bad")]
    snaps = part.value
    if not snaps:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        "no snapshots", target=name, level="muted")]
    out: list[TreeRow] = []
    n = len(snaps)
    for i, s in enumerate(snaps):
        last = i == n - 1 and not more_after
        clones = snapshot_clones(tree, s)
        note = (f"held: {len(clones)} clone{'s' if len(clones) != 1 else ''}"
                if clones else "")
        out.append(TreeRow(s.name, "snapshot", _guide(lead, last),
                           "@" + short_snapshot(s.name), s, level="warn" if clones else "",
                           note=note))
        sub = _child_lead(lead, last)
        for j, c in enumerate(clones):
            out.append(TreeRow(f"clone:{s.name}>{c}", "clone",
                               _guide(sub, j == len(clones) - 1),
                               f"⤷ clone {c} (origin {s.name})", target=c, level="warn"))
    return out


# -- formatting ------------------------------------------------------------------------------

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


FIXED = (Column("used", "USED", 7), Column("refer", "REFER", 7),
         Column("usedsnap", "USEDSNAP", 8), Column("ratio", "RATIO", 5),
         Column("created", "CREATED", 7))
NOTE_MIN_WIDTH = 100  # the NOTE column appears from this table width


def layout(width: int) -> list[Column]:
    """NAME takes what the numbers leave; NOTE only on wide screens."""
    fixed = sum(c.width + 1 for c in FIXED)
    note = 0
    if width >= NOTE_MIN_WIDTH:
        note = min(40, max(20, (width - fixed) // 3))
    name = max(12, width - fixed - (note + 1 if note else 0) - 1)
    cols = [Column("name", "NAME", name, right=False), *FIXED]
    if note:
        cols.append(Column("note", "NOTE", note, right=False))
    return cols


def row_cells(row: TreeRow, now: float) -> dict[str, str]:
    d = row.dataset
    cells = {"name": row.guide + row.label, "note": row.note}
    if d is None:
        return cells
    cells["used"] = fmt.size(d.used, short=True)
    cells["refer"] = fmt.size(d.refer, short=True)
    if row.kind == "dataset":
        cells["usedsnap"] = fmt.size(d.usedbysnapshots, short=True)
        cells["ratio"] = ratio(d.compressratio)
    cells["created"] = fmt.duration(now - d.creation, coarse=True) if d.creation is not None else "-"
    return cells


# -- the virtualised tree table ----------------------------------------------------------------

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

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[TreeRow] = []
        self._index: dict[str, int] = {}
        self.now = 0.0

    # -- data ------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[TreeRow], now: float, keep: str | None = None) -> None:
        """Replace the rows; the cursor stays on `keep` (a row key) when it is still there."""
        self.rows = list(rows)
        self._index = {r.key: i for i, r in enumerate(self.rows)}
        self.now = now
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
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        cols = layout(width)
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("treetable--header")
            text = " ".join(pad(c.title, c.width) if not c.right else c.title.rjust(c.width)
                            for c in cols)
            return Strip([Segment(pad(text, width), style)], width)
        i = int(self.scroll_y) + y - 1
        if i >= len(self.rows):
            return Strip([Segment(" " * width, base)], width)
        row = self.rows[i]
        style = base
        if row.level:
            style = style + self.get_component_rich_style(f"treetable--{row.level}")
        if i == self.cursor:
            style = style + self.get_component_rich_style("treetable--cursor")
        if row.kind in ("clone", "note"):
            return Strip([Segment(pad(row.guide + row.label, width), style)], width)
        cells = row_cells(row, self.now)
        parts = []
        for c in cols:
            v = cells.get(c.key, "")
            if c.key == "note":
                v = fit(v, c.width)
            parts.append(pad(v, c.width) if not c.right else v[-c.width:].rjust(c.width))
        return Strip([Segment(pad(" ".join(parts), width), style)], width)

    def visible_text(self) -> list[str]:
        """The rows as plain lines (for tests and screen readers)."""
        cols = layout(max(40, self.scrollable_content_region.width))
        out = []
        for row in self.rows:
            if row.kind in ("clone", "note"):
                out.append(row.guide + row.label)
                continue
            cells = row_cells(row, self.now)
            out.append(" ".join(cells.get(c.key, "") for c in cols).rstrip())
        return out


# -- the blast-radius panel --------------------------------------------------------------------

MAX_NAMES = 6


def names_sentence(names: Sequence[str], limit: int = MAX_NAMES) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def _dataset_word(n: int) -> str:
    return f"{n:,} filesystem{'' if n == 1 else 's'}/volume{'' if n == 1 else 's'}"


def _unknown_tail(r: BlastRadius) -> str:
    out = ""
    if r.unlisted:
        if len(r.unlisted) == 1:
            out += f" and all snapshots of {r.unlisted[0]} (not listed yet)"
        else:
            out += (f" and all snapshots of {len(r.unlisted)} datasets not listed yet "
                    f"({names_sentence(r.unlisted, 3)})")
    if r.maybe:
        out += (f", plus @{short_snapshot(r.target)} in each of {fmt.plural(len(r.maybe), 'dataset')}"
                f" below if it exists there (their snapshots are not listed: press a to scan)")
    return out


def refusal_sentence(r: BlastRadius) -> str:
    held = list(r.blockers.items())
    extra = [x for x in r.use_R if "@" not in x]
    ask = (f"zfs would ask for -R to also destroy {names_sentence(extra)}"
           + ((" and its snapshots." if len(extra) == 1 else " and their snapshots.")
              if extra else "."))
    if len(held) == 1 and held[0][0] == r.target:
        # the snapshot's own line already names the clones that hold it
        return f"zfs destroy -r {r.target} would be refused; {ask}"
    if len(held) == 1:
        snap, clones = held[0]
        why = (f"{snap} cannot be destroyed: {fmt.plural(len(clones), 'clone')} "
               f"depend{'s' if len(clones) == 1 else ''} on it: {names_sentence(clones)}")
    else:
        parts = [f"{s} ({names_sentence(c, 2)})" for s, c in held[:3]]
        more = f" and {len(held) - 3} more" if len(held) > 3 else ""
        why = (f"{fmt.plural(len(held), 'snapshot')} cannot be destroyed because clones depend "
               f"on them: " + "; ".join(parts) + more)
    return f"zfs destroy -r {r.target} would be refused: {why}. {ask}"


def destroy_sentence(r: BlastRadius, small: BlastRadius | None = None) -> str:
    """'zfs destroy -R tank/a@s1 would also destroy: ...' for a snapshot, or the full list
    for a dataset. Plain words, counts first, names after. With `small` (the -r radius of
    the same target, not refused), an -R radius that adds nothing says so in one line."""
    if (small is not None and not small.refused and r.mode == "-R" and not r.clones
            and r.datasets == small.datasets and r.snapshots == small.snapshots):
        if "@" in r.target:
            return f"zfs destroy -R {r.target} would destroy the same: no clone depends on it."
        return (f"zfs destroy -R {r.target} would destroy the same: no clone outside it "
                "depends on it.")
    if "@" in r.target:
        others = [s for s in r.snapshots if s != r.target]
        if r.mode == "-r":
            if not others and not r.maybe:
                return f"zfs destroy -r {r.target} would destroy only this snapshot."
            return (f"zfs destroy -r {r.target} would destroy {fmt.plural(len(r.snapshots), 'snapshot')}"
                    f": {names_sentence(r.snapshots)}{_unknown_tail(r)}.")
        extra_snaps = others
        if not r.datasets and not extra_snaps and not r.maybe:
            return (f"zfs destroy -R {r.target} would destroy only this snapshot "
                    "(no clones depend on it).")
        bits = []
        if r.datasets:
            bits.append(f"{_dataset_word(len(r.datasets))} made from it "
                        f"({names_sentence(r.datasets)})")
        if extra_snaps:
            bits.append(f"{fmt.plural(len(extra_snaps), 'snapshot')} ({names_sentence(extra_snaps)})")
        body = " and ".join(bits) if bits else "nothing listed so far"
        return f"zfs destroy -R {r.target} would also destroy: {body}{_unknown_tail(r)}."
    own = [d for d in r.datasets if d not in r.clones]
    s = (f"zfs destroy {r.mode} {r.target} would destroy {_dataset_word(len(r.datasets))}"
         f" and {fmt.plural(len(r.snapshots), 'snapshot')}{' listed' if r.unlisted else ''}")
    if len(own) > 1:
        s += f": {r.target} and below it {names_sentence(own[1:])}"
    if r.clones:
        s += f"; through clones also {names_sentence(r.clones)}"
    return s + _unknown_tail(r) + "."


class RadiusPanel(Static):
    """What the selection is, and what `zfs destroy -r` / `-R` would take with it."""

    DEFAULT_CSS = """
    RadiusPanel {
        height: auto;
        max-height: 9;
        border-top: solid $panel;
        padding: 0 0;
        overflow-y: auto;
    }
    """

    def show_lines(self, lines: Iterable[tuple[str, str]], colours: Mapping[str, str]) -> None:
        """(level, sentence) pairs; level picks the symbol word and colour."""
        t = Text()
        first = True
        for level, sentence in lines:
            if not first:
                t.append("\n")
            first = False
            style = colours.get(f"health-{level}", "") if level in ("ok", "warn", "bad") \
                else (colours.get("muted", "") if level == "muted" else "")
            symbol = {"ok": "✔ ", "warn": "▲ ", "bad": "✖ "}.get(level, "")
            t.append(symbol, style=Style.parse(style) if style else "")
            t.append(sentence, style=Style.parse(style) if style and level == "muted" else "")
        self.update(t)

