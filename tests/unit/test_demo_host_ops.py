"""DemoHost write commands: state changes and ZFS's real refusals (text and exit code)."""

from __future__ import annotations

import json
import re

import pytest

from tests.fakes import Clock
from zconsole.hosts.base import CommandFailed, PermissionDenied
from zconsole.hosts.demo import DemoHost

T0 = 1795302000.0
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"  # tank mirror-0, healthy
A1 = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # tank mirror-0, the slow one
SPARE = "ata-HGST_HUS724040ALE640_PN2334PBJ7F5ZT"


def mk(scenario: str = "showcase", version: str = "2.3", **kw: object) -> tuple[DemoHost, Clock]:
    c = Clock(T0)
    return DemoHost(scenario, version, c, **kw), c  # type: ignore[arg-type]


def run(h: DemoHost, *argv: str) -> tuple[int, str, str]:
    return h.answer(list(argv))


def status(h: DemoHost, pool: str = "tank") -> str:
    return h.run(["zpool", "status", pool]).stdout


# ------------------------------------------------------------------------------ attach


@pytest.mark.parametrize("new,err", [
    ("sdi", f"cannot attach sdi to {A0}: device is too small\n"),
    ("sdj", f"cannot attach sdj to {A0}: new device has a different optimal sector size; "
            "use the option '-o ashift=N' to override the optimal size\n"),
    ("sdk", "/dev/sdk is in use and contains a unknown filesystem.\n"),
    ("sdl", "invalid vdev specification\nuse '-f' to override the following errors:\n"
            "/dev/sdl1 is part of exported pool 'oldpool'\n"),
    ("sdc", "invalid vdev specification\nuse '-f' to override the following errors:\n"
            "/dev/sdc1 is part of active pool 'tank'\n"),
    ("sdz", "cannot open 'sdz': no such device in /dev\n"
            "must be a full path or shorthand device name\n"),
])
def test_attach_refusals(new: str, err: str) -> None:
    h, _ = mk()
    before = status(h)
    assert run(h, "zpool", "attach", "tank", A0, new) == (1, "", err)
    assert status(h) == before


def test_attach_refusals_on_the_old_side() -> None:
    h, _ = mk()
    assert run(h, "zpool", "attach", "tank", "nosuch", "sdh") == (
        1, "", "cannot attach sdh to nosuch: no such device in pool\n")
    assert run(h, "zpool", "attach", "tank", "mirror-0", "sdh") == (
        1, "", "cannot attach sdh to mirror-0: can only attach to mirrors and top-level "
               "disks\n")
    assert run(h, "zpool", "attach", "tank", SPARE, "sdh") == (
        1, "", f"cannot attach sdh to {SPARE}: device is reserved as a hot spare\n")
    assert run(h, "zpool", "attach", "nopool", A0, "sdh") == (
        1, "", "cannot open 'nopool': no such pool\n")
    rc, _, err = run(h, "zpool", "attach", "tank", A0)
    assert rc == 2 and err.startswith("missing <new_device> specification\nusage:\n")
    rc, _, err = run(h, "zpool", "attach", "-x", "tank", A0, "sdh")
    assert rc == 2 and err.startswith("invalid option 'x'\nusage:\n")
    # -f overrides an exported pool's label but never an active one
    rc, _, err = run(h, "zpool", "attach", "-f", "tank", A0, "sdc")
    assert rc == 1 and "the following errors must be manually repaired:" in err


def test_attach_widens_mirror_starts_resilver_and_cancels_scrub() -> None:
    h, c = mk()
    assert run(h, "zpool", "scrub", "tank") == (0, "", "")
    assert "scrub in progress since" in status(h)
    assert run(h, "zpool", "attach", "tank", A0, "sdh") == (0, "", "")
    text = status(h)
    assert "resilver in progress since" in text and "(resilvering)" in text
    assert "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE" in text
    mirror0 = text.split("mirror-0")[1].split("mirror-1")[0]
    assert mirror0.count("ata-") == 3
    c.t += 30 * 86400
    done = status(h)
    assert "(resilvering)" not in done and re.search(r"scan: resilvered \S+ in ", done)


def test_attach_options_any_order_and_wait() -> None:
    h, c = mk()
    rc, _, _ = run(h, "zpool", "attach", "tank", A0, "-w", "sdh", "-o", "ashift=9")
    assert rc == 0
    assert "resilvering" not in status(h)
    assert h.now() > T0  # fast-forwarded, not slept
    assert c.t == T0


def test_attach_single_disk_makes_mirror() -> None:
    h, _ = mk("grow")
    assert run(h, "zpool", "detach", "tank", "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02") == (
        0, "", "")
    text = status(h)
    assert "mirror-0" not in text
    assert run(h, "zpool", "attach", "-w", "tank", "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01",
               "sdc") == (0, "", "")
    assert "mirror-0" in status(h)


# ------------------------------------------------------------------------------ detach


def test_detach_and_refusals() -> None:
    h, _ = mk()
    assert run(h, "zpool", "detach", "tank", "nosuch") == (
        1, "", "cannot detach nosuch: no such device in pool\n")
    assert run(h, "zpool", "detach", "tank", "mirror-0") == (
        1, "", "cannot detach mirror-0: only applicable to mirror and replacing vdevs\n")
    assert run(h, "zpool", "detach", "tank", SPARE) == (
        1, "", f"cannot detach {SPARE}: device is reserved as a hot spare\n")
    # fast: the only complete copy cannot go while its partner is still resilvering
    src = "nvme-WD_BLACK_SN770_1TB_22517D801234"
    assert run(h, "zpool", "detach", "fast", src) == (
        1, "", f"cannot detach {src}: no valid replicas\n")
    assert run(h, "zpool", "detach", "tank", A1) == (0, "", "")
    text = status(h)
    assert A1 not in text and A0 in text
    assert run(h, "zpool", "detach", "tank", A0) == (
        1, "", f"cannot detach {A0}: only applicable to mirror and replacing vdevs\n")


# ----------------------------------------------------------------------------- replace


def test_replace_creates_replacing_then_old_goes_away() -> None:
    h, c = mk()
    assert run(h, "zpool", "replace", "tank", A1, "sdh") == (0, "", "")
    text = status(h)
    assert "replacing-1" in text and A1 in text
    assert "status: One or more devices is currently being resilvered." in text
    again = run(h, "zpool", "replace", "tank", A1, "sdz")
    assert again == (1, "", "cannot open 'sdz': no such device in /dev\n"
                            "must be a full path or shorthand device name\n")
    assert run(h, "zpool", "replace", "tank", A1, "sdl") == (
        1, "", "invalid vdev specification\nuse '-f' to override the following errors:\n"
               "/dev/sdl1 is part of exported pool 'oldpool'\n")
    assert run(h, "zpool", "replace", "-f", "tank", A1, "sdl") == (
        1, "", f"cannot replace {A1} with sdl: already in replacing/spare config; wait for "
               "completion or use 'zpool detach'\n")
    assert run(h, "zpool", "wait", "-t", "replace", "tank") == (0, "", "")
    done = status(h)
    assert "replacing" not in done and A1 not in done
    assert "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE" in done
    # the old disk is free again: its ZFS label is gone
    props = h.run(["udevadm", "info", "--query=property", "--name=/dev/sdb1"]).stdout
    assert "ID_FS_TYPE=zfs_member" not in props
    del c


def test_replace_too_small_and_sector_size() -> None:
    h, _ = mk()
    assert run(h, "zpool", "replace", "tank", A1, "sdi") == (
        1, "", f"cannot replace {A1} with sdi: device is too small\n")
    rc, _, err = run(h, "zpool", "replace", "-o", "ashift=12", "tank", A1, "sdj")
    assert rc == 1 and err.endswith("new device has a different optimal sector size; use the "
                                    "option '-o ashift=N' to override the optimal size\n")


def test_replace_missing_device_in_degraded_pool() -> None:
    h, _ = mk("degraded")
    js = json.loads(h.run(["zpool", "status", "-j", "--json-int"]).stdout)
    tank = js["pools"]["tank"]

    def walk(v: dict) -> list[dict]:
        return [v] + [x for c in v.get("vdevs", {}).values() for x in walk(c)]

    missing = next(v for v in walk(tank["vdevs"]["tank"]) if v.get("not_present"))
    guid = str(missing["guid"])
    assert guid in status(h)
    assert run(h, "zpool", "replace", "-w", "tank", guid, "sdh") == (0, "", "")
    text = status(h)
    assert guid not in text and "was /dev" not in text


def test_grow_replace_then_autoexpand() -> None:
    h, _ = mk("grow")
    size0 = int(h.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    old0 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
    old1 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02"
    assert run(h, "zpool", "replace", "-w", "tank", old0, "sdc")[0] == 0
    size1 = int(h.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    assert size1 == size0  # one member is not enough
    assert run(h, "zpool", "replace", "-w", "tank", old1, "sdd")[0] == 0
    row = h.run(["zpool", "list", "-H", "-p", "-o", "size,expandsize", "tank"]).stdout.split()
    assert int(row[0]) == size0 and int(row[1]) > 0  # unclaimed until online -e
    assert run(h, "zpool", "online", "-e", "tank", "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW03") \
        == (0, "", "")
    row = h.run(["zpool", "list", "-H", "-p", "-o", "size,expandsize", "tank"]).stdout.split()
    assert int(row[0]) > size0 and row[1] == "-"


def test_autoexpand_grows_at_end_of_last_replace() -> None:
    h, _ = mk("grow")
    size0 = int(h.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    assert run(h, "zpool", "set", "autoexpand=on", "tank") == (0, "", "")
    assert h.run(["zpool", "get", "-H", "-p", "autoexpand", "tank"]).stdout == \
        "tank\tautoexpand\ton\tlocal\n"
    run(h, "zpool", "replace", "-w", "tank", "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01", "sdc")
    run(h, "zpool", "replace", "-w", "tank", "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02", "sdd")
    size2 = int(h.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    assert size2 > size0


# ----------------------------------------------------------------- online/offline/clear


def test_offline_online_clear() -> None:
    h, _ = mk()
    assert run(h, "zpool", "offline", "tank", A1) == (0, "", "")
    text = status(h)
    assert " state: DEGRADED" in text and re.search(A1 + r" +OFFLINE", text)
    assert "status: One or more devices has been taken offline by the administrator." in text
    assert run(h, "zpool", "offline", "tank", A0) == (
        1, "", f"cannot offline {A0}: no valid replicas\n")
    assert run(h, "zpool", "offline", "tank", "nosuch") == (
        1, "", "cannot offline nosuch: no such device in pool\n")
    assert run(h, "zpool", "online", "tank", A1) == (0, "", "")
    assert " state: ONLINE" in status(h)
    assert run(h, "zpool", "online", "tank", "nosuch") == (
        1, "", "cannot online nosuch: no such device in pool\n")
    d, _ = mk("degraded")
    assert "too many errors" in status(d)
    assert run(d, "zpool", "clear", "tank") == (0, "", "")
    assert "too many errors" not in status(d)


def test_offline_of_a_faulted_disk_keeps_it_faulted() -> None:
    """Real OpenZFS (2.1.11 and 2.3.2 guests): `zpool offline` of a FAULTED disk exits 0 and
    zpool status keeps showing FAULTED; the demo rehearses the same."""
    d, _ = mk("degraded")
    faulted = "ata-ST4000VN008-2DR166_ZGY8C3D4"
    assert re.search(faulted + r" +FAULTED", status(d))
    assert run(d, "zpool", "offline", "tank", faulted) == (0, "", "")
    text = status(d)
    assert re.search(faulted + r" +FAULTED", text) and not re.search(faulted + r" +OFFLINE", text)


# ------------------------------------------------------------------------ scrub / wait


def test_scrub_lifecycle_and_refusals() -> None:
    h, c = mk("healthy")
    assert run(h, "zpool", "scrub", "-s", "tank") == (
        1, "", "cannot cancel scrubbing tank: there is no active scrub\n")
    assert run(h, "zpool", "scrub", "-p", "tank") == (
        1, "", "cannot pause scrubbing tank: there is no active scrub\n")
    rc, _, err = run(h, "zpool", "scrub", "-s", "-p", "tank")
    assert rc == 2 and "mutually exclusive" in err
    assert run(h, "zpool", "scrub", "tank") == (0, "", "")
    assert run(h, "zpool", "scrub", "tank") == (
        1, "", "cannot scrub tank: currently scrubbing; use 'zpool scrub -s' to cancel current "
               "scrub\n")
    c.t += 60
    assert "scrub in progress since" in status(h)
    assert run(h, "zpool", "scrub", "-p", "tank") == (0, "", "")
    assert "scrub paused since" in status(h)
    assert run(h, "zpool", "scrub", "tank") == (0, "", "")
    assert run(h, "zpool", "wait", "-t", "scrub", "tank") == (0, "", "")
    assert re.search(r"scan: scrub repaired 0B in \S+ with 0 errors on ", status(h))
    assert run(h, "zpool", "scrub", "-w", "tank") == (0, "", "")
    s, _ = mk()
    assert run(s, "zpool", "scrub", "fast") == (1, "", "cannot scrub fast: currently "
                                                       "resilvering\n")
    assert run(s, "zpool", "scrub", "-s", "tank") == (
        1, "", "cannot cancel scrubbing tank: there is no active scrub\n")
    assert run(s, "zpool", "scrub", "tank") == (0, "", "")
    assert run(s, "zpool", "scrub", "-s", "tank") == (0, "", "")
    assert "scrub canceled on" in status(s)


def test_wait_fast_forwards_resilver() -> None:
    h, c = mk()
    assert "resilver in progress" in status(h, "fast")
    rc, _, err = run(h, "zpool", "wait", "-t", "bogus", "fast")
    assert rc == 2 and err.startswith("invalid activity 'bogus'")
    assert run(h, "zpool", "wait", "-t", "resilver", "fast") == (0, "", "")
    text = status(h, "fast")
    assert "resilvered" in text and "(resilvering)" not in text
    assert c.t == T0 and h.now() > T0


def test_labelclear() -> None:
    h, _ = mk()
    assert run(h, "zpool", "labelclear", "/dev/sdl") == (
        1, "", "use '-f' to override the following error:\n"
               "/dev/sdl is a member of exported pool \"oldpool\"\n")
    rc, _, err = run(h, "zpool", "labelclear", "/dev/sda")
    assert rc == 1 and err.startswith("labelclear operation failed.\n")
    assert run(h, "zpool", "labelclear", "-f", "/dev/sdl") == (0, "", "")
    assert run(h, "zpool", "attach", "-w", "tank", A0, "sdl") == (0, "", "")


def test_pool_set_refusals() -> None:
    h, _ = mk()
    assert run(h, "zpool", "set", "size=1T", "tank") == (
        1, "", "cannot set property for 'tank': 'size' is readonly\n")
    assert run(h, "zpool", "set", "autoexpand=maybe", "tank") == (
        1, "", "cannot set property for 'tank': 'autoexpand' must be one of 'on | off'\n")
    rc, _, err = run(h, "zpool", "set", "autoexpand", "tank")
    assert rc == 2 and "missing value" in err


# ------------------------------------------------------------------------------- zfs


def test_snapshot_clone_promote_destroy() -> None:
    h, _ = mk()
    assert run(h, "zfs", "snapshot", "-r", "tank/home@now") == (0, "", "")
    names = h.run(["zfs", "list", "-t", "snapshot", "-H", "-o", "name", "-r",
                   "tank/home"]).stdout.split()
    assert {"tank/home@now", "tank/home/alice@now", "tank/home/bob@now"} <= set(names)
    assert run(h, "zfs", "snapshot", "tank/home@now") == (
        1, "", "cannot create snapshot 'tank/home@now': dataset already exists\n")
    assert run(h, "zfs", "clone", "tank/home/bob@now", "tank/bobcopy") == (0, "", "")
    origin = h.run(["zfs", "get", "-H", "-o", "value", "origin", "tank/bobcopy"]).stdout
    assert origin == "tank/home/bob@now\n"
    assert run(h, "zfs", "clone", "tank/home/bob@now", "tank/x/y") == (
        1, "", "cannot create 'tank/x/y': parent does not exist\n")
    assert run(h, "zfs", "promote", "tank/home/bob") == (
        1, "", "cannot promote 'tank/home/bob': not a cloned filesystem\n")
    assert run(h, "zfs", "promote", "tank/bobcopy") == (0, "", "")
    assert h.run(["zfs", "get", "-H", "-o", "value", "origin",
                  "tank/home/bob"]).stdout == "tank/bobcopy@now\n"
    assert h.run(["zfs", "get", "-H", "-o", "value", "origin",
                  "tank/bobcopy"]).stdout == "-\n"


def test_destroy_snapshot_with_clones_refused_and_dry_run_bug() -> None:
    h, _ = mk()
    rc, out, err = run(h, "zfs", "destroy", "tank/vm/debian12@golden")
    assert rc == 1 and out == ""
    assert err.startswith("cannot destroy 'tank/vm/debian12@golden': snapshot has dependent "
                          "clones\nuse '-R' to destroy the following datasets:\n")
    listed = err.splitlines()[2:]
    assert "tank/vm/debian12-test" in listed and "tank/vm/debian12-test2" in listed
    # -nv without -R: the same refusal is how to learn the blast radius
    assert run(h, "zfs", "destroy", "-nv", "tank/vm/debian12@golden")[2] == err
    # the real bug: -nvR does NOT list the dependent clones
    rc, out, _ = run(h, "zfs", "destroy", "-nvR", "tank/vm/debian12@golden")
    assert rc == 0
    assert out.splitlines()[0] == "would destroy tank/vm/debian12@golden"
    assert "debian12-test" not in out
    assert out.splitlines()[-1].startswith("would reclaim ")
    # -R for real takes the clones too
    rc, out, _ = run(h, "zfs", "destroy", "-vR", "tank/vm/debian12@golden")
    assert rc == 0 and "will destroy tank/vm/debian12-test2" in out
    left = h.run(["zfs", "list", "-H", "-o", "name", "-r", "tank/vm"]).stdout.split()
    assert "tank/vm/debian12-test" not in left and "tank/vm/debian12" in left


def test_destroy_filesystem_refusals() -> None:
    h, _ = mk()
    rc, _, err = run(h, "zfs", "destroy", "tank/home")
    assert rc == 1 and err.startswith("cannot destroy 'tank/home': filesystem has children\n"
                                      "use '-r' to destroy the following datasets:\n")
    rc, _, err = run(h, "zfs", "destroy", "-r", "tank/home/alice")
    assert rc == 1 and err.startswith("cannot destroy 'tank/home/alice': filesystem has "
                                      "dependent clones\nuse '-R' to destroy the following "
                                      "datasets:\ntank/home/alice-restore")
    assert run(h, "zfs", "destroy", "tank") == (
        1, "", "cannot destroy 'tank': operation does not apply to pools\n"
               "use 'zfs destroy -r tank' to destroy all datasets in the pool\n"
               "use 'zpool destroy tank' to destroy the pool itself\n")
    assert run(h, "zfs", "destroy", "tank/nope") == (
        1, "", "cannot open 'tank/nope': dataset does not exist\n")
    assert run(h, "zfs", "destroy", "tank/home/alice-restore") == (0, "", "")
    rc, out, _ = run(h, "zfs", "destroy", "-rnp", "tank/home/alice")
    assert rc == 0 and "destroy\ttank/home/alice\n" in out


def test_zfs_set() -> None:
    h, _ = mk()
    assert run(h, "zfs", "set", "dedup=off", "tank/vm") == (0, "", "")
    assert h.run(["zfs", "get", "-H", "dedup", "tank/vm"]).stdout == "tank/vm\tdedup\toff\tlocal\n"
    # the DDT stays: dedup=off only affects new writes
    assert "DDT entries" in h.run(["zpool", "status", "-D", "tank"]).stdout
    assert run(h, "zfs", "set", "used=1", "tank/vm") == (
        1, "", "cannot set property for 'tank/vm': 'used' is readonly\n")
    assert run(h, "zfs", "set", "compression=zstd", "tank/home") == (0, "", "")
    assert h.run(["zfs", "get", "-H", "compression", "tank/home/alice"]).stdout == \
        "tank/home/alice\tcompression\tzstd\tinherited from tank/home\n"


def test_writes_as_non_root_fail_with_permission_denied() -> None:
    h, _ = mk(root=False)
    assert h.run(["id", "-u"]).stdout == "1000\n"
    assert h.run(["zpool", "status"]).returncode == 0
    with pytest.raises(PermissionDenied):
        h.run(["zpool", "attach", "tank", A0, "sdh"])
    with pytest.raises(PermissionDenied):
        h.run(["zfs", "snapshot", "tank/home@x"])
    assert run(h, "zfs", "destroy", "tank/home/bob") == (
        1, "", "cannot destroy 'tank/home/bob': permission denied\n")


def test_check_raises_command_failed() -> None:
    h, _ = mk()
    with pytest.raises(CommandFailed) as e:
        h.run(["zpool", "detach", "tank", "nosuch"])
    assert e.value.returncode == 1


def test_snapshots_scenario_is_lazy_and_complete() -> None:
    h, _ = mk("snapshots")
    ser = h.machine.series["tank/proj/p00"][0]
    assert len(ser) == 500 and not h.machine.snapshots.get("tank/proj/p00")
    count = h.run(["zfs", "list", "-t", "snapshot", "-H", "-o", "name"]).stdout.count("\n")
    assert count >= 20 * 500
    one = h.run(["zfs", "list", "-t", "snapshot", "-H", "-p", "-o", "name,createtxg",
                 "-d", "1", "tank/proj/p03"]).stdout.splitlines()
    assert len(one) == 500
    txgs = [int(x.split("\t")[1]) for x in one]
    assert txgs == sorted(txgs)
    origins = h.run(["zfs", "list", "-H", "-o", "name,origin", "-r", "tank/clones"]).stdout
    assert "tank/clones/c1-1-1\ttank/clones/c1-1@s1" in origins
    rc, _, err = run(h, "zfs", "destroy", "tank/proj/p01@auto-00100")
    assert rc == 1 and "tank/clones/c1\n" in err + "\n" and "tank/clones/c1-1-1" in err
    assert run(h, "zfs", "destroy", "tank/proj/p01@auto-00101") == (0, "", "")
    assert len(ser) == 500 and len(h.machine.series["tank/proj/p01"][0]) == 499
