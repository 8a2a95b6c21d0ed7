"""One host as the console follows it: its refreshes, their history, the last result.

A `HostSession` holds everything zconsole keeps about one host between refreshes, without
Textual: the sampler (per-disk and per-leaf I/O, ARC deltas), zconsole's own scan pace, the
ARC readings, the last completed `Refresh`, the last error and whether a refresh is running.
The console owns one per host; a command-line `check` or a multi-host view reuses exactly the
same object.

`refresh()` is blocking (about `iostat_interval` seconds, because `zpool iostat -y N 1`
measures over N seconds): call it from a worker thread. `begin()`, `done()` and `failed()`
record the refresh's outcome; the console calls them on its own thread so that what a screen
reads never changes under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.reading import HostReading
from zconsole.services.health.slowdisk import find_slow_disks
from zconsole.services.read.arc import ArcWatch
from zconsole.services.read.collect import collect
from zconsole.services.read.identity import DiskIndex
from zconsole.services.read.pools import LeafMetrics, leaf_metrics
from zconsole.services.read.progress import ScanEstimate, ScanTracker
from zconsole.services.read.sampling import LeafKey, Sampler, SampleResult


@dataclass(frozen=True)
class Refresh:
    """One completed refresh: the reading, the newest I/O sample, and what was judged."""

    reading: HostReading
    sample: SampleResult | None
    findings: tuple[Finding, ...]
    scan_estimates: Mapping[str, ScanEstimate] = field(default_factory=dict)
    leaves: Mapping[LeafKey, LeafMetrics] = field(default_factory=dict)


class HostSession:
    def __init__(self, host: Host, *, iostat_interval: int = 1, timeout: float = 20.0) -> None:
        self.host = host
        self.iostat_interval = iostat_interval
        self.timeout = timeout
        self.sampler = Sampler()
        self.scans = ScanTracker()
        self.arc = ArcWatch()
        self.last: Refresh | None = None
        self.last_error: str | None = None
        self.started: float | None = None  # when the running refresh began (console clock)
        self.refreshes = 0

    # -- the read (worker thread) --------------------------------------------------------
    def refresh(self) -> Refresh:
        """Read the host once, sample its I/O, judge it. Never touches `last`."""
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
        self.arc.observe(reading.arc)
        estimates = {p.name: e for p in pools if (e := self.scans.estimate(p)) is not None}
        leaves = leaf_metrics(reading, sample, self.sampler.leaf_history)
        return Refresh(reading, sample, findings, estimates, leaves)

    # -- the outcome (the console's own thread) -----------------------------------------
    @property
    def running(self) -> bool:
        return self.started is not None

    def begin(self, now: float) -> bool:
        """Mark a refresh as started; False when one is already running."""
        if self.started is not None:
            return False
        self.started = now
        return True

    def done(self, result: Refresh) -> None:
        self.last = result
        self.last_error = None
        self.refreshes += 1
        self.started = None

    def failed(self, error: str) -> None:
        """The refresh raised: keep the last result (its age tells how old it is)."""
        self.last_error = error
        self.started = None

    @property
    def reading(self) -> HostReading | None:
        return self.last.reading if self.last is not None else None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.last.findings if self.last is not None else ()
