"""`zpool list [-v] [-p]` (human, with its header) and `zpool list -H -p [-v]` (scripted) ->
PoolUsage; `zpool list -H -p -o COLUMNS` -> dicts.

Format (checked against cmd/zpool/zpool_main.c, print_header / collect_pool /
collect_list_stats / collect_vdev_prop, OpenZFS 2.1 and 2.3):

* Scripted (`-H`): the default columns NAME SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP DEDUP
  HEALTH ALTROOT, separated by one TAB, no leading TAB. With `-v`, each vdev row is TAB +
  name, then SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP DEDUP HEALTH (no ALTROOT). Names are
  NOT indented in scripted mode, so the tree shape is lost (`depth`/`parent` None).
* Human (no `-H`): a header line names the columns; values are right-aligned under it, two
  spaces apart, but a name longer than the name column pushes its row to the right, and
  versions differ (no CKPOINT before 0.8; HEALTH 6 wide and left-aligned in some builds,
  8 wide right-aligned in others; OpenZFS 2.0/2.1 vdev rows with HEALTH printed straight
  after DEDUP; legacy FreeBSD/illumos vdev rows that stop after CAP or FRAG). So rows are
  read as whitespace-separated words mapped onto the header's column names in order, never
  by character positions; a vdev row may stop early (the missing columns are None).
* Human `-v`: vdev rows are indented 2 spaces per level below the pool (top-level vdevs at
  2): the indentation gives `depth` and `parent`. Leaf names are whatever zpool prints:
  `sda`, `/dev/...`, files, FreeBSD `ada0p3`, `gpt/label`, `diskid/DISK-...`, legacy
  `mirror` without an index (two rows may share a name: the tree is by position).
  `indirect-N` rows (removed top-level vdevs) print `-` everywhere but HEALTH.
* Class sections are announced by a row printed with the same printf in scripted and
  human mode: the class name (`dedup`, `special`, `logs`, `cache`, `spare`) padded with
  SPACES, then dashes only. It has no TAB at all (scripted) and no value but `-`, which is how
  it is told apart from a pool that happens to be named `logs`. Order: normal vdevs, dedup,
  special, logs, cache, spare.
* `-` means "not applicable": CKPOINT/EXPANDSZ/DEDUP print `-` when 0; vdev rows print `-` for
  the pool-only columns and, for leaves, ALLOC/FREE/FRAG/CAP. Spares show AVAIL/INUSE health.
* Sizes: with `-p` plain bytes; without, human units (`3.62T`) converted to bytes and the row
  marked `exact=False` when a figure may have been rounded (units.parse_figure). A decimal
  comma from the locale (`11,4T`) is read as a point. CAP is `0.68%` style on vdev rows and
  is kept as an integer percent (as -p prints it).

Version traps: a leaf row prints its physical SIZE (vs_pspace) since early 2022 (OpenZFS
commit 1282274f33: 2.1.11 and 2.3.2 both do); older builds print `-` for a leaf's SIZE. With `-p` CAP is an integer percent, FRAG an integer, DEDUP a plain ratio ("1.00");
without `-p` they carry `%` and `x`. `-o` lists are not compatible with `-v`; vdev rows are
skipped there. Refused: `zpool list -j` (JSON, 2.3+), headerless human rows (nothing names
the columns), and headers naming columns zconsole does not read (`-o guid,...`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from zconsole.model.pool import PoolUsage, Section, VdevUsage
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import MAX_DIGITS, parse_figure

SOURCE = "zpool list"

DEFAULT_COLUMNS = ("name", "size", "allocated", "free", "checkpoint", "expandsize",
                   "fragmentation", "capacity", "dedupratio", "health", "altroot")
# Header words of the human form -> the property each column shows.
HEADER_COLUMNS = {"NAME": "name", "SIZE": "size", "ALLOC": "allocated", "FREE": "free",
                  "CKPOINT": "checkpoint", "EXPANDSZ": "expandsize", "FRAG": "fragmentation",
                  "CAP": "capacity", "DEDUP": "dedupratio", "HEALTH": "health",
                  "ALTROOT": "altroot"}
_SIZE_PROPS = ("size", "allocated", "free", "checkpoint", "expandsize")

_CLASS_HEADERS = {
    "dedup": Section.DEDUP,
    "special": Section.SPECIAL,
    "logs": Section.LOGS,
    "cache": Section.CACHE,
    "spare": Section.SPARES,
    "spares": Section.SPARES,
}
_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:[.,][0-9]+)?", re.ASCII)
_HEALTH = re.compile(r"[A-Z_]+", re.ASCII)


def _size(text: str, line_no: int, line: str) -> tuple[int | None, bool]:
    if text.isdigit() and text.isascii() and len(text) <= MAX_DIGITS:  # -p: the usual case
        return int(text), True
    try:
        return parse_figure(text)
    except ValueError as e:
        raise ParseError(SOURCE, f"bad size {text[:40]!r}", line_no, line) from e


def _percent(text: str, line_no: int, line: str) -> int | None:
    t = text.strip().rstrip("%")
    if t == "-":
        return None
    if _INT.fullmatch(t) and len(t) <= 20:
        return int(t)
    if _FLOAT.fullmatch(t) and len(t) <= 40:  # human mode prints "0.68%" on vdev rows
        return int(float(t.replace(",", ".")))
    raise ParseError(SOURCE, f"bad percentage {text[:40]!r}", line_no, line)


def _ratio(text: str, line_no: int, line: str) -> float | None:
    t = text.strip().rstrip("x")
    if t == "-":
        return None
    if _FLOAT.fullmatch(t) and len(t) <= 40:
        return float(t.replace(",", "."))
    raise ParseError(SOURCE, f"bad ratio {text[:40]!r}", line_no, line)


def _health(text: str, line_no: int, line: str) -> str | None:
    if text == "-":
        return None
    if _HEALTH.fullmatch(text) and len(text) <= 20:
        return text
    raise ParseError(SOURCE, f"bad health {text[:40]!r}", line_no, line)


def _class_header(line: str) -> Section | None:
    """`logs      -      -  ...` (spaces only, no TAB) -> Section, else None."""
    if "\t" in line or line[:1].isspace():
        return None
    words = line.split()
    if len(words) < 2 or words[0] not in _CLASS_HEADERS:
        return None
    if not all(w == "-" for w in words[1:]):
        return None
    return _CLASS_HEADERS[words[0]]


# SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP: the space columns of model.pool.UsageRow, in its
# field order (after the name), which every pool and vdev row is built with.
_Space = tuple[int | None, int | None, int | None, int | None, int | None, int | None,
               int | None]


def _read_columns(values: dict[str, str], line_no: int, line: str) -> tuple[_Space, bool]:
    """SIZE ALLOC FREE CKPOINT EXPANDSZ FRAG CAP (`None` for those absent): the columns pool
    and vdev rows share. Returns them and whether every size was exact."""
    sizes: list[int | None] = []
    exact = True
    for prop in _SIZE_PROPS:
        text = values.get(prop)
        value, ok = _size(text, line_no, line) if text is not None else (None, True)
        sizes.append(value)
        exact = exact and ok
    size, alloc, free, checkpoint, expandsize = sizes
    frag, cap = values.get("fragmentation"), values.get("capacity")
    return (size, alloc, free, checkpoint, expandsize,
            _percent(frag, line_no, line) if frag is not None else None,
            _percent(cap, line_no, line) if cap is not None else None), exact


@parser(SOURCE)
def parse_zpool_list(text: str) -> list[PoolUsage]:
    """Parse `zpool list [-v] [-p]` with its header, or `zpool list -H -p [-v]` (default
    columns); see the module doc."""
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), None)
    if first is None:
        return []
    if first.split()[0] == "NAME":
        return _parse_human(lines)
    if first.lstrip().startswith("{"):
        raise ParseError(SOURCE, "`zpool list -j` (JSON) is not read: paste `zpool list -v` "
                                 "or `zpool list -H -p -v`", 1 + lines.index(first), first)
    if "\t" not in first:
        raise ParseError(SOURCE, "neither the header line of `zpool list` (NAME SIZE ...) nor "
                                 "TAB-separated rows of `zpool list -H`", 1 + lines.index(first),
                         first)
    return _parse_scripted(lines)


def _parse_scripted(lines: list[str]) -> list[PoolUsage]:
    pools: list[PoolUsage] = []
    vdevs: list[VdevUsage] = []
    current: PoolUsage | None = None
    section = Section.DATA

    def flush() -> None:
        if current is not None:
            pools.append(replace(current, vdevs=tuple(vdevs)) if vdevs else current)

    for line_no, raw in enumerate(lines, 1):
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
            space, exact = _read_columns(dict(zip(DEFAULT_COLUMNS[1:8], fields[1:8],
                                                  strict=True)), line_no, line)
            _ratio(fields[8], line_no, line)  # DEDUP: always `-` for vdevs
            vdevs.append(VdevUsage(fields[0], *space, section=section,
                                   health=_health(fields[9], line_no, line), exact=exact))
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
        space, exact = _read_columns(dict(zip(DEFAULT_COLUMNS[1:8], fields[1:8], strict=True)),
                                     line_no, line)
        current = PoolUsage(
            fields[0], *space,
            dedupratio=_ratio(fields[8], line_no, line),
            health=fields[9],
            altroot=None if fields[10] == "-" else fields[10],
            exact=exact,
        )
    flush()
    return pools


class _Open:
    """The pool being read (human form) and the container rows its next rows may belong to:
    `stack` holds the (indent, index in vdevs) of open rows. A plain class: a dataclass
    costs ~1 ms to make on Python 3.10, at every start-up (issue 28)."""

    __slots__ = ("pool", "section", "stack", "vdevs")

    def __init__(self, pool: PoolUsage, vdevs: list[VdevUsage], section: Section = Section.DATA,
                 stack: list[tuple[int, int]] | None = None) -> None:
        self.pool, self.vdevs, self.section, self.stack = pool, vdevs, section, stack


def _header(line: str, line_no: int) -> list[str]:
    words = line.split()
    unknown = [w for w in words if w not in HEADER_COLUMNS]
    if unknown:
        raise ParseError(SOURCE, f"column {unknown[0][:40]!r} is not one zconsole reads "
                                 "(paste `zpool list` with its default columns)", line_no, line)
    if len(set(words)) != len(words):
        raise ParseError(SOURCE, "a column is named twice in the header", line_no, line)
    return [HEADER_COLUMNS[w] for w in words]


def _parse_human(lines: list[str]) -> list[PoolUsage]:
    pools: list[PoolUsage] = []
    columns: list[str] = []
    cur: _Open | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None:
            pools.append(replace(cur.pool, vdevs=tuple(cur.vdevs)) if cur.vdevs else cur.pool)
            cur = None

    for line_no, raw in enumerate(lines, 1):
        line = raw.rstrip("\r").expandtabs(8)
        if not line.strip():
            continue
        words = line.split()
        if words[0] == "NAME" and not line[:1].isspace():
            close()  # a header again: another listing (an interval, or a second paste)
            columns = _header(line, line_no)
            continue
        if not columns:
            raise ParseError(SOURCE, "row before the header line", line_no, line)
        indent = len(line) - len(line.lstrip(" "))
        section = _class_header(line)
        if section is not None:
            if cur is None:
                raise ParseError(SOURCE, "class header before any pool row", line_no, line)
            cur.section, cur.stack = section, []
            continue
        if indent == 0:
            close()
            cur = _Open(_pool_row(columns, words, line_no, line), [], stack=[])
            continue
        if cur is None:
            raise ParseError(SOURCE, "vdev row before any pool row", line_no, line)
        cur.vdevs.append(_vdev_row(cur, columns, words, indent, line_no, line))
    close()
    return pools


def _pool_row(columns: list[str], words: list[str], line_no: int, line: str) -> PoolUsage:
    if len(words) > len(columns) and columns[-1] == "altroot":
        words = [*words[:len(columns) - 1], " ".join(words[len(columns) - 1:])]
    if len(words) == len(columns) - 1 and columns[-1] == "altroot":
        words = [*words, "-"]
    if len(words) != len(columns):
        raise ParseError(SOURCE, f"pool row has {len(words)} values, the header names "
                                 f"{len(columns)} columns", line_no, line)
    values = dict(zip(columns, words, strict=True))
    space, exact = _read_columns(values, line_no, line)
    dedup = values.get("dedupratio")
    altroot = values.get("altroot")
    return PoolUsage(
        values["name"] if "name" in values else words[0], *space,
        dedupratio=_ratio(dedup, line_no, line) if dedup is not None else None,
        health=_health(values.get("health", "-"), line_no, line) or "",
        altroot=None if altroot in (None, "-") else altroot, exact=exact)


def _vdev_row(cur: _Open, columns: list[str], words: list[str], indent: int, line_no: int,
              line: str) -> VdevUsage:
    cols = [c for c in columns if c not in ("name", "altroot")]
    if len(words) - 1 > len(cols):
        raise ParseError(SOURCE, f"vdev row has {len(words) - 1} values, the header names "
                                 f"{len(cols)} columns for vdevs", line_no, line)
    values = dict(zip(cols, words[1:], strict=False))  # legacy rows stop after CAP or FRAG
    space, exact = _read_columns(values, line_no, line)
    dedup = values.get("dedupratio")
    if dedup is not None:
        _ratio(dedup, line_no, line)  # always `-` for vdevs
    stack = cur.stack if cur.stack is not None else []
    while stack and stack[-1][0] >= indent:
        stack.pop()
    parent = stack[-1][1] if stack else None
    stack.append((indent, len(cur.vdevs)))
    cur.stack = stack
    return VdevUsage(words[0], *space, section=cur.section,
                     health=_health(values.get("health", "-"), line_no, line),
                     depth=len(stack) - 1, parent=parent, exact=exact)


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
