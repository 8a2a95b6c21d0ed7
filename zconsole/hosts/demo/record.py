"""The demo machine kept beside the plans (`zconsole --demo SCENARIO --demo-state DIR`).

A rehearsal killed at the "find the disk" step must find, at the next start, the machine its
plan left: the disk offlined, perhaps already pulled. The machine is not saved as a picture of
itself: what was done to it is kept, in the order and at the times it was done
(`hosts/journal.demo_machine_log`, JSON lines: a head naming the scenario, the ZFS version,
the seed and the start, then one record per write the plan runner ran — `writes()` — and per
act of the hands at the rack), and the next console builds the scenario at the first start
and does it all again through the same programs. The scenario's own life (its scans, its
counters) is a function of time, so the machine comes back as it would be now had it never
stopped. A record that no longer applies is refused as the program refuses it; a log of
another scenario, version or seed starts over.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

    from zconsole.hosts.demo.host import DemoHost

HEAD = "demo-machine"


class Log(Protocol):
    """`hosts.journal.AuditLog`'s shape: append-only records and a way to read them back."""

    path: Path

    def append(self, record: Mapping[str, object]) -> None: ...

    def records(self) -> Iterator[dict[str, object]]: ...


def restore(host: DemoHost, log: Log) -> None:
    """Build `host.machine` again from `log` (or start the log for this machine)."""
    from zconsole.hosts.journal import write_atomically

    want: dict[str, object] = {"scenario": host.scenario, "zfs_version": host.zfs_version,
                               "seed": host.seed}
    records = list(log.records())
    head = records[0] if records else None
    started = head.get("started") if head is not None else None
    if (head is None or head.get("kind") != HEAD or not isinstance(started, (int, float))
            or any(head.get(k) != v for k, v in want.items())):
        first = {"kind": HEAD, **want, "started": host.started}
        if records:  # another machine's log: this one starts over
            write_atomically(log.path, json.dumps(first) + "\n", 0o600)
        else:
            log.append(first)
        return
    host.rebuild(float(started))
    for rec in records[1:]:
        host.replay(rec)
