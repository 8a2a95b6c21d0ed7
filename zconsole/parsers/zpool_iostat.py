"""`zpool iostat -v [-l] -H -p [-y] [interval count]` -> reports of PoolIostat.

Format (cmd/zpool/zpool_main.c, print_vdev_stats / print_iostat_default /
print_iostat_latency, OpenZFS 2.1 and 2.3), scripted mode:

* One TAB-separated row per vdev: name, alloc, free, read ops, write ops, read bytes, write
  bytes, then with `-l` the average latencies in ns: total_wait r/w, disk_wait r/w,
  syncq_wait r/w, asyncq_wait r/w, scrub, trim and - from 2.2 - rebuild.
  So 7 fields without `-l`, 17 with `-l` on 2.1, 18 with `-l` on 2.2/2.3: the version is
  detected from the column count. `-` means "no I/O of that kind in the interval".
* Names are NOT indented: depth is lost. Rows are depth-first: the pool row, the normal
  vdevs, then the dedup, special and logs classes, then cache devices. Spares are not shown.
* A class section is preceded by a bare blank line: the class name is printed only without
  `-H`. Nothing separates two pools or two reports (intervals): the next pool row simply
  follows. With -p, rows other than pools and top-level vdevs print 0 for alloc and free
  (`-` without -p): with a vdev tree these become None here.
* The first report covers the time since the pool was imported; pass `-y` (or drop it).
* `-T u|d` timestamps are accepted: a line without TABs that is not a class header starts a
  new report.

Mapping onto the tree: pass the pools from `zpool status` and each row is matched, in order,
against the depth-first walk zpool itself does, which also resolves the same leaf name
appearing in two sections. Without pools the parser does a best effort: a row repeating a
pool name of the current report starts a new report; other pool boundaries cannot be seen
(query one pool per command or pass `pools`, names alone suffice); depth is guessed from
alloc/free (0 -> child of the last top-level vdev); a blank-line group is labelled by a class
header row if one is present, otherwise guessed from the end of the fixed order
dedup < special < logs < cache (the last group is `cache` unless it holds a mirror/raidz).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_size

SOURCE = "zpool iostat"

LATENCY_COLUMNS_21 = ("total_wait_read", "total_wait_write", "disk_wait_read",
                      "disk_wait_write", "syncq_wait_read", "syncq_wait_write",
                      "asyncq_wait_read", "asyncq_wait_write", "scrub_wait", "trim_wait")
LATENCY_COLUMNS_23 = (*LATENCY_COLUMNS_21, "rebuild_wait")
_FIELD_COUNTS = {7: (), 17: LATENCY_COLUMNS_21, 18: LATENCY_COLUMNS_23}

_CLASS_HEADERS = {"dedup": Section.DEDUP, "special": Section.SPECIAL, "logs": Section.LOGS,
                  "cache": Section.CACHE}
_CLASS_ORDER = (Section.DEDUP, Section.SPECIAL, Section.LOGS, Section.CACHE)
_CONTAINER = re.compile(r"(mirror|raidz[0-9]*|draid[0-9]*|replacing|spare)-[0-9]+$|draid",
                        re.ASCII)
_INT = re.compile(r"[0-9]+", re.ASCII)


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
    """10 (OpenZFS 2.1), 11 (2.2+) or 0 (no -l) for the first data row; -1 if there is none."""
    for raw in text.splitlines():
        if "\t" in raw:
            n = len(raw.rstrip("\r").split("\t"))
            return len(_FIELD_COUNTS.get(n, ())) if n in _FIELD_COUNTS else -1
    return -1


def _num(text: str, line: _Line, what: str) -> int:
    if _INT.fullmatch(text):
        return int(text)
    try:
        value = parse_size(text)  # human units when -p was forgotten
    except ValueError as e:
        raise ParseError(SOURCE, f"bad {what} {text!r}", line.line_no, line.text) from e
    if value is None:
        raise ParseError(SOURCE, f"missing {what}", line.line_no, line.text)
    return value


def _opt_num(text: str, line: _Line, what: str) -> int | None:
    if text == "-":
        return None
    if _INT.fullmatch(text):
        return int(text)
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s)", text, re.ASCII)
    if m:  # human latency (no -p): "881ns", "6ms"
        scale = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}[m.group(2)]
        return int(round(float(m.group(1)) * scale))
    return _num(text, line, what)


def _row(line: _Line, section: Section, path: tuple[str, ...], leaf: bool) -> IostatRow:
    f = line.fields
    lat: list[int | None] = [_opt_num(v, line, "latency") for v in f[7:]]
    lat += [None] * (11 - len(lat))
    alloc = None if f[1] == "-" else _num(f[1], line, "alloc")
    free = None if f[2] == "-" else _num(f[2], line, "free")
    if leaf and alloc == 0 and free == 0:
        alloc = free = None  # zpool prints 0 for "not applicable" with -p
    return IostatRow(
        name=f[0], section=section, vdev_path=path, alloc=alloc, free=free,
        read_ops=_num(f[3], line, "read ops"), write_ops=_num(f[4], line, "write ops"),
        read_bytes=_num(f[5], line, "read bytes"), write_bytes=_num(f[6], line, "write bytes"),
        total_wait_read=lat[0], total_wait_write=lat[1],
        disk_wait_read=lat[2], disk_wait_write=lat[3],
        syncq_wait_read=lat[4], syncq_wait_write=lat[5],
        asyncq_wait_read=lat[6], asyncq_wait_write=lat[7],
        scrub_wait=lat[8], trim_wait=lat[9], rebuild_wait=lat[10],
    )


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


def _tokenise(text: str) -> list[_Line | str]:
    """Rows as _Line; a blank line as "" ; a class header as its name; other TAB-less lines
    (timestamps from -T) as "T"."""
    items: list[_Line | str] = []
    width: int | None = None
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            items.append("")
            continue
        if "\t" not in line:
            words = line.split()
            if words[0] in _CLASS_HEADERS and all(w == "-" for w in words[1:]):
                items.append(words[0])
            else:
                items.append("T")
            continue
        fields = tuple(line.split("\t"))
        if len(fields) not in _FIELD_COUNTS:
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected 7, 17 (2.1 -l) "
                             "or 18 (2.2+ -l)", line_no, line)
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


@parser(SOURCE)
def parse_zpool_iostat(text: str, pools: Sequence[Pool] | None = None
                       ) -> list[list[PoolIostat]]:
    """Parse scripted `zpool iostat` output into reports (one per interval) of pools."""
    trees = {p.name: p for p in pools} if pools is not None else {}
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

    for item in _tokenise(text):
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
