"""zpool list -H -p [-v] / -o parsing against real OpenZFS 2.3.2 output."""

from __future__ import annotations

from pathlib import Path

import pytest

from zconsole.model.pool import Section
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_list import parse_zpool_list, parse_zpool_list_columns

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "parsers" / "zpool-list"


def read(name: str) -> str:
    return (FIX / name).read_text()


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
