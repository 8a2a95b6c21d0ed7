"""The demo machines. Each scenario builds a `Machine` at a given start time.

Disk sizes are real drive capacities; the 8 MiB partition 9 and label overheads are applied
the way `zpool create` on a whole disk does, so "same size, other model" traps are real.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zconsole.hosts.demo.machine.arc import Arc
from zconsole.hosts.demo.machine.common import GiB, MiB, TiB, stable_int
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot, SnapshotSeries
from zconsole.hosts.demo.machine.disks import Disk, IoProfile, Partition
from zconsole.hosts.demo.machine.net import NetLink
from zconsole.hosts.demo.machine.pools import (
    WHOLE_DISK_OVERHEAD,
    Ddt,
    DdtClass,
    Pool,
    Vdev,
    leaf_asize,
    ms_shift_for,
    recompute_states,
    top_space,
)
from zconsole.hosts.demo.machine.properties import inherited
from zconsole.hosts.demo.machine.scans import Scan
from zconsole.hosts.demo.machine.state import Machine

SCENARIOS: dict[str, str] = {
    "showcase": "tank (2x HDD mirror, one disk ~10x slow, log mirror, cache, spare), "
    "fast resilvering an attach, snapshots/clones, dedup on tank/vm, spare disks to play with",
    "healthy": "every pool ONLINE, last scrub finished without errors",
    "degraded": "a FAULTED member (too many errors), a missing one (was /dev/...), a slow disk",
    "resilvering": "replacing-1 mid-resilver with an ETA that shrinks until it finishes",
    "snapshots": "20 datasets x 500 snapshots (generated lazily) with clones of clones",
    "dedup": "two datasets with dedup=on and a large dedup table",
    "grow": "a mirror of 1 TB disks plus two clean 2 TB disks to rehearse replace-to-grow",
}

HDD_4T = 4000787030016
HDD_3T = 3000592982016
HDD_8T = 8001563222016
HDD_1T = 1000204886016
HDD_2T = 2000398934016
SSD_80G = 80026361856
NVME_1T = 1000204886016
NVME_500G = 500107862016


def list_scenarios() -> list[tuple[str, str]]:
    return list(SCENARIOS.items())


@dataclass
class Builder:
    scenario: str
    seed: int
    now: float
    m: Machine
    _sd: int = 0
    _nvme: int = 0
    _ata_port: int = 1

    # --- disks -------------------------------------------------------------------------

    def hdd(self, model: str, serial: str, size: int, *, logical: int = 512,
            physical: int = 4096, r_ms: float = 8.0, w_ms: float = 9.0, slow: float = 1.0,
            load: float = 1.0, rotational: bool = True) -> Disk:
        name = "sd" + chr(ord("a") + self._sd)
        d = Disk(
            name=name, model=model, serial=serial, size=size, rotational=rotational,
            transport="sata", major=8, minor=16 * self._sd, logical_sector=logical,
            physical_sector=physical,
            wwn=f"0x5000{stable_int(self.scenario, serial) % (1 << 48):012x}",
            pci_path=f"pci-0000:00:17.0-ata-{self._ata_port}",
            io=IoProfile(r_iops=38 * load, w_iops=55 * load, r_bps=9.5 * MiB * load,
                         w_bps=6.2 * MiB * load, r_ms=r_ms, w_ms=w_ms, slow=slow),
        )
        self._sd += 1
        self._ata_port += 1
        self.m.disks[name] = d
        self._prefill(d)
        return d

    def ssd(self, model: str, serial: str, size: int, load: float = 1.0) -> Disk:
        return self.hdd(model, serial, size, r_ms=0.25, w_ms=0.4, rotational=False,
                        physical=512, load=load)

    def nvme(self, model: str, serial: str, size: int, *, load: float = 1.0,
             r_ms: float = 0.09, w_ms: float = 0.03) -> Disk:
        name = f"nvme{self._nvme}n1"
        d = Disk(
            name=name, model=model, serial=serial, size=size, rotational=False,
            transport="nvme", major=259, minor=self._nvme * 8, vendor="",
            wwn=f"eui.{stable_int(self.scenario, serial) % (1 << 64):016x}",
            pci_path=f"pci-0000:{self._nvme + 1:02x}:00.0-nvme-1",
            io=IoProfile(r_iops=420 * load, w_iops=380 * load, r_bps=38 * MiB * load,
                         w_bps=21 * MiB * load, r_ms=r_ms, w_ms=w_ms),
        )
        self._nvme += 1
        self.m.disks[name] = d
        self._prefill(d)
        return d

    def _prefill(self, d: Disk) -> None:
        """Counters as if the machine had been up since boot_time."""
        up = self.now - self.m.boot_time
        io = d.io
        c = d.counters
        c[0] = io.r_iops * up
        c[1] = c[0] * 0.02
        c[2] = io.r_bps * up / 512
        c[3] = c[0] * io.r_ms * io.slow
        c[4] = io.w_iops * up
        c[5] = c[4] * 0.05
        c[6] = io.w_bps * up / 512
        c[7] = c[4] * io.w_ms * io.slow
        c[9] = up * 1000 * min(1.0, (io.r_iops * io.r_ms + io.w_iops * io.w_ms) * io.slow / 1000 * 0.6)
        c[10] = c[3] + c[7]
        c[15] = up * 0.5
        c[16] = up * 0.5 * io.w_ms * 0.5

    def quiet(self, d: Disk) -> Disk:
        """A disk nobody uses: only the reads udev/blkid did at boot."""
        d.io = IoProfile(r_ms=d.io.r_ms, w_ms=d.io.w_ms)
        d.counters = [0.0] * 17
        d.counters[0] = 312
        d.counters[2] = 14236
        d.counters[3] = 312 * d.io.r_ms
        d.counters[9] = 312 * d.io.r_ms
        d.counters[10] = 312 * d.io.r_ms
        return d

    # --- vdevs -------------------------------------------------------------------------

    def leaf(self, d: Disk, pool: str, *, ashift: int | None = None) -> Vdev:
        psize = d.size - WHOLE_DISK_OVERHEAD
        d.partitions = [
            Partition(1, psize, fs_type="zfs_member", fs_label=pool,
                      fs_uuid=str(stable_int(self.scenario, pool, "pool")),
                      part_label="zfs-" + f"{stable_int(self.scenario, d.serial) % (1 << 64):016x}"),
            Partition(9, 8 * MiB),
        ]
        byid = d.by_id[0]
        return Vdev(
            type="disk", guid=stable_int(self.seed, self.scenario, d.serial, "leaf"),
            disk=d.name, path=f"/dev/disk/by-id/{byid}-part1", devid=f"{byid}-part1",
            phys_path=f"{d.pci_path}-part1" if d.transport != "nvme" else d.pci_path,
            whole_disk=True,
            ashift=ashift if ashift is not None else max(9, d.physical_sector.bit_length() - 1),
            psize=psize,
        )

    def mirror(self, *leaves: Vdev) -> Vdev:
        return Vdev(type="mirror", guid=stable_int(self.seed, self.scenario, "mirror",
                                                   leaves[0].guid),
                    children=list(leaves), ashift=leaves[0].ashift)

    def pool(self, name: str, tops: list[Vdev], *, logs: list[Vdev] | None = None,
             cache: list[Vdev] | None = None, spares: list[Vdev] | None = None,
             alloc: int = 0, frag: int = 0, txg: int = 1234567) -> Pool:
        guid = stable_int(self.seed, self.scenario, name, "pool")
        root = Vdev(type="root", guid=guid)
        for i, t in enumerate(tops + (logs or [])):
            t.id = i
            t.is_log = logs is not None and t in logs
            leaves = list(t.leaves())
            ashift = max(leaf.ashift for leaf in leaves)
            t.ashift = ashift
            for leaf in leaves:
                leaf.ashift = ashift
            minp = min(leaf.psize for leaf in leaves)
            t.ms_shift = ms_shift_for(leaf_asize(minp))
            t.asize = top_space(minp, t.ms_shift)
            root.children.append(t)
        p = Pool(name=name, guid=guid, root=root, cache=cache or [], spares=spares or [],
                 alloc=alloc, frag=frag, txg=txg, import_time=self.m.boot_time + 41)
        for s in p.spares:
            s.id = 0
        recompute_states(p)
        self.m.pools[name] = p
        return p

    # --- datasets ----------------------------------------------------------------------

    def fs(self, name: str, used: int, *, refer: int | None = None, origin: str | None = None,
           days_ago: float = 400, props: dict[str, str] | None = None,
           kind: str = "filesystem", volsize: int = 0) -> Dataset:
        creation = int(self.now - days_ago * 86400)
        txg = 1000 + int((creation - (self.now - 3000 * 86400)) / 5)
        ds = Dataset(
            name=name, type=kind, guid=stable_int(self.seed, self.scenario, name, "ds"),
            createtxg=txg, creation=creation, used_self=used,
            refer=refer if refer is not None else used, origin=origin,
            props=dict(props or {}), logicalref=int((refer or used) * 1.31), volsize=volsize,
        )
        self.m.datasets[name] = ds
        return ds

    def snap(self, ds: str, short: str, *, used: int, days_ago: float,
             refer: int | None = None) -> Snapshot:
        creation = int(self.now - days_ago * 86400)
        txg = 1000 + int((creation - (self.now - 3000 * 86400)) / 5)
        base = self.m.datasets[ds]
        s = Snapshot(name=f"{ds}@{short}",
                     guid=stable_int(self.seed, self.scenario, ds, short),
                     createtxg=txg, creation=creation, used=used,
                     refer=refer if refer is not None else base.refer)
        self.m.snapshots.setdefault(ds, []).append(s)
        base.snap_used += used
        return s

    def series(self, ds: str, prefix: str, count: int, *, every_s: int, used_each: int,
               first_days_ago: float) -> SnapshotSeries:
        base = self.m.datasets[ds]
        creation0 = int(self.now - first_days_ago * 86400)
        txg0 = 1000 + int((creation0 - (self.now - 3000 * 86400)) / 5)
        ser = SnapshotSeries(dataset=ds, prefix=prefix, count=count, txg0=txg0,
                             txg_step=max(1, every_s // 5), creation0=creation0,
                             step_s=every_s, used_each=used_each, refer=base.refer,
                             seed=self.seed)
        self.m.series.setdefault(ds, []).append(ser)
        base.snap_used += used_each * count
        return ser

    def finish(self) -> Machine:
        for p in self.m.pools.values():
            if p.alloc == 0:
                total = sum(d.used_self + d.snap_used for d in self.m.datasets.values()
                            if d.pool == p.name)
                p.alloc = int(total * 1.004) + 24 * MiB
            top = max((d.createtxg for d in self.m.datasets.values()), default=1000)
            self.m.txg_counter = max(self.m.txg_counter, top + 100)
            p.txg = max(p.txg, self.m.txg_counter + 5000)
        return self.m


def _machine(scenario: str, seed: int, now: float) -> Builder:
    m = Machine(hostname=f"zdemo-{scenario}", kernel="6.1.0-28-amd64", seed=seed,
                boot_time=now - 3 * 86400 - 4 * 3600 - 17 * 60, last=now)
    b = Builder(scenario=scenario, seed=seed, now=now, m=m)
    os_disk = b.nvme("Samsung SSD 970 EVO Plus 500GB", "S4EVNX0R812345K", NVME_500G, load=0.2)
    os_disk.partitions = [
        Partition(1, 512 * MiB, fs_type="vfat", fs_uuid="7A1B-22C3", part_label="EFI",
                  mountpoint="/boot/efi"),
        Partition(2, 460 * GiB, fs_type="ext4", fs_uuid="0b1e4c9a-5a52-4d0e-9f61-3f0c6d2a8c11",
                  mountpoint="/"),
        Partition(3, 16 * GiB, fs_type="swap", fs_uuid="5c3e3b9a-2d1f-4e7b-8a3c-0f9e6d5b4a21",
                  swap=True),
    ]
    m.swaps.append(f"/dev/{os_disk.part_name(3)}")
    m.links = _network()
    return b


def _network() -> list[NetLink]:
    return [
        NetLink("lo", 1, None, "00:00:00:00:00:00", mtu=65536, addrs=[("127.0.0.1", 8)],
                addrs6=[("::1", 128)]),
        NetLink("eno1", 2, None, "3c:ec:ef:12:34:56", master="br0"),
        NetLink("eno2", 3, None, "3c:ec:ef:12:34:57", up=False, carrier=False),
        NetLink("br0", 4, "bridge", "3c:ec:ef:12:34:56", addrs=[("192.168.10.20", 24)],
                addrs6=[("fe80::3eec:efff:fe12:3456", 64)]),
        NetLink("br0.100", 5, "vlan", "3c:ec:ef:12:34:56", link="br0", vlan_id=100,
                master="br100"),
        NetLink("br100", 6, "bridge", "3c:ec:ef:12:34:56", addrs=[("10.0.100.20", 24)]),
    ]


def _arc(m: Machine, *, hit_rate: float = 2400.0, l2: int = 0) -> None:
    mem = 66_367_930_368
    m.arc = Arc(c_max=mem * 5 // 8, c_min=mem // 32, c=int(mem * 5 // 8 * 0.93),
                size=int(mem * 5 // 8 * 0.92), hit_rate=hit_rate, memory_all=mem,
                l2_size=l2, l2_asize=int(l2 * 0.71))
    up = m.last - m.boot_time
    a = m.arc
    a.counters = {
        "hits": a.hit_rate * up, "misses": a.miss_rate * up, "iohits": a.iohit_rate * up,
        "demand_data_hits": a.hit_rate * up * 0.62, "demand_data_misses": a.miss_rate * up * 0.55,
        "demand_data_iohits": a.iohit_rate * up * 0.5,
        "demand_metadata_hits": a.hit_rate * up * 0.33,
        "demand_metadata_misses": a.miss_rate * up * 0.2,
        "demand_metadata_iohits": a.iohit_rate * up * 0.3,
        "prefetch_data_hits": a.hit_rate * up * 0.01,
        "prefetch_data_misses": a.miss_rate * up * 0.2,
        "prefetch_data_iohits": a.iohit_rate * up * 0.1,
        "prefetch_metadata_hits": a.hit_rate * up * 0.04,
        "prefetch_metadata_misses": a.miss_rate * up * 0.05,
        "prefetch_metadata_iohits": a.iohit_rate * up * 0.1,
        "mru_hits": a.hit_rate * up * a.mru_frac, "mfu_hits": a.hit_rate * up * (1 - a.mru_frac),
        "mru_ghost_hits": a.miss_rate * up * 0.08, "mfu_ghost_hits": a.miss_rate * up * 0.03,
        "deleted": a.miss_rate * up * 0.9,
        "l2_hits": a.miss_rate * up * 0.3 if l2 else 0.0,
        "l2_misses": a.miss_rate * up * 0.7 if l2 else 0.0,
    }


def _finished_scrub(now: float, alloc: int, days_ago: float, secs: int) -> Scan:
    end = now - days_ago * 86400
    return Scan(function="SCRUB", state="FINISHED", start_time=end - secs, to_examine=alloc,
                rate=alloc / secs, base_time=end - secs, base_issued=alloc, end_time=end,
                pass_start=end - secs)


def _spare_disks(b: Builder) -> None:
    """Clean disks for the wizards plus two that are busy elsewhere."""
    b.quiet(b.hdd("WDC WD80EFZX-68UW8N0", "VK1ABCDE", HDD_8T))  # larger
    b.quiet(b.hdd("ST3000VN007-2AH16M", "ZDH1XY2Q", HDD_3T))  # smaller
    b.quiet(b.hdd("HGST HUS726T4TALN6L4", "V6K2ZR1S", HDD_4T, logical=4096, physical=4096))
    busy = b.quiet(b.hdd("ST4000DM004-2CV104", "ZFN0QWER", HDD_4T))
    busy.partitions = [Partition(1, HDD_4T - 2 * MiB, fs_type="ext4", fs_label="backup",
                                 fs_uuid="d3a4c5e6-1b2c-4d5e-8f90-a1b2c3d4e5f6",
                                 mountpoint="/srv/backup")]
    busy.io = IoProfile(r_iops=3, w_iops=11, r_bps=0.4 * MiB, w_bps=1.3 * MiB, r_ms=7, w_ms=9)
    old = b.quiet(b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K1234567", HDD_4T))
    old.partitions = [
        Partition(1, HDD_4T - WHOLE_DISK_OVERHEAD, fs_type="zfs_member", fs_label="oldpool",
                  fs_uuid="12345678901234567890", part_label="zfs-6c1d2e3f4a5b6c7d"),
        Partition(9, 8 * MiB),
    ]


def _tank_datasets(b: Builder, pool: str = "tank", *, dedup: bool = True) -> None:
    b.fs(pool, 96 * 1024, days_ago=700, props={"compression": "lz4", "atime": "off",
                                                "xattr": "sa", "acltype": "posixacl"})
    b.fs(f"{pool}/home", 192 * 1024, days_ago=700)
    b.fs(f"{pool}/home/alice", 412 * GiB, days_ago=690)
    b.fs(f"{pool}/home/bob", 138 * GiB, days_ago=500)
    for i in range(30):
        b.snap(f"{pool}/home/alice", f"daily-2026-10-{i + 1:02d}", used=(180 + 13 * i) * MiB,
               days_ago=51 - i, refer=(400 + i // 3) * GiB)
    b.fs(f"{pool}/media", 2 * TiB + 310 * GiB, days_ago=650,
         props={"recordsize": "1M", "compression": "off"})
    for i in range(7):
        b.snap(f"{pool}/media", f"weekly-{i:02d}", used=(2 + i) * GiB, days_ago=49 - 7 * i)
    b.fs(f"{pool}/backup", 388 * GiB, days_ago=600, props={"compression": "zstd"})
    vm_props = {"dedup": "on"} if dedup else {}
    b.fs(f"{pool}/vm", 128 * 1024, days_ago=420, props=vm_props)
    b.fs(f"{pool}/vm/debian12", 24 * GiB, kind="volume", volsize=64 * GiB, days_ago=410,
         props={"volblocksize": "16K"})
    b.snap(f"{pool}/vm/debian12", "golden", used=1200 * MiB, days_ago=300)
    b.snap(f"{pool}/vm/debian12", "pre-upgrade", used=3 * GiB, days_ago=20)
    b.fs(f"{pool}/vm/win11", 71 * GiB, kind="volume", volsize=128 * GiB, days_ago=200,
         props={"volblocksize": "16K"})
    b.fs(f"{pool}/vm/debian12-test", 2 * GiB, refer=25 * GiB, kind="volume", volsize=64 * GiB,
         origin=f"{pool}/vm/debian12@golden", days_ago=100)
    b.snap(f"{pool}/vm/debian12-test", "before-kernel", used=300 * MiB, days_ago=30)
    b.fs(f"{pool}/vm/debian12-test2", 700 * MiB, refer=25 * GiB, kind="volume",
         volsize=64 * GiB, origin=f"{pool}/vm/debian12-test@before-kernel", days_ago=29)
    b.fs(f"{pool}/home/alice-restore", 120 * MiB, refer=401 * GiB,
         origin=f"{pool}/home/alice@daily-2026-10-02", days_ago=10)


def _vm_ddt(scale: int = 1) -> Ddt:
    hist = [
        DdtClass(1, 812_345 * scale, 101 * GiB * scale, 63 * GiB * scale, 64 * GiB * scale),
        DdtClass(2, 301_220 * scale, 37 * GiB * scale, 23 * GiB * scale, 24 * GiB * scale),
        DdtClass(4, 52_018 * scale, 6 * GiB * scale, 4 * GiB * scale, 4 * GiB * scale),
        DdtClass(8, 9_912 * scale, 1240 * MiB * scale, 770 * MiB * scale, 790 * MiB * scale),
        DdtClass(16, 1_203 * scale, 150 * MiB * scale, 94 * MiB * scale, 96 * MiB * scale),
        DdtClass(128, 37 * scale, 4 * MiB * scale, 3 * MiB * scale, 3 * MiB * scale),
    ]
    entries = sum(c.blocks for c in hist)
    return Ddt(entries=entries, disk_per_entry=331, core_per_entry=144, histogram=hist)


def build_showcase(seed: int, now: float) -> Machine:
    b = _machine("showcase", seed, now)
    m = b.m
    a0 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ1A2BT", HDD_4T, physical=512, load=1.0)
    a1 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ4K7XT", HDD_4T, physical=512, load=1.0,
               slow=10.0)
    b0 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ9M3QT", HDD_4T, physical=512, load=0.9)
    b1 = b.hdd("HGST HUS724040ALE640", "PN2334PBJ2C8WT", HDD_4T, physical=512, load=0.9)
    l0 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4123456Z080BGN", SSD_80G, load=2.5)
    l1 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4123457A080BGN", SSD_80G, load=2.5)
    sp = b.hdd("HGST HUS724040ALE640", "PN2334PBJ7F5ZT", HDD_4T, physical=512)
    b.quiet(sp)
    c0 = b.nvme("Samsung SSD 980 PRO 1TB", "S5GXNF0R123456A", NVME_1T, load=3.0)
    f0 = b.nvme("WD_BLACK SN770 1TB", "22517D801234", NVME_1T, load=2.0)
    f1 = b.nvme("WD_BLACK SN770 1TB", "22517D805678", NVME_1T, load=0.0)
    _spare_disks(b)
    tank = b.pool(
        "tank",
        [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank")),
         b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))],
        logs=[b.mirror(b.leaf(l0, "tank"), b.leaf(l1, "tank"))],
        cache=[b.leaf(c0, "tank")], spares=[b.leaf(sp, "tank")], frag=11,
    )
    tank.scan = _finished_scrub(now, 3 * TiB, 9.3, 6 * 3600 + 41 * 60 + 7)
    _tank_datasets(b)
    tank.ddt = _vm_ddt()
    fleaf0 = b.leaf(f0, "fast")
    fleaf1 = b.leaf(f1, "fast")
    fleaf1.resilvering = True
    fast = b.pool("fast", [b.mirror(fleaf0, fleaf1)], frag=4)
    b.fs("fast", 128 * 1024, days_ago=90, props={"compression": "lz4"})
    b.fs("fast/db", 301 * GiB, days_ago=90, props={"recordsize": "16K",
                                                   "logbias": "throughput"})
    b.fs("fast/scratch", 96 * GiB, days_ago=12, props={"sync": "disabled"})
    b.snap("fast/db", "hourly-0900", used=800 * MiB, days_ago=0.3)
    b.snap("fast/db", "hourly-1000", used=640 * MiB, days_ago=0.26)
    b.finish()
    rate = 480 * MiB
    total = fast.alloc
    issued0 = total * 0.1953
    fast.scan = Scan(function="RESILVER", state="SCANNING", start_time=now - issued0 / rate,
                     to_examine=total, rate=rate, base_time=now, base_issued=issued0,
                     skipped=0, pass_start=now - issued0 / rate)
    fast.scan_history.append(_finished_scrub(now, total, 4.1, 1210))
    _arc(m, l2=180 * GiB)
    return m


def build_healthy(seed: int, now: float) -> Machine:
    b = _machine("healthy", seed, now)
    a0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0AAAAAA", HDD_4T)
    a1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0BBBBBB", HDD_4T)
    b0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0CCCCCC", HDD_4T)
    b1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K0DDDDDD", HDD_4T)
    l0 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4111111Z080BGN", SSD_80G, load=2.0)
    l1 = b.ssd("INTEL SSDSC2BB080G4", "BTWL4222222Z080BGN", SSD_80G, load=2.0)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank")),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))],
                  logs=[b.mirror(b.leaf(l0, "tank"), b.leaf(l1, "tank"))], frag=7)
    _tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = _finished_scrub(now, tank.alloc, 2.4, 5 * 3600 + 12 * 60 + 40)
    _arc(b.m)
    return b.m


def build_degraded(seed: int, now: float) -> Machine:
    b = _machine("degraded", seed, now)
    a0 = b.hdd("ST4000VN008-2DR166", "ZGY8A1B2", HDD_4T)
    a1 = b.hdd("ST4000VN008-2DR166", "ZGY8C3D4", HDD_4T, r_ms=30, w_ms=40)
    b0 = b.hdd("ST4000VN008-2DR166", "ZGY8E5F6", HDD_4T, slow=10.0)
    b1 = b.hdd("ST4000VN008-2DR166", "ZGY8G7H8", HDD_4T)
    c0 = b.hdd("ST4000VN008-2DR166", "ZGY8J9K0", HDD_4T)
    c1 = b.hdd("ST4000VN008-2DR166", "ZGY8L1M2", HDD_4T)
    sp = b.quiet(b.hdd("ST4000VN008-2DR166", "ZGY8N3P4", HDD_4T))
    b.quiet(b.hdd("ST4000VN008-2DR166", "ZGY8Q5R6", HDD_4T))  # a fresh replacement
    bad = b.leaf(a1, "tank")
    bad.state, bad.aux = "FAULTED", "ERR_EXCEEDED"
    bad.read_errors, bad.write_errors, bad.checksum_errors = 3, 117, 0
    a1.io = IoProfile(r_ms=30, w_ms=40)
    gone = b.leaf(c1, "tank")
    gone.state, gone.aux, gone.not_present = "CANT_OPEN", "OPEN_FAILED", True
    c1.present = False
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), bad),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank")),
                           b.mirror(b.leaf(c0, "tank"), gone)],
                  spares=[b.leaf(sp, "tank")], frag=19)
    _tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = _finished_scrub(now, tank.alloc, 6.0, 7 * 3600 + 3 * 60 + 12)
    _arc(b.m)
    return b.m


def build_resilvering(seed: int, now: float) -> Machine:
    b = _machine("resilvering", seed, now)
    a0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR1", HDD_4T)
    a1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR2", HDD_4T, slow=4.0)
    new = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR9", HDD_4T, load=0.0)
    b0 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR3", HDD_4T)
    b1 = b.hdd("WDC WD40EFRX-68N32N0", "WD-WCC7K3RRRRR4", HDD_4T)
    old_leaf = b.leaf(a1, "tank")
    new_leaf = b.leaf(new, "tank")
    new_leaf.resilvering = True
    rep = Vdev(type="replacing", guid=stable_int(seed, "resilvering", "replacing"),
               children=[old_leaf, new_leaf], id=1)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), rep),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))], frag=14)
    _tank_datasets(b, dedup=False)
    b.finish()
    rate = 160 * MiB
    total = tank.alloc // 2
    issued0 = total * 0.3731
    tank.scan = Scan(function="RESILVER", state="SCANNING", start_time=now - issued0 / rate,
                     to_examine=total, rate=rate, base_time=now, base_issued=issued0,
                     pass_start=now - issued0 / rate)
    _arc(b.m)
    return b.m


def build_snapshots(seed: int, now: float, datasets: int = 20, per: int = 500) -> Machine:
    b = _machine("snapshots", seed, now)
    a0 = b.hdd("TOSHIBA MG08ACA16TE", "X1A0A001FVGG", 16000900661248)
    a1 = b.hdd("TOSHIBA MG08ACA16TE", "X1A0A002FVGG", 16000900661248)
    b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank"))], frag=23)
    b.fs("tank", 96 * 1024, days_ago=800, props={"compression": "lz4"})
    b.fs("tank/proj", 96 * 1024, days_ago=800)
    for i in range(datasets):
        name = f"tank/proj/p{i:02d}"
        b.fs(name, (20 + 7 * i) * GiB, days_ago=799)
        b.series(name, "auto-", per, every_s=3600, used_each=(3 + i % 5) * MiB,
                 first_days_ago=per / 24 + 1)
    # clones of clones
    b.fs("tank/clones", 96 * 1024, days_ago=100)
    b.fs("tank/clones/c1", 1 * GiB, refer=21 * GiB, origin="tank/proj/p01@auto-00100",
         days_ago=10)
    b.snap("tank/clones/c1", "s1", used=10 * MiB, days_ago=9)
    b.fs("tank/clones/c1-1", 200 * MiB, refer=21 * GiB, origin="tank/clones/c1@s1",
         days_ago=8)
    b.snap("tank/clones/c1-1", "s1", used=5 * MiB, days_ago=7)
    b.fs("tank/clones/c1-1-1", 50 * MiB, refer=21 * GiB, origin="tank/clones/c1-1@s1",
         days_ago=6)
    b.fs("tank/clones/c2", 3 * GiB, refer=30 * GiB, origin=f"tank/proj/p02@auto-{per - 2:05d}",
         days_ago=1)
    b.finish()
    _arc(b.m)
    return b.m


def build_dedup(seed: int, now: float) -> Machine:
    b = _machine("dedup", seed, now)
    a0 = b.ssd("Samsung SSD 870 EVO 2TB", "S6PNNJ0R100001A", HDD_2T)
    a1 = b.ssd("Samsung SSD 870 EVO 2TB", "S6PNNJ0R100002B", HDD_2T)
    b0 = b.ssd("Samsung SSD 870 EVO 2TB", "S6PNNJ0R100003C", HDD_2T)
    b1 = b.ssd("Samsung SSD 870 EVO 2TB", "S6PNNJ0R100004D", HDD_2T)
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank")),
                           b.mirror(b.leaf(b0, "tank"), b.leaf(b1, "tank"))], frag=31)
    b.fs("tank", 96 * 1024, days_ago=500)
    b.fs("tank/vm", 1100 * GiB, days_ago=490, props={"dedup": "on"})
    b.fs("tank/backup", 900 * GiB, days_ago=480, props={"dedup": "on", "compression": "zstd"})
    for i in range(14):
        b.snap("tank/backup", f"nightly-{i:02d}", used=(4 + i) * GiB, days_ago=14 - i)
    b.finish()
    tank.ddt = _vm_ddt(scale=8)
    tank.scan = _finished_scrub(now, tank.alloc, 3.0, 3 * 3600)
    _arc(b.m, hit_rate=5200)
    return b.m


def build_grow(seed: int, now: float) -> Machine:
    b = _machine("grow", seed, now)
    a0 = b.hdd("WDC WD10EFRX-68FYTN0", "WD-WCC4J1GROW01", HDD_1T)
    a1 = b.hdd("WDC WD10EFRX-68FYTN0", "WD-WCC4J1GROW02", HDD_1T)
    b.quiet(b.hdd("WDC WD20EFZX-68AWUN0", "WD-WX12D3GROW03", HDD_2T))
    b.quiet(b.hdd("WDC WD20EFZX-68AWUN0", "WD-WX12D3GROW04", HDD_2T))
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), b.leaf(a1, "tank"))], frag=38)
    b.fs("tank", 96 * 1024, days_ago=900)
    b.fs("tank/data", 780 * GiB, days_ago=899)
    b.snap("tank/data", "monthly-01", used=6 * GiB, days_ago=60)
    b.finish()
    tank.scan = _finished_scrub(now, tank.alloc, 12.0, 2 * 3600 + 5 * 60)
    _arc(b.m)
    return b.m


BUILDERS: dict[str, Callable[[int, float], Machine]] = {
    "showcase": build_showcase,
    "healthy": build_healthy,
    "degraded": build_degraded,
    "resilvering": build_resilvering,
    "snapshots": build_snapshots,
    "dedup": build_dedup,
    "grow": build_grow,
}


def build(scenario: str, seed: int, now: float) -> Machine:
    try:
        builder = BUILDERS[scenario]
    except KeyError:
        raise ValueError(
            f"unknown demo scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}"
        ) from None
    m = builder(seed, now)
    _mark_dedup_owners(m)
    return m


def _mark_dedup_owners(m: Machine) -> None:
    """Datasets whose data was written with dedup on own the pool's dedup table (in
    proportion to their size): destroying one shrinks the table, like freeing its blocks."""
    for ds in m.datasets.values():
        pool = m.pools.get(ds.pool)
        if pool is None or pool.ddt is None or pool.ddt.entries == 0:
            continue
        if inherited(m, ds, "dedup")[0] != "off":
            ds.dedup_written = ds.used_self + ds.snap_used


# --- network variant (appended; the scenarios above are unchanged) ----------------------


def _network_ports_down() -> list[NetLink]:
    """The showcase network with both cables of br0 pulled: eno1 and eno2 are up but have
    no carrier, so br0, the VLAN br0.100 on it and the bridge br100 on that carry nothing."""
    links = _network()
    for ln in links:
        if ln.name in ("eno1", "eno2"):
            ln.up, ln.carrier, ln.master = True, False, "br0"
    return links


def build_netdown(seed: int, now: float) -> Machine:
    m = build_healthy(seed, now)
    m.hostname = "zdemo-netdown"
    m.links = _network_ports_down()
    return m


SCENARIOS["netdown"] = ("healthy pools; every port of bridge br0 lacks carrier, so the VLAN "
                        "br0.100 on it and the bridge br100 on that are down too")
BUILDERS["netdown"] = build_netdown
