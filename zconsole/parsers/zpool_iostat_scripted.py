"""`zpool iostat -H` (scripted: TAB-separated rows, no indentation, no class names) ->
reports of PoolIostat, mapped onto the vdev trees of `zpool status` when they are given (see the
module doc of `parsers.zpool_iostat`)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat_columns import (
    CLASS_HEADERS,
    CLASS_ORDER,
    DEFAULT_COLUMNS,
    FIELD_COUNTS,
    SOURCE,
    is_timestamp,
    read_cells,
)

_CONTAINER = re.compile(r"(mirror|raidz[0-9]*|draid[0-9]*|replacing|spare)-[0-9]+$|draid",
                        re.ASCII)


class _Line(NamedTuple):
    """One line of `zpool iostat -H`: where it was, its text, its tab-separated fields."""

    line_no: int
    text: str
    fields: tuple[str, ...]


class _Expected(NamedTuple):
    """The vdev a row must name, by its place in the pool's tree."""

    name: str
    section: Section
    path: tuple[str, ...]
    leaf: bool


def _row(line: _Line, section: Section, path: tuple[str, ...], leaf: bool) -> IostatRow:
    f = line.fields
    lat, queues = FIELD_COUNTS[len(f)]
    values, exact = read_cells((*DEFAULT_COLUMNS, *lat, *queues), f[1:], line.line_no, line.text)
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

    for section in (Section.DATA, *CLASS_ORDER):
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
            if words[0] in CLASS_HEADERS and all(w == "-" for w in words[1:]):
                items.append(words[0])
            elif is_timestamp(line):
                items.append("T")
            else:
                raise ParseError(SOURCE, "not a row of `zpool iostat -H` (no TAB), a class "
                                         "header or a timestamp", line_no, line)
            continue
        fields = tuple(line.split("\t"))
        if len(fields) not in FIELD_COUNTS:
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
            self.group_labels[self.group] = CLASS_HEADERS[label]

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
        order = list(CLASS_ORDER)
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


def parse_scripted(lines: list[str], trees: dict[str, Pool]) -> list[list[PoolIostat]]:
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
