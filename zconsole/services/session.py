"""One host as the console follows it: its refreshes, their history, the last result.

A `HostSession` holds everything zconsole keeps about one host between refreshes, without
Textual: the sampler (per-disk and per-leaf I/O, ARC deltas), zconsole's own scan pace, the
ARC readings, the disk inventory cache, the last completed `Refresh`, the last error and
whether a refresh is running. The console owns one per host; a command-line `check` or a
multi-host view reuses exactly the same object.

One refresh reads each source once: pool status, pool usage, datasets, ARC, the disk
inventory, and an I/O sample (`zpool iostat -y N 1` plus /proc/diskstats). On a real host the
reads run side by side, each on its own thread with its own deadline (`read.flights`): a hung
`zpool iostat` delays nothing else, a read that does not answer is shown as "no answer for
N s", and `on_progress` hands out the pools as soon as `zpool status` answered. Facts that
only change on hot-plug or upgrade (ZFS version, kernel, disk identity) are re-read when the
block-device listing changes, after a failure, or when the operator asks (`force`).

`refresh()` blocks: call it from a worker thread. `begin()`, `done()` and `failed()` record the
outcome; the console calls them on its own thread so that what a screen reads never changes
under it.

Clocks: every age (of a reading, of a part, of the last good `zpool status`, of a running
refresh) is counted on one clock, the console's monotonic `mono`, from the moment the answer
arrived; the host's clock only dates what happened on the host (`Part.taken_at`, events). A
host whose clock is an hour behind or stopped is read as fresh as any other; how far its clock
is off is `HostReading.clock_offset` (measured against the console's wall clock `clock`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from zconsole.hosts.base import Host, HostError
from zconsole.model.arc import ArcStats
from zconsole.model.disk import DiskStat
from zconsole.model.finding import Finding
from zconsole.model.pool import Pool
from zconsole.model.reading import (
    PENDING,
    DiskInventory,
    HostReading,
    Part,
    ZfsInfo,
    ZfsPresence,
)
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat import parse_zpool_iostat
from zconsole.services import fmt
from zconsole.services.health.slowdisk import find_slow_disks
from zconsole.services.read import catalogue
from zconsole.services.read.arc import ArcWatch
from zconsole.services.read.collect import (
    INVENTORY_SOURCE,
    _Reader,
    _show,
    assemble,
    detect_zfs,
    pools_for_roles,
    read_arc,
    read_datasets,
    read_diskstats,
    read_kernel,
    read_status,
    read_usage,
)
from zconsole.services.read.flights import NO_ANSWER, Flights
from zconsole.services.read.identity import DiskIndex, InventoryCache, with_roles
from zconsole.services.read.memo import ParseMemo
from zconsole.services.read.pools import LeafMetrics, leaf_metrics
from zconsole.services.read.progress import ScanEstimate, ScanTracker
from zconsole.services.read.sampling import (
    LeafKey,
    Sampler,
    SampleResult,
    ZfsLatency,
    leaf_samples,
    map_leaves,
)
from zconsole.services.read.statewatch import StateWatch
from zconsole.services.smart_follow import SmartFollow


@dataclass(frozen=True)
class Refresh:
    """One refresh: the reading, the newest I/O sample, and what was judged.

    `complete` is False for the early hand-out made when `zpool status` answered while other
    reads were still running; the parts not read yet are the previous refresh's (each with
    its own age) or PENDING on the first refresh.
    """

    reading: HostReading
    sample: SampleResult | None
    findings: tuple[Finding, ...]
    scan_estimates: Mapping[str, tuple[ScanEstimate, ...]] = field(default_factory=dict)
    leaves: Mapping[LeafKey, LeafMetrics] = field(default_factory=dict)
    complete: bool = True


class _RawSample(NamedTuple):
    """What the I/O sample read brings back, parsed once the pools are known."""

    iostat: str | None  # `zpool iostat -vlHp -y N 1` output, None when not run or failed
    iostat_error: str | None
    diskstats: Part[tuple[DiskStat, ...]]
    interval: float
    taken_at: float


class HostSession:
    def __init__(self, host: Host, *, iostat_interval: int = 1, timeout: float = 20.0,
                 parallel: bool | None = None, clock: Callable[[], float] = time.time,
                 mono: Callable[[], float] = time.monotonic) -> None:
        """`clock` and `mono`: the console's wall and monotonic clocks (see the module); the
        console hands its own to each of its sessions (`use_clocks`)."""
        self.host = host
        self.clock, self.mono = clock, mono
        self.iostat_interval = iostat_interval
        self.timeout = timeout
        self.sampler = Sampler()
        self.scans = ScanTracker()
        self.arc = ArcWatch()
        self.inventory = InventoryCache()
        self.memo = ParseMemo()  # the last parse of each read's text (services/read/memo.py)
        # the last disk roles and DiskIndex, with what they were made from: kept while the
        # inventory and the pools are the very same objects (a quiet host)
        self._roles: tuple[DiskInventory, tuple[Pool, ...] | None, DiskInventory] | None = None
        self._disk_index: tuple[DiskInventory, DiskIndex] | None = None
        self.watch = StateWatch()  # pool and vdev state changes seen between two readings
        self._slow: tuple[Finding, ...] = ()  # the last slow-disk findings (hysteresis)
        if parallel is None:
            parallel = bool(getattr(host, "concurrent_reads", False))
        self.flights = Flights(parallel=parallel)
        self.last: Refresh | None = None
        self.last_error: str | None = None
        self.started: float | None = None  # when the running refresh began (console mono)
        self.refreshes = 0
        self._zfs: ZfsInfo | None = None
        self._kernel: Part[str] | None = None
        self.status_seen_at: float | None = None  # when the last good status arrived (mono)
        # SMART: its own cadence, read from a background worker, never by `refresh`
        self.smart = SmartFollow(host, clock=lambda: self.clock())

    def use_clocks(self, clock: Callable[[], float], mono: Callable[[], float]) -> None:
        """Stamp and age with the console's own clocks from now on (one clock for all)."""
        self.clock, self.mono = clock, mono

    def poll_smart(self) -> list[str]:
        """Read the SMART that is due of the last reading's disks and judge it (worker
        thread; `smart.due` says when). The disks read."""
        reading = self.reading
        return self.smart.poll(reading.disks.value if reading is not None else None)

    # -- the read (worker thread) --------------------------------------------------------
    def refresh(self, *, force: bool = False,
                on_progress: Callable[[Refresh], None] | None = None,
                cancelled: Callable[[], bool] = lambda: False) -> Refresh:
        """Read the host once, sample its I/O, judge it. Never touches `last`.

        `force` re-reads the facts that are otherwise kept (ZFS version, kernel, disk
        identity). `on_progress` receives an incomplete Refresh as soon as the pools are
        known while other reads still run (reads in order: on the first refresh only, when
        the console draws its first frame from it; `on_progress` may hold the other reads
        until it is drawn). `cancelled()` is polled while waiting.
        """
        if force:
            self.memo.forget()
        rd = _Reader(self.host, self.timeout, self.memo, mono=self.mono, wall=self.clock)
        start = rd.begin()
        taken_at = start[0]
        zfs = self._zfs_info(rd, force, cancelled)
        prior = self.last.reading if self.last is not None else None
        # in this order when read in order: what the pools are drawn with first (the kernel
        # release is in the header beside them), then the rest
        reads: dict[str, Callable[[], Part[Any]]] = {"status": lambda: read_status(rd, zfs)}
        kept_kernel = self._kernel
        if force or kept_kernel is None or not kept_kernel.ok:
            reads["kernel"] = lambda: read_kernel(rd)
        reads.update({
            "usage": lambda: read_usage(rd, zfs),
            "datasets": lambda: read_datasets(rd, zfs),
            "arc": lambda: read_arc(rd, zfs),
            "disks": lambda: rd.part(INVENTORY_SOURCE, lambda: self.inventory.read(
                self.host, timeout=self.timeout, force=force)),
            "sample": lambda: rd.part("zpool iostat / diskstats",
                                      lambda: self._sample(rd, zfs, prior, got)),
        })
        sources = {"status": _show(catalogue.zpool_status(zfs.json_status)),
                   "usage": _show(catalogue.zpool_list()),
                   "datasets": _show(catalogue.zfs_list_datasets()),
                   "arc": catalogue.ARCSTATS, "disks": INVENTORY_SOURCE,
                   "sample": _show(catalogue.zpool_iostat_latency(self.iostat_interval)),
                   "kernel": catalogue.KERNEL_RELEASE}
        got: dict[str, Part[Any]] = {}

        # the pools are known while other reads are still to come: among parallel reads,
        # once `zpool status` answered; read in order, on the first refresh only, once
        # `zpool list` (the capacity the pools are drawn with) followed it
        early_at = "status" if self.flights.parallel else "usage" if self.last is None else ""

        def landed(name: str, part: Part[Any]) -> None:
            got[name] = part
            if on_progress is not None and name == early_at and len(got) < len(reads):
                kernel_now = got.get("kernel") or self._kernel or Part(
                    None, taken_at, catalogue.KERNEL_RELEASE, "reading…", PENDING,
                    seen=start[1])
                on_progress(self._partial(rd, start, zfs, kernel_now, got, prior))

        parts = {name: rd.stamped(part) for name, part in self.flights.run(
            reads, deadline=self.timeout + self.iostat_interval, now=rd._now,
            source=sources, on_part=landed, cancelled=cancelled).items()}
        if "kernel" in parts:
            self._kernel = parts["kernel"]
        kernel = self._kernel if self._kernel is not None else parts["kernel"]
        return self._judge(rd, start, zfs, kernel, parts)

    def _zfs_info(self, rd: _Reader, force: bool, cancelled: Callable[[], bool]) -> ZfsInfo:
        """Which OpenZFS runs there, kept until a failure or `force`; read with a deadline
        like every other read (a `zfs version` that hangs must not hold the refresh)."""
        if not (force or self._zfs is None or not self._zfs.present):
            return self._zfs
        got = self.flights.run(
            {"zfs": lambda: Part(detect_zfs(self.host, timeout=self.timeout), rd._now(),
                                 "zfs version", seen=rd.mono())},
            deadline=self.timeout, now=rd._now, source={"zfs": "zfs version"},
            cancelled=cancelled)["zfs"]
        if got.value is None:  # no answer: unknown this time, asked again next refresh
            return ZfsInfo(ZfsPresence.UNKNOWN,
                           f"Could not tell which OpenZFS version runs on {self.host.label}: "
                           f"`zfs version` {got.error}.")
        self._zfs = got.value
        return got.value

    def _sample(self, rd: _Reader, zfs: ZfsInfo, prior: HostReading | None,
                got: Mapping[str, Part[Any]]) -> _RawSample:
        """The I/O sample: a diskstats baseline on the first refresh, `zpool iostat` over the
        interval (when the host has pools: this refresh's status when it already answered,
        else the previous refresh's), then diskstats again."""
        host = self.host
        if self.sampler.last_diskstats_at is None:
            base = read_diskstats(rd)
            if base.value is not None:
                self.sampler.add_diskstats(base.value, base.taken_at)
        iostat: str | None = None
        error: str | None = None
        status = got.get("status")
        if status is not None:
            run_iostat = bool(status.value)
        else:
            run_iostat = prior is None or bool(prior.pool_status.value)
        if zfs.present and run_iostat:
            argv = catalogue.zpool_iostat_latency(self.iostat_interval)
            try:
                iostat = host.run(argv, timeout=self.iostat_interval + self.timeout).stdout
            except HostError as e:
                error = str(e)
        return _RawSample(iostat, error, read_diskstats(rd), float(self.iostat_interval),
                          rd._now())

    def _latency(self, raw: _RawSample, pools: Sequence[Pool]) -> tuple[ZfsLatency | None,
                                                                         str | None]:
        if raw.iostat is None or not pools:
            return None, raw.iostat_error
        try:
            # the read has -y (catalogue.zpool_iostat_latency): an interval, not since import
            reports = parse_zpool_iostat(raw.iostat, list(pools), omitted_since_boot=True)
        except ParseError as e:
            return None, str(e)
        last = tuple(reports[-1]) if reports else ()
        return ZfsLatency(raw.taken_at, raw.interval, last, map_leaves(last, pools)), None

    def _disks(self, zfs: ZfsInfo, status: Part[tuple[Pool, ...]],
               raw: Part[DiskInventory]) -> Part[DiskInventory]:
        if raw.value is None:
            return raw
        pools = pools_for_roles(zfs, status)
        kept = self._roles
        if kept is not None and kept[0] is raw.value and kept[1] is pools:
            judged = kept[2]  # the same inventory and the same pools (ParseMemo): same roles
        else:
            judged = with_roles(raw.value, pools)
            self._roles = (raw.value, pools, judged)
        return Part(judged, raw.taken_at, raw.source, seen=raw.seen)

    def _index(self, inventory: DiskInventory | None) -> DiskIndex | None:
        """The refresh's DiskIndex, built again only for another inventory."""
        if inventory is None:
            return None
        if self._disk_index is None or self._disk_index[0] is not inventory:
            self._disk_index = (inventory, DiskIndex(inventory.devices))
        return self._disk_index[1]

    def _judge(self, rd: _Reader, start: tuple[float, float, float | None], zfs: ZfsInfo,
               kernel: Part[str], parts: Mapping[str, Part[Any]]) -> Refresh:
        status: Part[tuple[Pool, ...]] = parts["status"]
        pools = status.value or ()
        disks = self._disks(zfs, status, parts["disks"])
        raw: Part[_RawSample] = parts["sample"]
        diskstats: Part[tuple[DiskStat, ...]] = (
            raw.value.diskstats if raw.value is not None
            else Part(None, raw.taken_at, catalogue.DISKSTATS, raw.error, raw.error_type,
                      seen=raw.seen))
        reading = assemble(self.host, rd, start=start, zfs=zfs, kernel=kernel,
                           status=status, usage=parts["usage"], datasets=parts["datasets"],
                           arc=parts["arc"], diskstats=diskstats, disks=disks)
        inventory = reading.disks.value
        index = self._index(inventory)
        sample = self._feed_sampler(reading, raw, pools, index)
        smart = self.smart.clauses(pools, index.leaf_disk_name) if index else {}
        findings = tuple(find_slow_disks(pools, self.sampler.leaf_history,
                                         previous=self._slow, smart=smart)) if pools else ()
        self._slow = findings
        self.scans.update(pools, status.taken_at)
        if status.ok:
            self.watch.observe(pools, status.taken_at)
        self.arc.observe(reading.arc)
        estimates = {p.name: e for p in pools if (e := tuple(self.scans.estimates(p)))}
        leaves = leaf_metrics(reading, sample, self.sampler.leaf_history, index)
        return Refresh(reading, sample, findings, estimates, leaves)

    def _feed_sampler(self, reading: HostReading, raw: Part[_RawSample],
                      pools: Sequence[Pool], index: DiskIndex | None) -> SampleResult | None:
        if not (reading.zfs.present or reading.diskstats.ok):
            return None
        inventory = reading.disks.value
        if inventory is not None:
            self.sampler.set_whole_disks(d.name for d in inventory.whole_disks())
        errors: list[str] = []
        latency: ZfsLatency | None = None
        disks: Mapping[str, Any] = {}
        taken_at = reading.taken_at
        if raw.value is None:
            errors.append(raw.error or "no I/O sample")
        else:
            latency, lat_error = self._latency(raw.value, pools)
            if lat_error:
                errors.append(lat_error)
            taken_at = raw.value.taken_at
            ds = raw.value.diskstats
            if ds.value is not None:
                disks = self.sampler.add_diskstats(ds.value, ds.taken_at)
            elif ds.error:
                errors.append(ds.error)
        arc = (self.sampler.add_arcstats(reading.arc.value, reading.arc.taken_at)
               if reading.arc.value is not None else None)
        if pools:
            leaf_disk = index.leaf_disk_name if index is not None else None
            self.sampler.add_leaf_sample(leaf_samples(pools, latency, disks, leaf_disk))
        return SampleResult(taken_at, disks, arc, latency, tuple(errors))

    def _partial(self, rd: _Reader, start: tuple[float, float, float | None], zfs: ZfsInfo,
                 kernel: Part[str], got: Mapping[str, Part[Any]],
                 prior: HostReading | None) -> Refresh:
        """The reading so far: parts that landed, else the previous refresh's, else PENDING."""
        taken_at, seen = start[0], start[1]

        def part(name: str, previous: Part[Any] | None, source: str) -> Part[Any]:
            if name in got:
                return got[name]
            if previous is not None:
                return previous
            return Part(None, taken_at, source, "reading…", PENDING, seen=seen)

        status: Part[tuple[Pool, ...]] = got["status"]
        raw_disks: Part[DiskInventory] = part("disks", prior.disks if prior else None,
                                              INVENTORY_SOURCE)
        arc: Part[ArcStats] = part("arc", prior.arc if prior else None, catalogue.ARCSTATS)
        reading = assemble(
            self.host, rd, start=start, zfs=zfs, kernel=kernel, status=status,
            usage=part("usage", prior.pool_usage if prior else None, "zpool list"),
            datasets=part("datasets", prior.datasets if prior else None, "zfs list"),
            arc=arc, diskstats=prior.diskstats if prior else Part(
                None, taken_at, catalogue.DISKSTATS, "reading…", PENDING, seen=seen),
            disks=self._disks(zfs, status, raw_disks))
        last = self.last
        return Refresh(reading, last.sample if last else None,
                       last.findings if last else (), last.scan_estimates if last else {},
                       last.leaves if last else {}, complete=False)

    # -- the outcome (the console's own thread) -----------------------------------------
    @property
    def running(self) -> bool:
        return self.started is not None

    def begin(self, now: float | None = None) -> bool:
        """Mark a refresh as started (at `now` on the console's monotonic clock, `mono()` by
        default); False when one is already running."""
        if self.started is not None:
            return False
        self.started = self.mono() if now is None else now
        return True

    def progress(self, result: Refresh) -> None:
        """An early, incomplete result of the running refresh (the pools answered first)."""
        self.last = result
        self._saw_status(result)

    def done(self, result: Refresh) -> None:
        """The refresh ended: its result is the last, a good `zpool status` dated by the
        console's time of its answer (never the host's clock, never the end of the refresh:
        the health word shown is never older than the age said of it)."""
        self.last = result
        self.last_error = None
        self.refreshes += 1
        self.started = None
        self._saw_status(result)

    def _saw_status(self, result: Refresh) -> None:
        status = result.reading.pool_status
        if status.ok:
            self.status_seen_at = status.seen if status.seen is not None else self.mono()

    # -- how old the pools' health is ----------------------------------------------------
    def status_age(self, now: float) -> float | None:
        """Seconds since a `zpool status` last answered, `now` on the console's monotonic
        clock; None before any."""
        return None if self.status_seen_at is None else max(0.0, now - self.status_seen_at)

    def status_stale(self, now: float, limit: float) -> bool:
        age = self.status_age(now)
        return age is not None and age > limit

    def aged(self, reading: HostReading, now: float, limit: float) -> HostReading:
        """`reading` as the screens may show it at `now` (console monotonic clock): when the
        last good `zpool status` is older than `limit` (refresh interval + timeout), whatever
        the reason (a hang, a failure, a refresh that never ends), its pools are not shown
        with that old health but as unknown, with how long there has been no answer."""
        age = self.status_age(now)
        if age is None or age <= limit or not reading.pool_status.ok:
            return reading
        part = reading.pool_status
        return dataclasses.replace(reading, pool_status=Part(
            None, part.taken_at, part.source,
            f"no answer for {fmt.duration(age)}", NO_ANSWER, seen=part.seen))

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
