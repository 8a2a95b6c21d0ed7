"""Disk identity: zpool names/paths -> whole disks, sources in order, and disk roles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_services_fakehost import FakeHost, fixture
from zconsole.model.disk import Disk
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskInventory, DiskState
from zconsole.services.read import catalogue as C
from zconsole.services.read.identity import DiskIndex, classify, collect_inventory

TOSHIBA = "ata-TOSHIBA_MK4058GSX_Y8UBP1H0T"
WWN = "wwn-0x50000393d2481234"

DEVICES = (
    Disk("sda", "", "disk", by_id=(TOSHIBA, WWN), partitions=("sda1",)),
    Disk("sda1", "", "part", by_id=(f"{TOSHIBA}-part1", f"{WWN}-part1"), parent="sda"),
    Disk("vdb", "", "disk", by_id=("virtio-zfsvm-vdb",), partitions=("vdb1", "vdb9")),
    Disk("vdb1", "", "part", by_id=("virtio-zfsvm-vdb-part1",), parent="vdb",
         fs_type="zfs_member", fs_label="tank"),
    Disk("vdb9", "", "part", parent="vdb"),
    Disk("nvme0n1", "", "disk", by_id=("nvme-Samsung_SSD_980_S64ANS0T123",),
         by_path=("pci-0000:01:00.0-nvme-1",)),
    Disk("dm-0", "", "dm", parent="sdi"),
    Disk("sdi", "", "disk", holders=("dm-0",)),
)


@pytest.mark.parametrize(("ref", "disk"), [
    ("vdb", "vdb"),
    ("/dev/vdb", "vdb"),
    ("/dev/vdb1", "vdb"),
    ("vdb1", "vdb"),
    ("vdb3", "vdb"),  # a partition missing from the inventory still finds its disk
    ("virtio-zfsvm-vdb", "vdb"),
    ("virtio-zfsvm-vdb-part1", "vdb"),
    (TOSHIBA, "sda"),
    (f"{TOSHIBA}-part1", "sda"),
    (f"/dev/disk/by-id/{TOSHIBA}-part1", "sda"),
    (f"/dev/disk/by-id/{TOSHIBA}", "sda"),
    (WWN, "sda"),
    (f"{WWN}-part1", "sda"),
    (f"{WWN}-part2", "sda"),  # only the whole-disk link known: strip -partN
    ("nvme0n1", "nvme0n1"),
    ("nvme0n1p1", "nvme0n1"),
    ("/dev/disk/by-path/pci-0000:01:00.0-nvme-1", "nvme0n1"),
    ("nvme-Samsung_SSD_980_S64ANS0T123-part1", "nvme0n1"),
    ("dm-0", "dm-0"),  # stacked devices stay themselves
])
def test_names_and_paths_map_to_the_whole_disk(ref: str, disk: str) -> None:
    d = DiskIndex(DEVICES).whole(ref)
    assert d is not None and d.name == disk


@pytest.mark.parametrize("ref", ["/scratch/f1", "sdz", "ata-UNKNOWN", "13933849969980749948"])
def test_unknown_names_map_to_nothing(ref: str) -> None:
    assert DiskIndex(DEVICES).whole(ref) is None


def test_find_keeps_partitions_and_leaf_uses_path_first() -> None:
    idx = DiskIndex(DEVICES)
    part = idx.find(f"{TOSHIBA}-part1")
    assert part is not None and part.name == "sda1"
    # JSON status: name vdb, path /dev/vdb1; 2.1 text: only a by-id name
    assert idx.leaf_disk(Vdev("vdb", "disk", "ONLINE", path="/dev/vdb1")).name == "vdb"  # type: ignore[union-attr]
    assert idx.leaf_disk(Vdev(f"{TOSHIBA}-part1", "disk", "ONLINE")).name == "sda"  # type: ignore[union-attr]
    assert idx.leaf_disk_name("tank", Vdev("x", "disk", "ONLINE", path="/dev/nvme0n1p1")) == \
        "nvme0n1"


# --- roles ------------------------------------------------------------------------------------

def leaf(name: str, path: str | None = None) -> Vdev:
    return Vdev(name, "disk", "ONLINE", path=path)


ROLE_DEVICES = (
    Disk("vdb", "", "disk", partitions=("vdb1", "vdb9")),
    Disk("vdb1", "", "part", parent="vdb", fs_type="zfs_member", fs_label="tank"),
    Disk("vdb9", "", "part", parent="vdb"),
    Disk("vdc", "", "disk", fs_type="zfs_member", fs_label="tank"),
    Disk("sdb", "", "disk", partitions=("sdb1",)),
    Disk("sdb1", "", "part", parent="sdb", fs_type="ext4", mountpoints=("/srv",)),
    Disk("sdc", "", "disk", partitions=("sdc2",)),
    Disk("sdc2", "", "part", parent="sdc", fs_type="swap", mountpoints=("[SWAP]",)),
    Disk("sdd", "", "disk", partitions=("sdd1",)),
    Disk("sdd1", "", "part", parent="sdd", fs_type="linux_raid_member", holders=("md0",)),
    Disk("md0", "", "md", parent="sdd1", fs_type="ext4", mountpoints=("/data",)),
    Disk("sde", "", "disk", fs_type="crypto_LUKS", holders=("dm-0",)),
    Disk("dm-0", "", "dm", parent="sde"),
    Disk("sdf", "", "disk", fs_type="zfs_member", fs_label="oldpool"),
    Disk("sdg", "", "disk", partitions=("sdg1",)),
    Disk("sdg1", "", "part", parent="sdg", fs_type="ext4"),
    Disk("sdh", "", "disk"),
    Disk("sdj", "", "disk", fs_type="zfs_member", fs_label="tank"),
    Disk("sdk", "", "disk", fs_type="crypto_LUKS", holders=("dm-1",)),
    Disk("dm-1", "", "dm", parent="sdk"),
    Disk("loop0", "", "loop"),
    Disk("loop1", "", "loop"),
    Disk("sr0", "", "rom"),
    Disk("zd0", "", "zvol"),
    Disk("zram0", "", "disk"),
)

TANK = Pool("tank", "ONLINE", vdevs=(
    Vdev("mirror-0", "mirror", "ONLINE", children=(leaf("vdb", "/dev/vdb1"), leaf("vdc"))),
), logs=(leaf("loop1", "/dev/loop1"),), cache=(leaf("dm-1", "/dev/dm-1"),))


def roles(pools: list[Pool] | None) -> dict[str, tuple[DiskState, tuple[str, ...]]]:
    inv = DiskInventory(ROLE_DEVICES)
    return {r.disk: (r.state, r.reasons) for r in classify(inv, pools)}


def test_every_reason() -> None:
    r = roles([TANK])
    assert r["vdb"] == (DiskState.IN_POOL, ("vdb in tank (mirror-0)",))
    assert r["vdc"] == (DiskState.IN_POOL, ("vdc in tank (mirror-0)",))
    assert r["loop1"] == (DiskState.IN_POOL, ("loop1 in tank (logs)",))
    assert r["sdk"] == (DiskState.IN_POOL, ("dm-1 on this disk is in tank (cache)",))
    assert r["sdb"] == (DiskState.IN_USE, ("sdb1 is mounted at /srv",))
    assert r["sdc"] == (DiskState.IN_USE, ("sdc2 is active swap",))
    assert r["sdd"] == (DiskState.IN_USE, ("sdd1 is an md RAID member (md0)",))
    assert r["sde"] == (DiskState.IN_USE, ("the disk is under device-mapper (dm-0)",))
    assert r["sdf"] == (DiskState.IN_USE,
                        ("the disk holds a ZFS label of pool oldpool (not imported here)",))
    assert r["sdj"] == (DiskState.IN_USE, ("the disk holds a ZFS label of pool tank, but is "
                                           "not in its vdev tree (stale label?)",))
    assert r["sdg"] == (DiskState.HAS_DATA, ("sdg1 holds a filesystem (ext4), not in use",
                                             "has partitions sdg1"))
    assert r["sdh"] == (DiskState.FREE,
                        ("no partitions, no filesystem signature, not mounted, no holders",))
    for ignored in ("loop0", "sr0", "zd0", "zram0", "md0", "dm-0"):
        assert r[ignored][0] is DiskState.IGNORED
    assert not any(name.startswith(("vdb1", "sdb1")) for name in r)  # partitions: no role


def test_in_pool_role_says_where() -> None:
    inv = DiskInventory(ROLE_DEVICES)
    vdb = next(x for x in classify(inv, [TANK]) if x.disk == "vdb")
    assert (vdb.pool, vdb.section, vdb.vdev_path, vdb.leaf) == (
        "tank", Section.DATA, ("mirror-0", "vdb"), "vdb")


def test_unknown_pools_never_claim_membership() -> None:
    r = roles(None)
    assert r["vdb"] == (DiskState.IN_USE, (
        "vdb1 holds a ZFS label of pool tank (pool membership could not be checked)",))
    assert r["sdh"][0] is DiskState.FREE
    assert "pool membership could not be checked" in r["sdh"][1]
    assert not any(state is DiskState.IN_POOL for state, _ in r.values())


# --- sources ----------------------------------------------------------------------------------

UDEV_DB = fixture("blockdev/udev-export-db-ubuntu910-excerpt.txt")


def test_udevadm_export_db_through_the_real_parser() -> None:
    host = FakeHost(commands={C.udevadm_export_db(): UDEV_DB},
                    dirs={C.SYS_CLASS_BLOCK: ["sda", "sda1", "sda5"]},
                    files={"/proc/mounts": "/dev/sda5 / ext4 rw,relatime 0 0\n"
                                           "proc /proc proc rw 0 0\n"})
    inv = collect_inventory(host, pools=[])
    assert inv.source == "udevadm"
    sda = inv.device("sda")
    assert sda is not None and sda.kind == "disk"
    assert sda.serial == "Y8UBP1H0T" and sda.model == "TOSHIBA_MK4058GSX"
    assert sda.by_id[0] == TOSHIBA and all("-part" not in b for b in sda.by_id)
    assert sda.partitions == ("sda1", "sda5")
    sda1 = inv.device("sda1")
    assert sda1 is not None and sda1.parent == "sda" and sda1.fs_type == "ntfs"
    idx = DiskIndex(inv.devices)
    assert idx.whole(f"{TOSHIBA}-part5").name == "sda"  # type: ignore[union-attr]
    role = inv.role("sda")
    assert role is not None and role.state is DiskState.IN_USE
    assert role.reasons[0] == "sda5 is mounted at /"
    assert "lsblk unavailable" in inv.notes[0]
    assert host.calls == [C.lsblk_json(), C.udevadm_export_db()]


def test_pyudev_first_no_udevadm_command() -> None:
    props = {"DEVNAME": "/dev/vdb", "DEVTYPE": "disk", "SUBSYSTEM": "block",
             "DEVPATH": "/devices/pci0000:00/0000:00:05.0/virtio2/block/vdb",
             "ID_SERIAL": "zfsvm-vdb",
             "DEVLINKS": "/dev/disk/by-id/virtio-zfsvm-vdb /dev/disk/by-path/virtio-pci-0000:00:05.0"}
    host = FakeHost(dirs={C.SYS_CLASS_BLOCK: ["vdb"]}, udev={"vdb": props},
                    commands={C.lsblk_json(): '{"blockdevices": [{"name": "vdb", "kname": "vdb",'
                              ' "type": "disk", "size": 1073741824, "rota": true}]}'})
    inv = collect_inventory(host, pools=[])
    assert inv.source == "pyudev"
    vdb = inv.device("vdb")
    assert vdb is not None and vdb.by_id == ("virtio-zfsvm-vdb",)
    assert vdb.serial == "zfsvm-vdb" and vdb.size_bytes == 1073741824 and vdb.rotational
    assert C.udevadm_export_db() not in host.calls


def test_sysfs_fallback_without_udev() -> None:
    blk = C.SYS_CLASS_BLOCK
    dev = "/sys/devices/pci0000:00/0000:00:05.0/virtio2/block"
    files = {
        f"{blk}/vdb/size": "2097152\n", f"{blk}/vdb1/size": "2076672\n",
        f"{blk}/vdb9/size": "16384\n", f"{blk}/vdb1/partition": "1\n",
        f"{blk}/vdb9/partition": "9\n", f"{blk}/vdb/queue/rotational": "1\n",
        f"{blk}/vdb/queue/logical_block_size": "512\n",
        f"{blk}/vdb/queue/physical_block_size": "512\n", f"{blk}/vdb/serial": "zfsvm-vdb\n",
        f"{blk}/loop0/size": "0\n",
    }
    links = {f"{blk}/vdb1": f"{dev}/vdb/vdb1", f"{blk}/vdb9": f"{dev}/vdb/vdb9",
             f"{C.DISK_BY_ID}/virtio-zfsvm-vdb": "/dev/vdb",
             f"{C.DISK_BY_ID}/virtio-zfsvm-vdb-part1": "/dev/vdb1",
             f"{C.DISK_BY_ID}/virtio-zfsvm-vdb-part9": "/dev/vdb9"}
    dirs = {blk: ["loop0", "vdb", "vdb1", "vdb9"], f"{blk}/vdb/holders": [],
            f"{blk}/vdb1/holders": [], C.DISK_BY_ID: [
                "virtio-zfsvm-vdb", "virtio-zfsvm-vdb-part1", "virtio-zfsvm-vdb-part9"]}
    host = FakeHost(files=files, dirs=dirs, links=links)
    tank = Pool("tank", "ONLINE", vdevs=(leaf("vdb", "/dev/vdb1"),))
    inv = collect_inventory(host, pools=[tank])
    assert inv.source == "sysfs"
    vdb = inv.device("vdb")
    assert vdb is not None
    assert (vdb.kind, vdb.size_bytes, vdb.rotational, vdb.logical_sector, vdb.serial) == (
        "disk", 1073741824, True, 512, "zfsvm-vdb")
    assert vdb.by_id == ("virtio-zfsvm-vdb",) and vdb.partitions == ("vdb1", "vdb9")
    vdb1 = inv.device("vdb1")
    assert vdb1 is not None and (vdb1.kind, vdb1.parent, vdb1.size_bytes) == (
        "part", "vdb", 2076672 * 512)
    assert vdb1.by_id == ("virtio-zfsvm-vdb-part1",) and vdb1.rotational is True
    assert inv.role("vdb").state is DiskState.IN_POOL  # type: ignore[union-attr]
    assert inv.role("loop0").state is DiskState.IGNORED  # type: ignore[union-attr]
    assert any("no udev database" in n for n in inv.notes)


def test_real_lsblk_alone() -> None:
    host = FakeHost(commands={C.lsblk_json(): fixture("blockdev/lsblk-2.38.1-debian12-host.json")})
    inv = collect_inventory(host, pools=[])
    assert inv.source == "lsblk"
    vda = inv.device("vda")
    assert vda is not None and vda.size_bytes == 274877906944 and vda.mountpoints == ("/",)
    assert {r.disk: r.state for r in inv.roles} == {"zram0": DiskState.IGNORED,
                                                   "vda": DiskState.IN_USE}


def test_nothing_lists_block_devices() -> None:
    from zconsole.hosts.base import HostError

    with pytest.raises(HostError, match="cannot list block devices"):
        collect_inventory(FakeHost(), pools=[])


# --- properties -------------------------------------------------------------------------------

_ID = st.from_regex(r"(ata|scsi|nvme|virtio|usb)-[A-Za-z0-9_]{1,24}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(_ID, st.integers(min_value=1, max_value=128), st.sampled_from(["sd", "vd", "xvd"]),
       st.integers(min_value=0, max_value=25), st.sampled_from(["", "/dev/", "/dev/disk/by-id/"]))
def test_any_partition_name_finds_its_whole_disk(by_id: str, part: int, prefix: str,
                                                 letter: int, where: str) -> None:
    name = prefix + "abcdefghijklmnopqrstuvwxyz"[letter]
    idx = DiskIndex([Disk(name, "", "disk", by_id=(by_id,))])
    for ref in (f"{by_id}-part{part}", by_id, f"{name}{part}", name):
        d = idx.whole(where + ref if ref.startswith(by_id) else "/dev/" + ref)
        assert d is not None and d.name == name
