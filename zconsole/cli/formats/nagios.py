"""The Nagios/Icinga plugin text of a check: a first line `STATE: summary | perfdata`, then
one line per finding, worst first; for several hosts, a first line with the worst state and
how many hosts are in each, then one section per host. Host text is made visible."""

from __future__ import annotations

import re
from collections.abc import Sequence

from zconsole.cli.formats.smart_disks import disks_text
from zconsole.model.finding import Severity
from zconsole.model.hosttext import visible
from zconsole.services.monitor.report import Metric, Report

_LABEL = re.compile(r"[^A-Za-z0-9_.:-]")


def _perf_label(m: Metric) -> str:
    parts = [dict(m.labels).get("pool", ""), dict(m.labels).get("kind", ""), m.name]
    return _LABEL.sub("_", visible("_".join(p for p in parts if p)))


def num(x: float) -> str:
    """A figure as the plugin text and the exposition format write it (no trailing zeros)."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.2f}".rstrip("0").rstrip(".")


def perfdata(v: Report) -> str:
    out = []
    for m in v.metrics:
        unit = m.unit if m.unit in ("%", "c", "B") else ""
        thresholds = ";".join(num(t) if t is not None else "" for t in (m.warn, m.crit))
        item = f"{_perf_label(m)}={num(m.value)}{unit}"
        if thresholds.strip(";"):
            item += ";" + thresholds.rstrip(";")
        out.append(item)
    return " ".join(out)


def nagios_text(v: Report) -> str:
    head = f"{v.status.name}: {visible(v.summary)}"
    perf = perfdata(v)
    lines = [head + (f" | {perf}" if perf else "")]
    for f in sorted(v.findings, key=lambda f: -f.severity.rank):
        lines.append(f"{f.severity.symbol} {f.severity.name} {visible(f.message)}")
    lines.extend(disks_text(v))  # the disks whose SMART was not read, once each
    return "\n".join(lines) + "\n"


def fleet_text(reports: Sequence[Report]) -> str:
    """The worst state and how many hosts are in each, then one section per host."""
    worst = Severity.worst(v.status for v in reports)
    counts = [f"{n} {sev.name}" for sev in (Severity.CRITICAL, Severity.UNKNOWN,
                                             Severity.WARNING, Severity.OK)
              if (n := sum(1 for v in reports if v.status is sev))]
    out = [f"{worst.name}: {len(reports)} host{'s' if len(reports) != 1 else ''}: "
           f"{', '.join(counts) or 'none'}\n"]
    for v in reports:
        out.append(f"\n== {visible(v.host)} ==\n")
        out.append(nagios_text(v))
    return "".join(out)
