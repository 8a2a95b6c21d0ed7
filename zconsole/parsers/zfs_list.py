"""`zfs list -H -p -o COLUMNS` -> Dataset.

Format: one row per dataset, the requested columns in the requested order, separated by one
TAB (names may contain spaces, never TABs). `-` means "not applicable" (origin of a
non-clone, clones of a snapshot without clones, mountpoint of a volume or snapshot...).

Traps:
* `clones` is a comma-separated list and may be truncated on datasets with many clones; the
  clone's own `origin` is authoritative.
* With `-p`, `compressratio` prints "1.00" (no `x`) and `creation` is epoch seconds; without
  `-p` they are "1.00x" and a locale-dependent date (not accepted for `creation`).
* `quota` and `refquota` print `0` with `-p` when none is set (`none` without `-p`) and `-`
  where they do not apply (snapshots, volumes): both are None in a Dataset.
* Listing every snapshot with space columns is very slow on big pools; see the facts file.
  `DEFAULT_COLUMNS` (filesystems/volumes) and `SNAPSHOT_COLUMNS` are what zconsole requests.

Speed (100 000 snapshots of a big host): output as `-H -p` prints it is read column by column,
a few thousand rows at a time, numbers converted a whole column at once and the Datasets built
by `datasets_from_columns`; anything else (blank lines, units, a bad field) is read row by row,
which gives the same answer and says where the input is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import contains
from typing import Any, TypeVar

from zconsole.model.dataset import NO_PROPS, Dataset, datasets_from_columns
from zconsole.parsers.bulk import holding_collections
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_size

SOURCE = "zfs list"

DEFAULT_COLUMNS: tuple[str, ...] = (
    "name", "type", "used", "avail", "refer", "origin", "usedbysnapshots", "compressratio",
    "dedup", "mountpoint", "createtxg", "creation", "quota", "refquota",
)
SNAPSHOT_COLUMNS: tuple[str, ...] = ("name", "used", "refer", "createtxg", "creation", "clones")

# zfs accepts these short names; map them onto the canonical property name.
_ALIASES = {
    "avail": "available",
    "refer": "referenced",
    "usedsnap": "usedbysnapshots",
    "ratio": "compressratio",
}
_SIZE_FIELDS = ("used", "available", "referenced", "usedbysnapshots")
_QUOTA_FIELDS = ("quota", "refquota")  # sizes where 0 means "none"
# the columns a Dataset field holds; any other requested column goes into `props`
_FIELDS = frozenset(("name", "type", "origin", "clones", "createtxg", "creation",
                     "compressratio", "dedup", "mountpoint", *_SIZE_FIELDS, *_QUOTA_FIELDS))
_NO_PROPS = NO_PROPS
_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)


def _canonical(column: str) -> str:
    c = column.strip().lower()
    return _ALIASES.get(c, c)


def _int(text: str, line_no: int, line: str) -> int | None:
    if text.isdigit() and text.isascii():
        return int(text)
    if text == "-":
        return None
    if not _INT.fullmatch(text):
        raise ParseError(SOURCE, f"expected an integer, got {text!r} (did you pass -p?)",
                         line_no, line)
    return int(text)


@parser(SOURCE)
def parse_zfs_list(text: str, columns: Sequence[str]) -> list[Dataset]:
    """Parse `zfs list -H -p -o <columns>` output; `columns` as passed to `-o`."""
    layout = _Layout(columns)
    lines = text.splitlines()
    fast = _by_columns(lines, layout, _build)
    return fast if fast is not None else _by_rows(lines, layout)


@parser(SOURCE)
def parse_zfs_list_names(text: str, columns: Sequence[str]) -> list[str]:
    """The names `parse_zfs_list(text, columns)` would give, checked as it checks them
    (ParseError where it raises one), without building the Datasets: the background
    snapshot scan needs only the names of up to 100 000 snapshots."""
    layout = _Layout(columns)
    lines = text.splitlines()
    fast = _by_columns(lines, layout, lambda fields, _: list(fields[0]["name"]))
    return fast if fast is not None else [d.name for d in _by_rows(lines, layout)]


class _Layout:
    """Where each field is in a row (None: not requested), from the `-o` column list."""

    def __init__(self, columns: Sequence[str]) -> None:
        cols = [_canonical(c) for c in columns]
        if not cols or any(not c for c in cols):
            raise ParseError(SOURCE, f"bad column list {list(columns)!r}")
        if "name" not in cols:
            raise ParseError(SOURCE, "the column list must include name")
        at = {c: i for i, c in enumerate(cols)}
        self.width = len(cols)
        self.name = at["name"]
        self.sizes = [(c, at[c]) for c in _SIZE_FIELDS if c in at]
        self.quotas = [(c, at[c]) for c in _QUOTA_FIELDS if c in at]
        self.type, self.origin, self.clones = at.get("type"), at.get("origin"), at.get("clones")
        self.txg, self.creation = at.get("createtxg"), at.get("creation")
        self.ratio, self.dedup, self.mount = at.get("compressratio"), at.get("dedup"), \
            at.get("mountpoint")
        # `props`: the requested columns no field holds, as zfs printed them (none for the
        # columns zconsole asks for: no dict per row then)
        self.extra = [(columns[i].strip().lower(), i) for i, c in enumerate(cols)
                      if c not in _FIELDS]


# -- the fast path: column by column, for output as `zfs list -H -p` prints it ---------------
# Anything it does not expect (a blank line, a short row, a size with a unit, a bad number)
# sends the whole text to the row-by-row path below, which says where the input is wrong.

class _Unexpected(Exception):
    pass


_CHUNK = 8192  # rows split at a time: the fields of all 100 000 at once would double the peak
_DASH_IS_NONE = {"-": None}
_FIELD_OF = {"referenced": "refer", "available": "avail"}


T = TypeVar("T")
_Fields = tuple[dict[str, Sequence[Any]], dict[str, Any]]


def _by_columns(lines: list[str], lay: _Layout, build: Callable[[_Fields, int], list[T]]
                ) -> list[T] | None:
    """`build(fields, n)` of each chunk of rows, joined; None when the lines need the
    row-by-row path."""
    if not lines or lay.width < 2 or set(map(str.count, lines, repeat("\t"))) != {lay.width - 1}:
        return None
    out: list[T] = []
    with holding_collections():  # 100 000 new records: no cycle among them to look for
        for start in range(0, len(lines), _CHUNK):
            chunk = lines[start:start + _CHUNK]
            fields = _fields(chunk, lay)
            if fields is None:
                return None
            out += build(fields, len(chunk))
    return out


def _build(fields: _Fields, n: int) -> list[Dataset]:
    return datasets_from_columns(n, *fields)


def _fields(lines: list[str], lay: _Layout) -> _Fields | None:
    """Each field's column and the values all rows share, checked and converted; None when
    the lines need the row-by-row path."""
    flat = "\t".join(lines).split("\t")
    width = lay.width

    def col(i: int) -> list[str]:
        return flat[i::width]

    names = col(lay.name)
    if "" in names or "-" in names or any(map(str.isspace, names)):
        return None
    try:
        values: dict[str, Any] = {_FIELD_OF.get(c, c): _numbers(col(i)) for c, i in lay.sizes}
        for c, at in lay.quotas:  # 0 is "none": None, as `-` is
            values[c] = [v or None for v in _numbers(col(at))]
        for field, i in (("createtxg", lay.txg), ("creation", lay.creation)):
            if i is not None:
                values[field] = _numbers(col(i))
        if lay.ratio is not None:
            values["compressratio"] = [_ratio(v) for v in col(lay.ratio)]
    except (_Unexpected, ValueError):  # ValueError: int() of thousands of digits
        return None
    for field, i in (("origin", lay.origin), ("dedup", lay.dedup), ("mountpoint", lay.mount)):
        if i is not None:
            values[field] = list(map(_DASH_IS_NONE.get, col(i), col(i)))
    if lay.clones is not None:
        values["clones"] = [() if v in ("-", "") else tuple(x for x in v.split(",") if x)
                            for v in col(lay.clones)]
    same: dict[str, Any] = {"props": _NO_PROPS}
    if lay.extra:
        keys = [k for k, _ in lay.extra]
        values["props"] = [dict(zip(keys, row, strict=True))
                           for row in zip(*(col(i) for _, i in lay.extra), strict=True)]
    values["name"] = names
    if lay.type is None and all(map(contains, names, repeat("@"))):
        same["type"] = "snapshot"  # what _type_from_name says of every one
    else:
        values["type"] = _types(names, lay, col)
    return values, same


def _numbers(column: list[str]) -> list[int | None]:
    """A column of whole numbers, `-` meaning None (what -p prints for sizes, txgs, times)."""
    digits = "".join(column)
    if digits.isdigit() and digits.isascii() and all(column):
        return list(map(int, column))
    out: list[int | None] = []
    for v in column:
        if v.isdigit() and v.isascii():
            out.append(int(v))
        elif v == "-":
            out.append(None)
        else:
            raise _Unexpected
    return out


def _ratio(v: str) -> float | None:
    r = v.rstrip("x")
    if r == "-":
        return None
    if not _FLOAT.fullmatch(r):
        raise _Unexpected
    return float(r)


def _types(names: list[str], lay: _Layout, col: Callable[[int], list[str]]) -> list[str]:
    if lay.type is None:
        return list(map(_type_from_name, names))
    types = col(lay.type)
    if all(types):
        return types
    return [t or _type_from_name(nm) for t, nm in zip(types, names, strict=True)]


# -- the row-by-row path: every input, with the line of the first error ---------------------

def _by_rows(lines: list[str], lay: _Layout) -> list[Dataset]:
    datasets: list[Dataset] = []
    for line_no, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != lay.width:
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected {lay.width}",
                             line_no, line)
        datasets.append(_row(fields, lay, line_no, line))
    return datasets


def _row(fields: list[str], lay: _Layout, line_no: int, line: str) -> Dataset:
    name = fields[lay.name]
    if not name or name == "-":
        raise ParseError(SOURCE, "empty dataset name", line_no, line)
    sizes: dict[str, int | None] = {}
    for col, i in lay.sizes:
        v = fields[i]
        if v.isdigit() and v.isascii():  # what -p prints: no need for the general parse
            sizes[col] = int(v)
            continue
        try:
            sizes[col] = parse_size(v)
        except ValueError as e:
            raise ParseError(SOURCE, f"bad {col} {v!r}", line_no, line) from e
    for col, i in lay.quotas:
        try:
            sizes[col] = parse_size(fields[i]) or None  # 0 and `none`: no quota
        except ValueError as e:
            raise ParseError(SOURCE, f"bad {col} {fields[i]!r}", line_no, line) from e
    ratio: float | None = None
    if lay.ratio is not None:
        r = fields[lay.ratio].rstrip("x")
        if r != "-":
            if not _FLOAT.fullmatch(r):
                raise ParseError(SOURCE, f"bad compressratio {fields[lay.ratio]!r}",
                                 line_no, line)
            ratio = float(r)
    clones: tuple[str, ...] = ()
    if lay.clones is not None and fields[lay.clones] not in ("-", ""):
        clones = tuple(x for x in fields[lay.clones].split(",") if x)
    return Dataset(
        name=name,
        type=(fields[lay.type] if lay.type is not None else "") or _type_from_name(name),
        used=sizes.get("used"),
        refer=sizes.get("referenced"),
        avail=sizes.get("available"),
        origin=_opt(fields[lay.origin]) if lay.origin is not None else None,
        clones=clones,
        createtxg=_int(fields[lay.txg], line_no, line) if lay.txg is not None else None,
        creation=(_int(fields[lay.creation], line_no, line) if lay.creation is not None
                  else None),
        usedbysnapshots=sizes.get("usedbysnapshots"),
        compressratio=ratio,
        dedup=_opt(fields[lay.dedup]) if lay.dedup is not None else None,
        mountpoint=_opt(fields[lay.mount]) if lay.mount is not None else None,
        quota=sizes.get("quota"),
        refquota=sizes.get("refquota"),
        props={key: fields[i] for key, i in lay.extra} if lay.extra else _NO_PROPS,
    )


def _opt(value: str | None) -> str | None:
    return None if value is None or value == "-" else value


def _type_from_name(name: str) -> str:
    """Best guess when `type` was not requested: snapshots and bookmarks show in the name."""
    if "@" in name:
        return "snapshot"
    if "#" in name:
        return "bookmark"
    return "unknown"  # filesystem or volume: request the `type` column to know
