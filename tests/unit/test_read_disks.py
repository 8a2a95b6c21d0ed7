"""The Disks screen's rows: exact roles and identity on the demo showcase, synthetic stacked
devices, I/O and history, sorting and filtering, and this very machine through LocalHost."""

from __future__ import annotations

import os

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.model.disk import Disk, DiskIo
from zconsole.model.finding import Finding, Severity
from zconsole.model.reading import DiskInventory, DiskState
from zconsole.services.read import disks as dv
from zconsole.services.read.collect import collect
from zconsole.services.read.identity import classify

FROZEN = 1795302010.0


def io(name: str, util: float, r_await: float, w_await: float) -> DiskIo:
    return DiskIo(name=name, interval_s=5.0, r_s=10.0, w_s=20.0, rkb_s=100.0, wkb_s=200.0,
                  r_await_ms=r_await, w_await_ms=w_await, await_ms=max(r_await, w_await),
                  aqu_sz=0.5, util_pct=util)


class FakeHistory:
    def __init__(self, data: dict[tuple[str, str], tuple[float, ...]]) -> None:
        self.data = data

    def series(self, disk: str, attr: str) -> tuple[float, ...]:
        return self.data.get((disk, attr), ())


@pytest.fixture(scope="module", params=["2.1", "2.3"])
def showcase(request: pytest.FixtureRequest) -> DiskInventory:
    snap = collect(DemoHost("showcase", zfs_version=request.param, clock=lambda: FROZEN))
    inv = snap.disks.value
    assert inv is not None, snap.disks.error
    return inv


def test_showcase_roles_exact(showcase: DiskInventory) -> None:
    rows = {r.name: r for r in dv.build_rows(showcase)}
    # whole disks only, never a partition row
    assert sorted(rows, key=dv.natural_key) == [
        "sda", "sdb", "sdc", "sdd", "sde", "sdf", "sdg", "sdh", "sdi", "sdj", "sdk", "sdl",
        "sdm", "nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]
    # the ext4 disk
    assert rows["sdk"].state is DiskState.IN_USE
    assert rows["sdk"].role_sentence == "in use: /srv/backup mounted (ext4)"
    assert rows["sdk"].role_word == "IN USE" and rows["sdk"].role_symbol == "■"
    # the label of a pool that is not imported here
    assert rows["sdl"].state is DiskState.IN_USE
    assert rows["sdl"].role_sentence == "in use: label of pool oldpool, not imported here"
    # the boot disk: two mounts and swap
    assert rows["nvme0n1"].role_sentence == (
        "in use: /boot/efi mounted (vfat); / mounted (ext4); swap")
    # free ones
    for name in ("sdh", "sdi", "sdj", "sdm"):  # sdm: clean, its SMART is bad (issue 30)
        assert rows[name].state is DiskState.FREE
        assert rows[name].role_sentence == "free: no partitions, no signature"
        assert rows[name].role_word == "FREE" and rows[name].role_symbol == "○"
    # in pool, with pool and vdev
    expect = {"sda": ("tank", "mirror-0"), "sdb": ("tank", "mirror-0"),
              "sdc": ("tank", "mirror-1"), "sdd": ("tank", "mirror-1"),
              "sde": ("tank", "log mirror-2"), "sdf": ("tank", "log mirror-2"),
              "sdg": ("tank", "spare"), "nvme1n1": ("tank", "cache"),
              "nvme2n1": ("fast", "mirror-0"), "nvme3n1": ("fast", "mirror-0")}
    for name, (pool, vdev) in expect.items():
        r = rows[name]
        assert r.state is DiskState.IN_POOL, name
        assert (r.pool, r.vdev) == (pool, vdev), name
        assert r.role_sentence == f"in pool {pool}, {vdev}"
        assert r.role_word == "IN POOL" and r.role_symbol == "◆"
    assert rows["sda"].leaf == "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"


def test_showcase_identity(showcase: DiskInventory) -> None:
    rows = {r.name: r for r in dv.build_rows(showcase)}
    sdj, sdh, sda = rows["sdj"], rows["sdh"], rows["sda"]
    assert (sdj.disk.logical_sector, sdj.disk.physical_sector, sdj.sector_format) == (4096, 4096, "4Kn")
    assert (sdh.disk.logical_sector, sdh.disk.physical_sector, sdh.sector_format) == (512, 4096, "512e")
    assert sda.sector_format == "512n"
    assert sda.disk.preferred_id == "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
    assert sda.disk.by_path == ("pci-0000:00:17.0-ata-1",)
    assert sda.disk.serial == "PN2334PBJ1A2BT" and sda.disk.model == "HGST_HUS724040ALE640"
    assert sda.disk.size_bytes == 4000787030016
    assert (sda.media, rows["sde"].media, rows["nvme1n1"].media) == ("HDD", "SSD", "NVMe")
    # partitions are listed under their disk with what is on them
    sdk1 = rows["sdk"].partitions
    assert [p.name for p in sdk1] == ["sdk1"]
    assert sdk1[0].fs_type == "ext4" and sdk1[0].mountpoints == ("/srv/backup",)
    assert sdk1[0].use == "ext4, mounted at /srv/backup"
    assert [p.use for p in rows["sda"].partitions] == [
        "ZFS label of pool tank", "no filesystem signature seen"]
    assert rows["nvme0n1"].partitions[2].use == "active swap"
    assert [p.name for p in rows["sdh"].partitions] == []


def test_io_history_and_slow_finding(showcase: DiskInventory) -> None:
    leaf = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"
    finding = Finding("slow-disk", Severity.CRITICAL, leaf,
                      f"{leaf} answers 10.5× slower than its mirror peer X; every write to "
                      "mirror-0 waits for it", pool="tank", factor=10.5)
    other_pool = Finding("slow-disk", Severity.WARNING, leaf, "elsewhere", pool="fast")
    latest = {"sda": io("sda", 40.0, 8.0, 9.0), "sdb": io("sdb", 100.0, 70.0, 86.0),
              "sdk1": io("sdk1", 99.0, 1.0, 1.0)}
    hist = FakeHistory({("sdb", "util_pct"): (90.0, 100.0),
                        ("sdb", "r_await_ms"): (60.0, 70.0),
                        ("sdb", "w_await_ms"): (80.0, 86.0)})
    rows = {r.name: r for r in dv.build_rows(showcase, latest=latest, history=hist,
                                          findings=[other_pool, finding],
                                          io_missing="no interval yet")}
    assert rows["sdb"].slow is finding
    assert rows["sdb"].slow_sentence is not None and "10.5×" in rows["sdb"].slow_sentence
    assert rows["sda"].slow is None
    assert rows["sdb"].io == latest["sdb"] and rows["sdb"].io_missing is None
    assert rows["sdb"].await_ms == 86.0
    assert rows["sdb"].busy_series == (90.0, 100.0)
    assert rows["sdb"].w_await_series == (80.0, 86.0)
    # a partition's figures never reach the disk row
    assert rows["sdk"].io is None and rows["sdk"].io_missing == "no interval yet"
    assert rows["sdc"].busy_series == ()

    ordered = [r.name for r in dv.sort_rows(rows.values(), dv.SortKey.BUSY)]
    assert ordered[:2] == ["sdb", "sda"]
    assert [r.name for r in dv.sort_rows(rows.values(), dv.SortKey.AWAIT)][:2] == ["sdb", "sda"]
    names = [r.name for r in dv.sort_rows(rows.values(), dv.SortKey.NAME)]
    assert names[0] == "sda" and names[-1] == "nvme3n1"


def test_filters(showcase: DiskInventory) -> None:
    rows = dv.build_rows(showcase)
    assert {r.name for r in dv.filter_rows(rows, dv.RoleFilter.FREE)} == {"sdh", "sdi", "sdj",
                                                                          "sdm"}
    assert {r.name for r in dv.filter_rows(rows, dv.RoleFilter.IN_USE)} == {"sdk", "sdl", "nvme0n1"}
    assert len(dv.filter_rows(rows, dv.RoleFilter.IN_POOL)) == 10
    assert len(dv.filter_rows(rows, dv.RoleFilter.ALL)) == 17
    f = dv.RoleFilter.ALL
    seen = []
    for _ in range(4):
        seen.append(f)
        f = f.next()
    assert f is dv.RoleFilter.ALL and len(set(seen)) == 4
    assert dv.SortKey.NAME.next() is dv.SortKey.BUSY and dv.SortKey.AWAIT.next() is dv.SortKey.NAME


def test_stacked_and_swap_words() -> None:
    devices = (
        Disk("sda", "", "disk", partitions=("sda1",)),
        Disk("sda1", "", "part", parent="sda", holders=("md0",), fs_type="linux_raid_member"),
        Disk("sdb", "", "disk", holders=("dm-0",), fs_type="LVM2_member"),
        Disk("sdc", "", "disk", fs_type="swap", mountpoints=("[SWAP]",)),
        Disk("sdd", "", "disk", partitions=("sdd1",)),
        Disk("sdd1", "", "part", parent="sdd", fs_type="xfs"),
        Disk("md0", "", "md", holders=()),
        Disk("dm-0", "", "dm"),
        Disk("loop0", "", "loop"),
        Disk("zram0", "", "other"),
    )
    inv = DiskInventory(devices)
    inv = DiskInventory(devices, roles=classify(inv, []))
    rows = {r.name: r for r in dv.build_rows(inv)}
    assert set(rows) == {"sda", "sdb", "sdc", "sdd"}  # md/dm/loop/zram themselves ignored
    assert rows["sda"].role_sentence == "in use: md member (md0)"
    assert rows["sdb"].role_sentence == "in use: dm member (dm-0)"
    assert rows["sdc"].role_sentence == "in use: swap"
    assert rows["sdd"].state is DiskState.HAS_DATA
    assert rows["sdd"].role_sentence == "has data: xfs on sdd1, not mounted"
    assert dv.ignored_summary(inv) == "not shown: 1 dm, 1 loop, 1 md, 1 zram"
    assert {r.name for r in dv.build_rows(inv, include_ignored=True)} >= {"loop0", "md0"}


def test_unknown_values_stay_unknown() -> None:
    inv = DiskInventory((Disk("sdz", "", "disk"),))
    inv = DiskInventory(inv.devices, roles=classify(inv, None))
    (row,) = dv.build_rows(inv)
    assert row.media is None and row.sector_format is None and row.disk.size_bytes is None
    assert row.state is DiskState.FREE
    assert row.role_sentence == "free: no partitions, no signature (pool membership not checked)"
    no_role = dv.build_rows(DiskInventory((Disk("sdy", "", "disk"),)))
    assert no_role[0].state is None and no_role[0].role_word == "UNKNOWN"
    assert no_role[0].role_sentence == "role unknown: no role computed"


def test_io_missing_reasons() -> None:
    assert dv.io_missing_reason(False, (), None) == "no sample yet"
    assert "diskstats could not be read: boom" in dv.io_missing_reason(True, (), "boom")
    assert dv.io_missing_reason(True, ("x failed",), None) == "sampling failed: x failed"
    assert dv.io_missing_reason(True, (), None).startswith("no interval yet")


def _sysfs_whole_disks() -> dict[str, int]:
    """Whole physical disks of this machine straight from sysfs (independent of zconsole)."""
    out: dict[str, int] = {}
    base = "/sys/class/block"
    for name in os.listdir(base):
        if name.startswith(("loop", "ram", "zram")):
            continue
        path = os.path.join(base, name)
        if os.path.exists(os.path.join(path, "partition")):
            continue
        if "/devices/virtual/" in os.path.realpath(path):
            continue  # dm-*, md*, zram, loop: stacked or virtual, never a disk
        with open(os.path.join(path, "size")) as f:
            out[name] = int(f.read().strip()) * 512
    return out


@pytest.mark.skipif(not os.path.isdir("/sys/class/block"), reason="no sysfs here")
def test_local_host_lists_every_disk_of_this_machine() -> None:
    from zconsole.hosts.local import LocalHost

    expected = _sysfs_whole_disks()
    snap = collect(LocalHost())
    inv = snap.disks.value
    assert inv is not None, snap.disks.error
    rows = {r.name: r for r in dv.build_rows(inv)}
    for name, size in expected.items():
        assert name in rows, (name, sorted(rows))
        assert rows[name].disk.size_bytes == size, name
        assert rows[name].state is not None
        assert rows[name].role_sentence
    # partitions never show as rows of their own
    for name in rows:
        assert not os.path.exists(f"/sys/class/block/{name}/partition")
