"""node_exporter's textfile format of a check: the report's metrics as `zconsole_*` gauges
with `host` (and `pool`, `kind`) labels, each metric's samples of every host together under
one HELP and TYPE, as the exposition format wants. (Issue 31 moves this to prometheus_client.)"""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.cli.formats.nagios import num
from zconsole.model.hosttext import visible
from zconsole.services.monitor.report import Metric, Report


def _prom_value(s: str) -> str:
    """A label value in the exposition format: backslash, quote and newline escaped, and
    every other control character made visible."""
    return visible(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


HELP = {
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


def prometheus_text(v: Report | Sequence[Report]) -> str:
    """One report's metrics, or several hosts' (each sample with its `host` label)."""
    reports = [v] if isinstance(v, Report) else list(v)
    families: dict[str, list[str]] = {}
    for one in reports:
        host = ("host", one.host)
        rows = [*one.metrics, Metric("check_status", (), float(one.status.exit_code)),
                Metric("check_timestamp_seconds", (), one.taken_at)]
        for m in rows:
            labels = ",".join(f'{k}="{_prom_value(val)}"' for k, val in (host, *m.labels))
            families.setdefault(m.name, []).append(
                f"zconsole_{m.name}{{{labels}}} {num(m.value)}")
    lines: list[str] = []
    for short, samples in families.items():
        name = f"zconsole_{short}"
        lines.append(f"# HELP {name} {HELP.get(short, short)}")
        lines.append(f"# TYPE {name} gauge")
        lines.extend(samples)
    return "\n".join(lines) + "\n"
