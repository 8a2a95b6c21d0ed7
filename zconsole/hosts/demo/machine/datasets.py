"""Datasets and snapshots: `Dataset`, `Snapshot`, `SnapshotSeries` (100 000 snapshots made
on demand, never stored), and the dataset changes that keep the tree's content: rename,
mount, unmount. Snapshot and clone changes are in `snapshots`, properties in `properties`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, stable_int
from zconsole.hosts.demo.machine.properties import mountpoint

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


@dataclass
class Dataset:
    name: str
    type: str  # filesystem, volume
    guid: int
    createtxg: int
    creation: int
    used_self: int  # usedbydataset
    refer: int
    snap_used: int = 0  # usedbysnapshots (aggregate, also when snapshots are lazy)
    origin: str | None = None
    props: dict[str, str] = field(default_factory=dict)  # local properties
    logicalref: int = 0
    volsize: int = 0
    mounted: bool = True  # filesystems: `zfs mount`/`zfs unmount`, mountpoint=none
    # Bytes this dataset (with its snapshots) wrote while dedup was on: its share of the
    # pool's dedup table, released when it is destroyed.
    dedup_written: int = 0

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def parent(self) -> str | None:
        return self.name.rsplit("/", 1)[0] if "/" in self.name else None


@dataclass
class Snapshot:
    name: str  # full name ds@snap
    guid: int
    createtxg: int
    creation: int
    used: int
    refer: int
    userrefs: int = 0

    @property
    def dataset(self) -> str:
        return self.name.split("@", 1)[0]

    @property
    def short(self) -> str:
        return self.name.split("@", 1)[1]


@dataclass
class SnapshotSeries:
    """Many similar snapshots of one dataset, generated on demand (100 000-snapshot design).

    Snapshot i is `{dataset}@{prefix}{i:05d}`, created every `step_s` seconds from `creation0`.
    Destroyed members are remembered in `gone`; the rest never exist as objects until listed.
    """

    dataset: str
    prefix: str
    count: int
    txg0: int
    txg_step: int
    creation0: int
    step_s: int
    used_each: int
    refer: int
    seed: int
    gone: set[int] = field(default_factory=set)

    def name(self, i: int) -> str:
        return f"{self.dataset}@{self.prefix}{i:05d}"

    def index_of(self, short: str) -> int | None:
        if not short.startswith(self.prefix):
            return None
        rest = short[len(self.prefix):]
        if not rest.isdigit() or len(rest) != 5:
            return None
        i = int(rest)
        if 0 <= i < self.count and i not in self.gone:
            return i
        return None

    def make(self, i: int) -> Snapshot:
        return Snapshot(
            name=self.name(i),
            guid=stable_int(self.seed, self.dataset, "snap", i),
            createtxg=self.txg0 + i * self.txg_step,
            creation=self.creation0 + i * self.step_s,
            used=self.used_each + (stable_int(self.dataset, i, bits=16) % 4096) * 128,
            refer=self.refer,
        )

    def __iter__(self) -> Iterator[Snapshot]:
        for i in range(self.count):
            if i not in self.gone:
                yield self.make(i)

    def __len__(self) -> int:
        return self.count - len(self.gone)


def rename(m: Machine, src: str, dst: str) -> None:
    if "@" in src:
        raise CmdError(1, "cannot rename snapshots here (the demo renames datasets only)")
    if src not in m.datasets:
        raise CmdError(1, f"cannot open '{src}': dataset does not exist")
    if dst.split("/", 1)[0] != src.split("/", 1)[0]:
        raise CmdError(1, f"cannot rename to '{dst}': datasets must be within same pool")
    if dst in m.datasets:
        raise CmdError(1, f"cannot rename to '{dst}': dataset already exists")
    parent = dst.rsplit("/", 1)[0] if "/" in dst else None
    if parent is None or parent not in m.datasets:
        raise CmdError(1, f"cannot rename to '{dst}': parent does not exist")
    if dst.startswith(src + "/"):
        raise CmdError(1, f"cannot rename to '{dst}': New dataset name cannot be a "
                          "descendant of current dataset name")
    moving = [n for n in m.datasets if n == src or n.startswith(src + "/")]
    for old in sorted(moving):
        new = dst + old[len(src):]
        ds = m.datasets.pop(old)
        ds.name = new
        m.datasets[new] = ds
        for key in (old,):
            snaps = m.snapshots.pop(key, None)
            if snaps is not None:
                for s in snaps:
                    s.name = new + "@" + s.short
                m.snapshots[new] = snaps
            series = m.series.pop(key, None)
            if series is not None:
                for ser in series:
                    ser.dataset = new
                m.series[new] = series
    for other in m.datasets.values():
        if other.origin and (other.origin.split("@", 1)[0] == src
                             or other.origin.startswith(src + "/")):
            other.origin = dst + other.origin[len(src):]
    m.next_txg()


def _filesystem(m: Machine, name: str, verb: str) -> Dataset:
    """The filesystem `zfs mount|unmount` names; refused for a missing dataset or a volume."""
    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if ds.type != "filesystem":
        raise CmdError(1, f"cannot {verb} '{name}': operation not applicable to datasets of "
                          "this type")
    return ds


def mount(m: Machine, name: str) -> None:
    ds = _filesystem(m, name, "mount")
    mp = mountpoint(m, ds)[0]
    if mp in ("none", "legacy"):
        raise CmdError(1, f"cannot mount '{name}': no mountpoint set")
    if ds.mounted:
        raise CmdError(1, f"cannot mount '{name}': filesystem already mounted")
    ds.mounted = True


def unmount(m: Machine, name: str) -> None:
    ds = _filesystem(m, name, "unmount")
    if not ds.mounted or ds.props.get("mountpoint") in ("none", "legacy"):
        raise CmdError(1, f"cannot unmount '{name}': not currently mounted")
    ds.mounted = False
