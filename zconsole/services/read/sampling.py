"""Metrics over time: per-disk I/O from /proc/diskstats, ARC deltas, ZFS per-leaf latency.

Rates come from the difference of two samples, never from lifetime counters. Per-disk figures
are for whole disks only: a whole disk already counts its partitions, and dm-*, md*, zd*
(zvols) and loop devices are stacked on disks, so adding them up would count I/O twice.

`Sampler` keeps the previous sample and a bounded history (sparklines, slow-disk analysis).
Callers pass the host clock (`host.now()`) with each sample; `Sampler.tick()` does the
reading itself and aligns ZFS latency and diskstats over the same interval.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from zconsole.hosts.base import Host, HostError
from zconsole.model.arc import ArcStats
from zconsole.model.disk import DiskIo, DiskStat
from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import Pool, Vdev
from zconsole.parsers.arcstats import arc_hit_ratio, parse_arcstats
from zconsole.parsers.diskstats import disk_io, parse_diskstats
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat import parse_zpool_iostat
from zconsole.services.read import catalogue

# (pool, vdev_path) where vdev_path runs from the top-level vdev to the leaf, as in
# IostatRow.vdev_path: ("mirror-0", "vdc"); a top-level disk is ("vdb",).
LeafKey = tuple[str, tuple[str, ...]]

SOURCE_ZFS = "zfs disk_wait"
SOURCE_DISKSTATS = "diskstats await"


class Figures(NamedTuple):
    """One leaf over one interval: latency in ms (None when no I/O) and operations completed
    in the interval (not per second), for reads and writes."""

    read_ms: float | None
    read_ops: float
    write_ms: float | None
    write_ops: float


class LeafSample(NamedTuple):
    """Both views of a leaf in one interval; either may be missing."""

    zfs: Figures | None = None
    disk: Figures | None = None


Sample = Mapping[LeafKey, LeafSample]


DEFAULT_HISTORY = 60

# Devices that are never whole disks in the I/O sense (stacked, virtual or optical).
_NOT_DISK = re.compile(r"^(dm-|md\d|md_|zd\d|loop|ram|zram|sr\d|fd\d|nbd\d|rbd\d|drbd)")
# Partition names of the common disk naming schemes.
_PARTITION = re.compile(
    r"^(?:(?:sd|vd|xvd|hd)[a-z]+\d+|(?:nvme\d+n\d+|mmcblk\d+|nbd\d+|loop\d+)p\d+)$")


def is_whole_disk_name(name: str) -> bool:
    """Best guess from the kernel name alone (used when no disk inventory is known)."""
    return not _NOT_DISK.match(name) and not _PARTITION.match(name)


class ArcDelta(NamedTuple):
    """ARC activity over one interval. `hit_ratio` (0..1) per parsers.arcstats.arc_hit_ratio."""

    interval_s: float
    hits: int
    misses: int
    iohits: int | None  # OpenZFS 2.2+
    hit_ratio: float | None
    size: int | None
    target: int | None
    throttled: bool


class ZfsLatency(NamedTuple):
    """One `zpool iostat -v -l -H -p -y INTERVAL 1` report.

    `leaves` maps (pool, vdev_path) -> the leaf's row; waits are in nanoseconds, ops and bytes
    per second as zpool prints them. A NamedTuple: a frozen dataclass costs ~1 ms to make
    on Python 3.10, at every start-up (issue 28).
    """

    taken_at: float
    interval_s: float
    reports: tuple[PoolIostat, ...]
    leaves: Mapping[LeafKey, IostatRow] = MappingProxyType({})


class SampleResult(NamedTuple):
    """What one `Sampler.tick()` or `Sampler.sample()` produced.

    `disks` is empty on the first call (there is nothing to compare with yet). `errors` holds
    one sentence per read that failed; the other figures are still valid.
    """

    taken_at: float
    disks: Mapping[str, DiskIo]
    arc: ArcDelta | None
    latency: ZfsLatency | None = None
    errors: tuple[str, ...] = ()


def leaf_paths(pool: Pool, *, spares: bool = False) -> list[tuple[tuple[str, ...], Vdev]]:
    """(path from the top-level vdev, leaf) for every leaf, in zpool's order; spares (which
    carry no I/O in `zpool iostat`) only when asked."""
    sections = [pool.vdevs, pool.logs, pool.special, pool.dedup, pool.cache]
    if spares:
        sections.append(pool.spares)
    return [(path, v) for section_vdevs in sections for top in section_vdevs
            for path, v in top.paths() if not v.children]


def map_leaves(reports: Sequence[PoolIostat], pools: Sequence[Pool] | None = None
               ) -> dict[LeafKey, IostatRow]:
    """Leaf rows of an iostat report keyed by (pool, vdev_path).

    With the status trees, leaves are the tree's leaves; without, rows whose path no other
    row extends.
    """
    by_name = {p.name: p for p in pools or ()}
    out: dict[LeafKey, IostatRow] = {}
    for rep in reports:
        rows = {r.vdev_path: r for r in rep.rows}
        tree = by_name.get(rep.pool)
        if tree is not None:
            for path, _ in leaf_paths(tree):
                row = rows.get(path)
                if row is not None:
                    out[(rep.pool, path)] = row
            continue
        paths = list(rows)
        for path, row in rows.items():
            if not any(len(o) > len(path) and o[:len(path)] == path for o in paths):
                out[(rep.pool, path)] = row
    return out


def zfs_latency(host: Host, interval: int = 1, *, pools: Sequence[Pool] | None = None,
                timeout: float | None = None) -> ZfsLatency:
    """Run the iostat latency command (blocks for `interval` seconds) and map the leaves.

    Raises HostError or ParseError; the caller decides how to show it.
    """
    argv = catalogue.zpool_iostat_latency(interval)
    result = host.run(argv, timeout=timeout if timeout is not None else interval + 30.0)
    reports = parse_zpool_iostat(result.stdout, list(pools) if pools is not None else None)
    last = tuple(reports[-1]) if reports else ()
    return ZfsLatency(host.now(), float(interval), last, map_leaves(last, pools))


def figures_from_row(row: IostatRow, interval_s: float) -> Figures:
    """ZFS disk_wait (ns -> ms) and operations completed over the interval."""
    def ms(ns: int | None) -> float | None:
        return None if ns is None else ns / 1e6

    return Figures(read_ms=ms(row.disk_wait_read), read_ops=row.read_ops * interval_s,
                   write_ms=ms(row.disk_wait_write), write_ops=row.write_ops * interval_s)


def figures_from_diskio(io: DiskIo) -> Figures:
    """The kernel's r_await / w_await (None without I/O) and operations in the interval."""
    r_ops = io.r_s * io.interval_s
    w_ops = io.w_s * io.interval_s
    return Figures(read_ms=io.r_await_ms if r_ops > 0 else None, read_ops=r_ops,
                   write_ms=io.w_await_ms if w_ops > 0 else None, write_ops=w_ops)


def leaf_samples(
    pools: Sequence[Pool],
    latency: ZfsLatency | None,
    disks: Mapping[str, DiskIo],
    leaf_disk: Callable[[str, Vdev], str | None] | None = None,
) -> Sample:
    """One slow-disk Sample: each leaf's ZFS figures and its whole disk's diskstats figures.

    `leaf_disk(pool, vdev)` names the whole disk under a leaf (services.identity provides
    one from the inventory); without it only ZFS figures are used.
    """
    out: dict[LeafKey, LeafSample] = {}
    for pool in pools:
        for path, v in leaf_paths(pool):
            key: LeafKey = (pool.name, path)
            zrow = latency.leaves.get(key) if latency is not None else None
            zfs = figures_from_row(zrow, latency.interval_s) if zrow is not None and \
                latency is not None else None
            disk: Figures | None = None
            if leaf_disk is not None:
                dname = leaf_disk(pool.name, v)
                io = disks.get(dname) if dname else None
                disk = figures_from_diskio(io) if io is not None else None
            if zfs is not None or disk is not None:
                out[key] = LeafSample(zfs=zfs, disk=disk)
    return out


def _counters_went_back(prev: DiskStat, cur: DiskStat) -> bool:
    """Counters reset when a device is re-added (32-bit ms fields wrap, counts do not)."""
    return ((prev.major, prev.minor) != (cur.major, cur.minor)
            or cur.reads < prev.reads or cur.writes < prev.writes
            or cur.sectors_read < prev.sectors_read or cur.sectors_written < prev.sectors_written)


class Sampler:
    """Keeps the previous samples and a bounded history per disk, for ARC and for latency.

    Fed by the refresh worker while the UI thread draws from its history (the Disks screen's
    sparklines, the ARC screen): every change to a history and every read of one holds
    `_lock`, and a read hands out a copy, so a sparkline is never drawn from a deque the
    worker is appending to ("deque mutated during iteration", issue 27)."""

    def __init__(self, *, history: int = DEFAULT_HISTORY,
                 whole_disks: Iterable[str] | None = None) -> None:
        if history < 1:
            raise ValueError("history must hold at least one sample")
        self.max_history = history
        self._whole: frozenset[str] | None = frozenset(whole_disks) if whole_disks else None
        self._prev_disk: dict[str, DiskStat] = {}
        self._prev_disk_at: float | None = None
        self._prev_arc: ArcStats | None = None
        self._prev_arc_at: float | None = None
        self._disk_hist: dict[str, deque[DiskIo]] = {}
        self._arc_hist: deque[ArcDelta] = deque(maxlen=history)
        self._leaf_hist: deque[Sample] = deque(maxlen=history)
        self.last_disks: Mapping[str, DiskIo] = {}
        self._lock = threading.Lock()

    # -- configuration -------------------------------------------------------------
    def set_whole_disks(self, names: Iterable[str] | None) -> None:
        """Restrict per-disk figures to these kernel names (from the disk inventory)."""
        self._whole = frozenset(names) if names is not None else None

    def _is_whole(self, name: str) -> bool:
        return name in self._whole if self._whole is not None else is_whole_disk_name(name)

    # -- feeding -------------------------------------------------------------------
    def add_diskstats(self, stats: Sequence[DiskStat], taken_at: float) -> dict[str, DiskIo]:
        """Record a /proc/diskstats sample; return per-whole-disk figures since the last one."""
        cur = {s.name: s for s in stats if self._is_whole(s.name)}
        out: dict[str, DiskIo] = {}
        if self._prev_disk_at is not None:
            interval = taken_at - self._prev_disk_at
            if interval > 0:
                for name, stat in cur.items():
                    prev = self._prev_disk.get(name)
                    if prev is None or _counters_went_back(prev, stat):
                        continue
                    io = disk_io(prev, stat, interval)
                    out[name] = io
                    with self._lock:
                        hist = self._disk_hist.setdefault(name,
                                                          deque(maxlen=self.max_history))
                        hist.append(io)
        if self._prev_disk_at is None or taken_at > self._prev_disk_at:
            self._prev_disk = cur
            self._prev_disk_at = taken_at
        self.last_disks = out
        return out

    def add_arcstats(self, arc: ArcStats, taken_at: float) -> ArcDelta | None:
        """Record an arcstats sample; return the activity since the last one."""
        prev, prev_at = self._prev_arc, self._prev_arc_at
        self._prev_arc, self._prev_arc_at = arc, taken_at
        if prev is None or prev_at is None or taken_at <= prev_at:
            return None

        def d(name: str) -> int | None:
            a, b = prev.get(name), arc.get(name)
            return None if a is None or b is None else max(0, b - a)

        delta = ArcDelta(
            interval_s=taken_at - prev_at,
            hits=d("hits") or 0,
            misses=d("misses") or 0,
            iohits=d("iohits"),
            hit_ratio=arc_hit_ratio(prev, arc),
            size=arc.size,
            target=arc.target,
            throttled=(d("memory_throttle_count") or 0) > 0,
        )
        with self._lock:
            self._arc_hist.append(delta)
        return delta

    def add_leaf_sample(self, sample: Sample) -> None:
        """Record one slow-disk sample (see `leaf_samples`)."""
        with self._lock:
            self._leaf_hist.append(sample)

    # -- reading from a host -------------------------------------------------------
    def sample(self, host: Host, *, timeout: float = 10.0) -> SampleResult:
        """Read /proc/diskstats and arcstats now and return the deltas since the last call."""
        errors: list[str] = []
        disks: Mapping[str, DiskIo] = {}
        arc: ArcDelta | None = None
        try:
            text = host.read_text(catalogue.DISKSTATS)
            disks = self.add_diskstats(parse_diskstats(text), host.now())
        except (HostError, ParseError) as e:
            errors.append(str(e))
        try:
            text = host.read_text(catalogue.ARCSTATS)
            arc = self.add_arcstats(parse_arcstats(text), host.now())
        except (HostError, ParseError) as e:
            errors.append(str(e))
        return SampleResult(host.now(), disks, arc, None, tuple(errors))

    def tick(
        self,
        host: Host,
        interval: int = 1,
        *,
        pools: Sequence[Pool] = (),
        leaf_disk: Callable[[str, Vdev], str | None] | None = None,
    ) -> SampleResult:
        """One aligned sample: ZFS latency over `interval` seconds, then diskstats and ARC.

        Blocks for about `interval` seconds (run it in a worker). The first call also takes a
        baseline diskstats sample, so even the first tick has per-disk figures. When `pools`
        are given, the leaf sample for the slow-disk analysis is recorded too.
        """
        errors: list[str] = []
        if self._prev_disk_at is None:
            try:
                self.add_diskstats(parse_diskstats(host.read_text(catalogue.DISKSTATS)),
                                   host.now())
            except (HostError, ParseError) as e:
                errors.append(str(e))
        latency: ZfsLatency | None = None
        if pools:
            try:
                latency = zfs_latency(host, interval, pools=pools)
            except (HostError, ParseError) as e:
                errors.append(str(e))
        result = self.sample(host)
        if pools:
            self.add_leaf_sample(leaf_samples(pools, latency, result.disks, leaf_disk))
        return SampleResult(result.taken_at, result.disks, result.arc, latency,
                            tuple(errors) + result.errors)

    @property
    def last_diskstats_at(self) -> float | None:
        """When the diskstats sample the next one is compared with was taken."""
        return self._prev_disk_at

    # -- history -------------------------------------------------------------------
    def history(self, disk: str) -> tuple[DiskIo, ...]:
        """Oldest first, at most `max_history` intervals (a copy, read under the lock)."""
        with self._lock:
            return tuple(self._disk_hist.get(disk, ()))

    def series(self, disk: str, attr: str) -> tuple[float, ...]:
        """One DiskIo figure over the history, e.g. series("vdb", "util_pct") for a sparkline."""
        return tuple(float(getattr(io, attr)) for io in self.history(disk))

    def disks(self) -> tuple[str, ...]:
        with self._lock:
            names = tuple(self._disk_hist)
        return tuple(sorted(names))

    @property
    def arc_history(self) -> tuple[ArcDelta, ...]:
        with self._lock:
            return tuple(self._arc_hist)

    @property
    def leaf_history(self) -> tuple[Sample, ...]:
        """Slow-disk samples, oldest first: pass to slowdisk.find_slow_disks."""
        with self._lock:
            return tuple(self._leaf_hist)
