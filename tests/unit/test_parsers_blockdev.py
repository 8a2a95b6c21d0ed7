"""udev export-db / properties, lsblk JSON and disk identity."""

from __future__ import annotations

import json

import pytest

from tests.paths import PARSERS
from zconsole.parsers.blockdev import (
    disk_from_udev,
    parse_lsblk_json,
    parse_udev_export_db,
    parse_udevadm_properties,
)
from zconsole.parsers.errors import ParseError

FIX = PARSERS / "blockdev"
EXPORT_DB = (FIX / "udev-export-db-ubuntu910-excerpt.txt").read_text()
LSBLK = (FIX / "lsblk-2.38.1-debian12-host.json").read_text()


def test_export_db_block_devices_only() -> None:
    db = parse_udev_export_db(EXPORT_DB)
    assert list(db) == ["sda", "sda1", "sda5", "sdb"]  # scsi_device and sg0 are skipped
    assert db["sda"]["ID_SERIAL_SHORT"] == "Y8UBP1H0T"
    assert db["sda"]["DEVLINKS"].split()[1] == "/dev/disk/by-id/ata-TOSHIBA_MK4058GSX_Y8UBP1H0T"
    assert db["sda5"]["ID_FS_TYPE"] == "ext4"
    assert db["sdb"]["DEVNAME"] == "/dev/sdb"


def test_devlinks_built_from_s_lines_when_missing() -> None:
    text = "\n".join(line for line in EXPORT_DB.splitlines()
                     if not line.startswith("E: DEVLINKS="))
    db = parse_udev_export_db(text)
    assert db["sda"]["DEVLINKS"] == (
        "/dev/block/8:0 /dev/disk/by-id/ata-TOSHIBA_MK4058GSX_Y8UBP1H0T "
        "/dev/disk/by-id/scsi-SATA_TOSHIBA_MK4058G_Y8UBP1H0T "
        "/dev/disk/by-path/pci-0000:00:1f.2-scsi-0:0:0:0")


def test_disk_identity_whole_disk_and_partition() -> None:
    db = parse_udev_export_db(EXPORT_DB)
    sda = disk_from_udev("sda", db["sda"], size_sectors=781422768, rotational=True,
                         logical_sector=512, physical_sector=512)
    assert sda.kind == "disk" and sda.parent is None
    assert sda.by_id == ("ata-TOSHIBA_MK4058GSX_Y8UBP1H0T",
                         "scsi-SATA_TOSHIBA_MK4058G_Y8UBP1H0T")
    assert sda.preferred_id == "ata-TOSHIBA_MK4058GSX_Y8UBP1H0T"
    assert sda.by_path == ("pci-0000:00:1f.2-scsi-0:0:0:0",)
    assert (sda.serial, sda.model, sda.transport) == ("Y8UBP1H0T", "TOSHIBA_MK4058GSX", "ata")
    assert sda.size_bytes == 781422768 * 512 and sda.rotational is True
    sda1 = disk_from_udev("sda1", db["sda1"])
    assert sda1.kind == "part" and sda1.parent == "sda"
    assert sda1.by_id[0] == "ata-TOSHIBA_MK4058GSX_Y8UBP1H0T-part1"
    assert (sda1.fs_type, sda1.fs_label) == ("ntfs", "WinRE")


def test_by_id_ranking_and_no_part_links_for_disks() -> None:
    props = {"DEVTYPE": "disk", "DEVPATH": "/devices/x/block/nvme0n1", "DEVLINKS": " ".join([
        "/dev/disk/by-id/nvme-eui.0025388b91b0a1b2",
        "/dev/disk/by-id/wwn-0x5002538d403d649a",
        "/dev/disk/by-id/nvme-Samsung_SSD_970_EVO_1TB_S467NX0M123456",
        "/dev/disk/by-id/nvme-Samsung_SSD_970_EVO_1TB_S467NX0M123456-part1",
        "/dev/disk/by-path/pci-0000:01:00.0-nvme-1",
    ])}
    d = disk_from_udev("nvme0n1", props)
    assert d.by_id == ("nvme-Samsung_SSD_970_EVO_1TB_S467NX0M123456",
                       "wwn-0x5002538d403d649a", "nvme-eui.0025388b91b0a1b2")
    assert d.by_path == ("pci-0000:01:00.0-nvme-1",)


def test_udevadm_properties() -> None:
    sda_block = EXPORT_DB.split("\n\n")[1]
    text = "\n".join(line[3:] for line in sda_block.splitlines() if line.startswith("E: "))
    props = parse_udevadm_properties(text)
    assert props == parse_udev_export_db(EXPORT_DB)["sda"]
    assert props["ID_MODEL_ENC"].startswith("TOSHIBA\\x20MK4058GSX")
    with pytest.raises(ParseError):
        parse_udevadm_properties("no equals sign\n")


def test_lsblk_2381() -> None:
    disks = {d.name: d for d in parse_lsblk_json(LSBLK)}
    assert set(disks) == {"zram0", "vda"}
    vda = disks["vda"]
    assert (vda.kind, vda.size_bytes, vda.rotational) == ("disk", 274877906944, True)
    assert (vda.logical_sector, vda.physical_sector) == (512, 4096)
    assert (vda.vendor, vda.model, vda.serial) == ("0x1af4", None, None)
    assert vda.mountpoints == ("/",) and vda.parent is None
    assert disks["zram0"].rotational is False and disks["zram0"].size_bytes == 0


def test_lsblk_old_string_values() -> None:
    # util-linux < 2.33 printed every value as a string; same content as the 2.38.1 capture
    data = json.loads(LSBLK)
    for dev in data["blockdevices"]:
        for k, v in list(dev.items()):
            if isinstance(v, bool):
                dev[k] = "1" if v else "0"
            elif isinstance(v, int):
                dev[k] = str(v)
    assert parse_lsblk_json(json.dumps(data)) == parse_lsblk_json(LSBLK)


def test_lsblk_children() -> None:
    data = json.loads(LSBLK)
    vda = data["blockdevices"][1]
    vda["children"] = [dict(vda, name="vda1", kname="vda1", pkname="vda", type="part",
                            size=1048576, mountpoint=None)]
    disks = parse_lsblk_json(json.dumps(data))
    assert [d.name for d in disks] == ["zram0", "vda", "vda1"]
    assert disks[1].partitions == ("vda1",) and disks[2].parent == "vda"
    assert disks[2].kind == "part"


@pytest.mark.parametrize("text", ["", "[]", '{"blockdevices": [1]}',
                                  '{"blockdevices": [{"name": "sda", "size": "1G"}]}',
                                  '{"blockdevices": [{"name": "sda", "rota": "yes"}]}'])
def test_lsblk_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_lsblk_json(text)


def test_export_db_error() -> None:
    with pytest.raises(ParseError):
        parse_udev_export_db("P: /devices/x\nE: NOEQUALS\n")
