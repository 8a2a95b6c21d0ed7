"""The showcase machine: every feature at once, the default scenario."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine, smart
from zconsole.hosts.demo.machine.common import GiB, MiB, TiB
from zconsole.hosts.demo.machine.scans import Scan
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = ("tank (2x HDD mirror, one disk ~10x slow, log mirror, cache, spare), fast "
               "resilvering an attach, snapshots/clones, dedup on tank/vm, spare disks to play "
               "with")
ORDER = 10


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("showcase", seed, now)
    m = b.m
    a0 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ1A2BT", kit.HDD_4T, physical=512, load=1.0)
    a1 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ4K7XT", kit.HDD_4T, physical=512, load=1.0,
               slow=10.0)
    b0 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ9M3QT", kit.HDD_4T, physical=512, load=0.9)
    b1 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ2C8WT", kit.HDD_4T, physical=512, load=0.9)
    l0 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4123456Z080BGN", kit.SSD_80G, load=2.5)
    l1 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4123457A080BGN", kit.SSD_80G, load=2.5)
    sp = b.hdd("HGST HUS724040ALE640", "PN2334PBJ7F5ZT", kit.HDD_4T, physical=512)
    b.quiet(sp)
    c0 = b.nvme("Samsung SSD 980 PRO 1TB", "S5GXNF0R123456A", kit.NVME_1T, load=3.0)
    f0 = b.nvme("WD_BLACK SN770 1TB", "22517D801234", kit.NVME_1T, load=2.0)
    f1 = b.nvme("WD_BLACK SN770 1TB", "22517D805678", kit.NVME_1T, load=0.0)
    kit.spare_disks(b)
    # an unused disk from the shelf, the same model as the larger spare, whose SMART is bad
    shelf = b.quiet(b.hdd("WDC WD80EFZX-68UW8N0", "VK2GHJ3K", kit.HDD_8T))
    tank = b.pool(
        "tank",
        b.mirrors("tank", [a0, a1, b0, b1]),
        logs=b.mirrors("tank", [l0, l1]),
        cache=[b.leaf(c0, "tank")], spares=[b.leaf(sp, "tank")], frag=11,
    )
    tank.scan = kit.finished_scrub(now, 3 * TiB, 9.3, 6 * 3600 + 41 * 60 + 7)
    kit.tank_datasets(b)
    tank.ddt = kit.vm_ddt()
    fleaf0 = b.leaf(f0, "fast")
    fleaf1 = b.leaf(f1, "fast")
    fleaf1.resilvering = True
    fast = b.pool("fast", [b.mirror(fleaf0, fleaf1)], frag=4)
    b.fs("fast", 128 * 1024, days_ago=90, props={"compression": "lz4"})
    # quotas: fast/db near its refquota (86 %: the warning colour), fast/scratch half used
    b.fs("fast/db", 301 * GiB, days_ago=90, props={"recordsize": "16K",
                                                   "logbias": "throughput",
                                                   "refquota": "350G"})
    b.fs("fast/scratch", 96 * GiB, days_ago=12, props={"sync": "disabled", "quota": "200G"})
    b.snap("fast/db", "hourly-0900", used=800 * MiB, days_ago=0.3)
    b.snap("fast/db", "hourly-1000", used=640 * MiB, days_ago=0.26)
    b.finish()
    rate = 480 * MiB
    total = fast.alloc
    issued0 = total * 0.1953
    fast.scan = Scan(function="RESILVER", state="SCANNING", start_time=now - issued0 / rate,
                     to_examine=total, rate=rate, base_time=now, base_issued=issued0,
                     skipped=0, pass_start=now - issued0 / rate)
    fast.scan_history.append(kit.finished_scrub(now, total, 4.1, 1210))
    kit.add_arc(m, l2=180 * GiB)
    # SMART (machine/smart.py): the slow disk is dying, a bad cable on b0, the cache NVMe
    # hot and worn, the spare asleep, the shelf disk with pending sectors
    m.smart.update({a1.serial: smart.dying(now), b0.serial: smart.bad_cable(now),
                    c0.serial: smart.hot_worn(now), sp.serial: smart.asleep(now),
                    shelf.serial: smart.shelf_bad(now)})
    return m
