"""One console refresh: a consistent snapshot, one aligned sample, and the analysis.

The UI worker owns one `Live` per host and calls `refresh()` (blocking, about
`iostat_interval` seconds because `zpool iostat -y N 1` measures over N seconds). The sampler
keeps its history across refreshes, so the slow-disk rule sees several samples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.reading import HostReading
from zconsole.services.health.slowdisk import LeafKey, find_slow_disks
from zconsole.services.read.collect import collect
from zconsole.services.read.identity import DiskIndex
from zconsole.services.read.pools import LeafMetrics, leaf_metrics
from zconsole.services.read.progress import ScanEstimate, ScanTracker
from zconsole.services.read.sampling import Sampler, SampleResult


@dataclass(frozen=True)
class Refresh:
    reading: HostReading
    sample: SampleResult | None
    findings: tuple[Finding, ...]
    scan_estimates: Mapping[str, ScanEstimate] = field(default_factory=dict)
    leaves: Mapping[LeafKey, LeafMetrics] = field(default_factory=dict)


class Live:
    def __init__(self, host: Host, *, iostat_interval: int = 1, timeout: float = 20.0) -> None:
        self.host = host
        self.iostat_interval = iostat_interval
        self.timeout = timeout
        self.sampler = Sampler()
        self.scans = ScanTracker()

    def refresh_all(self) -> Refresh:
        reading = collect(self.host, timeout=self.timeout)
        pools = reading.pool_status.value or ()
        inventory = reading.disks.value
        index = DiskIndex(inventory.devices) if inventory is not None else None
        if inventory is not None:
            self.sampler.set_whole_disks(d.name for d in inventory.whole_disks())
        sample: SampleResult | None = None
        if reading.zfs.present or reading.diskstats.ok:
            sample = self.sampler.tick(
                self.host, self.iostat_interval, pools=pools,
                leaf_disk=index.leaf_disk_name if index is not None else None)
        findings = tuple(find_slow_disks(pools, self.sampler.leaf_history)) if pools else ()
        self.scans.update(pools, reading.pool_status.taken_at)
        estimates = {p.name: e for p in pools if (e := self.scans.estimate(p)) is not None}
        leaves = leaf_metrics(reading, sample, self.sampler.leaf_history)
        return Refresh(reading, sample, findings, estimates, leaves)

    def refresh(self) -> tuple[HostReading, tuple[Finding, ...]]:
        r = self.refresh_all()
        return r.reading, r.findings
