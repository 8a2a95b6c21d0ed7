"""Deduplication: two datasets with dedup=on and a large dedup table."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import GiB
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "two datasets with dedup=on and a large dedup table"
ORDER = 60


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("dedup", seed, now)
    ssds = b.ssds("Samsung SSD 870 EVO 2TB", kit.HDD_2T, "S6PNNJ0R100001A", "S6PNNJ0R100002B",
                  "S6PNNJ0R100003C", "S6PNNJ0R100004D")
    tank = b.pool("tank", b.mirrors("tank", ssds), frag=31)
    b.fs("tank", 96 * 1024, days_ago=500)
    b.fs("tank/vm", 1100 * GiB, days_ago=490, props={"dedup": "on"})
    b.fs("tank/backup", 900 * GiB, days_ago=480, props={"dedup": "on", "compression": "zstd"})
    for i in range(14):
        b.snap("tank/backup", f"nightly-{i:02d}", used=(4 + i) * GiB, days_ago=14 - i)
    b.finish()
    tank.ddt = kit.vm_ddt(scale=8)
    tank.scan = kit.finished_scrub(now, tank.alloc, 3.0, 3 * 3600)
    kit.add_arc(b.m, hit_rate=5200)
    return b.m
