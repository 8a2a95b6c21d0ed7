"""Block device identity: udev database, udevadm properties, lsblk JSON -> Disk.

Formats:
* `udevadm info --export-db`: records separated by blank lines. `P:` devpath, `N:` device node
  name, `S:` one symlink per line (relative to /dev), `E: KEY=VALUE` properties; newer udev
  adds `L:` (link priority), `W:`, `M:`, `R:`, `U:`, `T:`, `D:`, `I:`, `V:`, `Q:` lines, which
  are ignored here. Only block devices (SUBSYSTEM=block) are returned, keyed by kernel name
  (last component of the devpath). `DEVLINKS` is udev's own `E: DEVLINKS` when present, else
  built from the `S:` lines as udev does ("/dev/" + link, space separated).
* `udevadm info --query=property --name=/dev/X`: `KEY=VALUE` lines.
* `lsblk -J -b -o NAME,KNAME,PKNAME,TYPE,SIZE,ROTA,LOG-SEC,PHY-SEC,MODEL,SERIAL,WWN,VENDOR,
  TRAN,FSTYPE,LABEL,MOUNTPOINT`: {"blockdevices": [...]}, partitions nested in `children`.

Version traps (util-linux): before 2.33 lsblk JSON printed every value as a string
("rota": "1", "size": "1000204886016"); 2.33+ prints real booleans and numbers. A device with
several parents (md/dm over partitions) appears under each parent. `mountpoint` is a single
string; 2.37+ also offers `mountpoints` (a list). Vendor strings are space-padded (`ATA     `).
udev: partitions inherit the disk's ID_* properties, and their by-id links end in `-partN`:
never offer those for a whole disk. `size` in sysfs is in 512-byte sectors whatever the
logical sector size.
"""

from __future__ import annotations

import json
import os.path
import re
from collections.abc import Mapping
from typing import Any

from zconsole.model.disk import Disk
from zconsole.parsers.errors import ParseError, parser

SOURCE_UDEV = "udevadm info"
SOURCE_LSBLK = "lsblk"

_PART_SUFFIX = re.compile(r"-part[0-9]+$", re.ASCII)
_NAA_SCSI = re.compile(r"scsi-3[0-9a-fA-F]+$", re.ASCII)
_KEY = re.compile(r"[A-Za-z0-9_.:-]+", re.ASCII)


@parser(SOURCE_UDEV)
def parse_udev_export_db(text: str) -> dict[str, dict[str, str]]:
    devices: dict[str, dict[str, str]] = {}
    record: dict[str, str] = {}
    links: list[str] = []
    devpath: str | None = None
    node: str | None = None

    def flush() -> None:
        if devpath is None or record.get("SUBSYSTEM") != "block":
            return
        props = dict(record)
        props.setdefault("DEVPATH", devpath)
        if node is not None:
            props.setdefault("DEVNAME", "/dev/" + node)
        if links and "DEVLINKS" not in props:
            props["DEVLINKS"] = " ".join("/dev/" + s for s in links)
        name = devpath.rstrip("/").rsplit("/", 1)[-1]
        if name:
            devices[name] = props

    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            flush()
            record, links, devpath, node = {}, [], None, None
            continue
        if len(line) < 2 or line[1] != ":" or not line[0].isalpha():
            raise ParseError(SOURCE_UDEV, "expected `X: value`", line_no, raw)
        tag, value = line[0], line[2:].strip()
        if tag == "P":
            if devpath is not None:  # a record without the blank separator
                flush()
                record, links, node = {}, [], None
            devpath = value
        elif tag == "N":
            node = value
        elif tag == "S":
            links.append(value)
        elif tag == "E":
            key, sep, val = value.partition("=")
            if not sep or not _KEY.fullmatch(key):
                raise ParseError(SOURCE_UDEV, "expected `E: KEY=VALUE`", line_no, raw)
            record[key] = val
        # other tags (L, W, M, R, U, T, D, I, V, Q, ...) carry nothing zconsole needs
    flush()
    return devices


@parser(SOURCE_UDEV)
def parse_udevadm_properties(text: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        key, sep, val = line.partition("=")
        if not sep or not _KEY.fullmatch(key):
            raise ParseError(SOURCE_UDEV, "expected KEY=VALUE", line_no, raw)
        props[key] = val
    return props


# --- identity from udev ---------------------------------------------------------------------

def _by_id_rank(link: str) -> int:
    """Lower is better: model+serial names first, then WWN-style names."""
    if link.startswith(("nvme-eui.", "nvme-nvme.")):
        return 6
    if link.startswith("wwn-"):
        return 5
    if _NAA_SCSI.match(link):
        return 4  # scsi-3<NAA WWN>: a WWN in disguise
    if link.startswith(("ata-", "nvme-")):
        return 0
    if link.startswith(("virtio-", "usb-", "mmc-")):
        return 1
    if link.startswith("scsi-"):
        return 2
    return 3


def _kind(name: str, devtype: str | None) -> str:
    if devtype == "partition":
        return "part"
    for prefix, kind in (("loop", "loop"), ("dm-", "dm"), ("md", "md"), ("zd", "zvol"),
                         ("sr", "rom")):
        if name.startswith(prefix) and name[len(prefix):len(prefix) + 1].isdigit():
            return kind
    if devtype == "disk":
        return "disk"
    return "other"


def _nonempty(value: str | None) -> str | None:
    if value is None:
        return None
    v = value.strip()
    return v or None


@parser(SOURCE_UDEV)
def disk_from_udev(name: str, props: Mapping[str, str], *, size_sectors: int | None = None,
                   rotational: bool | None = None, logical_sector: int | None = None,
                   physical_sector: int | None = None) -> Disk:
    """Build a Disk from one device's udev properties (export-db record or --query=property).

    `size_sectors` is sysfs `size` (512-byte sectors); `rotational` is queue/rotational of the
    whole disk. by_id is sorted best first; a whole disk never gets `-partN` links.
    """
    kind = _kind(name, props.get("DEVTYPE"))
    by_id: list[str] = []
    by_path: list[str] = []
    for link in props.get("DEVLINKS", "").split():
        directory, base = os.path.split(link)
        if kind != "part" and _PART_SUFFIX.search(base):
            continue
        if directory.endswith("/disk/by-id") and base not in by_id:
            by_id.append(base)
        elif directory.endswith("/disk/by-path") and base not in by_path:
            by_path.append(base)
    by_id.sort(key=lambda s: (_by_id_rank(s), s))
    by_path.sort()
    devpath = props.get("DEVPATH", "")
    parent = None
    if kind == "part":
        components = devpath.rstrip("/").split("/")
        if len(components) >= 2 and components[-1] == name:
            parent = components[-2]
    return Disk(
        name=name,
        devpath=devpath,
        kind=kind,
        size_bytes=size_sectors * 512 if size_sectors is not None else None,
        by_id=tuple(by_id),
        by_path=tuple(by_path),
        serial=_nonempty(props.get("ID_SERIAL_SHORT")) or _nonempty(props.get("ID_SERIAL")),
        model=_nonempty(props.get("ID_MODEL")),
        vendor=_nonempty(props.get("ID_VENDOR")),
        wwn=_nonempty(props.get("ID_WWN_WITH_EXTENSION")) or _nonempty(props.get("ID_WWN")),
        rotational=rotational,
        logical_sector=logical_sector,
        physical_sector=physical_sector,
        parent=parent,
        fs_type=_nonempty(props.get("ID_FS_TYPE")),
        fs_label=_nonempty(props.get("ID_FS_LABEL")),
        transport=_nonempty(props.get("ID_BUS")),
        rotation_rpm=_rpm(props.get("ID_ATA_ROTATION_RATE_RPM")),
    )


def _rpm(value: str | None) -> int | None:
    """udev's ID_ATA_ROTATION_RATE_RPM (ata_id, from IDENTIFY word 217): 7200, 5400...; 0 for
    a non-rotating disk; anything else is unknown."""
    v = _nonempty(value)
    return int(v) if v is not None and v.isdigit() and len(v) <= 6 else None


# --- lsblk ------------------------------------------------------------------------------------

_LSBLK_KIND = {"disk": "disk", "part": "part", "loop": "loop", "lvm": "dm", "crypt": "dm",
               "dm": "dm", "mpath": "dm", "rom": "rom"}


def _lsblk_str(dev: Mapping[str, Any], key: str) -> str | None:
    value = dev.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ParseError(SOURCE_LSBLK, f"{key}: expected a string, got {value!r}")
    return _nonempty(str(value))


def _lsblk_int(dev: Mapping[str, Any], key: str) -> int | None:
    value = dev.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ParseError(SOURCE_LSBLK, f"{key}: expected a number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value.strip(), re.ASCII):
        return int(value.strip())
    if isinstance(value, str) and not value.strip():
        return None
    raise ParseError(SOURCE_LSBLK, f"{key}: expected a number (did you pass -b?), got {value!r}")


def _lsblk_bool(dev: Mapping[str, Any], key: str) -> bool | None:
    value = dev.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if value in ("1", 1):
        return True
    if value in ("0", 0):
        return False
    raise ParseError(SOURCE_LSBLK, f"{key}: expected a boolean, got {value!r}")


def _lsblk_kind(name: str, lsblk_type: str | None) -> str:
    if lsblk_type is None:
        return "other"
    if lsblk_type.startswith("raid"):
        return "md"
    if lsblk_type == "disk" and name.startswith("zd"):
        return "zvol"
    return _LSBLK_KIND.get(lsblk_type, "other")


@parser(SOURCE_LSBLK)
def parse_lsblk_json(text: str) -> list[Disk]:
    """Every device in `lsblk -J -b -o ...` output, flattened depth-first, first occurrence."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ParseError(SOURCE_LSBLK, f"not JSON: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("blockdevices"), list):
        raise ParseError(SOURCE_LSBLK, "expected {\"blockdevices\": [...]}")
    disks: dict[str, Disk] = {}

    def visit(dev: object, parent: str | None, depth: int) -> str:
        if depth > 64:
            raise ParseError(SOURCE_LSBLK, "devices nested too deeply")
        if not isinstance(dev, dict):
            raise ParseError(SOURCE_LSBLK, f"expected a device object, got {dev!r:.60}")
        name = _lsblk_str(dev, "name")
        kname = _lsblk_str(dev, "kname") or name
        if kname is None:
            raise ParseError(SOURCE_LSBLK, "device without name")
        children = dev.get("children", [])
        if not isinstance(children, list):
            raise ParseError(SOURCE_LSBLK, f"{kname}: children is not a list")
        child_names = [visit(c, kname, depth + 1) for c in children]
        mounts: list[str] = []
        mp = dev.get("mountpoints")
        if isinstance(mp, list):
            mounts = [m for m in mp if isinstance(m, str) and m]
        single = _lsblk_str(dev, "mountpoint")
        if single and single not in mounts:
            mounts.insert(0, single)
        kind = _lsblk_kind(kname, _lsblk_str(dev, "type"))
        partitions = tuple(c for c in child_names if disks[c].kind == "part")
        holders = tuple(c for c in child_names if disks[c].kind in ("dm", "md"))
        disk = Disk(
            name=kname,
            devpath="",
            kind=kind,
            size_bytes=_lsblk_int(dev, "size"),
            serial=_lsblk_str(dev, "serial"),
            model=_lsblk_str(dev, "model"),
            vendor=_lsblk_str(dev, "vendor"),
            wwn=_lsblk_str(dev, "wwn"),
            rotational=_lsblk_bool(dev, "rota"),
            logical_sector=_lsblk_int(dev, "log-sec"),
            physical_sector=_lsblk_int(dev, "phy-sec"),
            parent=_lsblk_str(dev, "pkname") or parent,
            partitions=partitions,
            fs_type=_lsblk_str(dev, "fstype"),
            fs_label=_lsblk_str(dev, "label"),
            holders=holders,
            mountpoints=tuple(mounts),
            transport=_lsblk_str(dev, "tran"),
        )
        disks.setdefault(kname, disk)
        return kname

    for dev in data["blockdevices"]:
        visit(dev, None, 0)
    # depth-first with parents before their children
    ordered: list[Disk] = []
    seen: set[str] = set()

    def emit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        d = disks[name]
        ordered.append(d)
        for c in d.partitions + d.holders:
            emit(c)

    for d in list(disks.values()):
        if d.parent is None or d.parent not in disks:
            emit(d.name)
    for name in disks:
        emit(name)
    return ordered
