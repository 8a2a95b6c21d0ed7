"""Datasets, snapshots and properties (`zfs list`, `zfs get`, `zpool get`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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


@dataclass(frozen=True)
class PropertyValue:
    """One row of `zpool get -H -p` or `zfs get -H -p`: name, property, value, source."""

    name: str
    property: str
    value: str
    source: str
