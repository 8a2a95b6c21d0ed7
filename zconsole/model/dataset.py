"""Datasets, snapshots and properties (`zfs list`, `zfs get`, `zpool get`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from itertools import repeat
from typing import Any


@dataclass(frozen=True, slots=True)
class Dataset:
    """A filesystem, volume, snapshot or bookmark. Sizes in bytes; None where zfs printed `-`.

    `origin` (for clones) names the snapshot the clone was made from: it is authoritative,
    whereas a snapshot's `clones` list may be truncated. `props` holds every other requested
    property (one no field holds) as zfs printed it. Slots: 100 000 snapshots are 100 000
    of these.
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
    props: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

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


# Each field's slot, set directly (what the frozen __init__ does through object.__setattr__).
_SLOT_SETTERS = {f.name: getattr(Dataset, f.name).__set__ for f in fields(Dataset)}
_NEW = object.__new__


def datasets_from_columns(count: int, columns: Mapping[str, Sequence[Any]],
                          same: Mapping[str, Any] | None = None) -> list[Dataset]:
    """`count` Datasets built field by field: `columns[f][i]` is field f of the i-th one,
    `same[f]` field f of all of them, and a field in neither takes its default. The same
    objects as `Dataset(...)` row by row, at a fraction of the cost (a frozen dataclass's
    __init__ sets each of its 14 fields with a Python-level object.__setattr__ call; here
    each field of every object is set by one loop in C): `zfs list` of 100 000 snapshots is
    100 000 of them."""
    same = same or {}
    unknown = (columns.keys() | same.keys()) - _SLOT_SETTERS.keys()
    if unknown:
        raise TypeError(f"Dataset has no field {', '.join(sorted(unknown))}")
    built = list(map(_NEW, repeat(Dataset, count)))
    for f in fields(Dataset):
        values: Any
        if f.name in columns:
            values = columns[f.name]
            if len(values) != count:
                raise ValueError(f"{len(values)} values of {f.name} for {count} datasets")
        elif f.name in same:
            values = repeat(same[f.name], count)
        elif f.default is not MISSING:
            values = repeat(f.default, count)
        elif f.default_factory is not MISSING:
            values = (f.default_factory() for _ in range(count))
        else:
            raise TypeError(f"datasets_from_columns needs the field {f.name}")
        deque(map(_SLOT_SETTERS[f.name], built, values), maxlen=0)
    return built


@dataclass(frozen=True)
class PropertyValue:
    """One row of `zpool get -H -p` or `zfs get -H -p`: name, property, value, source."""

    name: str
    property: str
    value: str
    source: str
