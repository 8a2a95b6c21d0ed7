"""Pools and their vdev trees: `Vdev`, `Pool`, the dedup table (`Ddt`), the space arithmetic
`zpool create` does on whole disks (label overheads, metaslab shift, EXPANDSZ), how vdev states
propagate, finding a vdev by name, path or guid, and the pool-wide changes `zpool set` and
`zpool clear`. The vdev tree's own changes (attach, detach, ...) are in `vdevs`."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, MiB, highbit

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.scans import Scan
    from zconsole.hosts.demo.machine.state import Machine

# zpool labels a whole disk: partition 1 starts at 1 MiB, partition 9 (8 MiB) sits at the end,
# plus alignment slack. The transcript's 1 GiB disk gets a 1063256064-byte partition 1.
WHOLE_DISK_OVERHEAD = 10 * MiB
LABEL_OVERHEAD = 4 * MiB + 512 * 1024  # front labels + boot block, back labels


@dataclass
class Vdev:
    """A node of a pool's config tree. Leaves name a disk (kernel name) or a file path."""

    type: str  # root, mirror, raidz, draid, replacing, spare, disk, file
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
    nparity: int = 0  # raidz / draid: parity disks per group
    draid: tuple[int, int] | None = None  # draid: (data disks per group, distributed spares)

    def walk(self) -> Iterator[Vdev]:
        yield self
        for c in self.children:
            yield from c.walk()

    def leaves(self) -> Iterator[Vdev]:
        for v in self.walk():
            if not v.children and v.type in ("disk", "file"):
                yield v

    @property
    def width(self) -> int:
        """How many leaves' worth of raw space a top-level vdev has: 1 for a disk or a mirror,
        every child for raidz (parity included, as `zpool list` counts it), every child but
        the distributed spares for draid."""
        if self.type == "raidz":
            return len(self.children)
        if self.type == "draid":
            return len(self.children) - (self.draid[1] if self.draid else 0)
        return 1

    @property
    def is_leaf(self) -> bool:
        return self.type in ("disk", "file")

    def name(self) -> str:
        """The name zpool prints (without -P): last path component, -partN stripped."""
        if self.type == "raidz":
            return f"raidz{self.nparity}-{self.id}"
        if self.type == "draid" and self.draid is not None:
            data, spares = self.draid
            return (f"draid{self.nparity}:{data}d:{len(self.children)}c:{spares}s-"
                    f"{self.id}")
        if self.type in ("mirror", "replacing", "spare", "draid"):
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
    # top-level vdev id -> how much fuller than its share by size (a vdev added late to a
    # filled pool is emptier: < 1); the pool's alloc is spread by size times this weight
    fill_weight: dict[int, float] = field(default_factory=dict)

    @property
    def top(self) -> list[Vdev]:
        return self.root.children

    def is_top(self, v: Vdev) -> bool:
        """`v in self.top`, the same answer (dataclass equality included) without comparing
        whole subtrees: only a top-level vdev with v's guid can be equal to it."""
        tops = self.root.children
        if 0 <= v.id < len(tops) and tops[v.id] is v:  # a top-level vdev's id is its index
            return True
        # the scans below run in C: asked for every vdev, a Python loop over every top-level
        # vdev made a listing cost vdevs x top-level vdevs
        if any(map(operator.is_, tops, repeat(v))):
            return True
        if v.guid not in list(map(attrgetter("guid"), tops)):
            return False
        return any(t.guid == v.guid and t == v for t in tops)

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
        def share(v: Vdev) -> float:
            return v.asize * self.fill_weight.get(v.id, 1.0)

        total = sum(share(v) for v in data) or 1
        return int(self.alloc * share(top) / total)


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


def top_space(min_leaf_psize: int, ms_shift: int, width: int = 1) -> int:
    a = leaf_asize(min_leaf_psize) * width
    return (a >> ms_shift) << ms_shift


def expand_size(top: Vdev) -> int:
    """What `zpool list -v` shows as EXPANDSZ: space every child could give but does not yet."""
    if top.is_log:
        return 0
    leaves = list(top.leaves())
    if not leaves:
        return 0
    grown = top_space(min(leaf.psize for leaf in leaves), top.ms_shift, top.width)
    return max(0, grown - top.asize)


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
        elif v.type in ("raidz", "draid"):
            lost = len(states) - len(ok)
            if lost == 0:
                v.state = "ONLINE"
            elif lost <= v.nparity:
                v.state = "DEGRADED"
            else:
                v.state, v.aux = "CANT_OPEN", "NO_REPLICAS"
        elif v.type == "root":
            if all(s == "ONLINE" for s in states):
                v.state = "ONLINE"
            elif any(s in ("CANT_OPEN", "FAULTED") for s in states):
                v.state = "CANT_OPEN"
            else:
                v.state = "DEGRADED"
        return v.state

    visit(pool.root)


def find_vdev(p: Pool, key: str) -> tuple[Vdev, Vdev | None, str] | None:
    """(vdev, parent, where) for a name, path or guid; where is data, cache or spare."""
    def matches(v: Vdev) -> bool:
        if key == str(v.guid):
            return True
        if not v.is_leaf:
            return key == v.name()
        names = {v.name(), v.path}
        if v.path.endswith("-part1"):
            names.add(v.path[: -len("-part1")])
        if v.path.startswith("/dev/disk/by-id/"):
            names.add(v.path[len("/dev/disk/by-id/"):])
        return key in names

    def search(v: Vdev, parent: Vdev | None) -> tuple[Vdev, Vdev | None] | None:
        if v.type != "root" and matches(v):
            return v, parent
        for c in v.children:
            hit = search(c, v)
            if hit:
                return hit
        return None

    hit = search(p.root, None)
    if hit:
        return hit[0], hit[1], "data"
    for c in p.cache:
        if matches(c):
            return c, None, "cache"
    for s in p.spares:
        if matches(s):
            return s, None, "spare"
    return None


def clear(m: Machine, p: Pool, dev: str | None) -> None:
    targets: list[Vdev]
    if dev is not None:
        hit = find_vdev(p, dev)
        if hit is None:
            raise CmdError(1, f"cannot clear errors for {dev}: no such device in pool")
        targets = list(hit[0].walk())
    else:
        targets = list(p.all_vdevs())
    for v in targets:
        v.read_errors = v.write_errors = v.checksum_errors = 0
        if v.is_leaf and v.state == "FAULTED" and not v.not_present:
            v.state, v.aux = "ONLINE", None
    p.data_errors = 0
    recompute_states(p)


BOOL_POOL_PROPS = {"autoexpand", "autoreplace", "autotrim", "listsnapshots", "delegation",
                   "multihost", "readonly"}


RO_POOL_PROPS = {"size", "capacity", "health", "guid", "free", "allocated", "expandsize",
                 "freeing", "fragmentation", "leaked", "dedupratio", "checkpoint", "load_guid",
                 "bcloneused", "bclonesaved", "bcloneratio", "dedup_table_size",
                 "dedupcached", "last_scrubbed_txg", "name"}


def zpool_set(m: Machine, p: Pool, prop: str, val: str) -> None:
    err = f"cannot set property for '{p.name}'"
    if prop in RO_POOL_PROPS:
        raise CmdError(1, f"{err}: '{prop}' is readonly")
    if prop in BOOL_POOL_PROPS:
        if val not in ("on", "off"):
            raise CmdError(1, f"{err}: '{prop}' must be one of 'on | off'")
    elif prop == "failmode":
        if val not in ("wait", "continue", "panic"):
            raise CmdError(1, f"{err}: 'failmode' must be one of 'wait | continue | panic'")
    elif prop not in ("comment", "cachefile", "bootfs", "compatibility", "ashift",
                      "dedup_table_quota", "altroot") and not prop.startswith("feature@") \
            and ":" not in prop:
        raise CmdError(1, f"{err}: invalid property '{prop}'")
    p.props[prop] = val
