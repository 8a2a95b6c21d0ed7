"""`Machine`: the whole simulated host (disks, pools, datasets, ARC, network), the lookups
across its parts, and its clock.

Time enters only through `Machine.advance(now)`, which moves I/O counters, ARC counters and
running scans forward to `now` (epoch seconds). Rates are piecewise constant between two
calls; jitter comes from a hash of (seed, key, whole second), so the same seed and the same
sequence of clock readings always give the same state."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from zconsole.hosts.demo.machine.arc import Arc, Zil, count_arc
from zconsole.hosts.demo.machine.common import jitter
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot, SnapshotSeries
from zconsole.hosts.demo.machine.disks import Disk, Rates, count_io
from zconsole.hosts.demo.machine.net import NetLink
from zconsole.hosts.demo.machine.pools import Pool, Vdev
from zconsole.hosts.demo.machine.scans import (
    complete_scans,
    is_deferred,
    is_resilver_source,
    next_scan_end,
)
from zconsole.hosts.demo.machine.smart import SmartState
from zconsole.hosts.demo.machine.system import System
from zconsole.hosts.demo.machine.zlog import ZLog

# The counters move in steps of at least this much machine time: a host with a thousand disks
# answers a thousand commands (a SMART poll) in well under a second, and moving every disk's
# counters at each of them made the poll quadratic. Rates are per second, so a later step
# counts the time skipped here.
INTEGRATE_STEP_S = 0.25

Leaves = dict[str, tuple[Pool, Vdev]]
"""Disk name -> (pool, leaf): `Machine.leaf_index()`."""


class Tracked(dict[str, Dataset]):
    """The datasets by name, counting the changes to its keys (`version`), so that what is
    derived from the names alone (`Machine.children_of`) is worked out once per change
    instead of by a walk of every dataset per question."""

    version = 0

    def __setitem__(self, key: str, value: Dataset) -> None:
        self.version += 1
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.version += 1
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.version += 1
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Dataset]:
        self.version += 1
        return super().popitem()

    def setdefault(self, key: str, default: Dataset) -> Dataset:
        self.version += 1
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.version += 1
        super().update(*args, **kwargs)

    def clear(self) -> None:
        self.version += 1
        super().clear()


@dataclass
class Machine:
    hostname: str
    kernel: str
    seed: int
    boot_time: float
    disks: dict[str, Disk] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)
    datasets: Tracked = field(default_factory=Tracked)
    snapshots: dict[str, list[Snapshot]] = field(default_factory=dict)  # explicit ones
    series: dict[str, list[SnapshotSeries]] = field(default_factory=dict)
    arc: Arc | None = None
    zil: Zil | None = None  # None: render/proc.default_zil
    links: list[NetLink] = field(default_factory=list)
    swaps: list[str] = field(default_factory=list)
    # what `flock … tee OWNER` holds (lock file -> owner file) and the small files it wrote
    locks: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    # symbolic links among those files (link -> target, absolute): programs that follow
    # links read and write the target; `cp -a`, `rm`, `sed -i` act on the link itself
    symlinks: dict[str, str] = field(default_factory=dict)
    system: System | None = None  # sshd, journal, systemd, networkd: built on first use
    zlog: ZLog | None = None  # zpool events and zpool history (machine/zlog.py)
    smart: dict[str, SmartState] = field(default_factory=dict)  # by serial (machine/smart.py)
    last: float = 0.0
    txg_counter: int = 100
    # how much faster than the disks a scan started now runs: 1 for tests and screenshots,
    # `host.REHEARSAL_PACE` while an operator rehearses (machine/scans.py)
    pace: float = 1.0
    # the same-bay rehearsal (machine/bays.py): sizes of the disks the hands insert first
    # (a too-small one), then the swapped disk's own size; (time, bay) of a disk they will
    # put in later, after taking a refused one out
    swap_sizes: list[int] = field(default_factory=list)
    pending_inserts: list[tuple[float, str]] = field(default_factory=list)
    # Bumped by every command the host runs and every scan that completes: what is derived
    # from the machine's shape (the leaf index, the host's /dev and /sys tree) is kept for
    # one generation. A test that edits the machine directly calls `changed()`.
    generation: int = 0
    _children: tuple[int, dict[str, list[str]]] | None = field(default=None, repr=False,
                                                               compare=False)
    _leaves: tuple[int, Leaves] | None = field(default=None, repr=False, compare=False)
    _names: tuple[int, dict[str, tuple[Disk, int | None]]] | None = field(
        default=None, repr=False, compare=False)

    def changed(self) -> None:
        """The machine's shape may have changed: derived indexes are made again."""
        self.generation += 1

    # --- lookups ---------------------------------------------------------------------

    def disk_by_any(self, name: str) -> tuple[Disk, int | None] | None:
        """Resolve sdb, /dev/sdb, sdb1, ata-..., /dev/disk/by-id/ata-...-part1 to (disk, part)."""
        n = name
        for prefix in ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/"):
            if n.startswith(prefix):
                n = n[len(prefix):]
                break
        part: int | None = None
        if "-part" in n:
            base, _, num = n.rpartition("-part")
            if num.isdigit():
                n, part = base, int(num)
        hit = self._names_index().get(n)
        if hit is None:
            return None
        d, number = hit
        return d, (number if number is not None else part)

    def _names_index(self) -> dict[str, tuple[Disk, int | None]]:
        """Every name of every present disk and partition (kernel name, by-id, by-path),
        made once per `generation`: the first claim on a name wins, in the order a walk of
        the disks (each disk's names, then its partitions) would meet them."""
        cached = self._names
        if cached is not None and cached[0] == self.generation:
            return cached[1]
        index: dict[str, tuple[Disk, int | None]] = {}
        for d in self.disks.values():
            if not d.present:
                continue
            for name in (d.name, *d.by_id, d.by_path):
                index.setdefault(name, (d, None))
            for p in d.partitions:
                index.setdefault(d.part_name(p.number), (d, p.number))
        self._names = (self.generation, index)
        return index

    def leaf_of_disk(self, disk: str) -> tuple[Pool, Vdev] | None:
        """The first leaf on this disk (pools in order, data tree, then cache, then spares)."""
        for pool in self.pools.values():
            for v in pool.all_vdevs():
                if v.is_leaf and v.disk == disk:
                    return pool, v
        return None

    def leaf_index(self) -> Leaves:
        """`leaf_of_disk` for every disk at once, in one walk of the pools made once per
        `generation`: for the callers that ask about every disk (one walk per disk made the
        clock cost disks x vdevs)."""
        cached = self._leaves
        if cached is not None and cached[0] == self.generation:
            return cached[1]
        index: Leaves = {}
        for pool in self.pools.values():
            for v in pool.all_vdevs():
                if v.is_leaf and v.disk is not None:
                    index.setdefault(v.disk, (pool, v))
        self._leaves = (self.generation, index)
        return index

    def snapshots_of(self, ds: str) -> Iterator[Snapshot]:
        """All snapshots of a dataset in createtxg order (series are lazy)."""
        explicit = self.snapshots.get(ds, [])
        series = self.series.get(ds, [])
        if not series:
            yield from sorted(explicit, key=lambda s: s.createtxg)
            return
        merged: list[Iterator[Snapshot]] = [iter(s) for s in series]
        merged.append(iter(sorted(explicit, key=lambda s: s.createtxg)))
        yield from heapq.merge(*merged, key=lambda s: s.createtxg)

    def snapshot_count(self, ds: str) -> int:
        return len(self.snapshots.get(ds, [])) + sum(len(s) for s in self.series.get(ds, []))

    def find_snapshot(self, full: str) -> Snapshot | None:
        ds, _, short = full.partition("@")
        for s in self.snapshots.get(ds, []):
            if s.short == short:
                return s
        for ser in self.series.get(ds, []):
            i = ser.index_of(short)
            if i is not None:
                return ser.make(i)
        return None

    def remove_snapshot(self, full: str) -> None:
        ds, _, short = full.partition("@")
        lst = self.snapshots.get(ds, [])
        for s in lst:
            if s.short == short:
                lst.remove(s)
                return
        for ser in self.series.get(ds, []):
            i = ser.index_of(short)
            if i is not None:
                ser.gone.add(i)
                return

    def clones_of(self, snap: str) -> list[str]:
        return sorted(d.name for d in self.datasets.values() if d.origin == snap)

    def children_of(self, ds: str) -> list[str]:
        """A dataset's direct children, sorted by name; the index of every dataset's
        children is made in one pass over the names after each change to them."""
        cached = self._children
        if cached is None or cached[0] != self.datasets.version:
            index: dict[str, list[str]] = {}
            for n in sorted(self.datasets):
                parent, slash, _ = n.rpartition("/")
                if slash:
                    index.setdefault(parent, []).append(n)
            cached = self._children = (self.datasets.version, index)
        return list(cached[1].get(ds, ()))

    def next_txg(self) -> int:
        self.txg_counter += 7
        return self.txg_counter

    # --- time --------------------------------------------------------------------------

    def disk_rates(self, d: Disk, now: float, leaves: Leaves | None = None) -> Rates:
        """(r_iops, w_iops, r_bps, w_bps, r_ms, w_ms) right now, resilver load included.
        `leaves`: a `leaf_index()` the caller made for many disks."""
        bucket = int(now)
        io = d.io
        j = jitter(self.seed, d.name, bucket, 0.10)
        r_iops, w_iops, r_bps, w_bps = io.r_iops * j, io.w_iops * j, io.r_bps * j, io.w_bps * j
        hit = leaves.get(d.name) if leaves is not None else self.leaf_of_disk(d.name)
        if hit is not None:
            pool, leaf = hit
            sc = pool.scan
            if sc is not None and sc.state == "SCANNING" and not sc.paused_at:
                load = sc.load  # the disks' own speed, also in a rehearsal
                if sc.function == "RESILVER":
                    if leaf.resilvering and not is_deferred(pool, leaf):
                        w_bps += load
                        w_iops += load / (128 * 1024)
                    elif leaf.state == "ONLINE" and is_resilver_source(pool, leaf):
                        r_bps += load
                        r_iops += load / (128 * 1024)
                elif sc.function == "SCRUB" and leaf.state == "ONLINE" and not leaf.is_log:
                    share = load / max(1, len(list(pool.data_vdevs())))
                    r_bps += share / 2
                    r_iops += share / 2 / (128 * 1024)
        if not d.present:
            return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        jl = jitter(self.seed, d.name + ":lat", bucket, 0.12)
        return (r_iops, w_iops, r_bps, w_bps, io.r_ms * io.slow * jl, io.w_ms * io.slow * jl)

    def advance(self, now: float) -> None:
        """Move everything forward to `now`. Never goes backwards."""
        if now <= self.last:
            return
        # split at scan completions so trees change at the right moment
        while True:
            t_end = next_scan_end(self, now)
            if t_end is None:
                break
            self._integrate(t_end)
            complete_scans(self, t_end)
            self.changed()
        self._integrate(now)

    def _integrate(self, now: float) -> None:
        dt = now - self.last
        if dt <= 0:
            self.last = max(self.last, now)
            return
        if dt < INTEGRATE_STEP_S:  # counted at the next step: a command is not a tick
            return
        leaves = self.leaf_index()
        for d in self.disks.values():
            count_io(d, self.disk_rates(d, now, leaves), dt)
        if self.arc is not None:
            count_arc(self.arc, self.seed, now, dt)
        self.last = now
