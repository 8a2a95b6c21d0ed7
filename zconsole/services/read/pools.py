"""Per-leaf figures for the pools screen: which disk, how busy, how slow, and the trend;
and per vdev (the pool, each vdev and leaf) the operations and bandwidth `zpool iostat -v`
reports for the sample's interval (`vdev_io`).

Pure: everything comes from a HostReading, the newest SampleResult and the sampler's
slow-disk history. A figure that could not be measured is None, never 0.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from zconsole.model.iostat import IostatRow
from zconsole.model.reading import HostReading
from zconsole.services.read.identity import DiskIndex
from zconsole.services.read.sampling import (
    Figures,
    LeafKey,
    Sample,
    SampleResult,
    ZfsLatency,
    leaf_paths,
)

TREND_POINTS = 20


class LeafMetrics(NamedTuple):
    """One leaf: its whole disk and the newest interval's figures.

    `busy_pct` is /proc/diskstats %util (share of the interval with a request outstanding);
    awaits are the kernel's per-request latency; `zfs_wait_*` is ZFS's own disk_wait from
    `zpool iostat -l`. `trend` is the leaf's worst-direction latency (ms) over the recent
    samples, oldest first (ZFS figures preferred, kernel figures otherwise).
    """

    disk: str | None = None
    serial: str | None = None
    by_id: str | None = None
    rotational: bool | None = None
    busy_pct: float | None = None
    r_await_ms: float | None = None
    w_await_ms: float | None = None
    zfs_wait_read_ms: float | None = None
    zfs_wait_write_ms: float | None = None
    trend: tuple[float, ...] = ()


def _worst(f: Figures | None) -> float | None:
    if f is None:
        return None
    vals = [v for v in (f.read_ms, f.write_ms) if v is not None]
    return max(vals) if vals else None


class _WorstOf:
    """Each recorded sample's worst latency per leaf, worked out once per sample: a sample
    never changes once recorded, and the trend re-reads the last TREND_POINTS of them on
    every refresh (20 x 1 000 leaves on a big host). Keyed by the sample's identity, holding
    the sample itself so that its id is not reused while it is kept.

    One cache for the process, shared by every host's refresh thread (`check --hosts`,
    Fleet, the exporter): a lock guards it, or two threads evicting the same oldest entry
    raise KeyError in one of them."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._by_id: dict[int, tuple[Sample, dict[LeafKey, float]]] = {}
        self._lock = threading.Lock()

    def __call__(self, s: Sample) -> dict[LeafKey, float]:
        with self._lock:
            hit = self._by_id.get(id(s))
        if hit is not None and hit[0] is s:
            return hit[1]
        worst: dict[LeafKey, float] = {}
        for key, ls in s.items():
            w = _worst(ls.zfs) if ls.zfs is not None else _worst(ls.disk)
            if w is not None:
                worst[key] = w
        with self._lock:
            self._by_id[id(s)] = (s, worst)
            while len(self._by_id) > self.keep:  # the oldest first (dicts keep insertion order)
                del self._by_id[next(iter(self._by_id))]
        return worst


_worst_of = _WorstOf(keep=4 * TREND_POINTS)


def leaf_metrics(reading: HostReading, sample: SampleResult | None,
                 history: Sequence[Sample] = (),
                 index: DiskIndex | None = None) -> dict[LeafKey, LeafMetrics]:
    """`index`: the refresh's DiskIndex when the caller has one (built from the reading's
    inventory otherwise)."""
    pools = reading.pool_status.value or ()
    inv = reading.disks.value
    if index is None and inv is not None:
        index = DiskIndex(inv.devices)
    disks = sample.disks if sample is not None else {}
    zleaves: Mapping[LeafKey, object] = (sample.latency.leaves
                                         if sample is not None and sample.latency else {})
    out: dict[LeafKey, LeafMetrics] = {}
    recent = [_worst_of(s) for s in history[-TREND_POINTS:]]
    for pool in pools:
        for path, v in leaf_paths(pool, spares=True):
            key: LeafKey = (pool.name, path)
            disk = index.leaf_disk(v) if index is not None else None
            io = disks.get(disk.name) if disk is not None else None
            row = zleaves.get(key)
            zr = getattr(row, "disk_wait_read", None)
            zw = getattr(row, "disk_wait_write", None)
            trend = [w for worst in recent if (w := worst.get(key)) is not None]
            out[key] = LeafMetrics(
                disk=disk.name if disk is not None else None,
                serial=disk.serial if disk is not None else None,
                by_id=disk.preferred_id if disk is not None else None,
                rotational=disk.rotational if disk is not None else None,
                busy_pct=io.util_pct if io is not None else None,
                r_await_ms=io.r_await_ms if io is not None and io.r_s > 0 else None,
                w_await_ms=io.w_await_ms if io is not None and io.w_s > 0 else None,
                zfs_wait_read_ms=zr / 1e6 if isinstance(zr, int) else None,
                zfs_wait_write_ms=zw / 1e6 if isinstance(zw, int) else None,
                trend=tuple(trend),
            )
    return out


# A uint64 counter difference of 2**63 or more cannot be I/O done in one interval: zpool
# subtracts the previous reading from the new one as unsigned 64-bit numbers
# (`calc_default_iostats` in cmd/zpool/zpool_main.c), so a counter that went backwards
# between its two readings (a vdev reopened, replaced or its stats reset) prints as about
# 2**64 / interval per second (`16.0E` in human form).
WRAPPED = 2**63


class VdevIo(NamedTuple):
    """One row of `zpool iostat -v -y N 1` (the pool, a vdev or a leaf) over that interval:
    what ZFS itself reports for it, per second. None where it cannot be trusted (see
    `per_second`)."""

    read_ops: float | None
    write_ops: float | None
    read_bytes: float | None
    write_bytes: float | None
    wait_read_ms: float | None = None  # disk_wait (`-l`), None without I/O of that kind
    wait_write_ms: float | None = None


def per_second(value: int, interval_s: float) -> float | None:
    """`value`, a rate zpool printed for an interval of `interval_s` seconds: the counter
    difference over the interval divided by it. None when that difference (value x interval)
    is a wrapped negative one: the counter went backwards."""
    if interval_s <= 0 or value < 0 or value * interval_s >= WRAPPED:
        return None
    return float(value)


def _ms(ns: int | None) -> float | None:
    return None if ns is None else ns / 1e6


def row_io(row: IostatRow, interval_s: float) -> VdevIo:
    return VdevIo(per_second(row.read_ops, interval_s), per_second(row.write_ops, interval_s),
                  per_second(row.read_bytes, interval_s),
                  per_second(row.write_bytes, interval_s),
                  _ms(row.disk_wait_read), _ms(row.disk_wait_write))


def vdev_io(latency: ZfsLatency | None, pool: str) -> dict[tuple[str, ...], VdevIo]:
    """`pool`'s rows of the sample's `zpool iostat` report keyed by vdev path (the pool's
    own row by `()`, a mirror by `("mirror-0",)`, its disk by `("mirror-0", "sdb")`).

    Empty before the first sample, when the read failed, and for a report that covers the
    time since import (zpool's first report without `-y`: averages since import, not the
    interval): nothing is better than a misleading figure."""
    if latency is None:
        return {}
    for rep in latency.reports:
        if rep.pool != pool or rep.since_boot:
            continue
        out: dict[tuple[str, ...], VdevIo] = {(): row_io(rep.pool_row, latency.interval_s)}
        for row in rep.rows:
            out[row.vdev_path] = row_io(row, latency.interval_s)
        return out
    return {}
