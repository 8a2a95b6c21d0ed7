"""A healthy machine: every pool ONLINE, the last scrub clean."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "every pool ONLINE, last scrub finished without errors"
ORDER = 20


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("healthy", seed, now)
    a0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0AAAAAA", kit.HDD_4T)
    a1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0BBBBBB", kit.HDD_4T)
    b0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0CCCCCC", kit.HDD_4T)
    b1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0DDDDDD", kit.HDD_4T)
    l0 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4111111Z080BGN", kit.SSD_80G, load=2.0)
    l1 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4222222Z080BGN", kit.SSD_80G, load=2.0)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank")),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))],
                  logs=[b.mirror(b.leaf(l0, "tank"), b.leaf(l1, "tank"))], frag=7)
    kit.tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = kit.finished_scrub(now, tank.alloc, 2.4, 5 * 3600 + 12 * 60 + 40)
    kit.add_arc(b.m)
    return b.m
