"""What each block device is: zpool's names for it, and what each disk is used for.

zpool leaf names and paths (`vdb`, `/dev/vdb1`, `ata-XXX`, `ata-XXX-part1`,
`/dev/disk/by-id/...`, `wwn-...`) are mapped to the whole disk, and every disk is classified:
in pool P, in use elsewhere (mounted, swap, md/dm member, a ZFS label of another pool),
holding data nobody uses, or free and clean. loop/zram/ram/optical/zvol and the stacked
dm/md devices themselves are ignored unless a pool uses them. The devices themselves are read
by `inventory`; `InventoryCache` re-reads them only when the set of block devices changed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import Enum
from typing import NamedTuple

from zconsole.hosts.base import Host, HostError, HostUnreachable
from zconsole.model.disk import Disk
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskInventory, DiskRole, DiskState
from zconsole.services.read import catalogue
from zconsole.services.read.inventory import PART_SUFFIX, proc_mounts, read_inventory

IGNORED_KINDS = frozenset({"loop", "rom", "zvol", "dm", "md", "other"})
_IGNORED_NAMES = re.compile(r"^(loop|zram|ram|sr|fd)\d")
_PART_NAME = re.compile(r"^(?P<base>(?:sd|vd|xvd|hd)[a-z]+)\d+$"
                        r"|^(?P<pbase>(?:nvme\d+n\d+|mmcblk\d+|nbd\d+|loop\d+))p\d+$")
_DEV_PREFIXES = ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-vdev/", "/dev/")
# Filesystem signatures that mean "a member of something else" rather than data.
SIGNATURES = {
    "zfs_member": "a ZFS label",
    "linux_raid_member": "an md RAID member signature",
    "LVM2_member": "an LVM physical volume",
    "crypto_LUKS": "a LUKS header",
    "swap": "a swap signature",
}


class ZfsLabel(Enum):
    """What the ZFS label on a device outside every imported pool's vdev tree names."""

    STALE = "stale"  # a pool imported here: the device is no longer in its tree
    FOREIGN = "foreign"  # a pool not imported here: exported, destroyed or another machine's
    UNCHECKED = "unchecked"  # a pool, but which pools are imported could not be read
    NAMELESS = "nameless"  # no pool name


def zfs_label(dev: Disk, imported: set[str], pools_known: bool = True) -> ZfsLabel | None:
    """The kind of ZFS label on `dev` (not in any imported pool's tree), None without one."""
    if dev.fs_type != "zfs_member":
        return None
    if not dev.fs_label:
        return ZfsLabel.NAMELESS
    if dev.fs_label in imported:
        return ZfsLabel.STALE
    return ZfsLabel.FOREIGN if pools_known else ZfsLabel.UNCHECKED


_LABEL_REASONS = {
    ZfsLabel.STALE: "{dev} holds a ZFS label of pool {pool}, but is not in its vdev tree "
                    "(stale label?)",
    ZfsLabel.FOREIGN: "{dev} holds a ZFS label of pool {pool} (not imported here)",
    ZfsLabel.UNCHECKED: "{dev} holds a ZFS label of pool {pool} (pool membership could not "
                        "be checked)",
    ZfsLabel.NAMELESS: "{dev} holds a ZFS label",
}


def collect_inventory(
    host: Host,
    *,
    pools: Sequence[Pool] | None = None,
    timeout: float = 30.0,
) -> DiskInventory:
    """Every block device with identity (`inventory.read_inventory`), then each disk's role.

    `pools=None` means pool membership is unknown (zpool status failed or ZFS absent): no
    disk is called IN_POOL then, and a note says so. Raises HostError only when no source
    at all could list the block devices (HostUnreachable, ssh's reason, when the host could
    not be reached).
    """
    return with_roles(read_inventory(host, timeout=timeout), pools)


# --- mapping zpool names to disks -------------------------------------------------------------

class DiskIndex:
    """Find a device from any name zpool may print for it."""

    def __init__(self, devices: Iterable[Disk]) -> None:
        self.devices: dict[str, Disk] = {}
        self._alias: dict[str, str] = {}
        self._leaves: dict[tuple[str | None, str], Disk | None] = {}
        for d in devices:
            self.devices[d.name] = d
        for d in self.devices.values():
            for alias in (*d.by_id, *d.by_path):
                self._alias.setdefault(alias, d.name)
            if d.wwn and d.kind == "disk":
                self._alias.setdefault(d.wwn, d.name)

    def find(self, ref: str) -> Disk | None:
        """The device `ref` names (a partition stays a partition), or None."""
        name = ref.strip()
        for prefix in _DEV_PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix):]
                break
        if name in self.devices:
            return self.devices[name]
        if name in self._alias:
            return self.devices[self._alias[name]]
        m = PART_SUFFIX.match(name)
        if m:  # ata-XXX-part1 when only the whole-disk link is known
            return self.find(m.group("base"))
        m = _PART_NAME.match(name)
        if m:  # vdb1 when the partition is not in the inventory
            return self.devices.get(m.group("base") or m.group("pbase"))
        return None

    def whole(self, ref: str) -> Disk | None:
        """The whole disk under `ref`: partitions map to their disk; other kinds stay."""
        d = self.find(ref)
        seen: set[str] = set()
        while d is not None and d.kind == "part" and d.parent and d.name not in seen:
            seen.add(d.name)
            parent = self.devices.get(d.parent)
            if parent is None:
                break
            d = parent
        return d

    def leaf_disk(self, leaf: Vdev) -> Disk | None:
        """The whole disk under a zpool leaf: its path first, then its name (remembered per
        path and name: a refresh asks for every leaf from several places)."""
        key = (leaf.path, leaf.name)
        if key in self._leaves:
            return self._leaves[key]
        found = None
        for ref in key:
            if ref:
                found = self.whole(ref)
                if found is not None:
                    break
        self._leaves[key] = found
        return found

    def leaf_disk_name(self, pool: str, leaf: Vdev) -> str | None:
        """For sampling.leaf_samples / Sampler.tick (the pool name is not needed here)."""
        d = self.leaf_disk(leaf)
        return d.name if d is not None else None

    def underlying_disks(self, name: str) -> list[Disk]:
        """Whole disks below a stacked device (dm/md), through parent links."""
        out: list[Disk] = []
        for d in self.devices.values():
            if name in d.holders:
                w = self.whole(d.name)
                if w is not None and w.kind == "disk" and w not in out:
                    out.append(w)
                elif w is not None and w.kind in ("dm", "md"):
                    out.extend(x for x in self.underlying_disks(w.name) if x not in out)
        return out


# --- classification ---------------------------------------------------------------------------

class _Membership(NamedTuple):
    """Where a disk sits in a pool: pool, section, vdev path, leaf (and by which name)."""

    pool: str
    section: Section
    path: tuple[str, ...]
    leaf: str
    via: str | None = None


def pool_members(inv: DiskInventory, pools: Sequence[Pool]) -> dict[str, list[_Membership]]:
    """whole disk name -> where pools use it."""
    index = DiskIndex(inv.devices)
    out: dict[str, list[_Membership]] = {}
    for pool in pools:
        for section, path, leaf in pool.leaf_paths():
            d = index.leaf_disk(leaf)
            if d is None:
                continue
            if d.kind in ("dm", "md"):
                out.setdefault(d.name, []).append(
                    _Membership(pool.name, section, path, leaf.name))
                for w in index.underlying_disks(d.name):
                    out.setdefault(w.name, []).append(
                        _Membership(pool.name, section, path, leaf.name, via=d.name))
            else:
                out.setdefault(d.name, []).append(
                    _Membership(pool.name, section, path, leaf.name))
    return out


def disk_and_partitions(disk: Disk, inv: DiskInventory) -> list[Disk]:
    """The disk, then each of its partitions the inventory knows."""
    return [disk] + [p for n in disk.partitions if (p := inv.device(n)) is not None]


def busy_reasons(label: str, dev: Disk, inv: DiskInventory) -> list[str]:
    """Why the running system uses `dev` (called `label`): swap, mounts, holders."""
    out = [f"{label} is active swap" if mp == "[SWAP]" else f"{label} is mounted at {mp}"
           for mp in dev.mountpoints]
    for h in dev.holders:
        holder = inv.device(h)
        what = {"md": f"an md RAID member ({h})", "dm": f"under device-mapper ({h})"}.get(
            holder.kind if holder else "", f"held by {h}")
        out.append(f"{label} is {what}")
    return out


def device_uses(disk: Disk, inv: DiskInventory) -> Iterator[tuple[str, Disk, list[str]]]:
    """Each device of `disk` (the disk, then its partitions) with the name a sentence gives
    it ("the disk", or the partition's) and why the running system uses it (`busy_reasons`)."""
    for dev in disk_and_partitions(disk, inv):
        label = "the disk" if dev is disk else dev.name
        yield label, dev, busy_reasons(label, dev, inv)


def _in_use_reasons(disk: Disk, inv: DiskInventory, imported: set[str],
                    pools_known: bool) -> tuple[list[str], list[str]]:
    """(in-use reasons, has-data reasons) for a disk not in any imported pool."""
    in_use: list[str] = []
    data: list[str] = []
    for label, dev, busy in device_uses(disk, inv):
        in_use += busy
        fs = dev.fs_type
        kind = zfs_label(dev, imported, pools_known)
        if kind is not None:
            in_use.append(_LABEL_REASONS[kind].format(dev=label, pool=dev.fs_label))
        elif fs and not dev.mountpoints and not dev.holders:
            what = SIGNATURES.get(fs, f"a filesystem ({fs})")
            data.append(f"{label} holds {what}, not in use")
    if disk.partitions:
        data.append("has partitions " + ", ".join(disk.partitions))
    return in_use, data


def _where(m: _Membership) -> str:
    inside = [m.section.value] if m.section is not Section.DATA else []
    inside += list(m.path[:-1])
    place = f"{m.pool} ({'/'.join(inside)})" if inside else m.pool
    if m.via is None:
        return f"{m.leaf} in {place}"
    if m.via == m.leaf:
        return f"{m.via} on this disk is in {place}"
    return f"{m.via} on this disk is {m.leaf} in {place}"


def classify(inv: DiskInventory, pools: Sequence[Pool] | None) -> tuple[DiskRole, ...]:
    """One role per whole disk (and per stacked device a pool uses directly)."""
    membership = pool_members(inv, pools) if pools is not None else {}
    imported = {p.name for p in pools or ()}
    roles: list[DiskRole] = []
    for d in inv.devices:
        if d.kind == "part":
            continue
        where = membership.get(d.name)
        if where:
            m = where[0]
            reasons = [_where(x) for x in where]
            roles.append(DiskRole(d.name, DiskState.IN_POOL, tuple(reasons), m.pool,
                                  m.section, m.path, m.leaf))
            continue
        if d.kind in IGNORED_KINDS or _IGNORED_NAMES.match(d.name):
            roles.append(DiskRole(d.name, DiskState.IGNORED, (f"{d.kind} device",)))
            continue
        in_use, data = _in_use_reasons(d, inv, imported, pools is not None)
        if in_use:
            roles.append(DiskRole(d.name, DiskState.IN_USE, tuple(in_use)))
        elif data:
            roles.append(DiskRole(d.name, DiskState.HAS_DATA, tuple(data)))
        else:
            reasons = ["no partitions, no filesystem signature, not mounted, no holders"]
            if pools is None:
                reasons.append("pool membership could not be checked")
            roles.append(DiskRole(d.name, DiskState.FREE, tuple(reasons)))
    return tuple(roles)


UNKNOWN_MEMBERSHIP = "pool membership unknown: zpool status was not read"


def with_roles(inv: DiskInventory, pools: Sequence[Pool] | None) -> DiskInventory:
    """The same devices judged against `pools` (None: membership unknown)."""
    notes = [n for n in inv.notes if n != UNKNOWN_MEMBERSHIP]
    if pools is None:
        notes.append(UNKNOWN_MEMBERSHIP)
    return inv._replace(roles=classify(inv, pools), notes=tuple(notes))


def with_mounts(inv: DiskInventory, mounts: Mapping[str, list[str]]) -> DiskInventory:
    """The devices with the mountpoints (and active swap) /proc adds since the full read.

    Only ever adds: /proc names a device-mapper volume by its /dev/mapper name while the
    inventory knows it as dm-N, so a mountpoint missing from /proc is not proof of an
    unmount. Showing a disk as still in use until the next full read is the safe mistake;
    showing a mounted disk as free is not.
    """
    def merged(d: Disk) -> Disk:
        extra = [m for m in mounts.get(d.name, ()) if m not in d.mountpoints]
        return dataclasses.replace(d, mountpoints=(*d.mountpoints, *extra)) if extra else d

    devices = tuple(merged(d) for d in inv.devices)
    if all(a is b for a, b in zip(devices, inv.devices, strict=True)):
        return inv  # nothing new mounted: the same inventory (its roles can be kept)
    return inv._replace(devices=devices)


class InventoryCache:
    """Disk identity read in full only when the set of block devices changed.

    Identity (serial, model, by-id links, sizes, sector sizes) changes only when a device
    comes or goes, so a refresh lists /sys/class/block (one directory read) and re-reads the
    whole inventory (lsblk, udev, sysfs) only when that listing differs from the last one, or
    when asked (`force`: the operator pressed r). What does change without hot-plug is read
    every time: mountpoints and swap (/proc/mounts, /proc/swaps) and, through the pools, each
    disk's role. A disk pulled mid-run disappears at the next refresh.

    `full_reads` counts the full inventory reads (tests and the bench look at it).
    """

    def __init__(self) -> None:
        self.fingerprint: tuple[str, ...] | None = None
        self.inventory: DiskInventory | None = None
        self.full_reads = 0

    def read(self, host: Host, *, timeout: float, force: bool = False) -> DiskInventory:
        """The inventory without roles (see `with_roles`); raises HostError like
        `collect_inventory` when no source can list the devices, HostUnreachable when the
        host cannot be reached (its reason, not a second try through the full read)."""
        try:
            listing: tuple[str, ...] | None = tuple(sorted(
                host.list_dir(catalogue.SYS_CLASS_BLOCK)))
        except HostUnreachable:
            raise
        except HostError:
            listing = None  # no sysfs: nothing to compare with, read in full
        if force or listing is None or listing != self.fingerprint or self.inventory is None:
            self.inventory = collect_inventory(host, pools=None, timeout=timeout)
            self.fingerprint = listing
            self.full_reads += 1
            return self.inventory
        return with_mounts(self.inventory, proc_mounts(host))
