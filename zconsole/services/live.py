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
from zconsole.model.snapshot import HostSnapshot
from zconsole.services.identity import DiskIndex
from zconsole.services.pool_view import LeafMetrics, leaf_metrics
from zconsole.services.progress import ScanEstimate, ScanTracker
from zconsole.services.sampling import Sampler, SampleResult
from zconsole.services.slowdisk import LeafKey, find_slow_disks
from zconsole.services.snapshot import collect


@dataclass(frozen=True)
class Refresh:
    snapshot: HostSnapshot
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
        snapshot = collect(self.host, timeout=self.timeout)
        pools = snapshot.pool_status.value or ()
        inventory = snapshot.disks.value
        index = DiskIndex(inventory.devices) if inventory is not None else None
        if inventory is not None:
            self.sampler.set_whole_disks(d.name for d in inventory.whole_disks())
        sample: SampleResult | None = None
        if snapshot.zfs.present or snapshot.diskstats.ok:
            sample = self.sampler.tick(
                self.host, self.iostat_interval, pools=pools,
                leaf_disk=index.leaf_disk_name if index is not None else None)
        findings = tuple(find_slow_disks(pools, self.sampler.leaf_history)) if pools else ()
        self.scans.update(pools, snapshot.pool_status.taken_at)
        estimates = {p.name: e for p in pools if (e := self.scans.estimate(p)) is not None}
        leaves = leaf_metrics(snapshot, sample, self.sampler.leaf_history)
        return Refresh(snapshot, sample, findings, estimates, leaves)

    def refresh(self) -> tuple[HostSnapshot, tuple[Finding, ...]]:
        r = self.refresh_all()
        return r.snapshot, r.findings
