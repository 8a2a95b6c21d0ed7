"""`zpool list -H -p [-v]` and `zpool list -H -p -o COLUMNS` -> PoolUsage / dicts.

Format (checked against cmd/zpool/zpool_main.c, print_pool / print_list_stats /
print_one_column, OpenZFS 2.1 and 2.3):

* Pool row: the default columns NAME SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP DEDUP HEALTH
  ALTROOT, separated by one TAB, no leading TAB.
* With `-v`, each vdev row is TAB + name, then SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP DEDUP
  HEALTH (no ALTROOT column). Names are NOT indented in scripted mode, so the tree shape is
  lost; use `zpool status` for it.
* Class sections are announced by a header row printed with the same printf in scripted and
  human mode: the class name (`dedup`, `special`, `logs`, `cache`, `spare`) padded with SPACES
  to the name width, then space-separated dashes. It has no TAB at all, which is how it is told
  apart from a pool that happens to be named `logs`. Order: normal vdevs, dedup, special, logs,
  cache, spare.
* `-` means "not applicable": CKPOINT/EXPANDSZ/DEDUP print `-` when 0; vdev rows print `-` for
  the pool-only columns and, for leaves, ALLOC/FREE/FRAG/CAP. Spares show AVAIL/INUSE health.

Version traps: on 2.3 a leaf row prints its physical SIZE (vs_pspace); on 2.1 leaves print `-`
for SIZE. With `-p` CAP is an integer percent, FRAG an integer, DEDUP a plain ratio ("1.00");
without `-p` they carry `%` and `x` and sizes are human units (accepted, but locale-dependent:
always request `-p`). `-o` lists are not compatible with `-v`; vdev rows are skipped there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from zconsole.model.pool import PoolUsage, Section, VdevUsage
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_size

SOURCE = "zpool list"

DEFAULT_COLUMNS = ("name", "size", "allocated", "free", "checkpoint", "expandsize",
                   "fragmentation", "capacity", "dedupratio", "health", "altroot")

_CLASS_HEADERS = {
    "dedup": Section.DEDUP,
    "special": Section.SPECIAL,
    "logs": Section.LOGS,
    "cache": Section.CACHE,
    "spare": Section.SPARES,
    "spares": Section.SPARES,
}
_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)


def _size(text: str, line_no: int, line: str) -> int | None:
    try:
        return parse_size(text)
    except ValueError as e:
        raise ParseError(SOURCE, f"bad size {text!r}", line_no, line) from e


def _percent(text: str, line_no: int, line: str) -> int | None:
    t = text.strip().rstrip("%")
    if t == "-":
        return None
    if _INT.fullmatch(t):
        return int(t)
    if _FLOAT.fullmatch(t):  # human mode prints "0.12%" style capacity for small pools
        return int(float(t))
    raise ParseError(SOURCE, f"bad percentage {text!r}", line_no, line)


def _ratio(text: str, line_no: int, line: str) -> float | None:
    t = text.strip().rstrip("x")
    if t == "-":
        return None
    if _FLOAT.fullmatch(t):
        return float(t)
    raise ParseError(SOURCE, f"bad ratio {text!r}", line_no, line)


def _class_header(line: str) -> Section | None:
    """`logs      -      -  ...` (spaces only, no TAB) -> Section, else None."""
    if "\t" in line:
        return None
    words = line.split()
    if len(words) < 2 or words[0] not in _CLASS_HEADERS:
        return None
    if not all(w == "-" for w in words[1:]):
        return None
    return _CLASS_HEADERS[words[0]]


class _Space(TypedDict):
    size: int | None
    alloc: int | None
    free: int | None
    checkpoint: int | None
    expandsize: int | None
    fragmentation: int | None
    capacity: int | None


def _space_columns(fields: Sequence[str], line_no: int, line: str) -> _Space:
    """SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP: the columns pool and vdev rows share."""
    return {
        "size": _size(fields[1], line_no, line),
        "alloc": _size(fields[2], line_no, line),
        "free": _size(fields[3], line_no, line),
        "checkpoint": _size(fields[4], line_no, line),
        "expandsize": _size(fields[5], line_no, line),
        "fragmentation": _percent(fields[6], line_no, line),
        "capacity": _percent(fields[7], line_no, line),
    }


@parser(SOURCE)
def parse_zpool_list(text: str) -> list[PoolUsage]:
    """Parse `zpool list -H -p` or `zpool list -H -p -v` (default columns)."""
    pools: list[PoolUsage] = []
    vdevs: list[VdevUsage] = []
    current: PoolUsage | None = None
    section = Section.DATA

    def flush() -> None:
        if current is not None:
            pools.append(_with_vdevs(current, vdevs))

    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        header = _class_header(line)
        if header is not None:
            if current is None:
                raise ParseError(SOURCE, "class header before any pool row", line_no, line)
            section = header
            continue
        if line.startswith("\t"):
            if current is None:
                raise ParseError(SOURCE, "vdev row before any pool row", line_no, line)
            fields = line[1:].split("\t")
            if len(fields) not in (10, 11):
                raise ParseError(SOURCE, f"vdev row has {len(fields)} fields, expected 10",
                                 line_no, line)
            if not fields[0]:
                raise ParseError(SOURCE, "vdev row without a name", line_no, line)
            vdevs.append(VdevUsage(
                name=fields[0],
                section=section,
                **_space_columns(fields, line_no, line),
                health=None if fields[9] == "-" else fields[9],
            ))
            # fields[8] (DEDUP) is always `-` for vdevs
            _ratio(fields[8], line_no, line)
            continue
        fields = line.split("\t")
        if len(fields) != len(DEFAULT_COLUMNS):
            raise ParseError(SOURCE, f"pool row has {len(fields)} fields, expected "
                             f"{len(DEFAULT_COLUMNS)} (use the default columns with -H -p)",
                             line_no, line)
        if not fields[0] or fields[0] != fields[0].strip():
            raise ParseError(SOURCE, "bad pool name", line_no, line)
        flush()
        vdevs = []
        section = Section.DATA
        current = PoolUsage(
            name=fields[0],
            **_space_columns(fields, line_no, line),
            dedupratio=_ratio(fields[8], line_no, line),
            health=fields[9],
            altroot=None if fields[10] == "-" else fields[10],
        )
    flush()
    return pools


def _with_vdevs(pool: PoolUsage, vdevs: list[VdevUsage]) -> PoolUsage:
    if not vdevs:
        return pool
    return PoolUsage(
        name=pool.name, size=pool.size, alloc=pool.alloc, free=pool.free,
        checkpoint=pool.checkpoint, expandsize=pool.expandsize,
        fragmentation=pool.fragmentation, capacity=pool.capacity,
        dedupratio=pool.dedupratio, health=pool.health, altroot=pool.altroot,
        vdevs=tuple(vdevs),
    )


@parser(SOURCE)
def parse_zpool_list_columns(text: str, columns: Sequence[str]) -> list[dict[str, str | None]]:
    """Parse `zpool list -H -p -o COL,COL,...`: one dict per pool, `-` -> None.

    Values stay strings (use `zconsole.parsers.units` on them); keys are the requested column
    names, lower-cased. Vdev rows and class headers (if -v was passed too) are skipped.
    """
    cols = [c.strip().lower() for c in columns]
    if not cols or any(not c for c in cols):
        raise ParseError(SOURCE, f"bad column list {list(columns)!r}")
    result: list[dict[str, str | None]] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("\t") or _class_header(line) is not None:
            continue
        fields = line.split("\t")
        if len(fields) != len(cols):
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected {len(cols)}",
                             line_no, line)
        result.append({c: (None if v == "-" else v) for c, v in zip(cols, fields, strict=True)})
    return result
