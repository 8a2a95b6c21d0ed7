"""A host set up the ways the advisor points out (services/health/advice): healthy pools,
nothing failing, but built and tuned in ways an experienced admin would question."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.arc import Zil
from zconsole.hosts.demo.machine.common import GiB, TiB
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = ("healthy pools set up badly: ashift 9 on 4K disks, an HDD mirrored with an "
               "SSD, a late vdev, idle L2ARC, dedup, copies=2 on one disk, 86 % full, "
               "unscrubbed, 24 000 snapshots, sync writes on HDDs beside an idle SLOG, an 8K "
               "volume on a 6-wide raidz2, a forgotten clone of a daily snapshot")
ORDER = 75


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("advice", seed, now)
    old = b.hdds("WDC WD40EFRX-68N32N0", kit.HDD_4T, "WD-WCC7K0ADV001", "WD-WCC7K0ADV002")
    late_hdd = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0ADV003", kit.HDD_4T)
    late_ssd = b.ssd("Samsung SSD 870 EVO 4TB", "S6BCNJ0R900001X", kit.HDD_4T)
    cache = b.nvme("Samsung SSD 980 PRO 1TB", "S5GXNF0R900002B", kit.NVME_1T, load=0.5)
    single = b.hdd("ST2000DM008-2FR102", "ZFL0ADV004", kit.HDD_2T)
    optane = b.nvme("INTEL SSDPEK1A118GA", "PHOC2150009X118B", 118_410_444_800, load=0.1)

    # mirror-0 created with ashift=9 on 512e disks (4096 B physical sectors); mirror-1, an
    # HDD beside an SSD, added when mirror-0 was three quarters full
    first = b.mirror(*(b.leaf(d, "tank", ashift=9) for d in old))
    late = b.mirror(b.leaf(late_hdd, "tank"), b.leaf(late_ssd, "tank"))
    tank = b.pool("tank", [first, late], cache=[b.leaf(cache, "tank")], frag=38)
    tank.fill_weight = {0: 1.75, 1: 0.25}

    b.fs("tank", 96 * 1024, days_ago=1500)
    b.fs("tank/mail", 310 * GiB, days_ago=1400, props={"relatime": "off"})
    b.series("tank/mail", "autosnap_", 24_000, every_s=1800, used_each=2 * 1024 * 1024,
             first_days_ago=500)
    b.fs("tank/share", 1 * TiB + 200 * GiB, days_ago=1300, props={"acltype": "posixacl"})
    # a restore test cloned from a daily snapshot in May and never destroyed: the rotation
    # has been unable to remove that snapshot since (advice-clone-origin)
    b.snap("tank/share", "zfs-auto-snap_daily-2026-05-03-0025", used=6 * GiB, days_ago=141)
    b.fs("tank/share-restore", 96 * 1024 * 1024, refer=1 * TiB + 150 * GiB,
         origin="tank/share@zfs-auto-snap_daily-2026-05-03-0025", days_ago=140,
         props={"compression": "lz4"})
    b.fs("tank/libvirt", 640 * GiB, days_ago=900,
         props={"mountpoint": "/var/lib/libvirt/images", "compression": "lz4"})
    b.fs("tank/backup", 1 * TiB + 400 * GiB, days_ago=700, props={"dedup": "on"})

    # an Optane log device on scratch, which nothing writes synchronously to, while tank's
    # NFS exports and databases send their fsyncs to its HDDs (the ZIL counters)
    scratch = b.pool("scratch", [b.leaf(single, "scratch")], logs=[b.leaf(optane, "scratch")],
                     alloc=int(kit.HDD_2T * 0.86), frag=61)
    b.fs("scratch", 96 * 1024, days_ago=800)
    b.fs("scratch/photos", 1 * TiB + 300 * GiB, days_ago=790,
         props={"copies": "2", "compression": "lz4"})
    # Proxmox's old default volblocksize (8K) on a 6-wide raidz2 of 512e disks (ashift 12):
    # each block takes 24K, so the 256G volume uses more than its size
    vm_disks = b.hdds("ST4000VN008-2DR166", kit.HDD_4T,
                      *(f"ZDHADV{i:03d}" for i in range(6)))
    vmstore = b.pool("vmstore", [b.raidz(2, *(b.leaf(d, "vmstore") for d in vm_disks))],
                     frag=12)
    b.fs("vmstore", 96 * 1024, days_ago=650)
    b.fs("vmstore/vm-100-disk-0", 301 * GiB, kind="volume", volsize=256 * GiB, days_ago=640,
         props={"volblocksize": "8K", "compression": "lz4"})
    b.finish()
    tank.ddt = kit.vm_ddt(scale=4)
    tank.scan = kit.finished_scrub(now, tank.alloc, 9.0, 7 * 3600)
    scratch.scan = kit.finished_scrub(now, scratch.alloc, 80.0, 4 * 3600)
    vmstore.scan = kit.finished_scrub(now, vmstore.alloc, 6.0, 3 * 3600)
    kit.add_arc(b.m, hit_rate=1800, l2=600 * GiB, l2_hit_share=0.03)
    b.m.zil = Zil(slog_per_s=0.0, normal_per_s=23.0)
    return b.m
