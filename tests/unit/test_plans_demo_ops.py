"""The demo host's commands the plans need: zfs send | zfs receive through run_pipeline,
zfs rename / mount / unmount, mountpoint=none, and the read-only dd of "identify" — with ZFS's
refusals where the real tools refuse."""

from __future__ import annotations

import pytest

from zconsole.hosts.demo import DemoHost

T0 = 1795302000.0


def mk(scenario: str = "dedup", version: str = "2.3") -> DemoHost:
    return DemoHost(scenario, version, clock=lambda: T0)


def get(h: DemoHost, prop: str, ds: str) -> str:
    return h.run(["zfs", "get", "-H", "-p", "-o", "value", prop, ds]).stdout.strip()


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_send_receive_creates_the_copy(version: str) -> None:
    h = mk(version=version)
    h.run(["zfs", "snapshot", "tank/backup@s"])
    r = h.run_pipeline([["zfs", "send", "-p", "tank/backup@s"],
                        ["zfs", "receive", "-u", "-o", "dedup=off", "tank/copy"]])
    assert r.returncode == 0, r.stderr
    assert get(h, "dedup", "tank/copy") == "off"
    assert get(h, "compression", "tank/copy") == "zstd"  # -p carried the local property
    assert get(h, "mounted", "tank/copy") == "no"  # -u
    assert get(h, "referenced", "tank/copy") == get(h, "referenced", "tank/backup")
    assert "tank/copy@s" in h.run(["zfs", "list", "-H", "-t", "snapshot", "-o", "name", "-r",
                                   "tank/copy"]).stdout
    # without -p only inherited values
    r = h.run_pipeline([["zfs", "send", "tank/backup@s"], ["zfs", "recv", "tank/copy2"]])
    assert r.returncode == 0 and get(h, "compression", "tank/copy2") == "off"


def test_send_receive_refusals() -> None:
    h = mk()
    h.run(["zfs", "snapshot", "tank/backup@s"])
    r = h.run_pipeline([["zfs", "send", "tank/backup@nosuch"], ["zfs", "receive", "tank/x"]],
                       check=False)
    assert r.returncode == 1
    assert "cannot open 'tank/backup@nosuch': dataset does not exist" in r.stderr
    assert "cannot receive: invalid stream (bad magic number)" in r.stderr
    r = h.run_pipeline([["zfs", "send", "tank/backup@s"], ["zfs", "receive", "tank/vm"]],
                       check=False)
    assert r.returncode == 1 and ("cannot receive new filesystem stream: destination "
                                  "'tank/vm' exists\nmust specify -F to overwrite it") in r.stderr
    r = h.run_pipeline([["zfs", "send", "tank/backup@s"], ["zfs", "receive", "tank/a/b"]],
                       check=False)
    assert r.returncode == 1 and "parent of 'tank/a/b' does not exist" in r.stderr
    rc = h.run(["zfs", "receive", "tank/y"], check=False, stdin="garbage")
    assert rc.returncode == 1 and "bad magic number" in rc.stderr


def test_rename_mount_unmount() -> None:
    h = mk()
    assert get(h, "mounted", "tank/vm") == "yes"
    h.run(["zfs", "rename", "tank/vm", "tank/vm.old"])
    assert get(h, "dedup", "tank/vm.old") == "on"
    r = h.run(["zfs", "rename", "tank/backup", "tank/vm.old"], check=False)
    assert (r.returncode, r.stderr) == (1, "cannot rename to 'tank/vm.old': dataset already "
                                           "exists\n")
    r = h.run(["zfs", "rename", "tank/nosuch", "tank/z"], check=False)
    assert r.stderr == "cannot open 'tank/nosuch': dataset does not exist\n"
    h.run(["zfs", "set", "mountpoint=none", "tank/vm.old"])
    assert get(h, "mounted", "tank/vm.old") == "no"
    assert "tank/vm.old" not in h.read_text("/proc/mounts")
    r = h.run(["zfs", "unmount", "tank/vm.old"], check=False)
    assert r.stderr == "cannot unmount 'tank/vm.old': not currently mounted\n"
    r = h.run(["zfs", "mount", "tank/vm.old"], check=False)
    assert r.stderr == "cannot mount 'tank/vm.old': no mountpoint set\n"
    h.run(["zfs", "unmount", "tank/backup"])
    assert get(h, "mounted", "tank/backup") == "no"
    h.run(["zfs", "mount", "tank/backup"])
    r = h.run(["zfs", "mount", "tank/backup"], check=False)
    assert r.stderr == "cannot mount 'tank/backup': filesystem already mounted\n"


def test_rename_moves_children_snapshots_and_origins() -> None:
    h = mk("showcase")
    h.run(["zfs", "rename", "tank/vm", "tank/vms"])
    names = h.run(["zfs", "list", "-H", "-o", "name", "-r", "tank/vms"]).stdout.split()
    assert "tank/vms/win11" in names and "tank/vm/win11" not in names
    assert get(h, "origin", "tank/vms/debian12-test") == "tank/vms/debian12@golden"


def test_dd_identify_reads_only() -> None:
    h = mk("grow")
    link = "/dev/disk/by-id/ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
    r = h.run(["dd", f"if={link}", "of=/dev/null", "bs=1M", "count=2000", "iflag=direct"])
    assert r.stderr.startswith("2000+0 records in\n2000+0 records out\n2097152000 bytes")
    r = h.run(["dd", "if=/dev/sdz", "of=/dev/null"], check=False)
    assert r.returncode == 1 and "No such file or directory" in r.stderr
    r = h.run(["dd", f"if={link}", "of=/dev/sdb"], check=False)
    assert r.returncode == 1
