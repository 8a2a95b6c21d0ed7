"""`zfs list -H -p -o COLUMNS` -> Dataset.

Format: one row per dataset, the requested columns in the requested order, separated by one
TAB (names may contain spaces, never TABs). `-` means "not applicable" (origin of a
non-clone, clones of a snapshot without clones, mountpoint of a volume or snapshot...).

Traps:
* `clones` is a comma-separated list and may be truncated on datasets with many clones; the
  clone's own `origin` is authoritative.
* With `-p`, `compressratio` prints "1.00" (no `x`) and `creation` is epoch seconds; without
  `-p` they are "1.00x" and a locale-dependent date (not accepted for `creation`).
* Listing every snapshot with space columns is very slow on big pools; see the facts file.
  `DEFAULT_COLUMNS` (filesystems/volumes) and `SNAPSHOT_COLUMNS` are what zconsole requests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from zconsole.model.dataset import Dataset
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_size

SOURCE = "zfs list"

DEFAULT_COLUMNS: tuple[str, ...] = (
    "name", "type", "used", "avail", "refer", "origin", "usedbysnapshots", "compressratio",
    "dedup", "mountpoint", "createtxg", "creation",
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
# the columns a Dataset field holds; any other requested column goes into `props`
_FIELDS = frozenset(("name", "type", "origin", "clones", "createtxg", "creation",
                     "compressratio", "dedup", "mountpoint", *_SIZE_FIELDS))
_NO_PROPS: Mapping[str, str] = MappingProxyType({})
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
    cols = [_canonical(c) for c in columns]
    if not cols or any(not c for c in cols):
        raise ParseError(SOURCE, f"bad column list {list(columns)!r}")
    if "name" not in cols:
        raise ParseError(SOURCE, "the column list must include name")
    at = {c: i for i, c in enumerate(cols)}  # one lookup table, not two dicts per row
    i_name = at["name"]
    sizes_at = [(c, at[c]) for c in _SIZE_FIELDS if c in at]
    i_type, i_origin, i_clones = at.get("type"), at.get("origin"), at.get("clones")
    i_txg, i_creation, i_ratio = at.get("createtxg"), at.get("creation"), at.get("compressratio")
    i_dedup, i_mount = at.get("dedup"), at.get("mountpoint")
    # `props`: the requested columns no field holds, as zfs printed them (none for the
    # columns zconsole asks for: no dict per row then)
    extra = [(columns[i].strip().lower(), i) for i, c in enumerate(cols) if c not in _FIELDS]
    width = len(cols)
    datasets: list[Dataset] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != width:
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected {width}",
                             line_no, line)
        name = fields[i_name]
        if not name or name == "-":
            raise ParseError(SOURCE, "empty dataset name", line_no, line)
        sizes: dict[str, int | None] = {}
        for col, i in sizes_at:
            v = fields[i]
            if v.isdigit() and v.isascii():  # what -p prints: no need for the general parse
                sizes[col] = int(v)
                continue
            try:
                sizes[col] = parse_size(v)
            except ValueError as e:
                raise ParseError(SOURCE, f"bad {col} {v!r}", line_no, line) from e
        ratio: float | None = None
        if i_ratio is not None:
            r = fields[i_ratio].rstrip("x")
            if r != "-":
                if not _FLOAT.fullmatch(r):
                    raise ParseError(SOURCE, f"bad compressratio {fields[i_ratio]!r}",
                                     line_no, line)
                ratio = float(r)
        clones: tuple[str, ...] = ()
        if i_clones is not None and fields[i_clones] not in ("-", ""):
            clones = tuple(x for x in fields[i_clones].split(",") if x)
        datasets.append(Dataset(
            name=name,
            type=(fields[i_type] if i_type is not None else "") or _type_from_name(name),
            used=sizes.get("used"),
            refer=sizes.get("referenced"),
            avail=sizes.get("available"),
            origin=_opt(fields[i_origin]) if i_origin is not None else None,
            clones=clones,
            createtxg=_int(fields[i_txg], line_no, line) if i_txg is not None else None,
            creation=(_int(fields[i_creation], line_no, line) if i_creation is not None
                      else None),
            usedbysnapshots=sizes.get("usedbysnapshots"),
            compressratio=ratio,
            dedup=_opt(fields[i_dedup]) if i_dedup is not None else None,
            mountpoint=_opt(fields[i_mount]) if i_mount is not None else None,
            props={key: fields[i] for key, i in extra} if extra else _NO_PROPS,
        ))
    return datasets


def _opt(value: str | None) -> str | None:
    return None if value is None or value == "-" else value


def _type_from_name(name: str) -> str:
    """Best guess when `type` was not requested: snapshots and bookmarks show in the name."""
    if "@" in name:
        return "snapshot"
    if "#" in name:
        return "bookmark"
    return "unknown"  # filesystem or volume: request the `type` column to know
