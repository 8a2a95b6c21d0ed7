"""A 102-bay host: 100 data disks in ten 10-wide raidz2 vdevs, an SSD mirror pool."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import TiB
from zconsole.hosts.demo.scenarios import _big as big
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "100 disks: tank of 10 raidz2 x 10 (16 TB HDDs), a 2-SSD mirror pool fast"
ORDER = 100


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("big100", seed, now)
    disks = big.hdds(b, 100, "ST16000NM001G-2KK103", "ZL2K", big.HDD_16T)
    fast = big.ssds(b, 2, "SAMSUNG MZ7L33T8HBLT-00A07", "S6EPNG0T", big.SSD_3T84)
    tank = b.pool(
        "tank", [b.raidz(2, *g) for g in big.groups(big.leaves(b, disks, "tank"), 10)], frag=9
    )
    b.pool("fast", [b.mirror(*big.leaves(b, fast, "fast"))], frag=3)
    big.project_tree(b, "tank", 40, snaps_each=3, used=600 * TiB)
    big.project_tree(b, "fast", 4, used=2 * TiB)
    b.finish()
    tank.scan = kit.finished_scrub(now, tank.alloc, 5.0, 30 * 3600)
    kit.add_arc(b.m)
    return b.m
