"""A healthy machine: every pool ONLINE, the last scrub clean.

Built by `build(seed, now)`; listed as `DESCRIPTION` at `ORDER` in the menu."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.scenarios._builder import (
    HDD_4T,
    SSD_80G,
    add_arc,
    finished_scrub,
    new_machine,
    tank_datasets,
)

DESCRIPTION = "every pool ONLINE, last scrub finished without errors"
ORDER = 20


def build(seed: int, now: float) -> Machine:
    b = new_machine("healthy", seed, now)
    a0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0AAAAAA", HDD_4T)
    a1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0BBBBBB", HDD_4T)
    b0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0CCCCCC", HDD_4T)
    b1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0DDDDDD", HDD_4T)
    l0 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4111111Z080BGN", SSD_80G, load=2.0)
    l1 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4222222Z080BGN", SSD_80G, load=2.0)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank")),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))],
                  logs=[b.mirror(b.leaf(l0, "tank"), b.leaf(l1, "tank"))], frag=7)
    tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = finished_scrub(now, tank.alloc, 2.4, 5 * 3600 + 12 * 60 + 40)
    add_arc(b.m)
    return b.m
