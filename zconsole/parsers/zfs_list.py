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
from collections.abc import Sequence

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
_INT = re.compile(r"[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)


def _canonical(column: str) -> str:
    c = column.strip().lower()
    return _ALIASES.get(c, c)


def _int(text: str, line_no: int, line: str) -> int | None:
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
    datasets: list[Dataset] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(cols):
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected {len(cols)}",
                             line_no, line)
        row = dict(zip(cols, fields, strict=True))
        props = {columns[i].strip().lower(): fields[i] for i in range(len(cols))}
        name = row["name"]
        if not name or name == "-":
            raise ParseError(SOURCE, "empty dataset name", line_no, line)
        sizes: dict[str, int | None] = {}
        for col in _SIZE_FIELDS:
            if col in row:
                try:
                    sizes[col] = parse_size(row[col])
                except ValueError as e:
                    raise ParseError(SOURCE, f"bad {col} {row[col]!r}", line_no, line) from e
        ratio: float | None = None
        if "compressratio" in row:
            r = row["compressratio"].rstrip("x")
            if r != "-":
                if not _FLOAT.fullmatch(r):
                    raise ParseError(SOURCE, f"bad compressratio {row['compressratio']!r}",
                                     line_no, line)
                ratio = float(r)
        clones: tuple[str, ...] = ()
        if row.get("clones", "-") not in ("-", ""):
            clones = tuple(x for x in row["clones"].split(",") if x)
        datasets.append(Dataset(
            name=name,
            type=row.get("type") or _type_from_name(name),
            used=sizes.get("used"),
            refer=sizes.get("referenced"),
            avail=sizes.get("available"),
            origin=_opt(row.get("origin")),
            clones=clones,
            createtxg=_int(row.get("createtxg", "-"), line_no, line),
            creation=_int(row.get("creation", "-"), line_no, line),
            usedbysnapshots=sizes.get("usedbysnapshots"),
            compressratio=ratio,
            dedup=_opt(row.get("dedup")),
            mountpoint=_opt(row.get("mountpoint")),
            props=props,
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
