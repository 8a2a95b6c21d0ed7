"""zpool iostat -v -l -H -p parsing: real 2.3.2 reports, 2.1 column count, tree mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from zconsole.model.pool import Pool, Section, Vdev
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat import latency_column_count, parse_zpool_iostat

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "parsers"
IOSTAT = (FIX / "zpool-iostat" / "2.3.2-tank-vlHp-1-2.txt").read_text()


def _tank() -> Pool:
    return Pool(name="tank", state="ONLINE", vdevs=(
        Vdev("mirror-0", "mirror", "ONLINE", children=(
            Vdev("vdb", "disk", "ONLINE"), Vdev("vdc", "disk", "ONLINE"))),))


def test_two_reports_232_without_tree() -> None:
    reports = parse_zpool_iostat(IOSTAT)
    assert len(reports) == 2
    (first,), (second,) = reports
    assert first.pool == "tank" and second.pool == "tank"
    row = first.pool_row
    assert (row.alloc, row.free, row.read_ops, row.write_ops) == (449777152, 556855808, 0, 495)
    assert (row.read_bytes, row.write_bytes) == (2144, 36154441)
    assert (row.total_wait_read, row.total_wait_write) == (1366425, 1126819)
    assert (row.disk_wait_read, row.disk_wait_write) == (1366425, 742078)
    assert (row.syncq_wait_read, row.syncq_wait_write) == (99532, 11778)
    assert (row.asyncq_wait_read, row.asyncq_wait_write) == (None, 397258)
    assert (row.scrub_wait, row.trim_wait, row.rebuild_wait) == (None, None, None)
    assert [r.name for r in first.rows] == ["mirror-0", "vdb", "vdc"]
    # best effort depth: leaves print 0/0 for alloc/free
    assert [r.vdev_path for r in first.rows] == [("mirror-0",), ("mirror-0", "vdb"),
                                                 ("mirror-0", "vdc")]
    vdc2 = second.row("vdc")
    assert vdc2 is not None
    assert (vdc2.write_ops, vdc2.write_bytes, vdc2.total_wait_read) == (475, 34107460, None)
    assert (vdc2.total_wait_write, vdc2.disk_wait_write, vdc2.asyncq_wait_write) == (
        448436, 429827, 24987)
    assert second.pool_row.write_bytes == 68171516


def test_mapped_onto_tree_from_model() -> None:
    (first,), _ = parse_zpool_iostat(IOSTAT, [_tank()])
    assert [(r.name, r.section, r.vdev_path) for r in first.rows] == [
        ("mirror-0", Section.DATA, ("mirror-0",)),
        ("vdb", Section.DATA, ("mirror-0", "vdb")),
        ("vdc", Section.DATA, ("mirror-0", "vdc")),
    ]
    assert first.rows[0].alloc == 449777152
    assert first.rows[1].alloc is None and first.rows[1].free is None  # leaf: n/a


def test_mapped_onto_tree_from_status_json() -> None:
    from zconsole.parsers.zpool_status_json import parse_zpool_status_json

    pools = parse_zpool_status_json(
        (FIX / "zpool-status" / "openzfs-2.3.2-status-j.json").read_text())
    (first,), (second,) = parse_zpool_iostat(IOSTAT, pools)
    assert [r.vdev_path for r in second.rows] == [("mirror-0",), ("mirror-0", "vdb"),
                                                  ("mirror-0", "vdc")]


def test_latency_columns_21_vs_23() -> None:
    assert latency_column_count(IOSTAT) == 11
    # OpenZFS 2.1's print_iostat_latency has no rebuild column: derive a 2.1-shaped input
    # from the real 2.3.2 rows by dropping the last field (no real 2.1 -H -p capture yet).
    as21 = "\n".join("\t".join(line.split("\t")[:-1]) for line in IOSTAT.splitlines())
    assert latency_column_count(as21) == 10
    (first,), _ = parse_zpool_iostat(as21)
    assert first.pool_row.trim_wait is None and first.pool_row.rebuild_wait is None
    assert first.pool_row.asyncq_wait_write == 397258
    plain = "\n".join("\t".join(line.split("\t")[:7]) for line in IOSTAT.splitlines())
    assert latency_column_count(plain) == 0
    (first,), _ = parse_zpool_iostat(plain)
    assert first.pool_row.total_wait_read is None and first.rows[0].write_ops == 495


def _sections_text() -> str:
    # Rows from the real 2.3.2 fixture, renamed and re-arranged into the layout zpool prints
    # for a pool with a log mirror and a cache device sharing leaf names with the data vdev:
    # a bare blank line before each class section (print_vdev_stats, scripted mode).
    lines = IOSTAT.splitlines()[:4]
    pool, mirror, vdb, vdc = (line.split("\t") for line in lines)
    row = "\t".join
    return "\n".join([
        row(pool), row(mirror), row(vdb), row(vdc),
        "",
        row(["mirror-1", *mirror[1:]]), row(vdb), row(vdc),
        "",
        row(["vdb", *mirror[1:]]),
    ]) + "\n"


def test_duplicate_leaf_names_in_sections_with_tree() -> None:
    tree = Pool(
        name="tank", state="ONLINE",
        vdevs=_tank().vdevs,
        logs=(Vdev("mirror-1", "mirror", "ONLINE", children=(
            Vdev("vdb", "disk", "ONLINE"), Vdev("vdc", "disk", "ONLINE"))),),
        cache=(Vdev("vdb", "disk", "ONLINE"),),
    )
    ((p,),) = parse_zpool_iostat(_sections_text(), [tree])
    assert [(r.name, r.section, r.vdev_path) for r in p.rows] == [
        ("mirror-0", Section.DATA, ("mirror-0",)),
        ("vdb", Section.DATA, ("mirror-0", "vdb")),
        ("vdc", Section.DATA, ("mirror-0", "vdc")),
        ("mirror-1", Section.LOGS, ("mirror-1",)),
        ("vdb", Section.LOGS, ("mirror-1", "vdb")),
        ("vdc", Section.LOGS, ("mirror-1", "vdc")),
        ("vdb", Section.CACHE, ("vdb",)),
    ]
    assert p.rows[-1].alloc == 449777152  # cache devices are not leaves of a container


def test_sections_best_effort_without_tree() -> None:
    ((p,),) = parse_zpool_iostat(_sections_text())
    assert [r.section for r in p.rows] == [Section.DATA] * 3 + [Section.LOGS] * 3 + [
        Section.CACHE]
    assert p.rows[4].vdev_path == ("mirror-1", "vdb")


def test_class_header_rows_label_sections() -> None:
    text = _sections_text().replace("\n\nmirror-1", "\nspecial  -  -\nmirror-1")
    ((p,),) = parse_zpool_iostat(text)
    assert p.rows[3].section is Section.SPECIAL


def test_two_pools_with_names() -> None:
    lines = IOSTAT.splitlines()[:4]
    other = ["ftank" + lines[0][4:], *lines[1:]]
    text = "\n".join(lines + other + lines + other) + "\n"
    ftank = Pool(name="ftank", state="ONLINE", vdevs=_tank().vdevs)
    reports = parse_zpool_iostat(text, [_tank(), ftank])
    assert [[p.pool for p in r] for r in reports] == [["tank", "ftank"], ["tank", "ftank"]]
    assert all(len(p.rows) == 3 for r in reports for p in r)
    # names alone are enough to split pools
    bare = [Pool(name="tank", state="ONLINE"), Pool(name="ftank", state="ONLINE")]
    assert [[p.pool for p in r] for r in parse_zpool_iostat(text, bare)] == [
        ["tank", "ftank"], ["tank", "ftank"]]


def test_timestamp_lines_split_reports() -> None:
    lines = IOSTAT.splitlines()
    text = "\n".join(["1795302000", *lines[:4], "1795302001", *lines[4:]]) + "\n"
    assert len(parse_zpool_iostat(text)) == 2


@pytest.mark.parametrize("text", [
    "tank\t1\t2\n",
    "tank\t1\t2\t3\t4\t5\tx\n",
    IOSTAT.splitlines()[0] + "\n" + "\t".join(IOSTAT.splitlines()[1].split("\t")[:7]) + "\n",
])
def test_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_iostat(text)


def test_empty() -> None:
    assert parse_zpool_iostat("") == []
