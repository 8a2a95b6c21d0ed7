"""100 000 snapshots: the `snapshots` machine with 10 datasets x 10 000 hourly snapshots."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.scenarios import snapshots

DESCRIPTION = "10 datasets x 10 000 snapshots (100 000, generated lazily) with clones of clones"
ORDER = 102


def build(seed: int, now: float) -> Machine:
    return snapshots.build(seed, now, datasets=10, per=10_000, scenario="snap100k")
