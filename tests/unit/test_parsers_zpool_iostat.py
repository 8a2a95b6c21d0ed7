"""zpool iostat -v -l -H -p parsing: real 2.3.2 reports, 2.1 column count, tree mapping."""

from __future__ import annotations

import pytest

from tests.paths import PARSERS
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_iostat import latency_column_count, parse_zpool_iostat

FIX = PARSERS
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


# ------------------------------------------------------------------ human form (with header)
# Real public pastes (tests/fixtures/parsers/zpool-iostat/SOURCES.md); "fragment" files are the
# head of a longer paste (only their complete lines are asserted on).

G, T, M, K = 1 << 30, 1 << 40, 1 << 20, 1 << 10


def load(name: str) -> str:
    return (FIX / "zpool-iostat" / name).read_text()


def test_human_vly_with_the_rebuild_column() -> None:
    ((p,),) = parse_zpool_iostat(load("extrange-iostat-vly-5-1-rebuild-column.txt"),
                                 omitted_since_boot=True)
    assert p.pool == "storage-temp" and p.since_boot is False and p.report == 0
    r = p.pool_row
    assert (r.alloc, r.free, r.read_ops, r.write_ops) == (round(1.27 * T), round(7.83 * T), 0,
                                                          161)
    assert (r.read_bytes, r.write_bytes) == (0, 148 * M)
    assert (r.total_wait_read, r.total_wait_write) == (None, 95_000_000)
    assert (r.disk_wait_write, r.syncq_wait_write, r.asyncq_wait_write) == (
        12_000_000, 1_000, 82_000_000)
    assert (r.scrub_wait, r.trim_wait, r.rebuild_wait) == (None, None, None)
    assert r.exact is False  # "148M", "95ms" are rounded
    (sde,) = p.rows
    assert sde.vdev_path == ("sde",) and sde.write_ops == 161


def test_human_l_ten_latency_columns_and_since_boot() -> None:
    ((p,),) = parse_zpool_iostat(load("wener-iostat-l-ssd-10-latency-cols.txt"),
                                 omitted_since_boot=False)
    assert p.since_boot is True  # one report, no -y: the average since import
    r = p.pool_row
    assert (r.read_ops, r.write_ops, r.read_bytes) == (2, 89, round(11.4 * K))
    assert (r.total_wait_read, r.disk_wait_write, r.syncq_wait_read) == (585_000, 358_000,
                                                                          21_000)
    assert (r.scrub_wait, r.trim_wait, r.rebuild_wait) == (194_000, None, None)
    ((h,),) = parse_zpool_iostat(load("wener-iostat-l-hdd-10-latency-cols.txt"))
    assert h.since_boot is None  # the caller did not say whether -y was given
    assert (h.pool_row.scrub_wait, h.pool_row.total_wait_write) == (36_000_000, 24_000_000)


def test_human_vl_nine_latency_columns_2016_with_classes_fragment() -> None:
    """2016 -l layout (scrub only), logs and cache class rows; fragment (no closing rule)."""
    ((p,),) = parse_zpool_iostat(load("pr4433-iostat-vl-2016-logs-cache-head-fragment.txt"))
    assert [(r.name, r.section) for r in p.rows] == [
        ("A1", Section.DATA), ("A2", Section.DATA), ("A3", Section.LOGS), ("A4", Section.CACHE)]
    a1 = p.rows[0]
    assert (a1.total_wait_read, a1.total_wait_write, a1.disk_wait_read) == (338, 425, 105)
    assert (a1.syncq_wait_read, a1.asyncq_wait_write, a1.scrub_wait) == (None, 347, 67)
    assert a1.trim_wait is None and a1.rebuild_wait is None
    assert p.pool_row.write_bytes == round(7.18 * M) and p.rows[2].read_bytes == 99


def test_human_v_reports_with_cache_freebsd_fragment() -> None:
    reports = parse_zpool_iostat(load("issue12779-freebsd-iostat-v-15-cache-gpt-head-fragment.txt"),
                                 omitted_since_boot=False)
    assert [p.since_boot for (p,) in reports] == [True, False]
    (first,), (second,) = reports
    assert [(r.vdev_path, r.section) for r in first.rows] == [
        (("ada0p3.eli",), Section.DATA), (("gpt/cache-august",), Section.CACHE),
        (("gpt/duracell",), Section.CACHE)]
    assert second.pool_row.write_bytes == 134 * K and second.rows[1].alloc == round(28.7 * G)


def test_human_q_reports_without_separators_zol07() -> None:
    reports = parse_zpool_iostat(load("issue7694-iostat-y-q-10-5-zol07.txt"),
                                 omitted_since_boot=True)
    assert len(reports) == 5 and all(p.since_boot is False for (p,) in reports)
    r = reports[0][0].pool_row
    assert (r.read_ops, r.read_bytes) == (round(8.17 * K), 835 * M)
    assert (r.asyncq_read_pend, r.asyncq_read_activ, r.scrubq_read_pend) == (0, 39, 0)
    assert r.trimq_write_pend is None and r.rebuildq_write_pend is None  # 0.7: no trim queue
    assert [p.pool_row.asyncq_read_activ for (p,) in reports] == [39, 41, 35, 36, 39]


def test_human_q_with_separator_after_each_report_zfs082_fragment() -> None:
    reports = parse_zpool_iostat(
        load("issue9557-iostat-q-1-zfs082-separators-head-fragment.txt"))
    assert [p.pool_row.read_ops for (p,) in reports] == [346, 660, 489]
    assert reports[0][0].pool_row.asyncq_write_pend == 112
    assert reports[0][0].pool_row.trimq_write_activ == 0


def test_human_lq_both_column_sets_fragments() -> None:
    (a,), (b,) = parse_zpool_iostat(load("issue11754-iostat-lq-5-zfs20-head-fragment.txt"))
    assert (a.pool_row.read_ops, a.pool_row.trim_wait, a.pool_row.trimq_write_pend) == (
        round(11.7 * K), 2_000_000, 7)
    assert b.pool_row.scrub_wait is None and b.pool_row.write_bytes == round(1.44 * G)
    # a de_DE-like locale prints a decimal comma: 11,4T
    (c,), (d,) = parse_zpool_iostat(
        load("issue10253-iostat-q-l-1-comma-decimal-locale-head-fragment.txt"))
    assert (c.pool_row.alloc, c.pool_row.read_bytes) == (round(11.4 * T), round(2.96 * M))
    assert (c.pool_row.total_wait_read, c.pool_row.syncq_wait_write) == (1_000_000_000, 2_000)
    assert d.pool_row.read_ops == 0 and d.pool_row.total_wait_read is None


def test_human_old_header_spacing_three_reports() -> None:
    reports = parse_zpool_iostat(load("issue3633-zol-iostat-pool-1-3-old-header.txt"))
    assert [p.pool_row.write_bytes for (p,) in reports] == [266 * K, 0, 0]
    assert reports[0][0].pool_row.read_bytes == 510  # bytes/s below 1K: no unit, exact


def test_human_script_column() -> None:
    ((p,),) = parse_zpool_iostat(load("man-zpool-status-8-iostat-vc-size.txt"))
    assert p.pool_row.extra == (("size", None),)  # the pool row has no value for it
    assert p.rows[0].extra == (("size", "70G"),) and p.rows[0].alloc == round(14.6 * G)


@pytest.mark.parametrize(("name", "message"), [
    ("issue16844-iostat-w-2x-rebuild-column-head-fragment.txt", "histogram"),
    ("wener-iostat-r-request-size-histogram.txt", "histogram"),
    ("openzfs-commit-193a37c-iostat-w-2016-sdb.txt", "histogram"),
    ("openzfs-commit-193a37c-iostat-l-2016-columns-only.txt", "name column is missing"),
    ("openzfs-commit-193a37c-iostat-q-2016-columns-only.txt", "name column is missing"),
])
def test_refused_forms_say_why(name: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as e:
        parse_zpool_iostat(load(name))
    assert e.value.line is not None


@pytest.mark.parametrize("text", [
    "hello world\n",
    "              capacity     operations     bandwidth\n"
    "pool        alloc   free   read  write   read  write\n"
    "----------  -----  -----  -----  -----  -----  -----\n"
    "tank        1G  2G  3  4\n",
    "              capacity     operations     bandwidth\n"
    "pool        alloc   free   read  write   read  write\n"
    "tank        1G  2G  3  4  5K  6Q\n",
    "              capacity     operations     bandwidth\n"
    "pool        alloc   free   read  write   read  write\n"
    "this is not a row at all but prose pasted after it\n",
    "1795302000\n",
    "              capacity     operations     bandwidth\n"
    "pool        alloc   free   read  write   read  write\n",
])
def test_anything_else_is_a_parse_error_never_empty(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_iostat(text)
