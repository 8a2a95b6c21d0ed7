"""Every parser against live output of the guest, cross-checked between sources.

One pool layout per flavour (data mirror, log mirror, cache, a spare; datasets, a zvol, a
snapshot and a clone), then each read zconsole makes is parsed and compared with what another
command says about the same thing: `zpool list` SIZE against the JSON total_space, pool names
across status/list/get/iostat, leaf names against the by-id serials, dataset sizes against
`zfs get`, lsblk sizes against the guest's disk images.  Needs ZCONSOLE_VM=1.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from zconsole.model.pool import Pool, PoolUsage, Section
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.parsers.blockdev import parse_lsblk_json, parse_udev_export_db
from zconsole.parsers.diskstats import parse_diskstats
from zconsole.parsers.props import parse_get, props_by_name
from zconsole.parsers.version import parse_zfs_version, supports_json
from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, SNAPSHOT_COLUMNS, parse_zfs_list
from zconsole.parsers.zpool_iostat import latency_column_count, parse_zpool_iostat
from zconsole.parsers.zpool_list import parse_zpool_list
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services.read import catalogue as C

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

SETUP = (
    "zpool create tank mirror vdb vdc log mirror vdd vde cache vdf spare vdg && "
    "zfs create tank/home && zfs create -o compression=off tank/data && "
    "zfs create -V 48M tank/vol && head -c 24M /dev/urandom > /tank/data/r.bin && "
    "zfs snapshot tank/data@s1 && zfs clone tank/data@s1 tank/data-clone && "
    "zfs set quota=512M tank/home && zfs set refquota=64M tank/data && sync"
)
LEAVES = {"vdb": Section.DATA, "vdc": Section.DATA, "vdd": Section.LOGS, "vde": Section.LOGS,
          "vdf": Section.CACHE, "vdg": Section.SPARES}


@pytest.fixture(scope="module")
def pool(zfs_guest: ZfsGuest) -> Iterator[ZfsGuest]:
    zfs_guest.reset()
    zfs_guest.exec(SETUP)
    yield zfs_guest
    zfs_guest.reset()


def run(g: ZfsGuest, argv: tuple[str, ...] | list[str]) -> str:
    return g.exec(list(argv)).stdout


def status_pools(g: ZfsGuest) -> list[Pool]:
    if g.flavour == "2.3":
        return parse_zpool_status_json(run(g, C.zpool_status_json()))
    return parse_zpool_status(run(g, C.zpool_status_text()))


def test_zfs_version(pool: ZfsGuest) -> None:
    v = parse_zfs_version(run(pool, C.zfs_version()))
    assert v.userland is not None and v.userland.startswith(pool.zfs_version + "-")
    assert v.kmod == v.userland and not v.mismatch
    assert ".".join(map(str, v.numeric)) == pool.zfs_version
    assert supports_json(v) is (pool.flavour == "2.3")
    sysfs = parse_zfs_version(run(pool, ["cat", C.ZFS_MODULE_VERSION]))
    assert sysfs.numeric == v.numeric


def test_status_tree_and_sections(pool: ZfsGuest) -> None:
    pools = {p.name: p for p in status_pools(pool)}
    assert set(pools) == {"tank"}
    tank = pools["tank"]
    assert tank.state == "ONLINE" and not tank.unparsed
    assert [v.name for v in tank.vdevs] == ["mirror-0"]
    assert [c.name for c in tank.vdevs[0].children] == ["vdb", "vdc"]
    assert [v.name for v in tank.logs] == ["mirror-1"]
    assert [c.name for c in tank.logs[0].children] == ["vdd", "vde"]
    assert [v.name for v in tank.cache] == ["vdf"]
    assert [(v.name, v.state) for v in tank.spares] == [("vdg", "AVAIL")]
    found = {v.name: s for s, _, v in tank.walk() if v.is_leaf}
    assert found == LEAVES
    text = parse_zpool_status(run(pool, C.zpool_status_text()))[0]
    # the text and JSON (2.3) forms agree on every row
    assert [(s, d, v.name, v.state) for s, d, v in text.walk()] == \
        [(s, d, v.name, v.state) for s, d, v in tank.walk()]


def settled_list_and_props(pool: ZfsGuest) -> tuple[PoolUsage, dict[str, str]]:
    """`zpool list` and `zpool get` of tank taken while nothing moves: an earlier test's
    writes may still be landing (the allocated figure changes between two commands), so
    the pool is synced and the pair is taken again until a list before and after agree."""
    pool.exec(["zpool", "sync", "tank"])
    for _ in range(20):
        before = {u.name: u for u in parse_zpool_list(run(pool, C.zpool_list()))}["tank"]
        props = props_by_name(parse_get(run(pool, C.zpool_get_all("tank"))))["tank"]
        after = {u.name: u for u in parse_zpool_list(run(pool, C.zpool_list()))}["tank"]
        if (before.alloc, before.free) == (after.alloc, after.free) \
                and int(props["allocated"]) == after.alloc:
            return after, props
        time.sleep(1)
    raise AssertionError(f"tank's allocation kept moving: {before.alloc} .. {after.alloc}")


def test_status_json_vs_list(pool: ZfsGuest) -> None:
    tank, props = settled_list_and_props(pool)
    assert tank.health == "ONLINE"
    assert {v.name: v.section for v in tank.vdevs} == {
        "mirror-0": Section.DATA, "vdb": Section.DATA, "vdc": Section.DATA,
        "mirror-1": Section.LOGS, "vdd": Section.LOGS, "vde": Section.LOGS,
        "vdf": Section.CACHE, "vdg": Section.SPARES}
    assert int(props["size"]) == tank.size
    assert int(props["allocated"]) == tank.alloc
    assert props["health"] == tank.health
    if pool.flavour == "2.3":
        doc = json.loads(run(pool, C.zpool_status_json()))
        root = doc["pools"]["tank"]["vdevs"]["tank"]
        # zpool list SIZE and the JSON root's total_space: both leave the log mirror out
        assert tank.size == root["total_space"]
        mirror = root["vdevs"]["mirror-0"]
        assert next(v for v in tank.vdevs if v.name == "mirror-0").size == mirror["total_space"]
        guid = str(doc["pools"]["tank"]["pool_guid"])
        assert props["guid"] == guid
    else:
        proc = pool.exec(list(C.zpool_status_json()), check=False)
        assert proc.returncode != 0  # no JSON in 2.1


def test_iostat_latency_columns_and_tree(pool: ZfsGuest) -> None:
    pools = status_pools(pool)
    text = run(pool, C.zpool_iostat_latency(1))
    assert latency_column_count(text) == (10 if pool.flavour == "2.1" else 11)
    [report] = parse_zpool_iostat(text, pools)
    [tank] = report
    assert tank.pool == "tank" and tank.pool_row.name == "tank"
    rows = {r.name: r for r in tank.rows}
    # every leaf zpool iostat shows (spares are never shown) sits where the status tree has it
    for leaf, section in LEAVES.items():
        if section is Section.SPARES:
            assert leaf not in rows
            continue
        assert rows[leaf].section is section, leaf
        parent = pools[0].parent_of(leaf)
        assert rows[leaf].vdev_path[-1] == leaf
        if parent is not None and parent.name != "tank":
            assert rows[leaf].vdev_path[:-1] == (parent.name,)
    if pool.flavour == "2.1":
        assert all(r.rebuild_wait is None for r in tank.rows)


def test_zfs_list_and_get(pool: ZfsGuest) -> None:
    """The console's own `zfs list` (DEFAULT_COLUMNS, quota and refquota included) against
    `zfs get`: the quota set on tank/home and the refquota on tank/data in SETUP are read, `-`
    / 0 elsewhere, and the refquota bounds tank/data's AVAIL. The two `zfs set` ride in
    SETUP's one ssh command; the test's call took 1.2-1.8 s per flavour (2026-11-29, loaded
    machine; the module's guest boot and SETUP, ~60-70 s, are shared)."""
    ds = {d.name: d for d in parse_zfs_list(run(pool, C.zfs_list_datasets()), DEFAULT_COLUMNS)}
    assert set(ds) == {"tank", "tank/home", "tank/data", "tank/vol", "tank/data-clone"}
    assert ds["tank/vol"].type == "volume" and ds["tank/vol"].mountpoint is None
    assert ds["tank/data-clone"].origin == "tank/data@s1"
    got = parse_get(run(pool, ["zfs", "get", "-H", "-p", "used,referenced,quota,refquota",
                               "tank/data", "tank/home"]))
    p = props_by_name(got)["tank/data"]
    assert int(p["used"]) == ds["tank/data"].used
    assert int(p["referenced"]) == ds["tank/data"].refer
    assert ds["tank/data"].refer is not None and ds["tank/data"].refer > 24 * 2**20
    home = props_by_name(got)["tank/home"]
    assert (int(home["quota"]), int(home["refquota"])) == (512 << 20, 0)  # `-p`: 0 is none
    assert (int(p["quota"]), int(p["refquota"])) == (0, 64 << 20)
    assert (ds["tank/home"].quota, ds["tank/home"].refquota) == (512 << 20, None)
    assert (ds["tank/data"].quota, ds["tank/data"].refquota) == (None, 64 << 20)
    assert ds["tank/data"].avail == (64 << 20) - ds["tank/data"].refer
    assert all((d.quota, d.refquota) == (None, None) for n, d in ds.items()
               if n not in ("tank/home", "tank/data"))  # a volume's are `-`
    snaps = parse_zfs_list(run(pool, C.zfs_list_snapshots("tank/data")), SNAPSHOT_COLUMNS)
    assert [(s.name, s.clones) for s in snaps] == [("tank/data@s1", ("tank/data-clone",))]


def test_arcstats(pool: ZfsGuest) -> None:
    arc = parse_arcstats(run(pool, ["cat", C.ARCSTATS]))
    assert arc.c_max == 536870912  # zfs.zfs_arc_max on the guest's kernel command line
    assert arc.size is not None and 0 < arc.size <= arc.c_max
    if pool.flavour == "2.1":
        assert "p" in arc.fields and not arc.has_iohits
    else:
        assert arc.has_iohits and "p" not in arc.fields


def test_disks_diskstats_udev_lsblk(pool: ZfsGuest) -> None:
    stats = {s.name: s for s in parse_diskstats(run(pool, ["cat", C.DISKSTATS]))}
    assert set(pool.disks) <= set(stats)
    assert stats["vdb"].writes > 0  # the pool wrote its labels and data there
    udev = parse_udev_export_db(run(pool, C.udevadm_export_db()))
    lsblk = {d.name: d for d in parse_lsblk_json(run(pool, C.lsblk_json()))}
    pools = status_pools(pool)
    for leaf in LEAVES:
        props = udev[leaf]
        assert props["ID_SERIAL"] == f"zfsvm-{leaf}"
        assert f"/dev/disk/by-id/virtio-zfsvm-{leaf}" in props["DEVLINKS"].split()
        assert lsblk[leaf].serial == f"zfsvm-{leaf}"
        assert lsblk[leaf].size_bytes == pool.disks[leaf]
        # leaf names in the status tree resolve, through by-id, to the disk of that serial
        target = run(pool, ["readlink", "-f", f"/dev/disk/by-id/virtio-zfsvm-{leaf}"]).strip()
        assert target == f"/dev/{leaf}"
        assert pools[0].find(leaf) is not None
    # whole disks given to zpool get a GPT with a zfs_member partition 1 (labelled tank)
    assert udev["vdb1"].get("ID_FS_TYPE") == "zfs_member"
    assert udev["vdb1"].get("ID_FS_LABEL") == "tank"
    assert lsblk["vdb1"].parent == "vdb"
