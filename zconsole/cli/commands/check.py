"""`zconsole check`: one reading, judged, for cron and monitoring systems.

    zconsole check                       # this machine
    zconsole check --host root@nas1      # over ssh
    zconsole check --demo degraded       # the demo host
    zconsole check --json                # the stable JSON shape (below)
    zconsole check --prometheus /var/lib/node_exporter/textfile/zconsole.prom
    zconsole check --hosts [FILE]        # every host of a hosts file (hosts/fleet.py)

It reads the host once (every read with its own deadline, `--timeout`), judges the reading
with the same `services/health` findings the console shows, and prints the Nagios/Icinga
plugin form: a first line `STATE: summary | perfdata`, then one line per finding. The exit
status is the host's verdict on the one scale (`services/health/severity.py`, the README's
table), as the Pools screen, Fleet and the Timeline judge it: 0 OK, 1 WARNING, 2 CRITICAL,
3 UNKNOWN. A read that failed or hung makes the pools UNKNOWN, never OK.

`--sample SECONDS` (default 5): the host is read once a second for that long (the I/O sample
of each reading lasts a second), so that what needs several readings is in the verdict: a
slow disk (an outlier in 4 of the last 5 samples). `--sample 0` reads once. Thresholds:
`--capacity-warn/--capacity-crit` (percent of the pool allocated, default 80/90).

Advice (services/health/advice: ashift, mixed media, imbalance, compression, dedup, L2ARC,
copies, snapshots, scrub age, ...) is listed at INFO and never raises the exit code, unless
`--advice` (then at its own level, at most WARNING). It costs one extra read (`zfs get` of a
few properties, and `zpool status -D` of pools that deduplicate); `--no-advice` skips it,
`--scrub-weeks N` sets the scrub age it advises from (default 5). Advice and slow disks
muted for this host (the console's Advice screen, `m`, with a reason) raise nothing, and are
listed under "muted" in the JSON.

JSON (`--json`), version 1: {"version": 1, "host", "taken_at", "status" (ok/warning/critical/
unknown), "exit_code", "summary", "findings": [{"kind", "severity", "subject", "pool",
"message", "evidence"}], "advice": [{"kind", "subject", "why", "cost", "command"}] (the
advice among the findings, with its reason), "muted": [{"kind", "subject", "message",
"reason", "muted_at"}], "metrics": [{"name", "labels", "value"}]}.
Host text in it is made visible (escapes shown as `\\x1b`), as everywhere.

Prometheus (`--prometheus FILE`, node_exporter's textfile collector): the same metrics as
`zconsole_*` gauges with `host` and `pool` labels, written to a temporary file beside FILE and
renamed over it, so the collector never reads half a file.

Several hosts (`--hosts [FILE]`, or `--host` given more than once): each read and judged on its
own thread, at most `--workers` at once (`read_all`); a host whose check has not ended by its
deadline is UNKNOWN and never holds the others. The exit status is the worst host's; the text
is a first line (the worst state, how many hosts in each) and one section per host; JSON is
{"version": 1, "status", "exit_code", "hosts": [the object above, per host]}; the Prometheus
file has each metric's samples of every host together, each with its `host` label.

This module never imports Textual (an import-linter contract): it starts as fast as the reads.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from zconsole.cli.commands._target import (
    add_fleet_options,
    add_target_options,
    fleet_entries,
    target_host,
)
from zconsole.hosts.base import Host
from zconsole.model.advice import Advice, Mute
from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import json_safe, visible
from zconsole.model.pool import ScanState
from zconsole.model.reading import HostReading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.hosts.fleet import HostEntry
    from zconsole.services.read.progress import ScanEstimate
    from zconsole.services.session import Refresh

DEFAULT_TIMEOUT = 30.0
DEFAULT_SAMPLE = 5.0  # seconds of one-second readings (a slow disk needs 4 of the last 5)
WORKERS = 8  # hosts read at once by `check --hosts`


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pc = sub.add_parser(
        "check", help="read and judge the host once; exit 0 OK, 1 WARNING, 2 CRITICAL, "
                      "3 UNKNOWN (for cron, Nagios/Icinga, node_exporter)",
        description="Read the host once, judge it as the console does, print one line per "
                    "finding and exit with the monitoring-plugin code.")
    add_target_options(pc, "check", "check")
    add_fleet_options(pc, "check", "check")
    pc.add_argument("--workers", type=int, default=WORKERS, metavar="N",
                    help=f"hosts checked at once with --hosts (default {WORKERS})")
    pc.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"deadline of each read (default {DEFAULT_TIMEOUT:g})")
    pc.add_argument("--capacity-warn", type=int, default=80, metavar="PCT")
    pc.add_argument("--capacity-crit", type=int, default=90, metavar="PCT")
    pc.add_argument("--sample", type=float, default=DEFAULT_SAMPLE, metavar="SECONDS",
                    help=f"read the host once a second for this long, so that a slow disk "
                         f"is in the verdict (default {DEFAULT_SAMPLE:g}; 0: read once)")
    pc.add_argument("--advice", action="store_true",
                    help="let advice raise the exit code (at most to WARNING)")
    pc.add_argument("--scrub-weeks", type=int, default=None, metavar="N",
                    help="advise a scrub when the last one finished more than N weeks ago "
                         "(default 5: distributions scrub monthly)")
    pc.add_argument("--no-advice", action="store_true",
                    help="judge health only, without the advisor's findings")
    pc.add_argument("--json", action="store_true", help="print the result as JSON")
    pc.add_argument("--prometheus", metavar="FILE",
                    help="also write the metrics for node_exporter's textfile collector")


@dataclass(frozen=True)
class Metric:
    name: str  # without the zconsole_ prefix
    labels: tuple[tuple[str, str], ...]
    value: float
    unit: str = ""  # perfdata unit: %, c (a counter) or ""
    warn: float | None = None
    crit: float | None = None


@dataclass
class Verdict:
    host: str
    taken_at: float
    findings: list[Finding] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)
    muted: list[tuple[Finding, Mute]] = field(default_factory=list)

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
          | None = None, mutes: Sequence[Mute] = ()) -> Verdict:
    """The findings and metrics of one reading (pure: no host is touched here), on the one
    scale (`health.severity.judge_host`); `slow` and `estimates` are what the sample's
    readings found (slow disks, scan pace)."""
    from zconsole.services.health.severity import Thresholds, judge_host

    hv = judge_host(reading, slow=slow, estimates=estimates,
                    thresholds=Thresholds(capacity_warn, capacity_crit), advice=advice,
                    advice_counts=advice_counts, mutes=mutes)
    v = Verdict(str(reading.host), reading.taken_at, list(hv.findings))
    v.muted = list(hv.muted)
    muted = {(f.kind, f.subject) for f, _m in hv.muted}
    v.advice = [a for a in advice if a.kind != "advice-capacity"
                and (a.kind, a.subject) not in muted]
    read_ok = reading.pool_status.ok
    v.metrics.append(Metric("up", (), 1.0 if read_ok else 0.0))
    for entry in reading.pools if read_ok else ():
        pool = entry.name
        labels = (("pool", pool),)
        # the pool's health on the scale, not its advice (which is about how it is set up)
        v.metrics.append(Metric("pool_health", labels, float(hv.pool_level(pool).exit_code)))
        u = entry.usage
        if u is not None and u.capacity is not None:
            v.metrics.append(Metric("pool_capacity_percent", labels, float(u.capacity), "%",
                                    capacity_warn, capacity_crit))
        if u is not None and u.fragmentation is not None:
            v.metrics.append(Metric("pool_fragmentation_percent", labels,
                                    float(u.fragmentation), "%"))
        if entry.status is None:
            continue
        errors = sum((x.read_errors or 0) + (x.write_errors or 0) + (x.checksum_errors or 0)
                     for _s, _d, x in entry.status.walk() if x.is_leaf)
        v.metrics.append(Metric("pool_device_errors", labels, float(errors), "c", 1))
        v.metrics.append(Metric("pool_data_errors", labels,
                                float(entry.status.error_count or 0), "c"))
        for scan in entry.status.scans or ((entry.status.scan,) if entry.status.scan else ()):
            if scan.state is ScanState.IN_PROGRESS and scan.function is not None \
                    and scan.percent_done is not None:
                kind = "rebuild" if scan.rebuild_vdev else scan.function.value
                v.metrics.append(Metric("pool_scan_percent", (*labels, ("kind", kind)),
                                        scan.percent_done, "%"))
    arc = reading.arc.value if reading.arc.ok else None
    if arc is not None and arc.size is not None:
        v.metrics.append(Metric("arc_size_bytes", (), float(arc.size), "B"))
        if arc.target is not None:
            v.metrics.append(Metric("arc_target_bytes", (), float(arc.target), "B"))
    return v


# ----------------------------------------------------------------------------------- output

_LABEL = re.compile(r"[^A-Za-z0-9_.:-]")


def _perf_label(m: Metric) -> str:
    parts = [dict(m.labels).get("pool", ""), dict(m.labels).get("kind", ""), m.name]
    return _LABEL.sub("_", visible("_".join(p for p in parts if p)))


def _num(x: float) -> str:
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.2f}".rstrip("0").rstrip(".")


def perfdata(v: Verdict) -> str:
    out = []
    for m in v.metrics:
        unit = m.unit if m.unit in ("%", "c", "B") else ""
        thresholds = ";".join(_num(t) if t is not None else "" for t in (m.warn, m.crit))
        item = f"{_perf_label(m)}={_num(m.value)}{unit}"
        if thresholds.strip(";"):
            item += ";" + thresholds.rstrip(";")
        out.append(item)
    return " ".join(out)


def nagios_text(v: Verdict) -> str:
    head = f"{v.status.name}: {visible(v.summary)}"
    perf = perfdata(v)
    lines = [head + (f" | {perf}" if perf else "")]
    for f in sorted(v.findings, key=lambda f: -f.severity.rank):
        lines.append(f"{f.severity.symbol} {f.severity.name} {visible(f.message)}")
    return "\n".join(lines) + "\n"


def as_json(v: Verdict) -> dict[str, object]:
    return {
        "version": 1, "host": json_safe(v.host), "taken_at": v.taken_at,
        "status": v.status.value, "exit_code": v.status.exit_code,
        "summary": json_safe(v.summary),
        "findings": [{"kind": f.kind, "severity": f.severity.value,
                      "subject": json_safe(f.subject),
                      "pool": json_safe(f.pool) if f.pool is not None else None,
                      "message": json_safe(f.message),
                      "evidence": [json_safe(e) for e in f.evidence]} for f in v.findings],
        "advice": [{"kind": a.kind, "subject": json_safe(a.subject), "why": a.why,
                    "cost": a.cost,
                    "command": json_safe(a.command) if a.command is not None else None}
                   for a in v.advice],
        "muted": [{"kind": a.kind, "subject": json_safe(a.subject),
                   "message": json_safe(a.message), "reason": json_safe(m.reason),
                   "muted_at": m.at} for a, m in v.muted],
        "metrics": [{"name": f"zconsole_{m.name}",
                     "labels": {k: json_safe(val) for k, val in m.labels},
                     "value": m.value} for m in v.metrics],
    }


def _prom_value(s: str) -> str:
    """A label value in the exposition format: backslash, quote and newline escaped, and
    every other control character made visible."""
    return visible(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_HELP = {
    "up": "1 when zpool status could be read, else 0",
    "pool_health": "the pool on the one scale: 0 ok, 1 warning, 2 critical, 3 unknown",
    "pool_capacity_percent": "allocated share of the pool (zpool list CAP)",
    "pool_fragmentation_percent": "free-space fragmentation (zpool list FRAG)",
    "pool_device_errors": "read+write+checksum errors on the pool's devices (zpool status)",
    "pool_data_errors": "permanent data errors (zpool status errors:)",
    "pool_scan_percent": "progress of a running scrub, resilver or rebuild",
    "arc_size_bytes": "ARC size (arcstats size)",
    "arc_target_bytes": "ARC target (arcstats c)",
    "check_status": "exit code of this check: 0 ok, 1 warning, 2 critical, 3 unknown",
    "check_timestamp_seconds": "host time of the reading",
}


def prometheus_text(v: Verdict | Sequence[Verdict]) -> str:
    """One verdict's metrics, or several hosts' (each sample with its `host` label): every
    metric's samples together under one HELP and TYPE, as the exposition format wants."""
    verdicts = [v] if isinstance(v, Verdict) else list(v)
    families: dict[str, list[str]] = {}
    for one in verdicts:
        host = ("host", one.host)
        rows = [*one.metrics, Metric("check_status", (), float(one.status.exit_code)),
                Metric("check_timestamp_seconds", (), one.taken_at)]
        for m in rows:
            labels = ",".join(f'{k}="{_prom_value(val)}"' for k, val in (host, *m.labels))
            families.setdefault(m.name, []).append(
                f"zconsole_{m.name}{{{labels}}} {_num(m.value)}")
    lines: list[str] = []
    for short, samples in families.items():
        name = f"zconsole_{short}"
        lines.append(f"# HELP {name} {_HELP.get(short, short)}")
        lines.append(f"# TYPE {name} gauge")
        lines.extend(samples)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ entry


def read_sampled(host: Host, timeout: float, sample: float = 0.0) -> Refresh:
    """Readings through the console's own session, once a second for `sample` seconds (at
    least one): each read independent, with its deadline, so a hung `zpool status` is said
    (UNKNOWN) and the check still ends. The last reading, with the slow disks and scan pace
    its session found over all of them."""
    from zconsole.services.session import HostSession

    session = HostSession(host, timeout=timeout)  # each I/O sample lasts iostat_interval=1 s
    result = session.refresh()
    for _ in range(max(0, math.ceil(sample) - 1)):
        session.done(result)
        if not result.reading.pool_status.ok:
            break  # no pools to sample: the verdict is UNKNOWN already
        result = session.refresh()
    return result


def read_once(host: Host, timeout: float) -> HostReading:
    return read_sampled(host, timeout).reading


def read_advice_once(host: Host, reading: HostReading, args: argparse.Namespace
                     ) -> tuple[list[Advice], tuple[Mute, ...], str | None]:
    """The advisor's findings (its one extra read, judged; nothing when --no-advice), the
    findings muted for this host in the console (advice and slow disks, with their
    reasons), and why the mutes could not be read."""
    from zconsole.hosts.journal import MuteStore

    found: list[Advice] = []
    if not getattr(args, "no_advice", False):
        from zconsole.services.health.advice import SCRUB_WEEKS, advise
        from zconsole.services.read.advice import read_advice

        weeks = getattr(args, "scrub_weeks", None)
        found = advise(read_advice(host, reading, timeout=args.timeout),
                       scrub_weeks=weeks if weeks is not None else SCRUB_WEEKS)
    try:
        mutes = MuteStore.default(simulated=bool(getattr(host, "simulated", False))).load(
            str(reading.host))
    except ValueError as e:
        return found, (), str(e)
    return found, mutes, None


def verdict_of(host: Host, args: argparse.Namespace) -> Verdict:
    """One host read (over `--sample` seconds) and judged on the scale: its findings, its
    advice, what is muted, its metrics."""
    result = read_sampled(host, args.timeout, getattr(args, "sample", 0.0))
    reading = result.reading
    advice, mutes, mutes_error = read_advice_once(host, reading, args)
    v = judge(reading, capacity_warn=args.capacity_warn, capacity_crit=args.capacity_crit,
              advice=advice, advice_counts=bool(getattr(args, "advice", False)),
              slow=result.findings, estimates=result.scan_estimates, mutes=mutes)
    if mutes_error:
        v.findings.append(Finding("advice-mutes", Severity.INFO, "advice",
                                  f"muted findings not applied: {mutes_error}"))
    return v


def run_check(host: Host, args: argparse.Namespace, out: TextIO) -> int:
    v = verdict_of(host, args)
    if args.prometheus:
        from zconsole.hosts.journal import write_atomically

        write_atomically(args.prometheus, prometheus_text(v))
    if args.json:
        out.write(json.dumps(as_json(v), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(nagios_text(v))
    return v.status.exit_code


def unknown(name: str, message: str, taken_at: float) -> Verdict:
    """The verdict on a host that could not be read at all."""
    return Verdict(name, taken_at, [Finding("no-answer", Severity.UNKNOWN, name, message)],
                   [Metric("up", (), 0.0)])


def read_all(entries: Sequence[HostEntry], check_one: Callable[[HostEntry], Verdict], *,
             workers: int = WORKERS, deadline: float,
             clock: Callable[[], float] = time.monotonic) -> list[Verdict]:
    """`check_one(entry)` for every entry, at most `workers` at once, each on a thread of its
    own. A host whose check has not ended `deadline` seconds after it began is UNKNOWN ("no
    answer") and its thread is left behind (a daemon: it holds neither the others nor the
    exit), so a hung host never delays the verdict on the rest. In the entries' order."""
    done: dict[int, Verdict] = {}
    started: dict[int, float] = {}
    waiting = list(range(len(entries)))
    cond = threading.Condition()

    def job(i: int) -> None:
        e = entries[i]
        try:
            v = check_one(e)
        except Exception as ex:  # noqa: BLE001 - a host's failure is its UNKNOWN, not ours
            v = unknown(e.name, f"{e.name}: {type(ex).__name__}: {ex}", time.time())
        with cond:
            done.setdefault(i, v)
            cond.notify_all()

    with cond:
        while waiting or started:
            while waiting and len(started) < max(1, workers):
                i = waiting.pop(0)
                started[i] = clock()
                threading.Thread(target=job, args=(i,), daemon=True,
                                 name=f"check {entries[i].name}").start()
            now = clock()
            for i, t in list(started.items()):
                if i in done:
                    del started[i]
                elif now - t >= deadline:
                    e = entries[i]
                    done[i] = unknown(e.name, f"{e.name}: no answer within {deadline:g} s",
                                      time.time())
                    del started[i]
            if started and not (waiting and len(started) < max(1, workers)):
                first = min(started.values())
                if not any(i in done for i in started):
                    cond.wait(max(0.0, first + deadline - clock()))
    return [done[i] for i in range(len(entries))]


def fleet_text(verdicts: Sequence[Verdict]) -> str:
    """The worst state and how many hosts are in each, then one section per host."""
    worst = Severity.worst(v.status for v in verdicts)
    counts = [f"{n} {sev.name}" for sev in (Severity.CRITICAL, Severity.UNKNOWN,
                                             Severity.WARNING, Severity.OK)
              if (n := sum(1 for v in verdicts if v.status is sev))]
    out = [f"{worst.name}: {len(verdicts)} host{'s' if len(verdicts) != 1 else ''}: "
           f"{', '.join(counts) or 'none'}\n"]
    for v in verdicts:
        out.append(f"\n== {visible(v.host)} ==\n")
        out.append(nagios_text(v))
    return "".join(out)


def run_fleet(entries: Sequence[HostEntry], args: argparse.Namespace, out: TextIO) -> int:
    """`check --hosts`: every host read and judged, in parallel with a bound; the exit code
    is the worst host's."""
    from zconsole.hosts.fleet import make_host

    zfs_version = getattr(args, "check_zfs_version", None) or args.zfs_version

    def check_one(e: HostEntry) -> Verdict:
        v = verdict_of(make_host(e, zfs_version=zfs_version), args)
        v.host = e.name
        return v

    # a refresh is `zfs version` then the reads side by side (each `timeout`, the I/O
    # sample one interval more); past twice that and a bit, plus the sample's readings
    # (a second each, twice that for slow hosts), the host is not answering
    verdicts = read_all(entries, check_one, workers=args.workers,
                        deadline=2 * args.timeout + 5 + 2 * getattr(args, "sample", 0.0))
    if args.prometheus:
        from zconsole.hosts.journal import write_atomically

        write_atomically(args.prometheus, prometheus_text(verdicts))
    worst = Severity.worst(v.status for v in verdicts)
    if args.json:
        out.write(json.dumps({"version": 1, "status": worst.value,
                              "exit_code": worst.exit_code,
                              "hosts": [as_json(v) for v in verdicts]},
                             ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(fleet_text(verdicts))
    return worst.exit_code


def run(args: argparse.Namespace) -> int:
    try:
        entries = fleet_entries(args, "check")
    except ValueError as e:  # HostsFileError: the file and the line
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
    if entries is not None:
        if not entries:
            sys.stdout.write("UNKNOWN: the hosts file has no [[host]]\n")
            return Severity.UNKNOWN.exit_code
        return run_fleet(entries, args, sys.stdout)
    try:
        host = target_host(args, "check")
    except Exception as e:  # noqa: BLE001 - a bad --host is UNKNOWN, never a traceback
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
    try:
        return run_check(host, args, sys.stdout)
    except OSError as e:
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
