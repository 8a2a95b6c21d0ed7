"""The columns of `zpool iostat` and how one printed cell is read, for both of its forms
(`zpool_iostat_human`, `zpool_iostat_scripted`; the format is described in the module doc of
`parsers.zpool_iostat`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from zconsole.model.pool import Section
from zconsole.parsers.errors import ParseError
from zconsole.parsers.units import MAX_DIGITS, parse_figure, parse_latency

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
FIELD_COUNTS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {
    7: ((), ()), 17: (LATENCY_COLUMNS_21, ()), 18: (LATENCY_COLUMNS_23, ()),
    19: ((), QUEUE_COLUMNS_21), 21: ((), QUEUE_COLUMNS_23),
    29: (LATENCY_COLUMNS_21, QUEUE_COLUMNS_21), 32: (LATENCY_COLUMNS_23, QUEUE_COLUMNS_23)}

# Human header: top label -> (the labels printed under it, the IostatRow fields they fill).
GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
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
HISTOGRAM_WORDS = frozenset({"latency", "req_size", "sync_read", "sync_write", "async_read",
                             "async_write", "total", "disk", "sync_queue", "async_queue"})

CLASS_HEADERS = {"dedup": Section.DEDUP, "special": Section.SPECIAL, "logs": Section.LOGS,
                 "cache": Section.CACHE}
CLASS_ORDER = (Section.DEDUP, Section.SPECIAL, Section.LOGS, Section.CACHE)
# `-T u` prints epoch seconds, `-T d` the locale's date and time (nl_langinfo(_DATE_FMT)):
# digits, or a short line with a time of day in it.
_TIMESTAMP = re.compile(r"^\s*(?:[0-9]{9,12}|\S.{0,60}(?<![0-9])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?"
                        r"(?![0-9]).{0,40})\s*$")


def is_timestamp(line: str) -> bool:
    return len(line) <= 100 and _TIMESTAMP.match(line) is not None


def is_rule(line: str) -> bool:
    """A separator: dashes and spaces only."""
    return "-" in line and not line.strip(" -")


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


def read_cells(names: Sequence[str], cells: Sequence[str], line_no: int, line: str
               ) -> tuple[dict[str, Any], bool]:
    """Column names (IostatRow fields) and their printed cells -> field values, exact."""
    out: dict[str, Any] = {}
    exact = True
    for name, cell in zip(names, cells, strict=True):
        # the common case first (`-p`: plain digits; "-" where a wait saw no I/O): at 100
        # disks a refresh reads ~1 300 cells, and the general path costs 4 calls each
        if cell.isdigit() and cell.isascii() and len(cell) <= MAX_DIGITS:
            out[name] = int(cell)
            continue
        if cell == "-" and name in _LATENCY_FIELDS:
            out[name] = None
            continue
        if name in _LATENCY_FIELDS:
            value, ok = _wait(cell, line_no, line)
        elif name in ("alloc", "free") or name in _QUEUE_FIELDS:
            value, ok = _figure(cell, line_no, line, name.replace("_", " "))
        else:
            value, ok = _count(cell, line_no, line, name.replace("_", " "))
        out[name] = value
        exact = exact and ok
    return out, exact
