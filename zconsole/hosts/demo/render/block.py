"""Block-device identity: udev database, lsblk JSON, /dev/disk links and a small sysfs."""

from __future__ import annotations

import json
from typing import Any

from zconsole.hosts.demo.machine.common import stable_int
from zconsole.hosts.demo.machine.disks import Disk, Partition
from zconsole.hosts.demo.machine.state import Machine
from zconsole.hosts.demo.render.tree import Tree


def devpath(d: Disk) -> str:
    if d.transport == "nvme":
        n = d.name[4:].split("n")[0]
        bus = int(n) + 1
        return (f"/devices/pci0000:00/0000:00:1d.{n}/0000:{bus:02x}:00.0/nvme/nvme{n}/{d.name}")
    port = int(d.pci_path.rsplit("-", 1)[1])
    h = port - 1
    return (f"/devices/pci0000:00/0000:00:17.0/ata{port}/host{h}/target{h}:0:0/"
            f"{h}:0:0:0/block/{d.name}")


def disk_properties(m: Machine, d: Disk, part: Partition | None = None) -> dict[str, str]:
    """udev properties (E: lines) of a disk or one of its partitions."""
    name = d.part_name(part.number) if part else d.name
    dp = devpath(d) + (f"/{name}" if part else "")
    props: dict[str, str] = {
        "DEVPATH": dp,
        "DEVNAME": f"/dev/{name}",
        "DEVTYPE": "partition" if part else "disk",
        "DISKSEQ": str(10 + d.minor // 16 + (100 if d.transport == "nvme" else 0)),
        "MAJOR": str(d.major),
        "MINOR": str(d.minor + (part.number if part else 0)),
        "SUBSYSTEM": "block",
        "USEC_INITIALIZED": str(4_123_456 + stable_int(d.serial, bits=16)),
    }
    if part:
        props["PARTN"] = str(part.number)
        if part.part_label:
            props["PARTNAME"] = part.part_label
    if d.transport == "nvme":
        props.update({
            "ID_SERIAL_SHORT": d.serial,
            "ID_WWN": d.wwn or "",
            "ID_MODEL": d.model,
            "ID_REVISION": "3B2QEXM7",
            "ID_SERIAL": f"{d.id_model}_{d.serial}",
        })
    else:
        props.update({
            "ID_ATA": "1",
            "ID_TYPE": "disk",
            "ID_BUS": "ata",
            "ID_MODEL": d.id_model,
            "ID_MODEL_ENC": d.model.replace(" ", "\\x20"),
            "ID_REVISION": "MJAOA5E0",
            "ID_SERIAL": f"{d.id_model}_{d.serial}",
            "ID_SERIAL_SHORT": d.serial,
            "ID_ATA_ROTATION_RATE_RPM": "7200" if d.rotational else "0",
        })
        if d.wwn:
            props["ID_WWN"] = d.wwn
            props["ID_WWN_WITH_EXTENSION"] = d.wwn
    props["ID_PATH"] = d.pci_path
    props["ID_PATH_TAG"] = d.pci_path.replace(":", "_").replace(".", "_")
    if d.partitions:
        props["ID_PART_TABLE_UUID"] = _uuid(d.serial, "pt")
        props["ID_PART_TABLE_TYPE"] = "gpt"
    if part:
        if part.fs_type:
            props["ID_FS_TYPE"] = part.fs_type
            props["ID_FS_USAGE"] = "other" if part.fs_type in ("swap", "zfs_member") else \
                "filesystem"
            if part.fs_type == "zfs_member":
                props["ID_FS_VERSION"] = "5000"
            if part.fs_label:
                props["ID_FS_LABEL"] = part.fs_label
                props["ID_FS_LABEL_ENC"] = part.fs_label
            if part.fs_uuid:
                props["ID_FS_UUID"] = part.fs_uuid
                props["ID_FS_UUID_ENC"] = part.fs_uuid
        props["ID_PART_ENTRY_SCHEME"] = "gpt"
        if part.part_label:
            props["ID_PART_ENTRY_NAME"] = part.part_label
        props["ID_PART_ENTRY_UUID"] = _uuid(d.serial, part.number)
        props["ID_PART_ENTRY_TYPE"] = ("6a898cc3-1dd2-11b2-99a6-080020736631"
                                       if part.fs_type == "zfs_member"
                                       else "0fc63daf-8483-4772-8e79-3d69d8477de4")
        props["ID_PART_ENTRY_NUMBER"] = str(part.number)
        props["ID_PART_ENTRY_DISK"] = f"{d.major}:{d.minor}"
    links = disk_links(d, part)
    props["DEVLINKS"] = " ".join("/dev/" + x for x in links)
    props["TAGS"] = ":systemd:"
    props["CURRENT_TAGS"] = ":systemd:"
    return props


def _uuid(*parts: object) -> str:
    h = f"{stable_int(*parts, bits=128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def disk_links(d: Disk, part: Partition | None = None) -> list[str]:
    suffix = f"-part{part.number}" if part else ""
    out = [f"disk/by-id/{x}{suffix}" for x in d.by_id]
    out.append(f"disk/by-path/{d.pci_path}{suffix}")
    if part and part.fs_uuid:
        out.append(f"disk/by-uuid/{part.fs_uuid}")
    if part and part.fs_label:
        out.append(f"disk/by-label/{part.fs_label}")
    return out


def export_db(m: Machine) -> str:
    blocks: list[str] = []
    for d in sorted(m.disks.values(), key=lambda d: (d.major, d.minor)):
        if not d.present:
            continue
        for part in [None, *d.partitions]:
            props = disk_properties(m, d, part)
            name = d.part_name(part.number) if part else d.name
            lines = [f"P: {props['DEVPATH']}", f"M: {name}", "U: block",
                     f"T: {'partition' if part else 'disk'}",
                     f"D: b {d.major}:{props['MINOR']}", f"N: {name}", "L: 0"]
            lines += [f"S: {x}" for x in disk_links(d, part)]
            lines += [f"Q: {props['DISKSEQ']}", "V: 1"]
            lines += [f"E: {k}={v}" for k, v in props.items()]
            blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


LSBLK_KEYS = {"NAME": "name", "KNAME": "kname", "PKNAME": "pkname", "TYPE": "type",
              "SIZE": "size", "ROTA": "rota", "LOG-SEC": "log-sec", "PHY-SEC": "phy-sec",
              "MODEL": "model", "SERIAL": "serial", "WWN": "wwn", "VENDOR": "vendor",
              "TRAN": "tran", "FSTYPE": "fstype", "LABEL": "label",
              "MOUNTPOINT": "mountpoint", "MOUNTPOINTS": "mountpoints", "UUID": "uuid",
              "PARTLABEL": "partlabel", "MAJ:MIN": "maj:min", "RO": "ro", "RM": "rm"}


def lsblk_json(m: Machine, cols: list[str], *, nbytes: bool, nodeps: bool,
               paths: bool) -> str:
    def obj(d: Disk, part: Partition | None) -> dict[str, Any]:
        name = d.part_name(part.number) if part else d.name
        full: dict[str, Any] = {
            "name": ("/dev/" + name) if paths else name,
            "kname": ("/dev/" + name) if paths else name,
            "pkname": (("/dev/" + d.name) if paths else d.name) if part else None,
            "type": "part" if part else "disk",
            "size": (part.size if part else d.size) if nbytes else _human(
                part.size if part else d.size),
            "rota": d.rotational,
            "log-sec": d.logical_sector,
            "phy-sec": d.physical_sector,
            "model": None if part else d.model,
            "serial": None if part else d.serial,
            "wwn": d.wwn,
            "vendor": None if part or d.transport == "nvme" else f"{d.vendor:<8}",
            "tran": None if part else d.transport,
            "fstype": part.fs_type if part else None,
            "label": part.fs_label if part else None,
            "mountpoint": ("[SWAP]" if part and part.swap else part.mountpoint) if part
            else None,
            "uuid": part.fs_uuid if part else None,
            "partlabel": part.part_label if part else None,
            "maj:min": f"{d.major}:{d.minor + (part.number if part else 0)}",
            "ro": False,
            "rm": False,
        }
        full["mountpoints"] = [full["mountpoint"]]
        o = {LSBLK_KEYS[c]: full[LSBLK_KEYS[c]] for c in cols}
        return o

    devs = []
    for d in sorted(m.disks.values(), key=lambda d: (d.major, d.minor)):
        if not d.present:
            continue
        o = obj(d, None)
        if d.partitions and not nodeps:
            o["children"] = [obj(d, p) for p in d.partitions]
        devs.append(o)
    return json.dumps({"blockdevices": devs}, indent=3) + "\n"


def _human(n: int) -> str:
    units = "BKMGTPE"
    v = float(n)
    i = 0
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    s = f"{v:.1f}".rstrip("0").rstrip(".")
    return f"{s}{units[i] if i else 'B'}"


def build_tree(m: Machine, tree: Tree) -> None:
    """/dev, /dev/disk/by-*, /sys/class/block and /sys/devices entries for every disk."""
    for d in m.disks.values():
        if not d.present:
            continue
        dp = "/sys" + devpath(d)
        tree.add_file(f"/dev/{d.name}", "")
        tree.add_link(f"/sys/class/block/{d.name}", f"../..{devpath(d)}")
        tree.add_file(f"{dp}/size", f"{d.size // 512}\n")
        tree.add_file(f"{dp}/dev", f"{d.major}:{d.minor}\n")
        tree.add_file(f"{dp}/ro", "0\n")
        tree.add_file(f"{dp}/removable", "0\n")
        tree.add_file(f"{dp}/queue/rotational", f"{1 if d.rotational else 0}\n")
        tree.add_file(f"{dp}/queue/logical_block_size", f"{d.logical_sector}\n")
        tree.add_file(f"{dp}/queue/physical_block_size", f"{d.physical_sector}\n")
        tree.add_file(f"{dp}/queue/hw_sector_size", f"{d.logical_sector}\n")
        tree.add_dir(f"{dp}/holders")
        for h in d.holders:
            tree.add_link(f"{dp}/holders/{h}", f"../../../../virtual/block/{h}")
        tree.add_dir(f"{dp}/slaves")
        if d.transport == "nvme":
            tree.add_file(f"{dp}/device/model", f"{d.model:<40}\n")
            tree.add_file(f"{dp}/device/serial", f"{d.serial:<20}\n")
            tree.add_file(f"{dp}/wwid", f"{d.wwn}\n")
        else:
            tree.add_file(f"{dp}/device/model", f"{d.model[:16]}\n")
            tree.add_file(f"{dp}/device/vendor", f"{d.vendor:<8}\n")
            tree.add_file(f"{dp}/device/wwid", f"naa.{(d.wwn or '')[2:]}\n")
        for x in disk_links(d):
            tree.add_link(f"/dev/{x}", f"../../{d.name}")
        for p in d.partitions:
            pn = d.part_name(p.number)
            tree.add_file(f"/dev/{pn}", "")
            tree.add_link(f"/sys/class/block/{pn}", f"../..{devpath(d)}/{pn}")
            tree.add_file(f"{dp}/{pn}/size", f"{p.size // 512}\n")
            tree.add_file(f"{dp}/{pn}/partition", f"{p.number}\n")
            tree.add_file(f"{dp}/{pn}/dev", f"{d.major}:{d.minor + p.number}\n")
            tree.add_file(f"{dp}/{pn}/start", f"{2048 if p.number == 1 else 0}\n")
            tree.add_dir(f"{dp}/{pn}/holders")
            for x in disk_links(d, p):
                tree.add_link(f"/dev/{x}", f"../../{pn}")
