"""Smoke tests of the QEMU guest with real OpenZFS (both flavours; the harness's own checks on
one). Needs ZCONSOLE_VM=1."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import pytest
from vmguest import SAME_HARNESS

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm


def test_versions(zfs_guest: ZfsGuest) -> None:
    out = zfs_guest.exec(["zfs", "version"]).stdout.split()
    expected = zfs_guest.zfs_version
    assert any(line.startswith(f"zfs-{expected}-") for line in out), out
    assert any(line.startswith(f"zfs-kmod-{expected}-") for line in out), out
    kmod = zfs_guest.exec("cat /sys/module/zfs/version").stdout.strip()
    assert kmod.startswith(f"{expected}-"), kmod


def test_arc_pinned(zfs_guest: ZfsGuest) -> None:
    out = zfs_guest.exec("cat /sys/module/zfs/parameters/zfs_arc_max").stdout.strip()
    assert out == "536870912"


@pytest.mark.zfs_flavours("2.3", why=SAME_HARNESS)
def test_disks_by_id(zfs_guest: ZfsGuest) -> None:
    zfs_guest.exec(["test", "-b", "/dev/disk/by-id/virtio-zfsvm-vdb"])
    out = zfs_guest.exec(["lsblk", "-b", "-d", "-n", "-o", "NAME,SIZE,SERIAL"]).stdout
    sizes = {
        cols[2].removeprefix("zfsvm-"): int(cols[1])
        for cols in (line.split() for line in out.splitlines())
        if len(cols) == 3
    }
    for name, size in zfs_guest.disks.items():
        assert sizes.get(name) == size, (name, out)


@pytest.mark.zfs_flavours("2.1", why=SAME_HARNESS)
def test_exit_status_and_stdin(zfs_guest: ZfsGuest) -> None:
    proc = zfs_guest.exec("cat; echo err >&2; exit 7", check=False, input="hello\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (7, "hello\n", "err\n")


def test_mirror_pool(zfs_guest: ZfsGuest) -> None:
    zfs_guest.reset()
    try:
        zfs_guest.exec(["zpool", "create", "tank", "mirror", "vdb", "vdc"])
        status = zfs_guest.exec(["zpool", "status", "-p", "tank"]).stdout
        assert "state: ONLINE" in status
        assert "mirror-0" in status and "vdb" in status and "vdc" in status
        listing = zfs_guest.exec(["zpool", "list", "-H", "-p", "-o", "name,health"]).stdout
        assert listing.split() == ["tank", "ONLINE"]
        if zfs_guest.flavour == "2.3":
            doc = json.loads(zfs_guest.exec(["zpool", "status", "-j", "--json-int"]).stdout)
            pool = doc["pools"]["tank"]
            assert pool["state"] == "ONLINE"
            assert isinstance(pool["pool_guid"], int)
            mirror = pool["vdevs"]["tank"]["vdevs"]["mirror-0"]
            assert set(mirror["vdevs"]) == {"vdb", "vdc"}
        else:
            proc = zfs_guest.exec(["zpool", "status", "-j"], check=False)
            assert proc.returncode != 0  # no JSON before 2.3
        zfs_guest.exec(["zpool", "destroy", "tank"])
    finally:
        zfs_guest.reset()
    assert zfs_guest.exec(["zpool", "list", "-H", "-o", "name"]).stdout == ""


@pytest.mark.zfs_flavours("2.1", why=SAME_HARNESS)
def test_reset_clears_pools_and_labels(zfs_guest: ZfsGuest) -> None:
    zfs_guest.exec(["zpool", "create", "-f", "a", "vdb"])
    zfs_guest.exec(["zpool", "create", "-f", "b", "raidz", "vdc", "vdd", "vde"])
    zfs_guest.exec(["zpool", "export", "b"])  # an exported pool leaves labels behind
    zfs_guest.reset()
    assert zfs_guest.exec(["zpool", "list", "-H", "-o", "name"]).stdout == ""
    # nothing left to import, and the disks take a new pool without -f
    assert "pool:" not in zfs_guest.exec(["zpool", "import"], check=False).stdout
    zfs_guest.exec(["zpool", "create", "c", "vdc", "vdd"])
    zfs_guest.reset()


@pytest.mark.zfs_flavours("2.3", why=SAME_HARNESS)
def test_hot_unplug_and_reset_replugs(zfs_guest: ZfsGuest) -> None:
    zfs_guest.reset()
    link = "/dev/disk/by-id/virtio-zfsvm-vdd"
    zfs_guest.exec(["test", "-b", link])
    zfs_guest.monitor("device_del vdd")
    deadline = time.monotonic() + 60
    while zfs_guest.exec(["test", "-e", link], check=False).returncode == 0:
        assert time.monotonic() < deadline, "vdd still present 60 s after device_del"
        time.sleep(0.5)
    assert "vdd" not in zfs_guest.exec("ls /sys/block").stdout.split()
    zfs_guest.reset()
    zfs_guest.exec(["test", "-b", link])
    out = zfs_guest.exec(["lsblk", "-b", "-d", "-n", "-o", "SERIAL,SIZE"]).stdout
    assert "zfsvm-vdd" in out
