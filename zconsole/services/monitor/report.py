"""A host's verdict said for other programs: `Report` (findings, advice, what is muted, and
the metrics), what `zconsole check` prints in its formats (cli/formats: Nagios text, JSON,
Prometheus) and a future exporter would serve.

`report_of` makes it from a verdict the monitor holds (`Member.verdict_at`, i.e.
`health.severity.judge_host`) and the reading it judged; `judge` judges one reading and makes
its report in one call (pure: no host is touched here). A Report's status is its verdict's
level: nothing here judges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zconsole.model.advice import Advice, Mute
from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import ScanState
from zconsole.model.reading import HostReading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.health.severity import HostVerdict, Thresholds
    from zconsole.services.read.progress import ScanEstimate
    from zconsole.services.read.smart import DiskSmart


@dataclass(frozen=True)
class Metric:
    name: str  # without the zconsole_ prefix
    labels: tuple[tuple[str, str], ...]
    value: float
    unit: str = ""  # perfdata unit: %, c (a counter) or ""
    warn: float | None = None
    crit: float | None = None


@dataclass
class Report:
    host: str
    taken_at: float
    findings: list[Finding] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)
    muted: list[tuple[Finding, Mute]] = field(default_factory=list)
    reading: HostReading | None = None  # the reading judged (None: the host was not read)
    smart: tuple[DiskSmart, ...] = ()  # each disk's SMART as the session's watch holds it

    @property
    def status(self) -> Severity:
        s = Severity.worst(f.severity for f in self.findings)
        return Severity.OK if s is Severity.INFO else s

    @property
    def summary(self) -> str:
        bad = sorted((f for f in self.findings if f.severity not in (Severity.OK, Severity.INFO)),
                     key=lambda f: -f.severity.rank)
        if not bad:
            pools = sum(1 for m in self.metrics if m.name == "pool_health")
            return f"{pools} pool{'s' if pools != 1 else ''} healthy"
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return bad[0].message + more


def judge(reading: HostReading, *, capacity_warn: int = 80, capacity_crit: int = 90,
          advice: Sequence[Advice] = (), advice_counts: bool = False,
          slow: Sequence[Finding] = (), estimates: Mapping[str, Sequence[ScanEstimate]]
          | None = None, mutes: Sequence[Mute] = (), smart: Sequence[Finding] = ()) -> Report:
    """The report of one reading judged on the one scale (`health.severity.judge_host`);
    `slow` and `estimates` are what the sample's readings found (slow disks, scan pace),
    `smart` the disks' SMART findings."""
    from zconsole.services.health.severity import Thresholds, judge_host

    thresholds = Thresholds(capacity_warn, capacity_crit)
    hv = judge_host(reading, slow=slow, smart=smart, estimates=estimates, thresholds=thresholds,
                    advice=advice, advice_counts=advice_counts, mutes=mutes)
    return report_of(str(reading.host), reading, hv, thresholds, advice)


def report_of(name: str, reading: HostReading, hv: HostVerdict,
              thresholds: Thresholds | None = None, advice: Sequence[Advice] = ()) -> Report:
    """`hv` (the verdict on `reading`) as a report named `name`, with the reading's metrics."""
    from zconsole.services.health.severity import DEFAULT_THRESHOLDS

    t = thresholds or DEFAULT_THRESHOLDS
    v = Report(name, reading.taken_at, list(hv.findings))
    v.muted = list(hv.muted)
    muted = {(f.kind, f.subject) for f, _m in hv.muted}
    v.advice = [a for a in advice if a.kind != "advice-capacity"
                and (a.kind, a.subject) not in muted]
    v.metrics = metrics_of(reading, hv, t)
    v.reading = reading
    return v


def metrics_of(reading: HostReading, hv: HostVerdict, t: Thresholds) -> list[Metric]:
    read_ok = reading.pool_status.ok
    out = [Metric("up", (), 1.0 if read_ok else 0.0)]
    for entry in reading.pools if read_ok else ():
        pool = entry.name
        labels = (("pool", pool),)
        # the pool's health on the scale, not its advice (which is about how it is set up)
        out.append(Metric("pool_health", labels, float(hv.pool_level(pool).exit_code)))
        u = entry.usage
        if u is not None and u.capacity is not None:
            out.append(Metric("pool_capacity_percent", labels, float(u.capacity), "%",
                              t.capacity_warn, t.capacity_crit))
        if u is not None and u.fragmentation is not None:
            out.append(Metric("pool_fragmentation_percent", labels, float(u.fragmentation),
                              "%"))
        if entry.status is None:
            continue
        errors = sum((x.read_errors or 0) + (x.write_errors or 0) + (x.checksum_errors or 0)
                     for _s, _d, x in entry.status.walk() if x.is_leaf)
        out.append(Metric("pool_device_errors", labels, float(errors), "c", 1))
        out.append(Metric("pool_data_errors", labels, float(entry.status.error_count or 0),
                          "c"))
        for scan in entry.status.scans or ((entry.status.scan,) if entry.status.scan else ()):
            if scan.state is ScanState.IN_PROGRESS and scan.function is not None \
                    and scan.percent_done is not None:
                kind = "rebuild" if scan.rebuild_vdev else scan.function.value
                out.append(Metric("pool_scan_percent", (*labels, ("kind", kind)),
                                  scan.percent_done, "%"))
    arc = reading.arc.value if reading.arc.ok else None
    if arc is not None and arc.size is not None:
        out.append(Metric("arc_size_bytes", (), float(arc.size), "B"))
        if arc.target is not None:
            out.append(Metric("arc_target_bytes", (), float(arc.target), "B"))
    return out


def unknown(name: str, message: str, taken_at: float) -> Report:
    """The report on a host that could not be read at all."""
    return Report(name, taken_at, [Finding("no-answer", Severity.UNKNOWN, name, message)],
                  [Metric("up", (), 0.0)])
