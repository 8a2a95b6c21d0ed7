"""collect(host) -> HostReading: real outputs through the real parsers, and every failure mode.

Real outputs come from tests/fixtures/parsers (each with its SOURCES.md): the OpenZFS 2.3.2
transcript (zfs version, zpool status -j, zpool list -v, arcstats, diskstats) and a real
lsblk JSON. The `zfs list` output for DEFAULT_COLUMNS is hand-built from the transcript's
real figures (the transcript ran other columns) and says so below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.test_services_fakehost import FakeHost, fixture
from zconsole.hosts.base import CommandTimedOut, HostUnreachable, PermissionDenied
from zconsole.hosts.replay import ReplayHost
from zconsole.model.reading import SKIPPED, DiskState, HostReading, ZfsPresence
from zconsole.parsers.zfs_list import DEFAULT_COLUMNS
from zconsole.services.read import catalogue as C
from zconsole.services.read.collect import collect, detect_zfs, list_snapshots, pool_properties

ZFS_VERSION_23 = fixture("version/2.3.2-zfs-version.txt")
ZFS_MODULE_23 = fixture("version/2.3.2-sys-module-zfs-version.txt")
ZFS_VERSION_21 = fixture("version/2.1.11-deb12u1-zfs-version.txt")
STATUS_JSON = fixture("zpool-status/openzfs-2.3.2-status-j.json")
STATUS_TEXT = fixture("zpool-status/openzfs-2.3.2-attach-3way-mirror.txt")
LIST_V = fixture("zpool-list/2.3.2-tank-mirror-v.txt")
ARCSTATS = fixture("arcstats/2.3.2-head3-plus-grep-excerpt.txt")
DISKSTATS = fixture("diskstats/2.3.2-guest-vdb-vdg-ds2.txt")
LSBLK = fixture("blockdev/lsblk-2.38.1-debian12-host.json")

# Hand-built in DEFAULT_COLUMNS order from the transcript's `zfs list` figures (not captured);
# the transcript's datasets had no quota, which `-p` prints as 0.
assert DEFAULT_COLUMNS == ("name", "type", "used", "avail", "refer", "origin",
                           "usedbysnapshots", "compressratio", "dedup", "mountpoint",
                           "createtxg", "creation", "quota", "refquota")
ZFS_LIST = (
    "tank\tfilesystem\t382022656\t624610304\t25600\t-\t0\t1.00\toff\t/tank\t1\t1795301946\t"
    "0\t0\n"
    "tank/clone1\tfilesystem\t14336\t624610304\t381783040\ttank/data@snap1\t0\t1.00\toff\t"
    "/tank/clone1\t40\t1795301975\t0\t0\n"
    "tank/data\tfilesystem\t381783040\t624610304\t381783040\t-\t0\t1.00\toff\t/tank/data\t"
    "20\t1795301950\t0\t0\n"
)


def healthy_host(**over: object) -> FakeHost:
    commands: dict[tuple[str, ...], object] = {
        C.zfs_version(): ZFS_VERSION_23,
        C.zpool_status(True): STATUS_JSON,
        C.zpool_list(): LIST_V,
        C.zfs_list_datasets(): ZFS_LIST,
        C.lsblk_json(): LSBLK,
    }
    files: dict[str, object] = {
        C.ZFS_MODULE_VERSION: ZFS_MODULE_23,
        C.KERNEL_RELEASE: "6.1.0-56-amd64\n",
        C.ARCSTATS: ARCSTATS,
        C.DISKSTATS: DISKSTATS,
    }
    commands.update(over.pop("commands", {}))  # type: ignore[arg-type]
    files.update(over.pop("files", {}))  # type: ignore[arg-type]
    return FakeHost("zfsvm", commands=commands, files=files, **over)  # type: ignore[arg-type]


def test_collect_real_23_outputs() -> None:
    host = healthy_host()
    snap = collect(host)
    assert snap.host == "zfsvm"
    assert snap.zfs.presence is ZfsPresence.PRESENT
    assert snap.zfs.json_status and snap.zfs.version == (2, 3, 2)
    assert snap.zfs.userland == "2.3.2-2~bpo12+2"
    assert snap.kernel.value == "6.1.0-56-amd64"
    assert snap.pool_status.ok and snap.pool_status.source == "zpool status -j --json-int"
    [tank] = snap.pools
    assert tank.health == "ONLINE" and tank.healthy and tank.health_known
    assert tank.usage is not None and tank.usage.size == 1006632960
    assert [c.name for c in tank.status.vdevs[0].children] == ["vdb", "vdc"]  # type: ignore[union-attr]
    assert snap.healthy_pools == ("tank",)
    assert [d.name for d in snap.datasets.value or ()] == ["tank", "tank/clone1", "tank/data"]
    assert snap.arc.value is not None and snap.arc.value.size == 796679064
    assert [s.name for s in snap.diskstats.value or ()] == ["vdb", "vdc", "vdd", "vde", "vdf",
                                                           "vdg"]
    assert snap.failures == ()
    assert snap.limitations == ()
    # never lists all snapshots, and never the text status on 2.3
    assert all("snapshot" not in a for a in host.calls)
    assert C.zpool_status(False) not in host.calls


def test_collect_21_uses_text_status() -> None:
    host = healthy_host(commands={C.zfs_version(): ZFS_VERSION_21,
                                  C.zpool_status(True): (2, "", "invalid option 'j'"),
                                  C.zpool_status(False): STATUS_TEXT},
                        files={C.ZFS_MODULE_VERSION: "2.1.11-1+deb12u1\n"})
    snap = collect(host)
    assert snap.zfs.version == (2, 1, 11) and not snap.zfs.json_status
    assert snap.pool_status.ok and snap.pool_status.source == "zpool status -p"
    assert C.zpool_status(True) not in host.calls
    [tank] = snap.pools
    assert [c.name for c in tank.status.vdevs[0].children] == ["vdb", "vdc", "vdd"]  # type: ignore[union-attr]


def test_unknown_version_tries_json_then_text() -> None:
    host = healthy_host(commands={
        C.zfs_version(): CommandTimedOut(C.zfs_version(), 30),
        C.zpool_status(True): (2, "", "invalid option 'j'\nusage: ..."),
        C.zpool_status(False): STATUS_TEXT,
    }, files={C.ZFS_MODULE_VERSION: PermissionDenied(None, "no")})
    snap = collect(host)
    assert snap.zfs.presence is ZfsPresence.UNKNOWN
    assert "zfs version" in snap.zfs.message
    assert snap.pool_status.ok and snap.pool_status.source == "zpool status -p"


def test_no_zfs_installed_is_one_clear_state() -> None:
    host = FakeHost("plainbox", commands={C.lsblk_json(): LSBLK},
                    files={C.DISKSTATS: DISKSTATS, C.KERNEL_RELEASE: "6.1.0\n"})
    snap = collect(host)
    assert snap.zfs.presence is ZfsPresence.NOT_INSTALLED
    assert snap.zfs.message == "OpenZFS is not installed on plainbox: there is no zfs command."
    for part in (snap.pool_status, snap.pool_usage, snap.datasets, snap.arc):
        assert part.skipped and part.error_type == SKIPPED and part.value is None
        assert part.error == snap.zfs.message
    assert snap.failures == ()  # skipped parts are not an avalanche of errors
    assert snap.pools == () and snap.healthy_pools == ()
    assert not any(a[0] == "zpool" for a in host.calls)
    # disks are still there
    assert snap.diskstats.ok and snap.disks.ok


def test_module_not_loaded() -> None:
    host = healthy_host(commands={C.zfs_version(): (1, "zfs-2.1.11-1+deb12u1\n",
                                                    "zfs_version_kernel() failed\n")},
                        files={C.ZFS_MODULE_VERSION: PermissionDenied(None, "x")})
    del host.files[C.ZFS_MODULE_VERSION]
    snap = collect(host)
    assert snap.zfs.presence is ZfsPresence.MODULE_NOT_LOADED
    assert "kernel module is not loaded" in snap.zfs.message
    assert snap.pool_status.skipped
    assert not any(a[0] == "zpool" for a in host.calls)


def test_status_timeout_never_reports_a_healthy_pool() -> None:
    host = healthy_host(commands={C.zpool_status(True): CommandTimedOut(C.zpool_status(True),
                                                                         30.0)})
    snap = collect(host)
    assert not snap.pool_status.ok
    assert snap.pool_status.error_type == "CommandTimedOut"
    assert "no answer after 30 s" in (snap.pool_status.error or "")
    # zpool list still says ONLINE: the snapshot must not
    [tank] = snap.pools
    assert tank.usage is not None and tank.usage.health == "ONLINE"
    assert tank.status is None and tank.health == "UNKNOWN" and not tank.healthy
    assert snap.healthy_pools == ()
    assert ("pool status", snap.pool_status) in snap.failures
    assert snap.disks.value is not None
    assert "pool membership unknown: zpool status was not read" in snap.disks.value.notes


def test_unreachable_host_fails_once_then_skips() -> None:
    gone = HostUnreachable("nas1: ssh: connect to host nas1 port 22: No route to host")
    host = healthy_host(commands={C.zpool_status(True): gone, C.zpool_list(): gone,
                                  C.zfs_list_datasets(): gone, C.lsblk_json(): gone},
                        files={C.ARCSTATS: gone, C.DISKSTATS: gone})
    snap = collect(host)
    assert snap.pool_status.error_type == "HostUnreachable"
    rest = [snap.pool_usage, snap.datasets, snap.arc, snap.diskstats, snap.disks]
    assert all(p.skipped and "No route to host" in (p.error or "") for p in rest)
    assert [name for name, _ in snap.failures] == ["pool status"]
    assert C.zpool_list() not in host.calls


def test_status_parse_error_is_recorded() -> None:
    snap = collect(healthy_host(commands={C.zpool_status(True): "{not json"}))
    assert snap.pool_status.error_type == "ParseError"
    assert snap.healthy_pools == ()


def test_arcstats_permission_denied_is_a_not_root_limitation() -> None:
    denied = PermissionDenied(None, f"{C.ARCSTATS}: Permission denied")
    snap = collect(healthy_host(files={C.ARCSTATS: denied}, root=False))
    assert not snap.is_root
    assert snap.arc.error_type == "PermissionDenied" and snap.arc.needs_root
    assert snap.limitations == (f"{C.ARCSTATS}: permission denied (zconsole is not root)",)
    # everything else was read
    assert snap.pool_status.ok and snap.diskstats.ok
    # as root the same refusal is a failure, not a missing-privilege limitation
    snap = collect(healthy_host(files={C.ARCSTATS: denied}, root=True))
    assert not snap.arc.needs_root and snap.limitations == ()


def test_parts_carry_their_own_time() -> None:
    host = healthy_host(tick=1.0)
    snap = collect(host)
    times = [p.taken_at for _, p in snap.parts()]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert snap.taken_at <= min(times)
    # its age counts on the console's clock, from when its answer arrived (issue 27)
    seen = snap.pool_status.seen
    assert seen is not None and snap.seen is not None and snap.seen <= seen
    assert snap.pool_status.age(seen + 5) == 5


def test_list_snapshots_and_pool_properties_are_per_dataset() -> None:
    host = healthy_host(commands={
        C.zfs_list_snapshots("tank/data"):
            "tank/data@snap1\t0\t381783040\t30\t1795301960\ttank/clone1\n",
        C.zpool_get_all("tank"): fixture("props/2.3.2-zpool-get-autoexpand-size-expandsize.txt"),
    })
    part = list_snapshots(host, "tank/data")
    assert part.ok and [s.name for s in part.value or ()] == ["tank/data@snap1"]
    assert (part.value or ())[0].clones == ("tank/clone1",)
    props = pool_properties(host, "tank")
    assert props.ok and {p.property for p in props.value or ()} == {"autoexpand", "size",
                                                                    "expandsize"}
    missing = list_snapshots(host, "tank/nothing")
    assert not missing.ok


def test_detect_zfs_mismatch_mentions_reload() -> None:
    host = FakeHost(commands={C.zfs_version(): "zfs-2.3.2-1\nzfs-kmod-2.3.1-1\n"},
                    files={C.ZFS_MODULE_VERSION: "2.3.1-1\n"})
    info = detect_zfs(host)
    assert info.present and info.kernel_module == "2.3.1-1"
    assert "reboot or reload pending" in info.message


# --- ReplayHost built from the real transcript outputs ---------------------------------------

def _write_capture(tmp: Path, commands: dict[tuple[str, ...], str], files: dict[str, str],
                   **extra: object) -> ReplayHost:
    (tmp / "cmd").mkdir()
    (tmp / "files").mkdir()
    entries = []
    for i, (argv, out) in enumerate(commands.items()):
        rel = f"cmd/{i:03d}.out"
        (tmp / rel).write_text(out, encoding="utf-8")
        entries.append({"argv": list(argv), "returncode": 0, "stdout": rel, "stderr": "",
                        "duration": 0.2})
    fmap = {}
    for i, (path, text) in enumerate(files.items()):
        rel = f"files/{i:03d}"
        (tmp / rel).write_text(text, encoding="utf-8")
        fmap[path] = rel
    manifest = {"format": 1, "zfs_version": "2.3.2", "host": "zfsvm", "commands": entries,
                "files": fmap, "captured_epoch": 1795302000.0, **extra}
    (tmp / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return ReplayHost(str(tmp))


def test_collect_on_replay_host_from_transcript(tmp_path: Path) -> None:
    # `zpool status -j` (strings with units) answers for the --json-int form: the transcript's
    # --json-int output is cut by `head`. No zfs list with DEFAULT_COLUMNS was captured, and
    # no lsblk/udevadm/sysfs of the guest: those parts must fail cleanly.
    host = _write_capture(tmp_path, {
        C.zfs_version(): ZFS_VERSION_23,
        C.zpool_status(True): STATUS_JSON,
        C.zpool_list(): LIST_V,
    }, {
        C.ZFS_MODULE_VERSION: ZFS_MODULE_23,
        C.ARCSTATS: ARCSTATS,
        C.DISKSTATS: DISKSTATS,
    })
    snap = collect(host)
    assert isinstance(snap, HostReading)
    assert snap.host == "replay: zfsvm" and snap.kind == "replay"
    assert snap.taken_at == 1795302000.0
    assert snap.zfs.json_status
    assert snap.healthy_pools == ("tank",)
    assert snap.pool("tank") is not None
    failed = {name: p.error_type for name, p in snap.failures}
    assert failed == {"kernel": "ReplayMiss", "datasets": "ReplayMiss",
                      "disk identities": "HostError"}
    assert snap.arc.ok and snap.diskstats.ok


# --- disk roles as part of the snapshot ------------------------------------------------------

def test_snapshot_disk_roles_from_real_lsblk() -> None:
    snap = collect(healthy_host())
    inv = snap.disks.value
    assert inv is not None and inv.source == "lsblk"
    roles = {r.disk: r for r in inv.roles}
    assert roles["vda"].state is DiskState.IN_USE
    assert roles["vda"].reasons == ("the disk is mounted at /",)
    assert roles["zram0"].state is DiskState.IGNORED


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_collect_on_demo_host(version: str) -> None:
    demo = pytest.importorskip("zconsole.hosts.demo")
    if not hasattr(demo, "DemoHost"):
        pytest.skip("zconsole.hosts.demo.DemoHost has not landed yet")
    host = demo.DemoHost(scenario="showcase", zfs_version=version,
                         clock=lambda: 1_795_302_000.0, seed=0)
    snap = collect(host)
    assert snap.zfs.present
    assert snap.zfs.json_status is (version == "2.3")
    assert snap.pool_status.source == ("zpool status -j --json-int" if version == "2.3"
                                       else "zpool status -p")
    assert snap.failures == (), snap.failures
    assert snap.pools and all(p.health_known for p in snap.pools)
    assert all(p.status is not None and p.usage is not None for p in snap.pools)
    inv = snap.disks.value
    assert inv is not None
    in_pool = [r for r in inv.roles if r.state is DiskState.IN_POOL]
    leaves = sum(1 for p in snap.pools for _, _, v in p.status.walk()  # type: ignore[union-attr]
                 if not v.children and v.type == "disk")
    assert len({r.disk for r in in_pool}) >= min(leaves, 1)
    states = {r.state for r in inv.roles}
    assert {DiskState.IN_POOL, DiskState.IN_USE, DiskState.FREE} <= states


@pytest.mark.parametrize(("state", "status", "healthy"), [
    ("ONLINE", None, True),
    ("ONLINE", "Some supported and requested features are not enabled on the pool.\n\tThe "
               "pool can still be used, but some features are unavailable.", True),
    ("ONLINE", "The pool is formatted using a legacy on-disk format.", True),
    ("ONLINE", "One or more devices has experienced an unrecoverable error.", False),
    ("DEGRADED", None, False),
])
def test_pool_entry_health(state: str, status: str | None, healthy: bool) -> None:
    from zconsole.model.pool import Pool
    from zconsole.model.reading import PoolEntry

    assert PoolEntry("tank", Pool("tank", state, status=status), None).healthy is healthy
    assert PoolEntry("tank", None, None).health == "UNKNOWN"
