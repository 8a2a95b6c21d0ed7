"""The JSON of a check, version 1 (the shape `check`'s module docstring documents): one
host's object, or several hosts' under the worst status. Host text is made visible
(`json_safe`: escapes shown as `\\x1b`)."""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.cli.formats.smart_disks import disks_json
from zconsole.model.finding import Severity
from zconsole.model.hosttext import json_safe
from zconsole.services.monitor.report import Report

VERSION = 1


def as_json(v: Report) -> dict[str, object]:
    return {
        "version": VERSION, "host": json_safe(v.host), "taken_at": v.taken_at,
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
        "disks": disks_json(v),  # each disk's SMART state (smart_disks.py)
        "metrics": [{"name": f"zconsole_{m.name}",
                     "labels": {k: json_safe(val) for k, val in m.labels},
                     "value": m.value} for m in v.metrics],
    }


def fleet_json(reports: Sequence[Report]) -> dict[str, object]:
    worst = Severity.worst(v.status for v in reports)
    return {"version": VERSION, "status": worst.value, "exit_code": worst.exit_code,
            "hosts": [as_json(v) for v in reports]}
