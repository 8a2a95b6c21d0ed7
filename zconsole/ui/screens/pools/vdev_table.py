"""One pool's vdev tree as a table.

Two column sets share the tree: **health** (state, READ/WRITE/CKSUM errors, size, notes) and
**performance**, toggled with `m`; at 80 columns both fit, side by side they would not. The
slow disk of a vdev stands out in both.

Performance is what `zpool iostat -vl 1` shows, for the pool, each vdev and each leaf: ZFS's
own figures for that row over the sample's interval (the session reads `zpool iostat -y N 1`:
a rate over N seconds, never the since-import averages of zpool's first report), "-" before
the first sample or where a counter went backwards (`services.read.pools.vdev_io`):

    OPS/s R/W  operations per second, read/write ("12/340"), as zpool's `operations` columns
    B/s R/W    bytes per second, read/write ("1.2M/45M", powers of 1024 as zpool prints
               bandwidth): a pair per cell keeps both directions in a narrow column
    ZFS R/W    ZFS disk_wait, read/write, ms (`-l`)
    BUSY       the leaf's whole disk: share of the interval with a request outstanding
    TREND      the leaf's worst latency over the last refreshes
    DISK, SERIAL      the leaf's whole disk and its serial
    R/W AWAIT  the kernel's per-request latency of the leaf's disk

Which columns a width shows (`columns_for`; no row is ever wider than the page): NAME,
STATE, BUSY, OPS/s, B/s and ZFS R/W always (at 80 columns NAME keeps 22 cells); each
optional group is added, in this order, while NAME keeps at least MIN_NAME_WIDTH (18): TREND
(from 88 columns), DISK and SERIAL (from 116; up to 120 for 20-character serials: SERIAL is
as wide as the longest), R and W AWAIT (from 134). ZFS R/W and TREND come before the
kernel's awaits because zpool's own disk_wait, from the same report as the rates, already
says what the awaits would; DISK and SERIAL before them because the operator goes to the
disk with its serial (a narrow NAME then loses nothing, its end is that serial).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import NamedTuple

from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import DataTable

from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import visible
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.services import fmt
from zconsole.services.read.pools import LeafMetrics, VdevIo
from zconsole.ui.kit.filter import matches, row_text, with_ancestors
from zconsole.ui.kit.levels import LazyRow, LevelTable, state_level
from zconsole.ui.kit.text import fit, plain_text, spark

HEALTH_COLUMNS = ("NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "NOTE")
# CAP (how full each top-level vdev is, from `zpool list -v`): shown where the terminal has
# room for it beside a 30-cell NAME; ZFS gives new writes to the emptiest vdev, so an uneven
# column of bars is where the advisor's imbalance finding comes from
WIDE_HEALTH_COLUMNS = HEALTH_COLUMNS[:6] + ("CAP",) + HEALTH_COLUMNS[6:]
CAP_BAR = 4  # "██░░ 46%"
CAP_EXTRA = CAP_BAR + 5 + 2
OPS, BW = "OPS/s R/W", "B/s R/W"
# every performance column in the order shown; the optional groups, in the order they are
# added as the terminal widens (see the module doc)
PERF_COLUMNS = ("NAME", "STATE", "DISK", "SERIAL", "BUSY", OPS, BW, "R AWAIT", "W AWAIT",
                "ZFS R/W", "TREND")
PERF_OPTIONAL = (("TREND",), ("DISK", "SERIAL"), ("R AWAIT", "W AWAIT"))
# Width of everything but NAME, cell padding (1 each side) included, plus NAME's own padding
# (2) and the screen's margins and scrollbar (3).
#   health: STATE 12, READ 6, WRITE 7, CKSUM 7, SIZE 8, NOTE 17 ("too many errors")
#   performance: each column's WIDTHS + 2 (`perf_fixed`)
HEALTH_FIXED = 12 + 6 + 7 + 7 + 8 + 17 + 2 + 3
MIN_NAME_WIDTH = 18
# Each column's width (without its padding) in the numbers above: every pool's table is laid
# out on them, so the pools line up (a wider figure still widens its column); NOTE, the
# last, takes what is left and its text is cut to that with "…" (the table never runs off
# the right edge, where the terminal would cut it with no mark)
WIDTHS = {"STATE": 10, "READ": 4, "WRITE": 5, "CKSUM": 5, "SIZE": 6, "CAP": CAP_EXTRA - 2,
          "BUSY": 4, OPS: 9, BW: 9, "R AWAIT": 7, "W AWAIT": 7, "ZFS R/W": 10, "TREND": 10,
          "DISK": 8, "SERIAL": 16}  # ZFS R/W and TREND: room for a folded row's "▸ 10 disks"
NOTE_MIN_WIDTH = 15
NAME_KEEP = 30
TREND_WIDTH = 8

# a pool with more leaves than this shows its healthy mirrors and raidz folded, each on one
# line ("mirror-3  ✔ ONLINE  ▸ 2 disks"); enter unfolds one (and folds it again)
FOLD_LEAVES = 24


class Shape(NamedTuple):
    """Which rows a pool's table shows: the `/` words, the problems-only view (`x`: what
    `zpool status -x` is to `zpool status`), and the top-level vdevs (row keys) whose
    fold the operator turned with enter."""

    words: tuple[str, ...] = ()
    problems_only: bool = False
    toggled: frozenset[str] = frozenset()


EVERYTHING = Shape()  # no words, every vdev, big pools folded

def problem(v: Vdev, slow: Mapping[str, Finding]) -> bool:
    """A vdev the problems-only view shows: not ONLINE (or AVAIL), with errors, slow, or
    being resilvered."""
    return (state_level(v.state) != "ok" or v.name in slow or v.resilvering
            or any(x for x in (v.read_errors, v.write_errors, v.checksum_errors)))


def healthy(v: Vdev, slow: Mapping[str, Finding]) -> bool:
    """No problem in `v` or anywhere under it: it may be folded."""
    return not problem(v, slow) and all(healthy(c, slow) for c in v.children)


SECTION_TITLE = {Section.LOGS: "logs", Section.CACHE: "cache", Section.SPARES: "spares",
                 Section.SPECIAL: "special", Section.DEDUP: "dedup"}


def tree_rows(top: Vdev, last: bool) -> list[tuple[str, tuple[str, ...], Vdev]]:
    """(guide prefix, vdev path, vdev) for a top-level vdev and its children, drawn like
    tree(1): the guides survive copy-paste and any renderer, unlike leading spaces."""
    out: list[tuple[str, tuple[str, ...], Vdev]] = []

    def visit(v: Vdev, lead: str, is_last: bool, path: tuple[str, ...]) -> None:
        here = (*path, v.name)
        out.append((lead + ("└─ " if is_last else "├─ "), here, v))
        child_lead = lead + ("   " if is_last else "│  ")
        for j, c in enumerate(v.children):
            visit(c, child_lead, j == len(v.children) - 1, here)

    visit(top, "", last, ())
    return out


def fit_name(indent: str, name: str, width: int) -> str:
    """Shorten a long by-id name in the middle, keeping its start (bus, model) and its end
    (the serial, which is what is printed on the disk's label). Too little room for that
    (under 12 cells, deep in a tree at 80 columns): "…" and the end of the name."""
    room = width - len(indent)
    if room >= 12 or len(name) <= room:
        return indent + fit(name, room, "middle")
    return indent + ("…" + name[len(name) - room + 1:] if room > 1 else fit(name, room))


def column_widths(columns: tuple[str, ...], name_room: int, width: int,
                  serial: int = 0) -> dict[str, int]:
    """The width of each column at this terminal width: NAME `name_room`, NOTE the rest,
    SERIAL as `serial_width(serial)`."""
    widths = {"NAME": name_room, **{c: WIDTHS[c] for c in columns if c in WIDTHS}}
    if "SERIAL" in widths:
        widths["SERIAL"] = serial_width(serial)
    if "NOTE" in columns:
        used = sum(w + 2 for w in widths.values())
        widths["NOTE"] = max(NOTE_MIN_WIDTH, width - 3 - used - 2)
    return widths


# SERIAL widens to the longest serial shown, up to this (ATA and NVMe serials are at most
# 20 characters); a longer one is cut in the middle
SERIAL_MAX = 20


def serial_width(serial: int) -> int:
    """SERIAL's width for a longest serial of `serial` characters."""
    return max(WIDTHS["SERIAL"], min(serial, SERIAL_MAX))


def perf_fixed(columns: Iterable[str], serial: int = 0) -> int:
    """What the performance `columns` but NAME take: their padding, NAME's padding, the
    page's margins (2) and its scrollbar (2) included, so that no row is cut at the right
    edge; SERIAL as wide as a longest serial of `serial` characters needs."""
    widths = {**WIDTHS, "SERIAL": serial_width(serial)}
    return sum(widths[c] + 2 for c in columns if c != "NAME") + 2 + 4


PERF_BASE = tuple(c for c in PERF_COLUMNS if not any(c in g for g in PERF_OPTIONAL))


def columns_for(performance: bool, width: int, serial: int = 0) -> tuple[tuple[str, ...], int]:
    """The column set and the width everything but NAME takes, at this terminal width
    (`serial`: the length of the longest serial the performance columns would show)."""
    if not performance:
        if width >= HEALTH_FIXED + CAP_EXTRA + 30:
            return WIDE_HEALTH_COLUMNS, HEALTH_FIXED + CAP_EXTRA
        return HEALTH_COLUMNS, HEALTH_FIXED
    shown = set(PERF_BASE)
    for group in PERF_OPTIONAL:
        if width - perf_fixed(shown | set(group), serial) >= MIN_NAME_WIDTH:
            shown |= set(group)
        else:
            break
    columns = tuple(c for c in PERF_COLUMNS if c in shown)
    return columns, perf_fixed(columns, serial)


def name_room(pool: Pool, fixed: int, width: int) -> tuple[int, int]:
    """What NAME would take for `pool`: its longest name with its tree guides, and the most
    it may take so that the other columns stay on the terminal (80 columns included)."""
    longest = max((len("   " * (d + 1) + v.name) for _, d, v in pool.walk()),
                  default=len(pool.name))
    room = max(MIN_NAME_WIDTH, width - fixed)
    # a long note (`block size: 512B configured, 4096B native`) takes NAME's room down to
    # NAME_KEEP: a by-id name cut in the middle still shows its model and serial
    note = max((len(v.note or "") for _, _, v in pool.walk()), default=0)
    room = max(min(room, NAME_KEEP), room - max(0, note - NOTE_MIN_WIDTH))
    return max(longest, len(pool.name), len("NAME")), room


def name_width(pool: Pool, fixed: int, width: int) -> int:
    """Room for the NAME column of `pool`'s table."""
    return shared_name_width((pool,), fixed, width)


def shared_name_width(pools: Iterable[Pool | None], fixed: int, width: int) -> int:
    """One NAME width for every pool's table, so their columns line up: the longest name
    of any, within the least room any leaves it."""
    rooms = [name_room(p, fixed, width) for p in pools if p is not None]
    if not rooms:
        return MIN_NAME_WIDTH
    return min(max(want for want, _ in rooms), min(room for _, room in rooms))


def texts(cells: Iterable[Text | str]) -> tuple[Text, ...]:
    """Every cell as Rich Text, as DataTable would make it of a str (`Text(s, end="")`)
    but without parsing it as Rich markup first: that parse costs on every cell, and its
    first one loads Rich's emoji table (6 ms of the first frame). The cells here are figures,
    names and words: none is markup."""
    return tuple(Text(c, end="") if isinstance(c, str) else c for c in cells)


def _section_cells(title: str, blank: tuple[str, ...]) -> tuple[Text, ...]:
    return texts((Text(title, style="italic"), "", *blank))


def pair(read: float | None, write: float | None) -> str:
    """`12/340`, `1.2M/45M`: a read/write pair as zpool prints each figure; "-" when
    neither is known."""
    if read is None and write is None:
        return "-"
    return f"{fmt.nicenum(read)}/{fmt.nicenum(write)}"


def io_cells(io: VdevIo | None) -> dict[str, str]:
    """The cells `zpool iostat -vl` gives any row (the pool, a vdev, a leaf)."""
    if io is None:
        return {OPS: "-", BW: "-", "ZFS R/W": "-"}
    wait = ("-" if io.wait_read_ms is None and io.wait_write_ms is None
            else f"{fmt.ms(io.wait_read_ms)}/{fmt.ms(io.wait_write_ms)}")
    return {OPS: pair(io.read_ops, io.write_ops), BW: pair(io.read_bytes, io.write_bytes),
            "ZFS R/W": wait}


def counters(v: Vdev | None) -> tuple[str, str, str]:
    if v is None:
        return ("", "", "")

    def c(x: int | None) -> str:
        return "-" if x is None else str(x)

    return (c(v.read_errors), c(v.write_errors), c(v.checksum_errors))


class VdevTable(LevelTable):
    """The pool row, then each section's vdevs as a tree. Rows are keyed
    `pool`, `pool:section` and `pool:section:top/child/...`, so a cursor is found again by
    key after a refresh."""

    # Every row drawn: the table is as tall as its rows (not DataTable's max-height: 100%)
    # and the page scrolls (a table with its own scrolling inside a scrolling page hid its
    # lower rows from the page).
    DEFAULT_CSS = """
    VdevTable {
        height: auto;
        max-height: initial;
        overflow-x: hidden;
    }
    """

    def __init__(self) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, show_cursor=False,
                         classes="vdevs")
        self.foldable: set[str] = set()  # row keys of the healthy vdevs enter folds
        self.folded: set[str] = set()  # ...and of those folded now
        self.note_room = 0  # NOTE's width: its text is cut to it
        self.whole: dict[str, str] = {}  # row key -> its name, state and note, never cut
        # each leaf's SMART finding in a word, by its name (smart_words.leaf_notes), shown in
        # NOTE: set by the pool's block before `show`
        self.smart: Mapping[str, tuple[Severity, str]] = {}

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The table does not scroll itself (it is as tall as its rows): when the keyboard
        moves its cursor, the page brings the cursor's row into view."""
        if event.data_table is self and self.has_focus:
            self.call_after_refresh(self.reveal_cursor_row)

    def reveal_cursor_row(self) -> None:
        """Scroll the nearest scrolling ancestor so the cursor's row is on screen."""
        if not self.is_valid_row_index(self.cursor_row):
            return
        y = (self.header_height if self.show_header else 0) + self.cursor_row
        node: Widget = self
        while True:
            y += node.virtual_region.y
            parent = node.parent
            if not isinstance(parent, Widget):
                return
            if parent.allow_vertical_scroll:
                parent.scroll_to_region(Region(0, y, 1, 1), animate=False, immediate=True)
                return
            node = parent

    def cap_cell(self, pct: int | None) -> Text | str:
        """`██░░ 46%`, the bar in the capacity's level (80 % warn, 90 % bad); "" when not
        known (a leaf of a mirror or raidz: zpool prints `-`)."""
        if pct is None:
            return ""
        filled = max(0, min(CAP_BAR, round(pct / 100 * CAP_BAR)))
        level = "bad" if pct >= 90 else "warn" if pct >= 80 else "ok"
        text = self.level_text("█" * filled + "░" * (CAP_BAR - filled), level)
        text.append(f" {pct}%")  # the bar in its level's colour, as the pool's usage line
        return text

    def whole_row(self, key: str) -> str | None:
        """The row's name, state and note as zpool printed them, whatever the cells cut
        (`ata…ZGY8C3D4`, a note ending in "…"): what enter on it shows."""
        return self.whole.get(key)

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor (None when the table is empty)."""
        if self.row_count == 0 or not self.is_valid_coordinate(self.cursor_coordinate):
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return str(key) if key is not None else None

    def show(self, pool: Pool, *, performance: bool, columns: tuple[str, ...],
             name_room: int, sizes: Mapping[str, int | None], slow: Mapping[str, Finding],
             leaves: Mapping[tuple[str, ...], LeafMetrics],
             caps: Mapping[str, int | None] | None = None, shape: Shape = EVERYTHING,
             io: Mapping[tuple[str, ...], VdevIo] | None = None, serial: int = 0
             ) -> tuple[int, int]:
        """Show the tree: rows kept and only changed cells updated while the tree has the
        same shape (`LevelTable.sync`); rebuilt otherwise, the cursor staying on its vdev.

        `shape` narrows it (the `/` words, the problems-only view) and folds healthy
        mirrors and raidz on a big pool. `io`: each row's `zpool iostat` figures by vdev
        path (the pool's by `()`); `serial` as for `columns_for`. Returns (rows that
        matched the words or are problems, rows of the whole tree)."""
        keep = self.cursor_key
        widths = column_widths(columns, name_room, self.app.size.width, serial)
        self.note_room = widths.get("NOTE", 0)
        caps = caps if caps is not None and "CAP" in columns else {}
        io = io if io is not None and performance else {}
        top = max((x for m in leaves.values() for x in m.trend), default=0.0)
        blank = ("",) * (len(columns) - 2)
        pool_cells = (self._perf_cells(None, None, io.get(()), 0, {}, columns) if performance
                      else self._pool_health_cells(pool, sizes, caps, columns))
        # each row with a signature of what its cells show: rows whose signature is the one
        # they had at the last refresh are neither built again nor compared (`sync_rows`)
        rows: list[LazyRow] = [
            (pool.name, (pool.name, pool.state, pool_cells, name_room),
             lambda: texts((plain_text(fit(pool.name, name_room), "bold"),
                            self.state_cell(pool.state), *pool_cells)))]
        depths, names = [0], [pool.name]  # names: whole, where a cell cuts them to fit
        hits = [state_level(pool.state) != "ok"
                or (pool.root is not None and problem(pool.root, slow))]
        fold = not shape.words and not shape.problems_only
        big = sum(1 for _ in pool.leaf_paths()) > FOLD_LEAVES
        self.foldable, self.folded = set(), set()
        self.whole = {pool.name: f"{pool.name} · {pool.state}"}
        for section in Section:
            tops = pool.section(section)
            if not tops:
                continue
            sub = 0
            if section in SECTION_TITLE:
                title = SECTION_TITLE[section]
                rows.append((f"{pool.name}:{section.value}", (title, len(blank)),
                             partial(_section_cells, title, blank)))
                depths.append(1)
                names.append("")
                hits.append(False)
                sub = 1
            for i, tv in enumerate(tops):
                folded = None
                if tv.children and healthy(tv, slow):
                    key = f"{pool.name}:{section.value}:{tv.name}"
                    self.foldable.add(key)
                    if fold and big != (key in shape.toggled):
                        self.folded.add(key)
                        folded = sum(1 for _, v in tv.paths() if not v.children)
                for prefix, path, v in tree_rows(tv, last=(i == len(tops) - 1)):
                    rows.append(self._vdev_row(pool.name, section, prefix, path, v, performance,
                                               name_room, sizes, slow, leaves, top, columns,
                                               caps, folded, io.get(path)))
                    self.whole[rows[-1][0]] = " · ".join(x for x in (v.name, v.state, v.note)
                                                         if x)
                    depths.append(len(prefix) // 3 + sub)
                    names.append(v.name)
                    hits.append(problem(v, slow) or v.name in self.smart)
                    if folded is not None:
                        break  # its children are folded into its row
        matched, total = len(rows), len(rows)
        if shape.words or shape.problems_only:
            if not shape.problems_only:
                hits = [True] * len(rows)
            if shape.words:
                hits = [h and matches(f"{row_text(make())} {name}", shape.words)
                        for h, name, (_, _, make) in zip(hits, names, rows, strict=True)]
            matched = sum(hits)
            rows = [r for r, k in zip(rows, with_ancestors(hits, depths), strict=True) if k]
        rebuilt = self.sync_rows(columns, rows, widths)
        if rebuilt and keep is not None and keep in {k.value for k in self.rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)
        return matched, total

    def _pool_health_cells(self, pool: Pool, sizes: Mapping[str, int | None],
                           caps: Mapping[str, int | None],
                           columns: tuple[str, ...]) -> tuple[Text | str, ...]:
        return (*counters(pool.root), fmt.size(sizes.get(pool.name), short=True),
                *((self.cap_cell(caps.get(pool.name)),) if "CAP" in columns else ()), "")

    def _vdev_row(self, pool: str, section: Section, prefix: str, path: tuple[str, ...],
                  v: Vdev, performance: bool, name_room: int, sizes: Mapping[str, int | None],
                  slow: Mapping[str, Finding], leaves: Mapping[tuple[str, ...], LeafMetrics],
                  top: float, columns: tuple[str, ...], caps: Mapping[str, int | None],
                  folded: int | None, io: VdevIo | None) -> LazyRow:
        f = slow.get(v.name)
        m = leaves.get(path) if performance else None
        sig = (prefix, v.name, v.state, v.read_errors, v.write_errors,
               v.checksum_errors, v.note, v.resilvering, bool(v.children),
               name_room, self.note_room, f and (f.severity, f.factor), folded,
               self.smart.get(v.name),
               (m, io, top, columns) if performance
               else (sizes.get(v.name), caps.get(v.name), columns))
        return (f"{pool}:{section.value}:{'/'.join(path)}", sig,
                partial(self._vdev_cells, prefix, path, v, performance, name_room, sizes,
                        slow, leaves, top, columns, caps, folded, io))

    def _vdev_cells(self, prefix: str, path: tuple[str, ...], v: Vdev, performance: bool,
                    name_room: int, sizes: Mapping[str, int | None],
                    slow: Mapping[str, Finding], leaves: Mapping[tuple[str, ...], LeafMetrics],
                    top: float, columns: tuple[str, ...],
                    caps: Mapping[str, int | None], folded: int | None = None,
                    io: VdevIo | None = None) -> tuple[Text, ...]:
        name = plain_text(fit_name(prefix, v.name, name_room))
        if v.name in slow:
            name.stylize(self.level_style("warn") + Style(bold=True), len(prefix))
        cells = (self._perf_cells(v, leaves.get(path), io, top, slow, columns)
                 if performance else self._health_cells(v, sizes, slow, caps, columns))
        if folded is not None:  # the last cell (NOTE, TREND) says what the row holds
            cells = (*cells[:-1], self.level_text(f"▸ {fmt.plural(folded, 'disk')}", "muted"))
        return texts((name, self.state_cell(v.state), *cells))

    def _health_cells(self, v: Vdev, sizes: Mapping[str, int | None],
                      slow: Mapping[str, Finding], caps: Mapping[str, int | None],
                      columns: tuple[str, ...]) -> tuple[Text | str, ...]:
        note = v.note or ""
        if v.name in slow:
            f = slow[v.name]
            factor = f"{f.factor:.1f}×" if f.factor is not None else ""
            note = (f"{f.severity.symbol} SLOW {factor} " + note).strip()  # as its sentence
        smart = self.smart.get(v.name)
        if smart is not None:  # the disk's SMART in a word: "▲ 48 pending"
            note = (f"{note}, {smart[1]}" if v.name in slow
                    else f"{smart[0].symbol} {smart[1]} {note}".strip())
        if v.resilvering and "resilvering" not in note:
            note = ("(resilvering) " + note).strip()
        errors = tuple(self.level_text(x, "bad") if x not in ("0", "-", "") else x
                       for x in counters(v))
        stands_out = v.name in slow or state_level(v.state) != "ok" or smart is not None
        critical = (v.name in slow and slow[v.name].severity is Severity.CRITICAL
                    or smart is not None and smart[0] is Severity.CRITICAL)
        note_text = self.level_text(fit(note, self.note_room) if self.note_room else note,
                                    "bad" if critical else "warn" if stands_out else "")
        cap = (self.cap_cell(caps.get(v.name)),) if "CAP" in columns else ()
        return (*errors, fmt.size(sizes.get(v.name), short=True), *cap, note_text)

    @staticmethod
    def _perf_cells(v: Vdev | None, m: LeafMetrics | None, io: VdevIo | None, top: float,
                    slow: Mapping[str, Finding],
                    columns: tuple[str, ...]) -> tuple[Text | str, ...]:
        """The pool's row (`v` None), a vdev's or a leaf's: what `zpool iostat -vl` reports
        for any of them; the disk's own figures (kernel, trend, serial) for a leaf."""
        cells: dict[str, Text | str] = {**io_cells(io)}
        if v is not None and not v.children and m is not None:
            trend = spark(m.trend, TREND_WIDTH, top) if top > 0 else ""
            cells.update({
                "DISK": plain_text(m.disk or "-"),
                "SERIAL": plain_text(fit(visible(m.serial or "-"), SERIAL_MAX, "middle")),
                "BUSY": "-" if m.busy_pct is None else f"{m.busy_pct:.0f}%",
                "R AWAIT": fmt.ms(m.r_await_ms), "W AWAIT": fmt.ms(m.w_await_ms),
                "TREND": trend or ("▲" if v.name in slow else "")})
        return tuple(cells.get(c, "") for c in columns[2:])
