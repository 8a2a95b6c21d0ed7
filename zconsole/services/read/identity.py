"""Disk identity for every block device, and what each disk is used for.

Sources, best first:
1. `host.udev_properties(name)` (pyudev on the local machine: no command at all);
2. `udevadm info --export-db` (remote and demo hosts: one command for every device);
3. sysfs when there is no udev database (containers, minimal initramfs):
   /sys/class/block/NAME/{size (512-byte sectors), partition, queue/rotational of the whole
   disk, queue/logical_block_size, queue/physical_block_size, holders/}, the parent of a
   partition from the realpath's parent directory, by-id names from /dev/disk/by-id links.
`lsblk -J -b` adds sizes, parents/holders (one command), filesystems and mountpoints.

Then zpool leaf names and paths (`vdb`, `/dev/vdb1`, `ata-XXX`, `ata-XXX-part1`,
`/dev/disk/by-id/...`, `wwn-...`) are mapped to the whole disk, and every disk is classified:
in pool P, in use elsewhere (mounted, swap, md/dm member, a ZFS label of another pool),
holding data nobody uses, or free and clean. loop/zram/ram/optical/zvol and the stacked
dm/md devices themselves are ignored unless a pool uses them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.model.disk import Disk
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskInventory, DiskRole, DiskState
from zconsole.parsers.blockdev import disk_from_udev, parse_lsblk_json, parse_udev_export_db
from zconsole.parsers.errors import ParseError
from zconsole.services.read import catalogue

IGNORED_KINDS = frozenset({"loop", "rom", "zvol", "dm", "md", "other"})
_IGNORED_NAMES = re.compile(r"^(loop|zram|ram|sr|fd)\d")
_PART_SUFFIX = re.compile(r"^(?P<base>.+)-part\d+$")
_PART_NAME = re.compile(r"^(?P<base>(?:sd|vd|xvd|hd)[a-z]+)\d+$"
                        r"|^(?P<pbase>(?:nvme\d+n\d+|mmcblk\d+|nbd\d+|loop\d+))p\d+$")
_DEV_PREFIXES = ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-vdev/", "/dev/")
# Filesystem signatures that mean "a member of something else" rather than data.
_MEMBER_TYPES = {
    "zfs_member": "a ZFS label",
    "linux_raid_member": "an md RAID member signature",
    "LVM2_member": "an LVM physical volume",
    "crypto_LUKS": "a LUKS header",
    "swap": "a swap signature",
}


# --- collecting -------------------------------------------------------------------------------

def _sysfs_int(host: Host, path: str) -> int | None:
    try:
        text = host.read_text(path).strip()
    except HostError:
        return None
    return int(text) if text.isdigit() else None


def _sysfs_str(host: Host, path: str) -> str | None:
    try:
        text = host.read_text(path).strip()
    except HostError:
        return None
    return text or None


def _kind_from_name(name: str, is_partition: bool) -> str:
    if is_partition:
        return "part"
    for prefix, kind in (("loop", "loop"), ("dm-", "dm"), ("md", "md"), ("zd", "zvol"),
                         ("sr", "rom"), ("zram", "other"), ("ram", "other")):
        if name.startswith(prefix) and name[len(prefix):len(prefix) + 1].isdigit():
            return kind
    return "disk"


def _links(host: Host, directory: str) -> dict[str, list[str]]:
    """kernel name -> link names in /dev/disk/by-id (or by-path), through realpath."""
    out: dict[str, list[str]] = {}
    try:
        names = host.list_dir(directory)
    except HostError:
        return out
    for link in names:
        try:
            target = host.realpath(f"{directory}/{link}")
        except HostError:
            continue
        out.setdefault(target.rstrip("/").rsplit("/", 1)[-1], []).append(link)
    return out


def _sysfs_disk(host: Host, name: str, by_id: Mapping[str, list[str]],
                by_path: Mapping[str, list[str]]) -> Disk:
    """Everything sysfs tells about one device (used when there is no udev database)."""
    base = f"{catalogue.SYS_CLASS_BLOCK}/{name}"
    is_part = _sysfs_str(host, f"{base}/partition") is not None
    parent: str | None = None
    if is_part:
        real = host.realpath(base).rstrip("/")
        parent = real.rsplit("/", 2)[-2] if real.count("/") >= 2 else None
    whole = f"{catalogue.SYS_CLASS_BLOCK}/{parent}" if parent else base
    rot = _sysfs_int(host, f"{whole}/queue/rotational")
    try:
        holders = tuple(host.list_dir(f"{base}/holders"))
    except HostError:
        holders = ()
    size = _sysfs_int(host, f"{base}/size")
    ids = [i for i in by_id.get(name, []) if is_part or not _PART_SUFFIX.match(i)]
    return Disk(
        name=name,
        devpath=base,
        kind=_kind_from_name(name, is_part),
        size_bytes=size * 512 if size is not None else None,
        by_id=tuple(sorted(ids)),
        by_path=tuple(sorted(by_path.get(name, []))),
        serial=_sysfs_str(host, f"{whole}/device/serial") or _sysfs_str(host, f"{whole}/serial"),
        model=_sysfs_str(host, f"{whole}/device/model"),
        vendor=_sysfs_str(host, f"{whole}/device/vendor"),
        wwn=_sysfs_str(host, f"{whole}/wwid") or _sysfs_str(host, f"{whole}/device/wwid"),
        rotational=None if rot is None else rot == 1,
        logical_sector=_sysfs_int(host, f"{whole}/queue/logical_block_size"),
        physical_sector=_sysfs_int(host, f"{whole}/queue/physical_block_size"),
        parent=parent,
        holders=holders,
    )


def _merge(primary: Disk, extra: Disk | None) -> Disk:
    """Fill what `primary` lacks from `extra` (lsblk): sizes, tree links, mounts, filesystem."""
    if extra is None:
        return primary
    return dataclasses.replace(
        primary,
        kind=extra.kind if primary.kind in ("other", "disk") and extra.kind not in
        ("other", "disk", "part") else primary.kind,
        size_bytes=primary.size_bytes if primary.size_bytes is not None else extra.size_bytes,
        serial=primary.serial or extra.serial,
        model=primary.model or extra.model,
        vendor=primary.vendor or extra.vendor,
        wwn=primary.wwn or extra.wwn,
        rotational=primary.rotational if primary.rotational is not None else extra.rotational,
        logical_sector=primary.logical_sector or extra.logical_sector,
        physical_sector=primary.physical_sector or extra.physical_sector,
        parent=primary.parent or extra.parent,
        partitions=primary.partitions or extra.partitions,
        fs_type=primary.fs_type or extra.fs_type,
        fs_label=primary.fs_label or extra.fs_label,
        holders=primary.holders or extra.holders,
        mountpoints=primary.mountpoints or extra.mountpoints,
        transport=extra.transport or primary.transport,
    )


def _proc_mounts(host: Host) -> dict[str, list[str]]:
    """kernel name -> mountpoints from /proc/mounts and /proc/swaps (fallback without lsblk)."""
    out: dict[str, list[str]] = {}
    for path, col in (("/proc/mounts", 1), ("/proc/swaps", None)):
        try:
            text = host.read_text(path)
        except HostError:
            continue
        for line in text.splitlines():
            parts = line.split()
            if not parts or not parts[0].startswith("/dev/"):
                continue
            name = parts[0].rsplit("/", 1)[-1]
            out.setdefault(name, []).append(parts[col] if col is not None and
                                            len(parts) > col else "[SWAP]")
    return out


def _link_tree(devices: dict[str, Disk]) -> dict[str, Disk]:
    """Fill partitions of whole disks from partitions' parent links."""
    parts: dict[str, list[str]] = {}
    for d in devices.values():
        if d.kind == "part" and d.parent:
            parts.setdefault(d.parent, []).append(d.name)
    out = {}
    for name, d in devices.items():
        if not d.partitions and name in parts:
            d = dataclasses.replace(d, partitions=tuple(sorted(parts[name])))
        out[name] = d
    return out


def _read_lsblk(host: Host, timeout: float, notes: list[str]) -> dict[str, Disk]:
    try:
        r = host.run(catalogue.lsblk_json(), timeout=timeout)
        return {d.name: d for d in parse_lsblk_json(r.stdout)}
    except (HostError, ParseError) as e:
        notes.append(f"lsblk unavailable ({e}); no mountpoints or filesystem types from it")
        return {}


def _read_udev(host: Host, names: Sequence[str], timeout: float, notes: list[str]
               ) -> tuple[dict[str, Mapping[str, str]], str]:
    """udev properties per device and where they came from ("pyudev", "udevadm" or "")."""
    first = host.udev_properties(names[0]) if names else None
    if first is not None:
        udev: dict[str, Mapping[str, str]] = {names[0]: first}
        for name in names[1:]:
            props = host.udev_properties(name)
            if props is not None:
                udev[name] = props
        return udev, "pyudev"
    try:
        r = host.run(catalogue.udevadm_export_db(), timeout=timeout)
        udev = dict(parse_udev_export_db(r.stdout))
    except (HostError, ParseError) as e:
        notes.append(f"no udev database ({e}); identity from sysfs")
        return {}, ""
    if not udev:
        notes.append("the udev database is empty; identity from sysfs")
    return udev, "udevadm" if udev else ""


@dataclass
class _Sources:
    """What each source said about the block devices, for one inventory."""

    sys_names: list[str] | None
    lsblk: dict[str, Disk]
    udev: dict[str, Mapping[str, str]]
    by_id: dict[str, list[str]]
    by_path: dict[str, list[str]]
    mounts: dict[str, list[str]]


def _device(host: Host, name: str, src: _Sources) -> tuple[Disk | None, str]:
    """One device from the best source that knows it, and that source's name for the
    inventory ("" when udev had it: the inventory's source is already set)."""
    base = src.lsblk.get(name)
    props = src.udev.get(name)
    if props is not None:
        size = base.size_bytes // 512 if base and base.size_bytes is not None else None
        disk = disk_from_udev(
            name, props, size_sectors=size,
            rotational=base.rotational if base else None,
            logical_sector=base.logical_sector if base else None,
            physical_sector=base.physical_sector if base else None)
        if base is None and src.sys_names is not None:
            disk = _merge(disk, _sysfs_disk(host, name, {}, {}))
        return _merge(disk, base), ""
    if src.sys_names is not None:
        return _merge(_sysfs_disk(host, name, src.by_id, src.by_path), base), "sysfs"
    if base is not None:
        return base, "lsblk"
    return None, ""


def collect_inventory(
    host: Host,
    *,
    pools: Sequence[Pool] | None = None,
    timeout: float = 30.0,
) -> DiskInventory:
    """Every block device with identity, then each disk's role.

    `pools=None` means pool membership is unknown (zpool status failed or ZFS absent): no
    disk is called IN_POOL then, and a note says so. Raises HostError only when no source
    at all could list the block devices.
    """
    notes: list[str] = []
    sys_names: list[str] | None
    try:
        sys_names = host.list_dir(catalogue.SYS_CLASS_BLOCK)
    except HostError:
        sys_names = None
    lsblk = _read_lsblk(host, timeout, notes)
    names: list[str] = list(sys_names or lsblk)
    udev, source = _read_udev(host, names, timeout, notes)
    if not names:
        names = list(udev)
    if not names:
        raise HostError("cannot list block devices: /sys/class/block, lsblk and udevadm "
                        "all failed")
    src = _Sources(sys_names, lsblk, udev,
                   by_id=_links(host, catalogue.DISK_BY_ID) if not udev else {},
                   by_path=_links(host, catalogue.DISK_BY_PATH) if not udev else {},
                   mounts=_proc_mounts(host) if not lsblk else {})
    devices: dict[str, Disk] = {}
    for name in names:
        disk, from_source = _device(host, name, src)
        if disk is None:
            continue
        source = source or from_source
        if name in src.mounts and not disk.mountpoints:
            disk = dataclasses.replace(disk, mountpoints=tuple(src.mounts[name]))
        devices[name] = disk
    devices = _link_tree(devices)
    inv = DiskInventory(devices=tuple(devices.values()), source=source or "sysfs",
                        notes=tuple(notes))
    roles = classify(inv, pools)
    if pools is None:
        notes.append("pool membership unknown: zpool status was not read")
    return dataclasses.replace(inv, roles=roles, notes=tuple(notes))


# --- mapping zpool names to disks -------------------------------------------------------------

class DiskIndex:
    """Find a device from any name zpool may print for it."""

    def __init__(self, devices: Iterable[Disk]) -> None:
        self.devices: dict[str, Disk] = {}
        self._alias: dict[str, str] = {}
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
        m = _PART_SUFFIX.match(name)
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
        """The whole disk under a zpool leaf: its path first, then its name."""
        for ref in (leaf.path, leaf.name):
            if ref:
                d = self.whole(ref)
                if d is not None:
                    return d
        return None

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

@dataclasses.dataclass(frozen=True)
class _Membership:
    pool: str
    section: Section
    path: tuple[str, ...]
    leaf: str
    via: str | None = None


def _leaves_with_paths(pool: Pool) -> list[tuple[Section, tuple[str, ...], Vdev]]:
    out: list[tuple[Section, tuple[str, ...], Vdev]] = []

    def visit(section: Section, v: Vdev, path: tuple[str, ...]) -> None:
        here = (*path, v.name)
        if not v.children:
            out.append((section, here, v))
        for c in v.children:
            visit(section, c, here)

    for section in Section:
        for top in pool.section(section):
            visit(section, top, ())
    return out


def pool_members(inv: DiskInventory, pools: Sequence[Pool]) -> dict[str, list[_Membership]]:
    """whole disk name -> where pools use it."""
    index = DiskIndex(inv.devices)
    out: dict[str, list[_Membership]] = {}
    for pool in pools:
        for section, path, leaf in _leaves_with_paths(pool):
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


def _in_use_reasons(disk: Disk, inv: DiskInventory, imported: set[str],
                    pools_known: bool) -> tuple[list[str], list[str]]:
    """(in-use reasons, has-data reasons) for a disk not in any imported pool."""
    in_use: list[str] = []
    data: list[str] = []
    members = [disk] + [p for n in disk.partitions if (p := inv.device(n)) is not None]
    for dev in members:
        label = "the disk" if dev is disk else dev.name
        for mp in dev.mountpoints:
            if mp == "[SWAP]":
                in_use.append(f"{label} is active swap")
            else:
                in_use.append(f"{label} is mounted at {mp}")
        for h in dev.holders:
            holder = inv.device(h)
            what = {"md": f"an md RAID member ({h})", "dm": f"under device-mapper ({h})"}.get(
                holder.kind if holder else "", f"held by {h}")
            in_use.append(f"{label} is {what}")
        fs = dev.fs_type
        if fs == "zfs_member":
            pool = dev.fs_label
            if pool and pool in imported:
                in_use.append(f"{label} holds a ZFS label of pool {pool}, but is not in its "
                              "vdev tree (stale label?)")
            elif pool:
                in_use.append(f"{label} holds a ZFS label of pool {pool} "
                              + ("(not imported here)" if pools_known else
                                 "(pool membership could not be checked)"))
            else:
                in_use.append(f"{label} holds a ZFS label")
        elif fs and not dev.mountpoints and not dev.holders:
            what = _MEMBER_TYPES.get(fs, f"a filesystem ({fs})")
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
    return dataclasses.replace(inv, roles=classify(inv, pools), notes=tuple(notes))


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

    return dataclasses.replace(inv, devices=tuple(merged(d) for d in inv.devices))


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
        `collect_inventory` when no source can list the devices."""
        try:
            listing: tuple[str, ...] | None = tuple(sorted(
                host.list_dir(catalogue.SYS_CLASS_BLOCK)))
        except HostError:
            listing = None  # no sysfs: nothing to compare with, read in full
        if force or listing is None or listing != self.fingerprint or self.inventory is None:
            self.inventory = collect_inventory(host, pools=None, timeout=timeout)
            self.fingerprint = listing
            self.full_reads += 1
            return self.inventory
        return with_mounts(self.inventory, _proc_mounts(host))
