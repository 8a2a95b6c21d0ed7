"""Every block device with its identity, read from the host.

Sources, best first:
1. `host.udev_properties(name)` (pyudev on the local machine: no command at all);
2. `udevadm info --export-db` (remote and demo hosts: one command for every device);
3. sysfs when there is no udev database (containers, minimal initramfs):
   /sys/class/block/NAME/{size (512-byte sectors), partition, queue/rotational of the whole
   disk, queue/logical_block_size, queue/physical_block_size, holders/}, the parent of a
   partition from the realpath's parent directory, by-id names from /dev/disk/by-id links.
`lsblk -J -b` adds sizes, parents/holders (one command), filesystems and mountpoints.

A host that cannot be reached ends the inventory at the first source that finds so, with that
HostUnreachable (ssh's own reason, issue 32): the other sources would go over the same ssh and
fail the same way, each after its own wait, and "every source failed" would hide why.

What each disk is used for is judged in `identity` (which also keeps the inventory cache).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

from zconsole.hosts import batch
from zconsole.hosts.base import Host, HostError, HostUnreachable, list_or_empty
from zconsole.model.disk import Disk
from zconsole.model.reading import DiskInventory
from zconsole.parsers.blockdev import disk_from_udev, parse_lsblk_json, parse_udev_export_db
from zconsole.parsers.errors import ParseError
from zconsole.services.read import catalogue

# `ata-XXX-part1`: a by-id name of a partition (the whole disk is `ata-XXX`).
PART_SUFFIX = re.compile(r"^(?P<base>.+)-part\d+$")


# What sysfs tells of a device (/sys/class/block/NAME/...): read for every device at once
# (hosts/batch.py: one command over SSH, not one per file).
SYSFS_ATTRS = ("partition", "size", "queue/rotational", "queue/logical_block_size",
               "queue/physical_block_size", "device/serial", "serial", "device/model",
               "device/vendor", "wwid", "device/wwid")


class _Sysfs:
    """The sysfs attributes read for some devices: text (stripped, None when absent or
    empty) and integer values by device name and attribute."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts

    def text(self, name: str, attr: str) -> str | None:
        got = self._texts.get(f"{catalogue.SYS_CLASS_BLOCK}/{name}/{attr}", "").strip()
        return got or None

    def int(self, name: str, attr: str) -> int | None:
        got = self.text(name, attr)
        return int(got) if got is not None and got.isdigit() else None


def _read_sysfs(host: Host, names: Sequence[str]) -> _Sysfs:
    return _Sysfs(batch.read_texts(host, [f"{catalogue.SYS_CLASS_BLOCK}/{n}/{a}"
                                          for n in names for a in SYSFS_ATTRS]))


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


def _sysfs_disks(host: Host, names: Sequence[str], by_id: Mapping[str, list[str]],
                 by_path: Mapping[str, list[str]]) -> dict[str, Disk]:
    """Everything sysfs tells about these devices (used when there is no udev database, and
    for the devices udev knows and lsblk does not list): their attributes and holders in a
    command each over SSH, a partition's parent from its realpath (one each: partitions lsblk
    does not list are rare), and what a partition takes from its whole disk."""
    sysfs = _read_sysfs(host, names)
    holders = batch.list_dirs(host, [f"{catalogue.SYS_CLASS_BLOCK}/{n}/holders"
                                      for n in names])
    parents: dict[str, str | None] = {}
    for name in names:
        if sysfs.text(name, "partition") is not None:
            real = host.realpath(f"{catalogue.SYS_CLASS_BLOCK}/{name}").rstrip("/")
            parents[name] = real.rsplit("/", 2)[-2] if real.count("/") >= 2 else None
    more = sorted({p for p in parents.values() if p is not None} - set(names))
    whole_sysfs = _read_sysfs(host, more) if more else sysfs
    out: dict[str, Disk] = {}
    for name in names:
        parent = parents.get(name)
        whole, ws = (parent, (whole_sysfs if parent in more else sysfs)) if parent \
            else (name, sysfs)
        rot = ws.int(whole, "queue/rotational")
        size = sysfs.int(name, "size")
        is_part = name in parents
        ids = [i for i in by_id.get(name, []) if is_part or not PART_SUFFIX.match(i)]
        out[name] = Disk(
            name=name,
            devpath=f"{catalogue.SYS_CLASS_BLOCK}/{name}",
            kind=_kind_from_name(name, is_part),
            size_bytes=size * 512 if size is not None else None,
            by_id=tuple(sorted(ids)),
            by_path=tuple(sorted(by_path.get(name, []))),
            serial=ws.text(whole, "device/serial") or ws.text(whole, "serial"),
            model=ws.text(whole, "device/model"),
            vendor=ws.text(whole, "device/vendor"),
            wwn=ws.text(whole, "wwid") or ws.text(whole, "device/wwid"),
            rotational=None if rot is None else rot == 1,
            logical_sector=ws.int(whole, "queue/logical_block_size"),
            physical_sector=ws.int(whole, "queue/physical_block_size"),
            parent=parent,
            holders=tuple(holders.get(f"{catalogue.SYS_CLASS_BLOCK}/{name}/holders", ())),
        )
    return out


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
    except HostUnreachable:
        raise
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
    except HostUnreachable:
        raise
    except (HostError, ParseError) as e:
        notes.append(f"no udev database ({e}); identity from sysfs")
        return {}, ""
    if not udev:
        notes.append("the udev database is empty; identity from sysfs")
    return udev, "udevadm" if udev else ""


class _Sources:
    """What each source said about the block devices, for one inventory. A plain class: a
    dataclass costs ~1 ms to make on Python 3.10, on the first frame (issue 28)."""

    __slots__ = ("lsblk", "mounts", "sysfs", "udev")

    def __init__(self, lsblk: dict[str, Disk], udev: dict[str, Mapping[str, str]],
                 sysfs: dict[str, Disk], mounts: dict[str, list[str]]) -> None:
        self.lsblk, self.udev, self.sysfs, self.mounts = lsblk, udev, sysfs, mounts


def _needs_sysfs(names: Sequence[str], sys_names: list[str] | None, lsblk: Mapping[str, Disk],
                 udev: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The devices sysfs is read for: those udev does not know, and those it knows and
    lsblk does not list (udev has no sizes or holders); none without /sys/class/block."""
    if sys_names is None:
        return []
    return [n for n in names if n not in udev or n not in lsblk]


def _device(name: str, src: _Sources) -> tuple[Disk | None, str]:
    """One device from the best source that knows it, and that source's name for the
    inventory ("" when udev had it: the inventory's source is already set)."""
    base = src.lsblk.get(name)
    props = src.udev.get(name)
    sysfs = src.sysfs.get(name)
    if props is not None:
        size = base.size_bytes // 512 if base and base.size_bytes is not None else None
        disk = disk_from_udev(
            name, props, size_sectors=size,
            rotational=base.rotational if base else None,
            logical_sector=base.logical_sector if base else None,
            physical_sector=base.physical_sector if base else None)
        if base is None and sysfs is not None:
            disk = _merge(disk, sysfs)
        return _merge(disk, base), ""
    if sysfs is not None:
        return _merge(sysfs, base), "sysfs"
    if base is not None:
        return base, "lsblk"
    return None, ""


def read_inventory(host: Host, *, timeout: float = 30.0) -> DiskInventory:
    """Every block device with identity, without roles (`identity.collect_inventory` adds
    them). Raises HostError only when no source at all could list the block devices, and
    HostUnreachable, with its reason, as soon as a source finds the host cannot be reached."""
    notes: list[str] = []
    sys_names: list[str] | None
    try:
        sys_names = host.list_dir(catalogue.SYS_CLASS_BLOCK)
    except HostUnreachable:
        raise
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
    sysfs_names = _needs_sysfs(names, sys_names, lsblk, udev)
    sysfs = _sysfs_disks(host, sysfs_names,
                         by_id=_links(host, catalogue.DISK_BY_ID) if not udev else {},
                         by_path=_links(host, catalogue.DISK_BY_PATH) if not udev else {},
                         ) if sysfs_names else {}
    src = _Sources(lsblk, udev, sysfs, mounts=proc_mounts(host) if not lsblk else {})
    devices: dict[str, Disk] = {}
    for name in names:
        disk, from_source = _device(name, src)
        if disk is None:
            continue
        source = source or from_source
        if name in src.mounts and not disk.mountpoints:
            disk = dataclasses.replace(disk, mountpoints=tuple(src.mounts[name]))
        devices[name] = disk
    devices = _link_tree(devices)
    return DiskInventory(devices=tuple(devices.values()), source=source or "sysfs",
                         notes=tuple(notes))
