"""Every block device with its identity, read from the host.

Sources, best first:
1. `host.udev_properties(name)` (pyudev on the local machine: no command at all);
2. `udevadm info --export-db` (remote and demo hosts: one command for every device);
3. sysfs when there is no udev database (containers, minimal initramfs):
   /sys/class/block/NAME/{size (512-byte sectors), partition, queue/rotational of the whole
   disk, queue/logical_block_size, queue/physical_block_size, holders/}, the parent of a
   partition from the realpath's parent directory, by-id names from /dev/disk/by-id links.
`lsblk -J -b` adds sizes, parents/holders (one command), filesystems and mountpoints.

What each disk is used for is judged in `identity` (which also keeps the inventory cache).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host, HostError, list_or_empty
from zconsole.model.disk import Disk
from zconsole.model.reading import DiskInventory
from zconsole.parsers.blockdev import disk_from_udev, parse_lsblk_json, parse_udev_export_db
from zconsole.parsers.errors import ParseError
from zconsole.services.read import catalogue

# `ata-XXX-part1`: a by-id name of a partition (the whole disk is `ata-XXX`).
PART_SUFFIX = re.compile(r"^(?P<base>.+)-part\d+$")


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
    for link in list_or_empty(host, directory):
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
    holders = tuple(list_or_empty(host, f"{base}/holders"))
    size = _sysfs_int(host, f"{base}/size")
    ids = [i for i in by_id.get(name, []) if is_part or not PART_SUFFIX.match(i)]
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


def proc_mounts(host: Host) -> dict[str, list[str]]:
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


class _Sources:
    """What each source said about the block devices, for one inventory. A plain class: a
    dataclass costs ~1 ms to make on Python 3.10, on the first frame (issue 28)."""

    __slots__ = ("by_id", "by_path", "lsblk", "mounts", "sys_names", "udev")

    def __init__(self, sys_names: list[str] | None, lsblk: dict[str, Disk],
                 udev: dict[str, Mapping[str, str]], by_id: dict[str, list[str]],
                 by_path: dict[str, list[str]], mounts: dict[str, list[str]]) -> None:
        self.sys_names, self.lsblk, self.udev = sys_names, lsblk, udev
        self.by_id, self.by_path, self.mounts = by_id, by_path, mounts


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


def read_inventory(host: Host, *, timeout: float = 30.0) -> DiskInventory:
    """Every block device with identity, without roles (`identity.collect_inventory` adds
    them). Raises HostError only when no source at all could list the block devices."""
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
                   mounts=proc_mounts(host) if not lsblk else {})
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
    return DiskInventory(devices=tuple(devices.values()), source=source or "sysfs",
                         notes=tuple(notes))
