"""The monitor's readings and verdicts as Prometheus metric families (prometheus_client).

`ZconsoleCollector(source)` is a custom collector: at each scrape it calls `source()` for what
the monitor holds now (one `Seen` per host: its last reading and verdict, copied, never read
from the host) and builds fresh families from it, as the Prometheus guide to exporters wants
(no global metric objects: a host that is gone is gone from the next scrape). The exporter
(`zconsole exporter`) serves it over HTTP; `check --prometheus FILE` writes the same families
for node_exporter's textfile collector (`write_textfile`). prometheus_client writes the
exposition format: HELP, TYPE, `_total`, label escaping are its job.

Names: the `zconsole_` prefix, base units in the name (`_bytes`, `_seconds`, `_ratio`), a label
set that never changes within a family. States are one gauge per state (node_exporter's
`node_zfs_zpool_state` style): `zconsole_pool_state{state="online"} 1`, the other states 0, so
`sum by (state)` works and a rule names the state it means. The severity is
`services/health`'s verdict, the one every face shows (`*_severity`, `zconsole_finding`).

The error counters are counters (`_total`): they only grow until `zpool clear` or a reimport
sets them to 0, a reset `rate()`/`increase()` handle as for any counter restart.

A host that cannot be read (its refresh failed, or its `zpool status` is older than the
monitor's limit) has `zconsole_up 0`, its UNKNOWN findings, and no pool series: the house never
says a last known state as the present one. The pool alerts then resolve and the host's
UNKNOWN alert (`zconsole_up == 0`) takes over (docs/prometheus/zconsole-rules.yml).

Host text (pool, vdev, host names) is made visible (`model.hosttext.visible`: escapes shown
as text) before it becomes a label value; the library then escapes `\\`, `"` and newlines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import visible
from zconsole.model.pool import Pool, ScanFunction, ScanState
from zconsole.model.reading import HostReading
from zconsole.services.monitor.metrics_smart import SmartFamilies

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.monitor.loop import Monitor
    from zconsole.services.monitor.member import Member
    from zconsole.services.monitor.report import Report
    from zconsole.services.read.smart import DiskSmart

POOL_STATES = ("online", "degraded", "faulted", "offline", "removed", "unavail", "suspended")
VDEV_STATES = ("online", "degraded", "faulted", "offline", "removed", "unavail", "avail",
               "inuse")
SEVERITIES = tuple(s.value for s in (Severity.OK, Severity.WARNING, Severity.CRITICAL,
                                     Severity.UNKNOWN))
CACHED = " (as of the host's last reading: see zconsole_reading_age_seconds)"


@dataclass(frozen=True)
class Seen:
    """One host as the monitor holds it: `reading` is None when there is none to say (no
    answer, a failed refresh, a `zpool status` too old); `findings` and `level` are its verdict
    on the one scale; `age_seconds` since its `zpool status` last answered (None: never, or
    not counted, as in a textfile); `smart`: what the session's SMART watch knows of each
    disk (read at its own cadence, never by a scrape)."""

    host: str
    reading: HostReading | None
    level: Severity
    findings: tuple[Finding, ...]
    age_seconds: float | None = None
    smart: tuple[DiskSmart, ...] = ()

    @property
    def up(self) -> bool:
        return self.reading is not None and self.reading.pool_status.ok

    def pool_level(self, pool: str) -> Severity:
        """The worst health finding of one pool, advice left out (`HostVerdict.pool_level`,
        the Pools screen's to-do level)."""
        from zconsole.services.health.severity import HostVerdict

        return HostVerdict(self.level, self.findings).pool_level(pool)


def _l(s: str) -> str:
    return visible(s)


def _states(fam: GaugeMetricFamily, labels: list[str], current: str,
            states: Sequence[str]) -> None:
    cur = current.lower()
    for s in (*states, *(() if cur in states else (cur,))):
        fam.add_metric([*labels, s], 1.0 if s == cur else 0.0)


def _severity(fam: GaugeMetricFamily, labels: list[str], level: Severity) -> None:
    cur = Severity.OK if level is Severity.INFO else level
    for s in SEVERITIES:
        fam.add_metric([*labels, s], 1.0 if s == cur.value else 0.0)


class _Families:
    """The families of one scrape, filled host by host (each label set once)."""

    def __init__(self) -> None:
        g, c = GaugeMetricFamily, CounterMetricFamily
        h, hp, dev = ["host"], ["host", "pool"], ["host", "pool", "section", "vdev"]
        self.up = g("zconsole_up", "1 when the host's zpool status was read at its last "
                    "refresh and is not too old, else 0", labels=h)
        self.age = g("zconsole_reading_age_seconds", "seconds since the host's zpool status "
                     "last answered", labels=h)
        self.taken = g("zconsole_reading_timestamp_seconds", "the host's clock when its last "
                       "reading began", labels=h)
        self.host_sev = g("zconsole_host_severity", "1 for the host's verdict on zconsole's "
                          "scale (ok, warning, critical, unknown), 0 for the others", labels=[
                              *h, "severity"])
        self.pool_sev = g("zconsole_pool_severity", "1 for the pool's health on zconsole's "
                          "scale (advice left out), 0 for the others" + CACHED,
                          labels=[*hp, "severity"])
        self.pool_state = g("zconsole_pool_state", "1 for the pool's state (zpool status), 0 "
                            "for the others" + CACHED, labels=[*hp, "state"])
        self.vdev_state = g("zconsole_vdev_state", "1 for a vdev's state (mirror, raidz, "
                            "draid, replacing, spare rows), 0 for the others" + CACHED,
                            labels=[*dev, "state"])
        self.leaf_state = g("zconsole_leaf_state", "1 for a leaf device's state (a disk, "
                            "partition or file of the pool), 0 for the others" + CACHED,
                            labels=[*dev, "state"])
        self.errors = {(kind, what): c(f"zconsole_{kind}_{what}_errors",
                                       f"{what} errors zpool status counts on a {kind} "
                                       "(reset by zpool clear)" + CACHED, labels=dev)
                       for kind in ("vdev", "leaf") for what in ("read", "write", "checksum")}
        self.size = g("zconsole_pool_size_bytes", "pool size (zpool list SIZE)" + CACHED,
                      labels=hp)
        self.alloc = g("zconsole_pool_allocated_bytes", "allocated (zpool list ALLOC)" + CACHED,
                       labels=hp)
        self.free = g("zconsole_pool_free_bytes", "free (zpool list FREE)" + CACHED, labels=hp)
        self.cap = g("zconsole_pool_capacity_ratio", "allocated share of the pool, 0 to 1 "
                     "(zpool list CAP)" + CACHED, labels=hp)
        self.frag = g("zconsole_pool_fragmentation_ratio", "free-space fragmentation, 0 to 1 "
                      "(zpool list FRAG)" + CACHED, labels=hp)
        self.data_errors = g("zconsole_pool_data_errors", "permanent data errors zpool "
                             "status reports (errors:)" + CACHED, labels=hp)
        self.scan = g("zconsole_pool_scan_progress_ratio", "progress of a running scrub, "
                      "resilver or rebuild, 0 to 1 (zpool's own figure)" + CACHED,
                      labels=[*hp, "kind"])
        self.scrub_end = g("zconsole_pool_last_scrub_end_timestamp_seconds", "when the last "
                           "scrub ended (epoch; from the text form, the host's local time "
                           "read as UTC)" + CACHED, labels=hp)
        self.slow = g("zconsole_slow_disk_factor", "how many times slower than its peers a "
                      "slow disk answers (the median over the samples that found it)" + CACHED,
                      labels=["host", "pool", "vdev"])
        self.arc_size = g("zconsole_arc_size_bytes", "ARC size (arcstats size)" + CACHED,
                          labels=h)
        self.arc_target = g("zconsole_arc_target_bytes", "ARC target (arcstats c)" + CACHED,
                            labels=h)
        self.finding = g("zconsole_finding", "1 for each finding of the host's verdict, its "
                         "severity on zconsole's scale as a label" + CACHED,
                         labels=["host", "kind", "severity", "pool", "subject"])
        self.smart = SmartFamilies()  # metrics_smart.py
        self._seen: set[tuple[str, ...]] = set()

    def once(self, *key: str) -> bool:
        """True the first time a label set is met in this scrape (a disk listed twice, as a
        spare in use and in the spares section, is said once per section)."""
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def all(self) -> Iterator[Metric]:
        yield from (self.up, self.age, self.taken, self.host_sev, self.pool_sev,
                    self.pool_state, self.vdev_state, self.leaf_state, *self.errors.values(),
                    self.size, self.alloc, self.free, self.cap, self.frag, self.data_errors,
                    self.scan, self.scrub_end, self.slow, self.arc_size, self.arc_target,
                    self.finding, *self.smart.all())


def families(seen: Iterable[Seen]) -> list[Metric]:
    """The metric families of every host `seen`: each family once, every host's samples in
    it."""
    f = _Families()
    for one in seen:
        _host(f, one)
    return list(f.all())


def _host(f: _Families, one: Seen) -> None:
    host = _l(one.host)
    if not f.once("host", host):
        return
    f.up.add_metric([host], 1.0 if one.up else 0.0)
    if one.age_seconds is not None:
        f.age.add_metric([host], one.age_seconds)
    _severity(f.host_sev, [host], one.level)
    for x in one.findings:
        key = (host, x.kind, x.severity.value, _l(x.pool or ""), _l(x.subject))
        if f.once("finding", *key):
            f.finding.add_metric(list(key), 1.0)
        if x.kind == "slow-disk" and x.factor is not None and f.once("slow", host, *key[3:]):
            f.slow.add_metric([host, key[3], key[4]], x.factor)
    r = one.reading
    if r is None:
        return
    f.taken.add_metric([host], r.taken_at)
    arc = r.arc.value if r.arc.ok else None
    if arc is not None and arc.size is not None:
        f.arc_size.add_metric([host], float(arc.size))
        if arc.target is not None:
            f.arc_target.add_metric([host], float(arc.target))
    if not one.up:
        return
    if one.smart:
        inv = r.disks.value if r.disks.ok else None
        f.smart.add_host(host, one.smart, {x.disk: x.pool for x in inv.roles if x.pool}
                         if inv is not None else {})
    for entry in r.pools:
        pool = _l(entry.name)
        hp = [host, pool]
        _severity(f.pool_sev, hp, one.pool_level(entry.name))
        u = entry.usage
        if u is not None:
            for fam, v in ((f.size, u.size), (f.alloc, u.alloc), (f.free, u.free)):
                if v is not None:
                    fam.add_metric(hp, float(v))
            for fam, pct in ((f.cap, u.capacity), (f.frag, u.fragmentation)):
                if pct is not None:
                    fam.add_metric(hp, pct / 100.0)
        if entry.status is not None:
            _pool(f, hp, entry.status)


def _pool(f: _Families, hp: list[str], p: Pool) -> None:
    _states(f.pool_state, hp, p.state, POOL_STATES)
    f.data_errors.add_metric(hp, float(p.error_count or 0))
    for section, _depth, v in p.walk():
        labels = [*hp, section.value, _l(v.name)]
        if not f.once("dev", *labels):
            continue
        kind = "leaf" if v.is_leaf else "vdev"
        _states(f.leaf_state if v.is_leaf else f.vdev_state, labels, v.state, VDEV_STATES)
        for what, n in (("read", v.read_errors), ("write", v.write_errors),
                        ("checksum", v.checksum_errors)):
            if n is not None:
                f.errors[(kind, what)].add_metric(labels, float(n))
    last_scrub: int | None = None
    for scan in p.scans or ((p.scan,) if p.scan else ()):
        if scan.state is ScanState.IN_PROGRESS and scan.function is not None \
                and scan.percent_done is not None:
            kind = "rebuild" if scan.is_rebuild else scan.function.value
            if f.once("scan", *hp, kind):
                f.scan.add_metric([*hp, kind], scan.percent_done / 100.0)
        if scan.function is ScanFunction.SCRUB and scan.state is ScanState.FINISHED:
            end = scan.end_time if scan.end_time is not None else scan.ended_near
            if end is not None:
                last_scrub = max(end, last_scrub or end)
    if last_scrub is not None:
        f.scrub_end.add_metric(hp, float(last_scrub))


class ZconsoleCollector(Collector):
    """A custom collector over `source()`: what the monitor holds at the scrape, copied by
    `source` (never a read of a host: a scrape never waits for one)."""

    def __init__(self, source: Callable[[], Sequence[Seen]]) -> None:
        self.source = source

    def collect(self) -> Iterator[Metric]:
        yield from families(self.source())


def registry_of(source: Callable[[], Sequence[Seen]]) -> CollectorRegistry:
    """A private registry with the collector alone (no process_*/python_* metrics: they
    would describe zconsole, not the hosts)."""
    reg = CollectorRegistry()
    reg.register(ZconsoleCollector(source))
    return reg


def seen_of_member(monitor: Monitor, m: Member) -> Seen:
    """`m` as the monitor holds it now: its verdict (`Monitor.verdict`: a `zpool status`
    older than the monitor's `stale_after` is judged as not read), and the reading said only
    when its last refresh did not fail and its pools are not too old."""
    s = m.session
    now = s.mono()
    verdict = monitor.verdict(m, now)
    last = s.last
    reading = None
    if last is not None and s.last_error is None:
        reading = last.reading
        if monitor.stale_after is not None:
            reading = s.aged(reading, now, monitor.stale_after)
    return Seen(m.name, reading, verdict.level, verdict.findings, s.status_age(now),
                tuple(s.smart.states().values()))


def seen_of_report(report: Report) -> Seen:
    """A `check` report (one reading, just taken: no age said)."""
    return Seen(report.host, report.reading, report.status, tuple(report.findings),
                smart=report.smart)


def exposition(seen: Sequence[Seen]) -> str:
    """The families of `seen` in the text format (what the textfile holds, and tests read)."""
    from prometheus_client import generate_latest

    return generate_latest(registry_of(lambda: seen)).decode()
