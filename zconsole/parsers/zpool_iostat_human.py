"""`zpool iostat` with its header (human figures or `-p`; `-v`, `-l`, `-q`, `-c`, `-T`) ->
reports of PoolIostat (see the module doc of `parsers.zpool_iostat`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import Section
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat_columns import (
    CLASS_HEADERS,
    DEFAULT_COLUMNS,
    GROUPS,
    HISTOGRAM_WORDS,
    SOURCE,
    is_rule,
    is_timestamp,
    read_cells,
)


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
    if bottoms[0] in ("latency", "req_size") or (HISTOGRAM_WORDS & set(tops)
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
        group = GROUPS.get(word)
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
    values, exact = read_cells(header.columns, cells[:n], line_no, line)
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


def is_header_pair(lines: list[str], i: int) -> bool:
    """Is lines[i] the top line of an iostat header (the next line carries the title)?"""
    words = lines[i].split()
    if not words or i + 1 >= len(lines):
        return False
    below = lines[i + 1].split()
    return bool(below) and (below[0] in ("pool", "vdev", "latency", "req_size")
                            or (words[0] in GROUPS and below[0] in ("read", "pend"))) \
        and (words[0] in GROUPS or (len(words) > 1 and words[1] in GROUPS)
             or bool(HISTOGRAM_WORDS & set(words)))


def parse_human(lines: list[str], first: int) -> list[list[PoolIostat]]:
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
        if is_rule(line):
            close_pool()  # -v: the end of a pool; otherwise the end of a report
            continue
        words = line.split()
        if is_header_pair(lines, line_no - 1):
            header = _read_header(line, lines[i].expandtabs(8), line_no)
            close_report()
            i += 1
            continue
        if header is None:
            raise ParseError(SOURCE, "row before the header", line_no, line)
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0 and words[0] in CLASS_HEADERS and all(w == "-" for w in words[1:]) \
                and len(words) > 1:
            if pool is None:
                raise ParseError(SOURCE, "class row before any pool row", line_no, line)
            pool.section, pool.stack = CLASS_HEADERS[words[0]], []
            continue
        if len(words) < 1 + len(header.columns) and indent == 0 and is_timestamp(line):
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
