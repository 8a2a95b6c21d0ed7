"""What the scenarios share: `Builder` (disks by model and size, leaves, mirrors, pools,
datasets, snapshots, snapshot series), real drive capacities, the OS disk and network every
machine has (`new_machine`), the ARC, finished scrubs, spare disks for the wizards, the
tank dataset tree and a dedup table.

Disk sizes are real drive capacities; the 8 MiB partition 9 and label overheads are applied
the way `zpool create` on a whole disk does, so "same size, other model" traps are real.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zconsole.hosts.demo.machine import Machine
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

HDD_4T = 4000787030016
HDD_3T = 3000592982016
HDD_8T = 8001563222016
HDD_1T = 1000204886016
HDD_2T = 2000398934016
SSD_80G = 80026361856
NVME_1T = 1000204886016
NVME_500G = 500107862016


SD_MAJORS = (8, 65, 66, 67, 68, 69, 70, 71, 128, 129, 130, 131, 132, 133, 134, 135)


def sd_name(index: int) -> str:
    """The kernel's name for the index-th SCSI disk: sda..sdz, sdaa..sdzz, sdaaa..."""
    out = ""
    while True:
        out = chr(ord("a") + index % 26) + out
        index = index // 26 - 1
        if index < 0:
            return "sd" + out


def sd_devno(index: int) -> tuple[int, int]:
    """(major, minor) of the index-th SCSI disk, as drivers/scsi/sd.c numbers them."""
    return SD_MAJORS[(index & 0xF0) >> 4], ((index & 0xF) << 4) | (index & 0xFFF00)


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
        name = sd_name(self._sd)
        major, minor = sd_devno(self._sd)
        d = Disk(
            name=name, model=model, serial=serial, size=size, rotational=rotational,
            transport="sata", major=major, minor=minor, logical_sector=logical,
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

    def hdds(self, model: str, size: int, *serials: str, **kw: Any) -> list[Disk]:
        """Disks of one model and size, one per serial, in that order (`hdd`'s options)."""
        return [self.hdd(model, serial, size, **kw) for serial in serials]

    def ssds(self, model: str, size: int, *serials: str, load: float = 1.0) -> list[Disk]:
        return [self.ssd(model, serial, size, load) for serial in serials]

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

    def mirrors(self, pool: str, disks: list[Disk], width: int = 2) -> list[Vdev]:
        """Mirrors of whole-disk leaves of `pool`: the disks in order, `width` to a mirror."""
        leaves = [self.leaf(d, pool) for d in disks]
        return [self.mirror(*leaves[i:i + width]) for i in range(0, len(leaves), width)]

    def raidz(self, parity: int, *leaves: Vdev) -> Vdev:
        return Vdev(type="raidz", guid=stable_int(self.seed, self.scenario, "raidz",
                                                  leaves[0].guid),
                    children=list(leaves), ashift=leaves[0].ashift, nparity=parity)

    def draid(self, parity: int, data: int, spares: int, *leaves: Vdev) -> Vdev:
        """A dRAID vdev over `leaves` (`draidP:Dd:Cc:Ss`, C = len(leaves))."""
        if data + parity > len(leaves) - spares:
            raise ValueError(f"draid{parity}:{data}d:{len(leaves)}c:{spares}s does not fit")
        return Vdev(type="draid", guid=stable_int(self.seed, self.scenario, "draid",
                                                  leaves[0].guid),
                    children=list(leaves), ashift=leaves[0].ashift, nparity=parity,
                    draid=(data, spares))

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
            t.ms_shift = ms_shift_for(leaf_asize(minp) * t.width)
            t.asize = top_space(minp, t.ms_shift, t.width)
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


def new_machine(scenario: str, seed: int, now: float) -> Builder:
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
    m.links = network()
    return b


def network() -> list[NetLink]:
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


def add_arc(m: Machine, *, hit_rate: float = 2400.0, l2: int = 0,
            l2_hit_share: float = 0.3) -> None:
    mem = 66_367_930_368
    m.arc = Arc(c_max=mem * 5 // 8, c_min=mem // 32, c=int(mem * 5 // 8 * 0.93),
                size=int(mem * 5 // 8 * 0.92), hit_rate=hit_rate, memory_all=mem,
                l2_size=l2, l2_asize=int(l2 * 0.71), l2_hit_share=l2_hit_share)
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
        "l2_hits": a.miss_rate * up * l2_hit_share if l2 else 0.0,
        "l2_misses": a.miss_rate * up * (1 - l2_hit_share) if l2 else 0.0,
    }


def finished_scrub(now: float, alloc: int, days_ago: float, secs: int) -> Scan:
    end = now - days_ago * 86400
    return Scan(function="SCRUB", state="FINISHED", start_time=end - secs, to_examine=alloc,
                rate=alloc / secs, base_time=end - secs, base_issued=alloc, end_time=end,
                pass_start=end - secs)


def spare_disks(b: Builder) -> None:
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


def tank_datasets(b: Builder, pool: str = "tank", *, dedup: bool = True) -> None:
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


def vm_ddt(scale: int = 1) -> Ddt:
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


def mark_dedup_owners(m: Machine) -> None:
    """Datasets whose data was written with dedup on own the pool's dedup table (in
    proportion to their size): destroying one shrinks the table, like freeing its blocks."""
    for ds in m.datasets.values():
        pool = m.pools.get(ds.pool)
        if pool is None or pool.ddt is None or pool.ddt.entries == 0:
            continue
        if inherited(m, ds, "dedup")[0] != "off":
            ds.dedup_written = ds.used_self + ds.snap_used
