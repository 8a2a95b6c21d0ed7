"""A resilver in progress: replacing-1 with a shrinking ETA."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import MiB, stable_int
from zconsole.hosts.demo.machine.pools import Vdev
from zconsole.hosts.demo.machine.scans import Scan
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "replacing-1 mid-resilver with an ETA that shrinks until it finishes"
ORDER = 40


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("resilvering", seed, now)
    a0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR1", kit.HDD_4T)
    a1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR2", kit.HDD_4T, slow=4.0)
    new = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR9", kit.HDD_4T, load=0.0)
    b0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR3", kit.HDD_4T)
    b1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR4", kit.HDD_4T)
    old_leaf = b.leaf(a1, "tank")
    new_leaf = b.leaf(new, "tank")
    new_leaf.resilvering = True
    rep = Vdev(type="replacing", guid=stable_int(seed, "resilvering", "replacing"),
               children=[old_leaf, new_leaf], id=1)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), rep),
                           *b.mirrors("tank", [b0, b1])], frag=14)
    kit.tank_datasets(b, dedup=False)
    b.finish()
    rate = 160 * MiB
    total = tank.alloc // 2
    issued0 = total * 0.3731
    tank.scan = Scan(function="RESILVER", state="SCANNING", start_time=now - issued0 / rate,
                     to_examine=total, rate=rate, base_time=now, base_issued=issued0,
                     pass_start=now - issued0 / rate)
    kit.add_arc(b.m)
    return b.m
