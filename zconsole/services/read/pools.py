"""Per-leaf figures for the pools screen: which disk, how busy, how slow, and the trend.

Pure: everything comes from a HostReading, the newest SampleResult and the sampler's
slow-disk history. A figure that could not be measured is None, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from zconsole.model.reading import HostReading
from zconsole.services.read.identity import DiskIndex
from zconsole.services.read.sampling import Figures, LeafKey, Sample, SampleResult, leaf_paths

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
    the sample itself so that its id is not reused while it is kept."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._by_id: dict[int, tuple[Sample, dict[LeafKey, float]]] = {}

    def __call__(self, s: Sample) -> dict[LeafKey, float]:
        hit = self._by_id.get(id(s))
        if hit is not None and hit[0] is s:
            return hit[1]
        worst: dict[LeafKey, float] = {}
        for key, ls in s.items():
            w = _worst(ls.zfs) if ls.zfs is not None else _worst(ls.disk)
            if w is not None:
                worst[key] = w
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
