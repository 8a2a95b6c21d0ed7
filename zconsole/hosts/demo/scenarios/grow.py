"""Replace-to-grow: a mirror of 1 TB disks and two clean 2 TB disks."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import GiB
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "a mirror of 1 TB disks plus two clean 2 TB disks to rehearse replace-to-grow"
ORDER = 70


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("grow", seed, now)
    small = b.hdds("WDC WD10EFRX-68FYTN0", kit.HDD_1T, "WD-WCC4J1GROW01", "WD-WCC4J1GROW02")
    for d in b.hdds("WDC WD20EFZX-68AWUN0", kit.HDD_2T, "WD-WX12D3GROW03", "WD-WX12D3GROW04"):
        b.quiet(d)
    tank = b.pool("tank", b.mirrors("tank", small), frag=38)
    b.fs("tank", 96 * 1024, days_ago=900)
    b.fs("tank/data", 780 * GiB, days_ago=899)
    b.snap("tank/data", "monthly-01", used=6 * GiB, days_ago=60)
    b.finish()
    tank.scan = kit.finished_scrub(now, tank.alloc, 12.0, 2 * 3600 + 5 * 60)
    kit.add_arc(b.m)
    return b.m
