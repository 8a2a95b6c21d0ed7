"""zpool list -H -p [-v] / -o parsing against real OpenZFS 2.3.2 output."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from zconsole.model.pool import Section
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_list import parse_zpool_list, parse_zpool_list_columns


def read(name: str) -> str:
    return parser_text("zpool-list", name)


def test_mirror_v_232() -> None:
    (pool,) = parse_zpool_list(read("2.3.2-tank-mirror-v.txt"))
    assert pool.name == "tank"
    assert (pool.size, pool.alloc, pool.free) == (1006632960, 139776, 1006493184)
    assert pool.checkpoint is None and pool.expandsize is None
    assert (pool.fragmentation, pool.capacity, pool.dedupratio) == (2, 0, 1.0)
    assert pool.health == "ONLINE" and pool.altroot is None
    assert [v.name for v in pool.vdevs] == ["mirror-0", "vdb", "vdc"]
    mirror, vdb, _ = pool.vdevs
    assert mirror.section is Section.DATA
    assert (mirror.size, mirror.alloc, mirror.free, mirror.fragmentation, mirror.capacity) == (
        1006632960, 139776, 1006493184, 2, 0)
    # 2.3 prints the leaf's physical size; the rest is `-`
    assert vdb.size == 1063256064
    assert (vdb.alloc, vdb.free, vdb.fragmentation, vdb.capacity) == (None, None, None, None)
    assert vdb.health == "ONLINE"


def test_after_replace_capacity_and_leaf_size() -> None:
    (pool,) = parse_zpool_list(read("2.3.2-tank-after-replace-v.txt"))
    assert (pool.size, pool.alloc, pool.free, pool.capacity) == (2080374784, 764011008,
                                                                 1316363776, 36)
    assert {v.name: v.size for v in pool.vdevs} == {
        "mirror-0": 2080374784, "vdf": 2136997888, "vdg": 2136997888}


def test_file_vdev_names_are_paths() -> None:
    (pool,) = parse_zpool_list(read("2.3.2-ftank-files-v.txt"))
    assert pool.name == "ftank" and pool.fragmentation == 4
    assert [v.name for v in pool.vdevs] == ["mirror-0", "/scratch/f1", "/scratch/f2"]
    assert pool.vdevs[1].size == 268435456


def test_without_v_has_no_vdevs() -> None:
    text = read("2.3.2-tank-mirror-v.txt").splitlines()[0] + "\n"
    (pool,) = parse_zpool_list(text)
    assert pool.vdevs == ()


def test_class_header_rows_set_sections() -> None:
    # Constructed from the real rows above plus class headers as print_list_stats prints them
    # (printf("%-*s      -      -  ...", namewidth, "logs")): no TAB in the header line.
    real = read("2.3.2-tank-mirror-v.txt").splitlines()
    text = "\n".join([
        real[0], real[1], real[2], real[3],
        "logs          -      -      -        -         -      -      -      -         -",
        real[2],
        "cache         -      -      -        -         -      -      -      -         -",
        real[3],
    ])
    (pool,) = parse_zpool_list(text)
    assert [(v.name, v.section) for v in pool.vdevs] == [
        ("mirror-0", Section.DATA), ("vdb", Section.DATA), ("vdc", Section.DATA),
        ("vdb", Section.LOGS), ("vdc", Section.CACHE)]


def test_two_pools_reset_section() -> None:
    text = read("2.3.2-tank-mirror-v.txt") + read("2.3.2-ftank-files-v.txt")
    pools = parse_zpool_list(text)
    assert [p.name for p in pools] == ["tank", "ftank"]
    assert len(pools[1].vdevs) == 3


def test_columns() -> None:
    assert parse_zpool_list_columns(read("2.3.2-o-name-size-health.txt"),
                                    ["name", "size", "health"]) == [
        {"name": "tank", "size": "1006632960", "health": "ONLINE"}]
    (row,) = parse_zpool_list_columns(read("2.3.2-o-name-size-alloc-free-expandsize.txt"),
                                      "name,size,alloc,free,expandsize".split(","))
    assert row == {"name": "tank", "size": "2080374784", "alloc": "764011008",
                   "free": "1316363776", "expandsize": None}
    (row,) = parse_zpool_list_columns(read("2.3.2-o-name-alloc-dedupratio-human.txt"),
                                      ["name", "alloc", "dedupratio"])
    assert row["dedupratio"] == "3.00x"


@pytest.mark.parametrize("text", [
    "\tvdb\t1\t-\t-\t-\t-\t-\t-\t-\tONLINE\n",      # vdev before pool
    "tank\t1\t2\n",                                 # too few columns
    "tank\tX\t1\t1\t-\t-\t2\t0\t1.00\tONLINE\t-\n",  # bad size
])
def test_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_list(text)


def test_columns_mismatch() -> None:
    with pytest.raises(ParseError):
        parse_zpool_list_columns(read("2.3.2-o-name-size-health.txt"), ["name", "size"])


# ------------------------------------------------------------------ human form (with header)
# Real public pastes (tests/fixtures/parsers/zpool-list/SOURCES.md): Linux, FreeBSD, illumos-era
# FreeBSD, the man page, OpenZFS commit messages. Values are checked against the text itself.

G, T, M, K = 1 << 30, 1 << 40, 1 << 20, 1 << 10


def tree(pool: object) -> list[tuple[int | None, str, int | None]]:
    return [(v.depth, v.name, v.parent) for v in pool.vdevs]  # type: ignore[attr-defined]


def test_human_pool_rows_with_header_altroot_and_expandsz() -> None:
    pools = parse_zpool_list(read("belgianbeer-debian-list-expandsz-altroot.txt"))
    assert [(p.name, p.altroot) for p in pools] == [("bpool", None), ("rpool", None),
                                                    ("zroot", "/mnt")]
    bpool = pools[0]
    assert (bpool.size, bpool.alloc, bpool.free) == (480 * M, 101 * M, 379 * M)
    assert bpool.expandsize == 232 * G and bpool.checkpoint is None
    assert (bpool.fragmentation, bpool.capacity, bpool.dedupratio) == (9, 21, 1.0)
    assert bpool.health == "ONLINE" and bpool.vdevs == ()
    # "480M" is exact (an exact multiple prints without decimals), "1.28G" is rounded
    assert pools[1].alloc == round(1.28 * G) and pools[1].exact is False


def test_human_exactness_follows_zfs_nicenum() -> None:
    (upool,) = parse_zpool_list(read("belgianbeer-freebsd-list-v-raidz1-gpt-usb.txt"))
    assert upool.size == 7 * G  # "7G": printed without decimals only when exact
    assert upool.exact is False  # "630M", "6.38G" on the same row may be rounded
    leaf = upool.vdevs[1]
    assert (leaf.name, leaf.size, leaf.exact) == ("gpt/usb0", round(1.84 * G), False)
    (gpt,) = parse_zpool_list(read("belgianbeer-freebsd-list-v-gpt-leaves-no-size.txt"))
    assert [v.exact for v in gpt.vdevs[1:]] == [True, True]  # all `-`


def test_human_v_tree_from_indentation_freebsd_names() -> None:
    pools = parse_zpool_list(read("belgianbeer-freebsd-list-v-two-pools-ada0p3-gpt.txt"))
    assert [p.name for p in pools] == ["zroot", "zvol0"]
    assert tree(pools[0]) == [(0, "ada0p3", None)]
    assert tree(pools[1]) == [(0, "mirror-0", None), (1, "gpt/sdisk1", 0),
                              (1, "gpt/sdisk2", 0)]
    mirror, sdisk1, _ = pools[1].vdevs
    assert (mirror.size, mirror.alloc, mirror.capacity, mirror.health) == (
        round(5.45 * T), round(2.77 * T), 50, "ONLINE")  # CAP "50.8%" -> 50
    assert (sdisk1.size, sdisk1.alloc, sdisk1.fragmentation) == (round(5.46 * T), None, None)
    assert pools[1].children(0) == [pools[1].vdevs[1], pools[1].vdevs[2]]
    assert pools[1].children(None) == [mirror]


def test_human_v_indirect_rows_after_removal() -> None:
    (z,) = parse_zpool_list(read("belgianbeer-debian-list-v-indirect-0-expandsz.txt"))
    assert tree(z) == [(0, "indirect-0", None), (0, "mirror-1", None), (1, "sdc", 1),
                       (1, "sdb", 1)]
    ind = z.vdevs[0]
    assert (ind.size, ind.alloc, ind.free, ind.capacity, ind.health) == (
        None, None, None, None, "ONLINE")
    assert z.vdevs[2].expandsize == 198 * G and z.altroot == "/mnt"
    (z2,) = parse_zpool_list(read("belgianbeer-debian-list-v-indirect-0-and-1.txt"))
    assert [v.name for v in z2.vdevs] == ["indirect-0", "indirect-1", "sdc4"]
    assert z2.vdevs[1].expandsize == 132 * G  # an indirect vdev can show EXPANDSZ
    for name in ("belgianbeer-freebsd-list-v-indirect-0.txt",
                 "belgianbeer-freebsd-list-v-indirect-0-mirror-1.txt"):
        (p,) = parse_zpool_list(read(name))
        assert p.vdevs[0].name == "indirect-0" and p.vdevs[0].depth == 0


def test_human_v_every_class_section() -> None:
    for name in ("openzfs-commit-cdb3eb5-list-v-classes-before.txt",
                 "openzfs-commit-cdb3eb5-list-v-classes-after.txt"):
        (f,) = parse_zpool_list(read(name))
        assert [(v.name.rsplit("/", 1)[1], v.section, v.depth) for v in f.vdevs] == [
            ("file", Section.DATA, 0), ("adedup", Section.DEDUP, 0),
            ("aspecial", Section.SPECIAL, 0), ("alog", Section.LOGS, 0),
            ("acache", Section.CACHE, 0), ("aspare", Section.SPARES, 0)], name
        assert f.vdevs[-1].health == "AVAIL" and f.vdevs[-1].size is None
        assert f.vdevs[4].alloc == round(1.5 * K) and f.vdevs[0].alloc == 0


def test_human_health_column_layouts() -> None:
    # 6-wide left-aligned HEALTH and 8-wide right-aligned HEALTH, same pools, same article
    narrow = parse_zpool_list(read("belgianbeer-freebsd-list-narrow-health.txt"))
    wide = parse_zpool_list(read("belgianbeer-freebsd-list-degraded.txt"))
    assert [p.health for p in narrow] == ["ONLINE", "ONLINE"]
    assert [p.health for p in wide] == ["ONLINE", "DEGRADED"]
    assert [p.size for p in narrow] == [p.size for p in wide]
    (tank,) = parse_zpool_list(read("mtlynch-truenas-list-degraded.txt"))
    assert (tank.health, tank.size, tank.alloc) == ("DEGRADED", round(36.4 * T),
                                                    round(1.41 * M))
    # OpenZFS 2.0/2.1: vdev HEALTH printed left-aligned straight after DEDUP, no ALTROOT cell
    (zfs,) = parse_zpool_list(read("issue11395-zfs200-list-v-health-misaligned.txt"))
    assert [(v.name, v.alloc, v.capacity, v.health) for v in zfs.vdevs] == [
        ("zfs2", round(81.8 * G), 64, "ONLINE"), ("zfs3", round(52.2 * G), 40, "ONLINE")]


def test_human_legacy_layouts() -> None:
    # man page example 1: no CKPOINT column; a FAULTED pool with `-` everywhere
    pools = parse_zpool_list(read("man-zpool-list-8-example1.txt"))
    assert [(p.name, p.health) for p in pools] == [("rpool", "ONLINE"), ("tank", "ONLINE"),
                                                   ("zion", "FAULTED")]
    assert pools[2].size is None and pools[2].checkpoint is None and pools[2].capacity is None
    # man page example 2: vdev rows stop after FRAG; a leaf shows EXPANDSZ; `raidz1` unindexed
    (data,) = parse_zpool_list(read("man-zpool-list-8-example2-v-expandsz.txt"))
    assert tree(data) == [(0, "raidz1", None), (1, "sda", 0), (1, "sdb", 0), (1, "sdc", 0)]
    raidz = data.vdevs[0]
    assert (raidz.fragmentation, raidz.capacity, raidz.health) == (48, None, None)
    assert data.vdevs[2].expandsize == 10 * G
    # FreeBSD 10 (legacy ZFS): plain `mirror` twice, rows that end after CAP, two pools
    p1, zroot = parse_zpool_list(read("py-libzfs-issue11-freebsd10-list-v-legacy.txt"))
    assert tree(p1) == [(0, "mirror", None), (1, "ada1", 0), (1, "ada2", 0),
                        (0, "mirror", None), (1, "ada3", 3), (1, "ada4", 3)]
    assert (p1.vdevs[3].alloc, p1.vdevs[3].capacity) == (round(41.5 * K), 0)
    assert tree(zroot) == [(0, "ada0p3", None)] and zroot.vdevs[0].capacity == 18
    # FreeBSD 12 (illumos-derived ZFS): diskid/ names, vdev rows end after CAP
    dat, idx, wal = parse_zpool_list(read("solarnetwork-freebsd12-list-v-diskid-three-pools.txt"))
    assert [v.name for v in dat.vdevs] == ["diskid/DISK-vol0e66e82462fb547d3",
                                           "diskid/DISK-vol00404bdeef0ed6da0",
                                           "diskid/DISK-vol03c88fd4c622fd1c7"]
    assert [v.capacity for v in dat.vdevs] == [96, 64, 0] and dat.vdevs[0].health is None
    assert (idx.vdevs[0].alloc, wal.vdevs[0].alloc) == (round(64.5 * G), 338 * M)


@pytest.mark.parametrize("name", [
    "belgianbeer-freebsd-list-single.txt", "belgianbeer-freebsd-list-two-pools-altroot.txt",
    "solarnetwork-freebsd12-list-three-pools.txt", "belgianbeer-freebsd-list-v-mirror-da0p4.txt",
])
def test_human_samples_parse(name: str) -> None:
    pools = parse_zpool_list(read(name))
    assert pools and all(p.size and p.health == "ONLINE" for p in pools)
    assert all(v.depth is not None for p in pools for v in p.vdevs)


def test_scripted_rows_have_no_tree() -> None:
    (pool,) = parse_zpool_list(read("2.3.2-tank-mirror-v.txt"))
    assert all(v.depth is None and v.parent is None for v in pool.vdevs)
    assert pool.exact and all(v.exact for v in pool.vdevs)
    assert pool.children(None) == []


@pytest.mark.parametrize(("text", "message"), [
    ("NAME SIZE ALLOC GUID\ntank 1G 1M 123\n", "GUID"),
    ("tank  1G  1M  1G  -  -  1%  0%  1.00x  ONLINE  -\n", "header"),
    ("NAME  SIZE  ALLOC\n  vdb  1G  -\n", "before any pool row"),
    ("NAME  SIZE  ALLOC  HEALTH\ntank  1G  1M\n", "pool row has 3 values"),
    ("NAME  SIZE  ALLOC  HEALTH\ntank  1G  1M  ONLINE\n  vdb  1G  -  ONLINE  x\n", "vdev row"),
    ("NAME  SIZE  ALLOC  HEALTH\ntank  1G  1Q  ONLINE\n", "bad size"),
])
def test_human_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as e:
        parse_zpool_list(text)
    assert e.value.line_no is not None


def test_json_form_is_refused_clearly() -> None:
    with pytest.raises(ParseError, match="zpool list -j"):
        parse_zpool_list(read("man-zpool-list-8-example3-json.json"))
