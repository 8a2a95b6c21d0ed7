"""A storage server with a thousand disks behind several JBODs: raidz2 racks, dRAID over
90-bay chassis, wide raidz3 vdevs, an SSD mirror pool, hundreds of datasets."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import TiB
from zconsole.hosts.demo.scenarios import _big as big
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = (
    "1 000 disks: bulk (40 raidz2 x 10), cold (4 draid2:16d:90c:4s), wide "
    "(6 raidz3 x 24), vmfast (40 SSD mirrors), spares, 400+ datasets"
)
ORDER = 101


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("big1000", seed, now)
    bulk = big.hdds(b, 400, "ST16000NM001G-2KK103", "ZL2B", big.HDD_16T)
    cold = big.hdds(b, 360, "WUH722020ALE6L4", "8LG", big.HDD_20T, load=0.3)
    wide = big.hdds(b, 144, "ST20000NM007D-3DJ103", "ZVTW", big.HDD_20T)
    spares = big.hdds(b, 8, "ST16000NM001G-2KK103", "ZL2S", big.HDD_16T)
    fast = big.ssds(b, 80, "SAMSUNG MZ7L33T8HBLT-00A07", "S6EPNG0V", big.SSD_3T84)
    logs = big.ssds(b, 4, "INTEL SSDPE21D280GA", "PHM2913000", 280065171456, load=3.0)
    cache = big.ssds(b, 4, "SAMSUNG MZ7L33T8HBLT-00A07", "S6EPNG0C", big.SSD_3T84)
    for d in spares:
        b.quiet(d)
    b.pool(
        "bulk",
        [b.raidz(2, *g) for g in big.groups(big.leaves(b, bulk, "bulk"), 10)],
        logs=[b.mirror(*big.leaves(b, logs[:2], "bulk"))],
        cache=big.leaves(b, cache[:2], "bulk"),
        spares=big.leaves(b, spares[:4], "bulk"),
        frag=17,
    )
    b.pool(
        "cold",
        [b.draid(2, 16, 4, *g) for g in big.groups(big.leaves(b, cold, "cold"), 90)],
        spares=big.leaves(b, spares[4:], "cold"),
        frag=2,
    )
    b.pool(
        "wide",
        [b.raidz(3, *g) for g in big.groups(big.leaves(b, wide, "wide"), 24)],
        logs=[b.mirror(*big.leaves(b, logs[2:], "wide"))],
        cache=big.leaves(b, cache[2:], "wide"),
        frag=26,
    )
    b.pool("vmfast", [b.mirror(*g) for g in big.groups(big.leaves(b, fast, "vmfast"), 2)], frag=12)
    big.project_tree(b, "bulk", 200, snaps_each=2, used=2000 * TiB)
    big.project_tree(b, "cold", 60, used=4000 * TiB)
    big.project_tree(b, "wide", 60, snaps_each=1, used=1500 * TiB)
    big.project_tree(b, "vmfast", 40, snaps_each=4, used=60 * TiB)
    b.finish()
    for p in b.m.pools.values():
        p.scan = kit.finished_scrub(now, p.alloc, 3.0 + len(p.name) % 5, 52 * 3600)
    kit.add_arc(b.m)
    return b.m
