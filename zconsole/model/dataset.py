"""Datasets, snapshots and properties (`zfs list`, `zfs get`, `zpool get`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from types import MappingProxyType
from typing import Any, NamedTuple

NO_PROPS: Mapping[str, str] = MappingProxyType({})  # a Dataset's props when none were asked


class Dataset(NamedTuple):
    """A filesystem, volume, snapshot or bookmark. Sizes in bytes; None where zfs printed `-`.

    `origin` (for clones) names the snapshot the clone was made from: it is authoritative,
    whereas a snapshot's `clones` list may be truncated. `props` holds every other requested
    property (one no field holds) as zfs printed it; it takes no part in equality or hash.

    A NamedTuple, not a frozen dataclass: `zfs list` of 100 000 snapshots is 100 000 of
    these, and a tuple is made in one C call (`datasets_from_columns`) where a frozen
    dataclass sets each of its 16 fields with a Python-level call.
    """

    name: str
    type: str  # filesystem, volume, snapshot, bookmark
    used: int | None = None
    refer: int | None = None
    avail: int | None = None
    origin: str | None = None
    clones: tuple[str, ...] = ()
    createtxg: int | None = None
    creation: int | None = None  # epoch seconds
    usedbysnapshots: int | None = None
    compressratio: float | None = None
    dedup: str | None = None
    mountpoint: str | None = None
    quota: int | None = None  # bytes; None: no quota (`-p` prints 0) or not applicable (`-`)
    refquota: int | None = None  # the same for refquota
    props: Mapping[str, str] = NO_PROPS

    # equality and hash leave `props` out (it is a mapping: unhashable, and not the dataset's
    # identity); a Dataset never equals a plain tuple
    # (not NotImplemented for other types: Python would then ask tuple.__eq__, equal to a
    # plain tuple of the same values)
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dataset) and self[:_COMPARED] == other[:_COMPARED]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:_COMPARED])

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0].split("@", 1)[0].split("#", 1)[0]

    @property
    def is_snapshot(self) -> bool:
        return self.type == "snapshot"

    @property
    def parent_name(self) -> str | None:
        """The dataset a snapshot belongs to, or the parent filesystem of a dataset."""
        if "@" in self.name:
            return self.name.split("@", 1)[0]
        if "#" in self.name:
            return self.name.split("#", 1)[0]
        if "/" in self.name:
            return self.name.rsplit("/", 1)[0]
        return None


_COMPARED = len(Dataset._fields) - 1  # every field but props
_MAKE = tuple.__new__


def datasets_from_columns(count: int, columns: Mapping[str, Sequence[Any]],
                          same: Mapping[str, Any] | None = None) -> list[Dataset]:
    """`count` Datasets built field by field: `columns[f][i]` is field f of the i-th one,
    `same[f]` field f of all of them, and a field in neither takes its default. The same
    objects as `Dataset(...)` row by row, made by one loop in C: `zfs list` of 100 000
    snapshots is 100 000 of them."""
    same = same or {}
    unknown = (columns.keys() | same.keys()) - set(Dataset._fields)
    if unknown:
        raise TypeError(f"Dataset has no field {', '.join(sorted(unknown))}")
    per_field: list[Any] = []
    for name in Dataset._fields:
        values: Any
        if name in columns:
            values = columns[name]
            if len(values) != count:
                raise ValueError(f"{len(values)} values of {name} for {count} datasets")
        elif name in same:
            values = repeat(same[name], count)
        elif name in Dataset._field_defaults:
            values = repeat(Dataset._field_defaults[name], count)
        else:
            raise TypeError(f"datasets_from_columns needs the field {name}")
        per_field.append(values)
    return list(map(_MAKE, repeat(Dataset, count), zip(*per_field, strict=True)))


@dataclass(frozen=True)
class PropertyValue:
    """One row of `zpool get -H -p` or `zfs get -H -p`: name, property, value, source."""

    name: str
    property: str
    value: str
    source: str
