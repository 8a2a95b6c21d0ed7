"""`zpool iostat [-v] [-l] [-q] [-p] [-y] [interval [count]]`, human or scripted (`-H`) ->
reports of PoolIostat.

Format (cmd/zpool/zpool_main.c, print_iostat_header / print_iostat_dashes /
print_vdev_stats / print_iostat_default / print_iostat_latency / print_iostat_queues /
zpool_do_iostat, OpenZFS 2.1 and 2.3; older layouts from real pastes):

* Columns: name, alloc, free, read ops, write ops, read bytes, write bytes; with `-l` the
  average waits total_wait r/w, disk_wait r/w, syncq_wait r/w, asyncq_wait r/w, scrub, trim
  (0.8+) and rebuild (2.2+) - 9, 10 or 11 latency columns; with `-q` the queues
  syncq_read, syncq_write, asyncq_read, asyncq_write, scrubq_read, trimq_write (0.8+),
  rebuildq_write (2.2+), each pend/activ. `-` means "no I/O of that kind" (latency) or "not
  applicable" (capacity of a leaf).
* Scripted (`-H`): TAB-separated rows, names NOT indented: depth is lost. 7 fields; 17/18 with
  `-l` (2.1 / 2.2+); 19/21 with `-q`; 29/32 with both - the counts never collide, so the
  version is detected from them. A class section is preceded by a bare blank line (the class
  name is printed only without `-H`). Nothing separates two pools or two reports: the next
  pool row simply follows. With -p, rows other than pools and top-level vdevs print 0 for
  alloc and free (`-` without -p): with a vdev tree these become None here. `-T u|d`
  timestamp lines start a new report.
* Human (no `-H`): a two-line header names the column groups (`capacity operations
  bandwidth total_wait ... rebuild syncq_read ...`) and, under them, the title (`pool`) and
  the columns (`alloc free read write ...`, then any `-c SCRIPT` column titles); a line of
  dashes follows. Rows are whitespace-separated words mapped onto the header's columns (never
  by character position: a long name pushes its row to the right); vdev rows are indented 2
  spaces per level (`-v`), so the tree is known; class sections are announced by a row
  `logs  -  -  ...` (dedup, special, logs, cache). Figures are human (`148M`, `11.7K`,
  `95ms`, `336ns`, a locale's decimal comma `11,4T`) or exact with `-p`; a row whose figures
  may be rounded has `exact=False`.
* Reports: the header is printed before every report with `-v` (and once without); each
  pool of a `-v` report ends with a line of dashes; without `-v` several pools share one
  report, followed by a line of dashes. A report ends where the header comes again, where a
  pool already seen in the current report comes again, or at a timestamp line (`-T`).
* The first report covers the time since the pool was imported ("since boot"), unless `-y`
  was given: the text cannot show which, so the caller says it (`omitted_since_boot`);
  `PoolIostat.since_boot` is None when it did not.

Refused (ParseError with the line): histograms (`-w` latency, `-r` request size: a table
per vdev, not rows of figures); `zpool iostat POOL VDEV...` (title `vdev`: no pool row);
pastes that lost the name column; any line that is neither a header, a separator, a
class row, a timestamp nor a row of the header's columns.

Mapping onto the tree (scripted form): pass the pools from `zpool status` and each row is
matched, in order, against the depth-first walk zpool itself does, which also resolves the
same leaf name appearing in two sections. Without pools the parser does a best effort: a row
repeating a pool name of the current report starts a new report; other pool boundaries cannot
be seen (query one pool per command or pass `pools`, names alone suffice); depth is guessed
from alloc/free (0 -> child of the last top-level vdev); a blank-line group is labelled by a
class header row if one is present, otherwise guessed from the end of the fixed order
dedup < special < logs < cache (the last group is `cache` unless it holds a mirror/raidz).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_figure, parse_latency

SOURCE = "zpool iostat"

LATENCY_COLUMNS_21 = ("total_wait_read", "total_wait_write", "disk_wait_read",
                      "disk_wait_write", "syncq_wait_read", "syncq_wait_write",
                      "asyncq_wait_read", "asyncq_wait_write", "scrub_wait", "trim_wait")
LATENCY_COLUMNS_23 = (*LATENCY_COLUMNS_21, "rebuild_wait")
QUEUE_COLUMNS_21 = ("syncq_read_pend", "syncq_read_activ", "syncq_write_pend",
                    "syncq_write_activ", "asyncq_read_pend", "asyncq_read_activ",
                    "asyncq_write_pend", "asyncq_write_activ", "scrubq_read_pend",
                    "scrubq_read_activ", "trimq_write_pend", "trimq_write_activ")
QUEUE_COLUMNS_23 = (*QUEUE_COLUMNS_21, "rebuildq_write_pend", "rebuildq_write_activ")
DEFAULT_COLUMNS = ("alloc", "free", "read_ops", "write_ops", "read_bytes", "write_bytes")
# Scripted field count -> (latency columns, queue columns).
_FIELD_COUNTS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {
    7: ((), ()), 17: (LATENCY_COLUMNS_21, ()), 18: (LATENCY_COLUMNS_23, ()),
    19: ((), QUEUE_COLUMNS_21), 21: ((), QUEUE_COLUMNS_23),
    29: (LATENCY_COLUMNS_21, QUEUE_COLUMNS_21), 32: (LATENCY_COLUMNS_23, QUEUE_COLUMNS_23)}

# Human header: top label -> (the labels printed under it, the IostatRow fields they fill).
_GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "capacity": (("alloc", "free"), ("alloc", "free")),
    "operations": (("read", "write"), ("read_ops", "write_ops")),
    "bandwidth": (("read", "write"), ("read_bytes", "write_bytes")),
    **{g: (("read", "write"), (f"{g}_read", f"{g}_write"))
       for g in ("total_wait", "disk_wait", "syncq_wait", "asyncq_wait")},
    **{g: (("wait",), (f"{g}_wait",)) for g in ("scrub", "trim", "rebuild")},
    **{g: (("pend", "activ"), (f"{g}_pend", f"{g}_activ"))
       for g in ("syncq_read", "syncq_write", "asyncq_read", "asyncq_write", "scrubq_read",
                 "trimq_write", "rebuildq_write")},
}
_LATENCY_FIELDS = frozenset(LATENCY_COLUMNS_23)
_QUEUE_FIELDS = frozenset(QUEUE_COLUMNS_23)
# Labels only the histograms print (`-w`: total/disk/sync_queue in 2016; `-r`: request sizes).
_HISTOGRAM_WORDS = frozenset({"latency", "req_size", "sync_read", "sync_write", "async_read",
                              "async_write", "total", "disk", "sync_queue", "async_queue"})

_CLASS_HEADERS = {"dedup": Section.DEDUP, "special": Section.SPECIAL, "logs": Section.LOGS,
                  "cache": Section.CACHE}
_CLASS_ORDER = (Section.DEDUP, Section.SPECIAL, Section.LOGS, Section.CACHE)
_CONTAINER = re.compile(r"(mirror|raidz[0-9]*|draid[0-9]*|replacing|spare)-[0-9]+$|draid",
                        re.ASCII)
_INT = re.compile(r"[0-9]+", re.ASCII)
# `-T u` prints epoch seconds, `-T d` the locale's date and time (nl_langinfo(_DATE_FMT)):
# digits, or a short line with a time of day in it.
_TIMESTAMP = re.compile(r"^\s*(?:[0-9]{9,12}|\S.{0,60}(?<![0-9])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?"
                        r"(?![0-9]).{0,40})\s*$")


def _is_timestamp(line: str) -> bool:
    return len(line) <= 100 and _TIMESTAMP.match(line) is not None


def _is_rule(line: str) -> bool:
    """A separator: dashes and spaces only."""
    return "-" in line and not line.strip(" -")


@dataclass(frozen=True)
class _Line:
    line_no: int
    text: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class _Expected:
    name: str
    section: Section
    path: tuple[str, ...]
    leaf: bool


@parser(SOURCE)
def latency_column_count(text: str) -> int:
    """10 (OpenZFS 2.1), 11 (2.2+) or 0 (no -l) for the first scripted row; -1 if none."""
    for raw in text.splitlines():
        if "\t" in raw:
            n = len(raw.rstrip("\r").split("\t"))
            return len(_FIELD_COUNTS[n][0]) if n in _FIELD_COUNTS else -1
    return -1


def _figure(text: str, line_no: int, line: str, what: str) -> tuple[int | None, bool]:
    try:
        return parse_figure(text)
    except ValueError as e:
        raise ParseError(SOURCE, f"bad {what} {text[:40]!r}", line_no, line) from e


def _count(text: str, line_no: int, line: str, what: str) -> tuple[int, bool]:
    value, exact = _figure(text, line_no, line, what)
    if value is None:
        raise ParseError(SOURCE, f"missing {what}", line_no, line)
    return value, exact


def _wait(text: str, line_no: int, line: str) -> tuple[int | None, bool]:
    try:
        return parse_latency(text)
    except ValueError as e:
        raise ParseError(SOURCE, f"bad latency {text[:40]!r}", line_no, line) from e


def _values(names: Sequence[str], cells: Sequence[str], line_no: int, line: str
            ) -> tuple[dict[str, Any], bool]:
    """Column names (IostatRow fields) and their printed cells -> field values, exact."""
    out: dict[str, Any] = {}
    exact = True
    for name, cell in zip(names, cells, strict=True):
        if name in _LATENCY_FIELDS:
            value, ok = _wait(cell, line_no, line)
        elif name in ("alloc", "free") or name in _QUEUE_FIELDS:
            value, ok = _figure(cell, line_no, line, name.replace("_", " "))
        else:
            value, ok = _count(cell, line_no, line, name.replace("_", " "))
        out[name] = value
        exact = exact and ok
    return out, exact


# ------------------------------------------------------------------ scripted (-H)


def _row(line: _Line, section: Section, path: tuple[str, ...], leaf: bool) -> IostatRow:
    f = line.fields
    lat, queues = _FIELD_COUNTS[len(f)]
    values, exact = _values((*DEFAULT_COLUMNS, *lat, *queues), f[1:], line.line_no, line.text)
    if leaf and values["alloc"] == 0 and values["free"] == 0:
        values["alloc"] = values["free"] = None  # zpool prints 0 for "not applicable" with -p
    return IostatRow(name=f[0], section=section, vdev_path=path, exact=exact, **values)


def _expected_rows(pool: Pool) -> list[_Expected]:
    """zpool iostat's depth-first print order for one pool (without the pool row)."""
    out: list[_Expected] = []

    def walk(v: Vdev, section: Section, parent: tuple[str, ...]) -> None:
        if v.type in ("hole", "indirect"):
            return
        path = (*parent, v.name)
        out.append(_Expected(v.name, section, path, not v.children))
        for c in v.children:
            walk(c, section, path)

    for section in (Section.DATA, *_CLASS_ORDER):
        for top in pool.section(section):
            walk(top, section, ())
    return out


def _tokenise(lines: list[str]) -> list[_Line | str]:
    """Rows as _Line; a blank line as "" ; a class header as its name; a timestamp line
    (`-T`) as "T". Anything else is not scripted iostat."""
    items: list[_Line | str] = []
    width: int | None = None
    for line_no, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if not line.strip():
            items.append("")
            continue
        if "\t" not in line:
            words = line.split()
            if words[0] in _CLASS_HEADERS and all(w == "-" for w in words[1:]):
                items.append(words[0])
            elif _is_timestamp(line):
                items.append("T")
            else:
                raise ParseError(SOURCE, "not a row of `zpool iostat -H` (no TAB), a class "
                                         "header or a timestamp", line_no, line)
            continue
        fields = tuple(line.split("\t"))
        if len(fields) not in _FIELD_COUNTS:
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected 7, 17/18 (-l), "
                             "19/21 (-q) or 29/32 (-l -q)", line_no, line)
        if width is None:
            width = len(fields)
        elif width != len(fields):
            raise ParseError(SOURCE, "rows with different column counts", line_no, line)
        if not fields[0]:
            raise ParseError(SOURCE, "row without a name", line_no, line)
        items.append(_Line(line_no, line, fields))
    return items


class _PoolBuilder:
    def __init__(self, head: _Line, tree: Pool | None) -> None:
        self.name = head.fields[0]
        self.pool_row = _row(head, Section.DATA, (), False)
        self.rows: list[IostatRow] = []
        self.expected = _expected_rows(tree) if tree is not None else None
        self.cursor = 0
        # best-effort state
        self.group = 0  # blank-line groups seen after the data group
        self.group_labels: dict[int, Section] = {}
        self.group_rows: dict[int, list[int]] = {}
        self.top: str | None = None
        self.pending_blank = False

    def blank(self, label: str | None) -> None:
        if not self.pending_blank:
            self.group += 1
            self.pending_blank = True
            self.top = None
        if label is not None:
            self.group_labels[self.group] = _CLASS_HEADERS[label]

    def find(self, name: str) -> int | None:
        if self.expected is None:
            return None
        for i in range(self.cursor, len(self.expected)):
            if self.expected[i].name == name:
                return i
        return None

    def add(self, line: _Line) -> None:
        self.pending_blank = False
        name = line.fields[0]
        i = self.find(name)
        if i is not None and self.expected is not None:
            e = self.expected[i]
            self.cursor = i + 1
            self.rows.append(_row(line, e.section, e.path, e.leaf))
            return
        # best effort: top-level vdevs (and cache devices) have capacity, children print 0/-
        f = line.fields
        has_space = f[1] not in ("0", "-") or f[2] not in ("0", "-")
        if has_space or self.top is None:
            self.top = name if has_space else None
            path: tuple[str, ...] = (name,)
        else:
            path = (self.top, name)
        section = Section.DATA
        if self.group:
            section = Section.CACHE  # placeholder, fixed in finish()
            self.group_rows.setdefault(self.group, []).append(len(self.rows))
        self.rows.append(_row(line, section, path, False))

    def finish(self) -> PoolIostat:
        groups = sorted(self.group_rows)
        if groups:
            labels = self._label_groups(groups)
            for g in groups:
                for idx in self.group_rows[g]:
                    self.rows[idx] = replace(self.rows[idx], section=labels[g])
        return PoolIostat(pool=self.name, pool_row=self.pool_row, rows=tuple(self.rows))

    def _label_groups(self, groups: list[int]) -> dict[int, Section]:
        labels: dict[int, Section] = {}
        order = list(_CLASS_ORDER)
        # walk from the last group backwards, giving each the latest class still possible
        limit = len(order)
        for g in reversed(groups):
            if g in self.group_labels:
                labels[g] = self.group_labels[g]
                limit = min(limit, order.index(labels[g]))
                continue
            has_container = any(_CONTAINER.match(self.rows[i].name)
                                for i in self.group_rows[g])
            choice = limit - 1
            if has_container and choice >= order.index(Section.CACHE):
                choice = order.index(Section.LOGS)
            choice = max(choice, 0)
            labels[g] = order[choice]
            limit = choice
        return labels


def _parse_scripted(lines: list[str], trees: dict[str, Pool]) -> list[list[PoolIostat]]:
    reports: list[list[PoolIostat]] = []
    current: list[PoolIostat] = []
    seen: set[str] = set()
    builder: _PoolBuilder | None = None

    def close_pool() -> None:
        nonlocal builder
        if builder is not None:
            current.append(builder.finish())
            seen.add(builder.name)
            builder = None

    def close_report() -> None:
        nonlocal current, seen
        close_pool()
        if current:
            reports.append(current)
        current, seen = [], set()

    for item in _tokenise(lines):
        if item == "T":
            close_report()
            continue
        if isinstance(item, str):
            if builder is not None:
                builder.blank(item or None)
            continue
        name = item.fields[0]
        if builder is None:
            if name in seen:
                close_report()
            builder = _PoolBuilder(item, trees.get(name))
            continue
        is_pool_name = name in trees or name in seen or name == builder.name
        if is_pool_name and builder.find(name) is None:
            close_pool()
            if name in seen:
                close_report()
            builder = _PoolBuilder(item, trees.get(name))
            continue
        builder.add(item)
    close_report()
    return reports


# ------------------------------------------------------------------ human (with the header)


@dataclass(frozen=True)
class _Header:
    title: str  # "pool"
    columns: tuple[str, ...]  # IostatRow fields, in print order
    extra: tuple[str, ...]  # `-c` script column titles


def _read_header(top: str, bottom: str, line_no: int) -> _Header:
    """The two header lines -> columns; ParseError for histograms and foreign layouts."""
    tops, bottoms = top.split(), bottom.split()
    if not bottoms:
        raise ParseError(SOURCE, "header without its column line", line_no + 1, bottom)
    if bottoms[0] in ("latency", "req_size") or (_HISTOGRAM_WORDS & set(tops)
                                                 and bottoms[0] not in ("pool", "vdev")):
        raise ParseError(SOURCE, "a histogram (`zpool iostat -w` latency or `-r` request "
                                 "size) is not read: paste `zpool iostat -v -l` (average "
                                 "waits) instead", line_no, top)
    if bottoms[0] == "vdev":
        raise ParseError(SOURCE, "`zpool iostat POOL VDEV` (title `vdev`) has no pool row: "
                                 "paste `zpool iostat -v POOL` instead", line_no + 1, bottom)
    if bottoms[0] != "pool":
        raise ParseError(SOURCE, "no `pool` title in the header: the name column is missing "
                                 "(paste the whole width of the output)", line_no + 1, bottom)
    columns: list[str] = []
    labels: list[str] = []
    for word in tops:
        group = _GROUPS.get(word)
        if group is None:
            raise ParseError(SOURCE, f"unknown column group {word[:40]!r}", line_no, top)
        labels.extend(group[0])
        columns.extend(group[1])
    if not columns or columns[:6] != list(DEFAULT_COLUMNS):
        raise ParseError(SOURCE, "the header does not start with capacity, operations and "
                                 "bandwidth", line_no, top)
    if len(set(columns)) != len(columns):
        raise ParseError(SOURCE, "a column group is named twice", line_no, top)
    if bottoms[1:1 + len(labels)] != labels:
        raise ParseError(SOURCE, "the column line does not match the groups above it",
                         line_no + 1, bottom)
    return _Header(bottoms[0], tuple(columns), tuple(bottoms[1 + len(labels):]))


@dataclass
class _HumanPool:
    name: str
    pool_row: IostatRow
    rows: list[IostatRow] = field(default_factory=list)
    section: Section = Section.DATA
    stack: list[tuple[int, str]] = field(default_factory=list)  # (indent, name) open rows


def _human_row(header: _Header, words: list[str], line_no: int, line: str, section: Section,
               path: tuple[str, ...]) -> IostatRow:
    n = len(header.columns)
    cells = words[1:]
    if len(cells) < n or len(cells) > n + len(header.extra) + 8:
        raise ParseError(SOURCE, f"row has {len(cells)} values, the header names {n} columns",
                         line_no, line)
    values, exact = _values(header.columns, cells[:n], line_no, line)
    extra_cells = cells[n:]
    if len(extra_cells) > len(header.extra):  # a script's value with spaces
        if not header.extra:
            raise ParseError(SOURCE, f"row has {len(cells)} values, the header names {n} "
                                     "columns", line_no, line)
        keep = len(header.extra) - 1
        extra_cells = [*extra_cells[:keep], " ".join(extra_cells[keep:])]
    extra = tuple((title, extra_cells[i] if i < len(extra_cells) else None)
                  for i, title in enumerate(header.extra))
    return IostatRow(name=words[0], section=section, vdev_path=path, exact=exact, extra=extra,
                     **values)


def _is_header_pair(lines: list[str], i: int) -> bool:
    """Is lines[i] the top line of an iostat header (the next line carries the title)?"""
    words = lines[i].split()
    if not words or i + 1 >= len(lines):
        return False
    below = lines[i + 1].split()
    return bool(below) and (below[0] in ("pool", "vdev", "latency", "req_size")
                            or (words[0] in _GROUPS and below[0] in ("read", "pend"))) \
        and (words[0] in _GROUPS or (len(words) > 1 and words[1] in _GROUPS)
             or bool(_HISTOGRAM_WORDS & set(words)))


def _parse_human(lines: list[str], first: int) -> list[list[PoolIostat]]:
    reports: list[list[PoolIostat]] = []
    current: list[PoolIostat] = []
    names: set[str] = set()  # pools of the current report
    pool: _HumanPool | None = None
    header: _Header | None = None

    def close_pool() -> None:
        nonlocal pool
        if pool is not None:
            current.append(PoolIostat(pool=pool.name, pool_row=pool.pool_row,
                                      rows=tuple(pool.rows)))
            names.add(pool.name)
            pool = None

    def close_report() -> None:
        nonlocal current
        close_pool()
        if current:
            reports.append(current)
        current = []
        names.clear()

    i = first
    while i < len(lines):
        line_no, line = i + 1, lines[i].rstrip("\r").expandtabs(8)
        i += 1
        if not line.strip():
            continue
        if _is_rule(line):
            close_pool()  # -v: the end of a pool; otherwise the end of a report
            continue
        words = line.split()
        if _is_header_pair(lines, line_no - 1):
            header = _read_header(line, lines[i].expandtabs(8), line_no)
            close_report()
            i += 1
            continue
        if header is None:
            raise ParseError(SOURCE, "row before the header", line_no, line)
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0 and words[0] in _CLASS_HEADERS and all(w == "-" for w in words[1:]) \
                and len(words) > 1:
            if pool is None:
                raise ParseError(SOURCE, "class row before any pool row", line_no, line)
            pool.section, pool.stack = _CLASS_HEADERS[words[0]], []
            continue
        if len(words) < 1 + len(header.columns) and indent == 0 and _is_timestamp(line):
            close_report()  # -T u|d
            continue
        if indent == 0:
            if pool is not None:
                close_pool()
            if words[0] in names:
                close_report()  # the same pool again: the next interval
            row = _human_row(header, words, line_no, line, Section.DATA, ())
            pool = _HumanPool(words[0], row)
            continue
        if pool is None:
            raise ParseError(SOURCE, "vdev row before any pool row", line_no, line)
        stack = pool.stack
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, words[0]))
        path = tuple(name for _, name in stack)
        pool.rows.append(_human_row(header, words, line_no, line, pool.section, path))
    close_report()
    return reports


# ------------------------------------------------------------------ entry point


@parser(SOURCE)
def parse_zpool_iostat(text: str, pools: Sequence[Pool] | None = None, *,
                       omitted_since_boot: bool | None = None) -> list[list[PoolIostat]]:
    """Parse `zpool iostat` output, human (with its header) or scripted (`-H`), into reports
    (one per interval) of pools. `omitted_since_boot`: True when the command had `-y`,
    False when it had not (the first report then covers the time since import), None when
    unknown (see the module doc)."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return []
    while first < len(lines) and "\t" not in lines[first] \
            and not _is_header_pair(lines, first):
        if lines[first].strip() and not _is_timestamp(lines[first]):
            raise ParseError(SOURCE, "neither the header of `zpool iostat` (capacity "
                                     "operations bandwidth / pool alloc free ...) nor "
                                     "TAB-separated rows of `zpool iostat -H`",
                             first + 1, lines[first])
        first += 1
    if first < len(lines) and "\t" not in lines[first]:
        reports = _parse_human(lines, first)
    else:
        trees = {p.name: p for p in pools} if pools is not None else {}
        reports = _parse_scripted(lines, trees)
    if not reports and any(ln.strip() for ln in lines):
        raise ParseError(SOURCE, "no rows of figures (a header or timestamps only)")
    return [[replace(p, report=n, since_boot=None if omitted_since_boot is None
                     else (n == 0 and not omitted_since_boot)) for p in report]
            for n, report in enumerate(reports)]
