"""The simulated machine: disks, pools with vdev trees, datasets, dedup tables, ARC.

Everything mutable lives here. Time enters only through `Machine.advance(now)`, which moves
I/O counters, ARC counters and running scans forward to `now` (epoch seconds). Rates are
piecewise constant between two calls; jitter comes from a hash of (seed, key, whole second),
so the same seed and the same sequence of clock readings always give the same state.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40

# zpool labels a whole disk: partition 1 starts at 1 MiB, partition 9 (8 MiB) sits at the end,
# plus alignment slack. The transcript's 1 GiB disk gets a 1063256064-byte partition 1.
WHOLE_DISK_OVERHEAD = 10 * MiB
LABEL_OVERHEAD = 4 * MiB + 512 * 1024  # front labels + boot block, back labels


def stable_int(*parts: object, bits: int = 64) -> int:
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[: bits // 8], "big")


def jitter(seed: int, key: str, bucket: int, spread: float = 0.08) -> float:
    """A factor in [1-spread, 1+spread], fixed for (seed, key, bucket)."""
    r = random.Random(f"{seed}:{key}:{bucket}")
    return 1.0 + spread * (2.0 * r.random() - 1.0)


def highbit(x: int) -> int:
    return x.bit_length()


# ----------------------------------------------------------------------------------- disks


@dataclass
class Partition:
    number: int
    size: int
    fs_type: str | None = None
    fs_label: str | None = None
    fs_uuid: str | None = None
    part_label: str | None = None
    mountpoint: str | None = None
    swap: bool = False


@dataclass
class IoProfile:
    """Steady background load of a disk and how fast it answers."""

    r_iops: float = 0.0
    w_iops: float = 0.0
    r_bps: float = 0.0
    w_bps: float = 0.0
    r_ms: float = 5.0  # service time per read
    w_ms: float = 5.0
    slow: float = 1.0  # multiplier on service times (the sick disk answers ~10x slower)


@dataclass
class Disk:
    name: str  # kernel name: sda, nvme0n1
    model: str
    serial: str
    size: int  # bytes
    rotational: bool
    transport: str  # sata, sas, nvme
    major: int
    minor: int
    logical_sector: int = 512
    physical_sector: int = 512
    vendor: str = "ATA"
    wwn: str | None = None
    pci_path: str = ""
    partitions: list[Partition] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)
    io: IoProfile = field(default_factory=IoProfile)
    counters: list[float] = field(default_factory=lambda: [0.0] * 17)
    present: bool = True

    @property
    def id_model(self) -> str:
        return self.model.replace(" ", "_")

    @property
    def by_id(self) -> list[str]:
        """Link names under /dev/disk/by-id, model+serial first."""
        if self.transport == "nvme":
            out = [f"nvme-{self.id_model}_{self.serial}"]
            if self.wwn:
                out.append(f"nvme-{self.wwn}")
            return out
        prefix = "ata" if self.transport == "sata" else "scsi-SATA"
        out = [f"{prefix}-{self.id_model}_{self.serial}"]
        if self.wwn:
            out.append(f"wwn-{self.wwn}")
        return out

    @property
    def by_path(self) -> str:
        return self.pci_path

    def part_name(self, n: int) -> str:
        return f"{self.name}p{n}" if self.name[-1].isdigit() else f"{self.name}{n}"

    @property
    def in_use_mount(self) -> str | None:
        for p in self.partitions:
            if p.mountpoint:
                return p.mountpoint
        return None


# ----------------------------------------------------------------------------------- vdevs


@dataclass
class Vdev:
    """A node of a pool's config tree. Leaves name a disk (kernel name) or a file path."""

    type: str  # root, mirror, raidz, replacing, spare, disk, file
    guid: int
    children: list[Vdev] = field(default_factory=list)
    disk: str | None = None  # kernel name for disk leaves
    path: str = ""  # /dev/disk/by-id/...-part1 for whole disks
    devid: str | None = None
    phys_path: str | None = None
    whole_disk: bool = True
    state: str = "ONLINE"  # raw vdev_state_str: ONLINE DEGRADED FAULTED OFFLINE REMOVED CANT_OPEN
    aux: str | None = None  # ERR_EXCEEDED, OPEN_FAILED, ...
    not_present: bool = False
    read_errors: int = 0
    write_errors: int = 0
    checksum_errors: int = 0
    slow_ios: int = 0
    ashift: int = 12
    psize: int = 0  # leaf: partition 1 size (phys_space)
    asize: int = 0  # top-level: usable space (space)
    ms_shift: int = 34
    is_log: bool = False
    resilvering: bool = False  # leaf is the target of the running resilver
    id: int = 0  # top-level vdev id (mirror-N), replacing-N / spare-N child index

    def walk(self) -> Iterator[Vdev]:
        yield self
        for c in self.children:
            yield from c.walk()

    def leaves(self) -> Iterator[Vdev]:
        for v in self.walk():
            if not v.children and v.type in ("disk", "file"):
                yield v

    @property
    def is_leaf(self) -> bool:
        return self.type in ("disk", "file")

    def name(self) -> str:
        """The name zpool prints (without -P): last path component, -partN stripped."""
        if self.type in ("mirror", "raidz", "replacing", "spare", "draid"):
            return f"{self.type}-{self.id}"
        if self.type == "root":
            return ""
        base = self.path.rsplit("/", 1)[-1]
        if self.whole_disk and self.path.startswith("/dev/"):
            if base.endswith("-part1"):
                base = base[: -len("-part1")]
            elif self.path.startswith("/dev/disk/"):
                pass
            elif base.endswith("p1") and base[:-2][-1:].isdigit():
                base = base[:-2]
            elif base.endswith("1"):
                base = base[:-1]
        return base


@dataclass
class Scan:
    """A scrub or resilver. Progress is a pure function of time: issued(now)."""

    function: str  # SCRUB or RESILVER
    state: str  # SCANNING, FINISHED, CANCELED
    start_time: float
    to_examine: int
    rate: float  # bytes issued per second
    base_time: float  # issued == base_issued at base_time
    base_issued: float = 0.0
    skipped: int = 0
    end_time: float = 0.0
    errors: int = 0
    processed_final: int = 0
    paused_at: float = 0.0
    spent_paused: float = 0.0
    pass_start: float = 0.0

    def issued(self, now: float) -> int:
        total = self.to_examine - self.skipped
        if self.state != "SCANNING":
            return total if self.state == "FINISHED" else int(self.base_issued)
        if self.paused_at:
            return int(min(total, self.base_issued))
        return int(min(total, self.base_issued + self.rate * max(0.0, now - self.base_time)))

    def finish_time(self) -> float:
        total = self.to_examine - self.skipped
        return self.base_time + max(0.0, total - self.base_issued) / max(self.rate, 1.0)

    def examined(self, now: float) -> int:
        # the scanner runs ahead of the issuer while it sorts blocks
        if self.state != "SCANNING":
            return self.to_examine
        ahead = min(self.to_examine, int(self.issued(now) * 1.08 + 64 * MiB))
        return ahead

    def processed(self, now: float) -> int:
        if self.state == "FINISHED":
            return self.processed_final
        if self.function == "SCRUB":
            return 0
        return self.issued(now)


@dataclass
class DdtClass:
    """One row of the `zpool status -D` histogram (refcount bucket)."""

    refcnt: int
    blocks: int
    lsize: int
    psize: int
    dsize: int


@dataclass
class Ddt:
    entries: int
    disk_per_entry: int  # bytes on disk per entry
    core_per_entry: int
    histogram: list[DdtClass] = field(default_factory=list)

    @property
    def dedupratio_x100(self) -> int:
        alloc = sum(c.dsize for c in self.histogram)
        ref = sum(c.dsize * c.refcnt for c in self.histogram)
        if alloc == 0:
            return 100
        return int(ref * 100 // alloc)


@dataclass
class Pool:
    name: str
    guid: int
    root: Vdev
    cache: list[Vdev] = field(default_factory=list)
    spares: list[Vdev] = field(default_factory=list)
    alloc: int = 0
    frag: int = 0
    txg: int = 4
    props: dict[str, str] = field(default_factory=dict)  # locally set pool properties
    scan: Scan | None = None
    scan_history: list[Scan] = field(default_factory=list)
    ddt: Ddt | None = None
    import_time: float = 0.0
    data_errors: int = 0
    pending_replace: dict[int, int] = field(default_factory=dict)  # replacing guid -> old guid

    @property
    def top(self) -> list[Vdev]:
        return self.root.children

    def data_vdevs(self) -> list[Vdev]:
        return [v for v in self.root.children if not v.is_log]

    def log_vdevs(self) -> list[Vdev]:
        return [v for v in self.root.children if v.is_log]

    def all_vdevs(self) -> Iterator[Vdev]:
        yield from self.root.walk()
        for v in self.cache:
            yield from v.walk()
        for v in self.spares:
            yield from v.walk()

    def size(self) -> int:
        return sum(v.asize for v in self.data_vdevs())

    def free(self) -> int:
        return max(0, self.size() - self.alloc)

    def prop(self, name: str, default: str) -> str:
        return self.props.get(name, default)

    def expandsize(self) -> int:
        return sum(expand_size(v) for v in self.data_vdevs())

    def top_alloc(self, top: Vdev) -> int:
        data = self.data_vdevs()
        if top.is_log:
            return min(top.asize // 50, 64 * MiB)
        total = sum(v.asize for v in data) or 1
        return int(self.alloc * top.asize / total)


def leaf_asize(psize: int) -> int:
    return psize - LABEL_OVERHEAD


def ms_shift_for(asize: int) -> int:
    """vdev_metaslab_set_size (OpenZFS 2.x) defaults."""
    count = asize >> 29
    if count < 16:
        shift = highbit(asize // 16)
    elif count > 200:
        shift = highbit(asize // 200)
    else:
        shift = 29
    return max(24, min(34, shift))


def top_space(min_leaf_psize: int, ms_shift: int) -> int:
    a = leaf_asize(min_leaf_psize)
    return (a >> ms_shift) << ms_shift


def expand_size(top: Vdev) -> int:
    """What `zpool list -v` shows as EXPANDSZ: space every child could give but does not yet."""
    if top.is_log:
        return 0
    leaves = list(top.leaves())
    if not leaves:
        return 0
    grown = top_space(min(leaf.psize for leaf in leaves), top.ms_shift)
    return max(0, grown - top.asize)


# -------------------------------------------------------------------------------- datasets


@dataclass
class Dataset:
    name: str
    type: str  # filesystem, volume
    guid: int
    createtxg: int
    creation: int
    used_self: int  # usedbydataset
    refer: int
    snap_used: int = 0  # usedbysnapshots (aggregate, also when snapshots are lazy)
    origin: str | None = None
    props: dict[str, str] = field(default_factory=dict)  # local properties
    logicalref: int = 0
    volsize: int = 0
    mounted: bool = True  # filesystems: `zfs mount`/`zfs unmount`, mountpoint=none
    # Bytes this dataset (with its snapshots) wrote while dedup was on: its share of the
    # pool's dedup table, released when it is destroyed.
    dedup_written: int = 0

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def parent(self) -> str | None:
        return self.name.rsplit("/", 1)[0] if "/" in self.name else None


@dataclass
class Snapshot:
    name: str  # full name ds@snap
    guid: int
    createtxg: int
    creation: int
    used: int
    refer: int
    userrefs: int = 0

    @property
    def dataset(self) -> str:
        return self.name.split("@", 1)[0]

    @property
    def short(self) -> str:
        return self.name.split("@", 1)[1]


@dataclass
class SnapshotSeries:
    """Many similar snapshots of one dataset, generated on demand (100 000-snapshot design).

    Snapshot i is `{dataset}@{prefix}{i:05d}`, created every `step_s` seconds from `creation0`.
    Destroyed members are remembered in `gone`; the rest never exist as objects until listed.
    """

    dataset: str
    prefix: str
    count: int
    txg0: int
    txg_step: int
    creation0: int
    step_s: int
    used_each: int
    refer: int
    seed: int
    gone: set[int] = field(default_factory=set)

    def name(self, i: int) -> str:
        return f"{self.dataset}@{self.prefix}{i:05d}"

    def index_of(self, short: str) -> int | None:
        if not short.startswith(self.prefix):
            return None
        rest = short[len(self.prefix):]
        if not rest.isdigit() or len(rest) != 5:
            return None
        i = int(rest)
        if 0 <= i < self.count and i not in self.gone:
            return i
        return None

    def make(self, i: int) -> Snapshot:
        return Snapshot(
            name=self.name(i),
            guid=stable_int(self.seed, self.dataset, "snap", i),
            createtxg=self.txg0 + i * self.txg_step,
            creation=self.creation0 + i * self.step_s,
            used=self.used_each + (stable_int(self.dataset, i, bits=16) % 4096) * 128,
            refer=self.refer,
        )

    def __iter__(self) -> Iterator[Snapshot]:
        for i in range(self.count):
            if i not in self.gone:
                yield self.make(i)

    def __len__(self) -> int:
        return self.count - len(self.gone)


# ------------------------------------------------------------------------------------- ARC


@dataclass
class Arc:
    c_max: int
    c_min: int
    c: int
    size: int
    mru_frac: float = 0.45
    hit_rate: float = 2400.0  # demand hits per second
    miss_rate: float = 60.0
    iohit_rate: float = 8.0
    counters: dict[str, float] = field(default_factory=dict)
    l2_size: int = 0
    l2_asize: int = 0
    memory_all: int = 64 * GiB
    throttled: int = 0


# --------------------------------------------------------------------------------- network


@dataclass
class NetLink:
    name: str
    ifindex: int
    kind: str | None  # None for a plain ethernet, "bridge", "vlan"
    mac: str
    mtu: int = 1500
    master: str | None = None
    link: str | None = None  # lower device of a vlan
    vlan_id: int | None = None
    up: bool = True
    addrs: list[tuple[str, int]] = field(default_factory=list)  # (ip, prefixlen)
    addrs6: list[tuple[str, int]] = field(default_factory=list)
    carrier: bool = True


# --------------------------------------------------------------------------------- machine


@dataclass
class Machine:
    hostname: str
    kernel: str
    seed: int
    boot_time: float
    disks: dict[str, Disk] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)
    datasets: dict[str, Dataset] = field(default_factory=dict)
    snapshots: dict[str, list[Snapshot]] = field(default_factory=dict)  # explicit ones
    series: dict[str, list[SnapshotSeries]] = field(default_factory=dict)
    arc: Arc | None = None
    links: list[NetLink] = field(default_factory=list)
    swaps: list[str] = field(default_factory=list)
    last: float = 0.0
    txg_counter: int = 100

    # --- lookups ---------------------------------------------------------------------

    def disk_by_any(self, name: str) -> tuple[Disk, int | None] | None:
        """Resolve sdb, /dev/sdb, sdb1, ata-..., /dev/disk/by-id/ata-...-part1 to (disk, part)."""
        n = name
        for prefix in ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/"):
            if n.startswith(prefix):
                n = n[len(prefix):]
                break
        part: int | None = None
        if "-part" in n:
            base, _, num = n.rpartition("-part")
            if num.isdigit():
                n, part = base, int(num)
        for d in self.disks.values():
            if not d.present:
                continue
            if n == d.name or n in d.by_id or n == d.by_path:
                return d, part
            for p in d.partitions:
                if n == d.part_name(p.number):
                    return d, p.number
        return None

    def leaf_of_disk(self, disk: str) -> tuple[Pool, Vdev] | None:
        for pool in self.pools.values():
            for v in pool.all_vdevs():
                if v.is_leaf and v.disk == disk:
                    return pool, v
        return None

    def snapshots_of(self, ds: str) -> Iterator[Snapshot]:
        """All snapshots of a dataset in createtxg order (series are lazy)."""
        explicit = self.snapshots.get(ds, [])
        series = self.series.get(ds, [])
        if not series:
            yield from sorted(explicit, key=lambda s: s.createtxg)
            return
        merged: list[Iterator[Snapshot]] = [iter(s) for s in series]
        merged.append(iter(sorted(explicit, key=lambda s: s.createtxg)))
        import heapq

        yield from heapq.merge(*merged, key=lambda s: s.createtxg)

    def snapshot_count(self, ds: str) -> int:
        return len(self.snapshots.get(ds, [])) + sum(len(s) for s in self.series.get(ds, []))

    def find_snapshot(self, full: str) -> Snapshot | None:
        ds, _, short = full.partition("@")
        for s in self.snapshots.get(ds, []):
            if s.short == short:
                return s
        for ser in self.series.get(ds, []):
            i = ser.index_of(short)
            if i is not None:
                return ser.make(i)
        return None

    def remove_snapshot(self, full: str) -> None:
        ds, _, short = full.partition("@")
        lst = self.snapshots.get(ds, [])
        for s in lst:
            if s.short == short:
                lst.remove(s)
                return
        for ser in self.series.get(ds, []):
            i = ser.index_of(short)
            if i is not None:
                ser.gone.add(i)
                return

    def clones_of(self, snap: str) -> list[str]:
        return sorted(d.name for d in self.datasets.values() if d.origin == snap)

    def children_of(self, ds: str) -> list[str]:
        pre = ds + "/"
        return sorted(n for n in self.datasets if n.startswith(pre) and "/" not in n[len(pre):])

    def next_txg(self) -> int:
        self.txg_counter += 7
        return self.txg_counter

    # --- time --------------------------------------------------------------------------

    def disk_rates(self, d: Disk, now: float) -> tuple[float, float, float, float, float, float]:
        """(r_iops, w_iops, r_bps, w_bps, r_ms, w_ms) right now, resilver load included."""
        bucket = int(now)
        io = d.io
        j = jitter(self.seed, d.name, bucket, 0.10)
        r_iops, w_iops, r_bps, w_bps = io.r_iops * j, io.w_iops * j, io.r_bps * j, io.w_bps * j
        hit = self.leaf_of_disk(d.name)
        if hit is not None:
            pool, leaf = hit
            sc = pool.scan
            if sc is not None and sc.state == "SCANNING" and not sc.paused_at:
                if sc.function == "RESILVER":
                    if leaf.resilvering:
                        w_bps += sc.rate
                        w_iops += sc.rate / (128 * 1024)
                    elif leaf.state == "ONLINE" and _is_resilver_source(pool, leaf):
                        r_bps += sc.rate
                        r_iops += sc.rate / (128 * 1024)
                elif sc.function == "SCRUB" and leaf.state == "ONLINE" and not leaf.is_log:
                    share = sc.rate / max(1, len(list(pool.data_vdevs())))
                    r_bps += share / 2
                    r_iops += share / 2 / (128 * 1024)
        if not d.present:
            return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        jl = jitter(self.seed, d.name + ":lat", bucket, 0.12)
        return (r_iops, w_iops, r_bps, w_bps, io.r_ms * io.slow * jl, io.w_ms * io.slow * jl)

    def advance(self, now: float) -> None:
        """Move everything forward to `now`. Never goes backwards."""
        if now <= self.last:
            return
        # split at scan completions so trees change at the right moment
        while True:
            t_end = self._next_scan_end(now)
            if t_end is None:
                break
            self._integrate(t_end)
            self._complete_scans(t_end)
        self._integrate(now)

    def _next_scan_end(self, now: float) -> float | None:
        best: float | None = None
        for p in self.pools.values():
            sc = p.scan
            if sc is not None and sc.state == "SCANNING" and not sc.paused_at:
                t = sc.finish_time()
                if t <= now and (best is None or t < best):
                    best = max(t, self.last)
        return best

    def _integrate(self, now: float) -> None:
        dt = now - self.last
        if dt <= 0:
            self.last = max(self.last, now)
            return
        for d in self.disks.values():
            r_iops, w_iops, r_bps, w_bps, r_ms, w_ms = self.disk_rates(d, now)
            c = d.counters
            dr, dw = r_iops * dt, w_iops * dt
            c[0] += dr
            c[1] += dr * 0.02
            c[2] += r_bps * dt / 512
            c[3] += dr * r_ms
            c[4] += dw
            c[5] += dw * 0.05
            c[6] += w_bps * dt / 512
            c[7] += dw * w_ms
            busy = min(1.0, (r_iops * r_ms + w_iops * w_ms) / 1000.0 * 0.6)
            c[9] += busy * dt * 1000
            c[10] += dr * r_ms + dw * w_ms
            if not d.rotational:
                c[11] += dt * 0.05
                c[12] += 0
                c[13] += dt * 0.05 * 2048
                c[14] += dt * 0.05 * 0.4
            c[15] += dt * 0.5
            c[16] += dt * 0.5 * (w_ms * 0.5)
        if self.arc is not None:
            a = self.arc
            k = a.counters
            b = int(now)
            jh = jitter(self.seed, "arc", b, 0.15)
            hits = a.hit_rate * jh * dt
            misses = a.miss_rate * jitter(self.seed, "arcm", b, 0.2) * dt
            iohits = a.iohit_rate * dt
            for key, v in (
                ("hits", hits), ("misses", misses), ("iohits", iohits),
                ("demand_data_hits", hits * 0.62), ("demand_data_misses", misses * 0.55),
                ("demand_data_iohits", iohits * 0.5),
                ("demand_metadata_hits", hits * 0.33), ("demand_metadata_misses", misses * 0.2),
                ("demand_metadata_iohits", iohits * 0.3),
                ("prefetch_data_hits", hits * 0.01), ("prefetch_data_misses", misses * 0.2),
                ("prefetch_data_iohits", iohits * 0.1),
                ("prefetch_metadata_hits", hits * 0.04), ("prefetch_metadata_misses", misses * 0.05),
                ("prefetch_metadata_iohits", iohits * 0.1),
                ("mru_hits", hits * a.mru_frac), ("mfu_hits", hits * (1 - a.mru_frac)),
                ("mru_ghost_hits", misses * 0.08), ("mfu_ghost_hits", misses * 0.03),
                ("deleted", misses * 0.9), ("l2_hits", misses * 0.3 if a.l2_size else 0.0),
                ("l2_misses", misses * 0.7 if a.l2_size else 0.0),
            ):
                k[key] = k.get(key, 0.0) + v
        self.last = now

    def _complete_scans(self, t: float) -> None:
        for p in self.pools.values():
            sc = p.scan
            if sc is None or sc.state != "SCANNING" or sc.paused_at:
                continue
            if sc.finish_time() <= t + 1e-9:
                sc.state = "FINISHED"
                sc.end_time = sc.finish_time()
                sc.processed_final = sc.to_examine - sc.skipped if sc.function == "RESILVER" else 0
                sc.base_issued = float(sc.to_examine - sc.skipped)
                p.txg += 40
                if sc.function == "RESILVER":
                    for old in finish_resilver(p):
                        d = self.disks.get(old.disk or "")
                        for part in d.partitions if d else []:
                            if part.fs_type == "zfs_member":
                                part.fs_type, part.fs_label, part.fs_uuid = None, None, None
                    if p.props.get("autoexpand") == "on":
                        for top in p.data_vdevs():
                            top.asize += expand_size(top)


def _is_resilver_source(pool: Pool, leaf: Vdev) -> bool:
    for top in pool.root.walk():
        if leaf in top.children and any(c.resilvering for c in top.children):
            return True
    return False


def finish_resilver(pool: Pool) -> list[Vdev]:
    """What ZFS does when a resilver completes: replacing-N loses its old child.
    Returns the detached leaves."""
    gone: list[Vdev] = []
    for top in list(pool.root.walk()):
        for i, child in enumerate(list(top.children)):
            if child.type == "replacing":
                new = child.children[-1]
                new.resilvering = False
                gone.extend(child.children[:-1])
                if top.type == "root":
                    new.id, new.asize, new.ms_shift, new.is_log = (
                        child.id, child.asize, child.ms_shift, child.is_log)
                top.children[i] = new
            elif child.type == "spare":
                for c in child.children:
                    c.resilvering = False
    for v in pool.root.walk():
        v.resilvering = False
    recompute_states(pool)
    return gone


def recompute_states(pool: Pool) -> None:
    """Container states from their children, like vdev_propagate_state."""

    def visit(v: Vdev) -> str:
        if v.is_leaf:
            return v.state
        states = [visit(c) for c in v.children]
        ok = [s for s in states if s == "ONLINE"]
        if v.type in ("mirror", "replacing", "spare"):
            if len(ok) == len(states):
                v.state = "ONLINE"
            elif ok or any(s == "DEGRADED" for s in states):
                v.state = "DEGRADED"
            else:
                v.state = "UNAVAIL" if False else "CANT_OPEN"
                v.aux = "NO_REPLICAS"
        elif v.type == "root":
            if all(s == "ONLINE" for s in states):
                v.state = "ONLINE"
            elif any(s in ("CANT_OPEN", "FAULTED") for s in states):
                v.state = "CANT_OPEN"
            else:
                v.state = "DEGRADED"
        return v.state

    visit(pool.root)
