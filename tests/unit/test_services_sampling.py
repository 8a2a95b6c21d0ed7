"""Sampling: per-disk figures from real /proc/diskstats deltas, ARC deltas, ZFS leaf latency."""

from __future__ import annotations

import pytest

from tests.unit.test_services_fakehost import FakeHost, fixture
from zconsole.model.arc import ArcStats
from zconsole.model.disk import Disk, DiskStat
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.parsers.diskstats import parse_diskstats
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services.health.slowdisk import find_slow_disks
from zconsole.services.read import catalogue as C
from zconsole.services.read.identity import DiskIndex
from zconsole.services.read.sampling import (
    Sampler,
    figures_from_diskio,
    figures_from_row,
    is_whole_disk_name,
    leaf_samples,
    map_leaves,
    zfs_latency,
)

DS2 = fixture("diskstats/2.3.2-guest-vdb-vdg-ds2.txt")
DELTAS = fixture("diskstats/2.3.2-guest-awk-deltas.txt")
# The transcript's command ran `dd ... conv=fsync; sleep 1` between the two reads and took
# 6.404 s of wall time in all; that is the interval used here.
INTERVAL = 6.404


def first_sample() -> list[DiskStat]:
    """ds1 = ds2 minus the transcript's own deltas (reads, writes, sectors written,
    ms writing, io ticks); the other counters did not appear in the delta table."""
    deltas = {}
    for line in DELTAS.splitlines()[1:]:
        name, reads, writes, sect_w, ms_w, ticks = line.split()
        deltas[name] = tuple(int(x) for x in (reads, writes, sect_w, ms_w, ticks))
    out = []
    for s in parse_diskstats(DS2):
        r, w, sw, mw, t = deltas[s.name]
        out.append(s._replace(reads=s.reads - r, writes=s.writes - w,
                                       sectors_written=s.sectors_written - sw,
                                       ms_writing=s.ms_writing - mw, ms_io=s.ms_io - t))
    return out


def stacked(stats: list[DiskStat]) -> list[DiskStat]:
    """Add a partition and a device-mapper line that copy vdb's counters."""
    vdb = next(s for s in stats if s.name == "vdb")
    return [*stats, vdb._replace(name="vdb1", minor=17),
            vdb._replace(name="dm-0", major=253, minor=0)]


def test_real_diskstats_deltas() -> None:
    s = Sampler()
    assert s.add_diskstats(stacked(first_sample()), 100.0) == {}
    io = s.add_diskstats(stacked(parse_diskstats(DS2)), 100.0 + INTERVAL)
    assert sorted(io) == ["vdb", "vdc", "vdd", "vde", "vdf", "vdg"]  # no vdb1, no dm-0
    vdb, vdc = io["vdb"], io["vdc"]
    assert vdb.w_s == pytest.approx(4441 / INTERVAL)
    assert vdb.w_await_ms == pytest.approx(1229 / 4441)  # 0.277 ms
    assert vdb.wkb_s == pytest.approx(531832 / 2 / INTERVAL)  # 41.5 MB/s
    assert vdb.util_pct == pytest.approx(1080 / (INTERVAL * 1000) * 100)  # 16.9 % busy
    assert vdc.w_await_ms == pytest.approx(1161 / 4452)
    assert vdc.util_pct == pytest.approx(1172 / (INTERVAL * 1000) * 100)
    assert vdb.r_s == 0 and vdb.r_await_ms == 0
    for idle in ("vdd", "vde", "vdf", "vdg"):
        assert io[idle].w_s == 0 and io[idle].util_pct == 0
    assert s.history("vdb") == (vdb,)
    assert s.series("vdb", "util_pct") == (vdb.util_pct,)
    # as slow-disk figures: operations in the interval, not per second
    f = figures_from_diskio(vdb)
    assert f.write_ops == pytest.approx(4441) and f.read_ms is None


def test_inventory_decides_what_is_a_whole_disk() -> None:
    s = Sampler(whole_disks=["vdb", "dm-0"])
    s.add_diskstats(stacked(first_sample()), 0.0)
    assert sorted(s.add_diskstats(stacked(parse_diskstats(DS2)), INTERVAL)) == ["dm-0", "vdb"]


@pytest.mark.parametrize(("name", "whole"), [
    ("sda", True), ("sda1", False), ("vdb", True), ("vdb9", False), ("nvme0n1", True),
    ("nvme0n1p1", False), ("mmcblk0", True), ("mmcblk0p2", False), ("xvda", True),
    ("dm-0", False), ("md127", False), ("zd0", False), ("zd16", False), ("loop3", False),
    ("zram0", False), ("sr0", False), ("ram0", False),
])
def test_whole_disk_names(name: str, whole: bool) -> None:
    assert is_whole_disk_name(name) is whole


def test_history_is_bounded_and_resets_are_skipped() -> None:
    s = Sampler(history=3)
    base = parse_diskstats(DS2)
    for i in range(6):
        s.add_diskstats([x._replace(writes=x.writes + 10 * i) for x in base],
                        float(i))
    assert len(s.history("vdb")) == 3
    # vdb re-added: counters back near zero -> no figure for that interval
    later = [x._replace(writes=x.writes + 60) for x in base]
    reset = [x._replace(reads=0, writes=0, sectors_read=0, sectors_written=0)
             if x.name == "vdb" else x for x in later]
    io = s.add_diskstats(reset, 6.0)
    assert "vdb" not in io and "vdc" in io
    assert len(s.history("vdc")) == 3 and s.history("vdc")[-1].w_s == 10.0
    # the same timestamp twice gives nothing rather than a division by zero
    assert s.add_diskstats(later, 6.0) == {}


def test_arc_delta() -> None:
    prev = parse_arcstats(fixture("arcstats/2.3.2-head3-plus-grep-excerpt.txt"))
    fields = dict(prev.fields)
    fields["hits"] += 900
    fields["misses"] += 100
    cur = ArcStats(fields=fields)
    s = Sampler()
    assert s.add_arcstats(prev, 10.0) is None
    d = s.add_arcstats(cur, 15.0)
    assert d is not None
    assert (d.interval_s, d.hits, d.misses, d.iohits) == (5.0, 900, 100, None)
    assert d.hit_ratio == pytest.approx(0.9)
    assert d.size == 796679064 and not d.throttled
    assert s.arc_history == (d,)


# --- ZFS latency ------------------------------------------------------------------------------

IOSTAT = fixture("zpool-iostat/2.3.2-tank-vlHp-1-2.txt")
SECOND_REPORT = "".join(IOSTAT.splitlines(keepends=True)[4:8])  # the `-y` style report
POOLS = parse_zpool_status_json(fixture("zpool-status/openzfs-2.3.2-status-j.json"))


def test_zfs_latency_maps_leaves_on_the_tree() -> None:
    host = FakeHost(commands={C.zpool_iostat_latency(1): SECOND_REPORT})
    lat = zfs_latency(host, 1, pools=POOLS)
    assert lat.interval_s == 1.0
    assert sorted(lat.leaves) == [("tank", ("mirror-0", "vdb")), ("tank", ("mirror-0", "vdc"))]
    vdb = lat.leaves[("tank", ("mirror-0", "vdb"))]
    assert (vdb.write_ops, vdb.disk_wait_write, vdb.disk_wait_read) == (474, 442368, None)
    f = figures_from_row(vdb, lat.interval_s)
    assert f.write_ms == pytest.approx(0.442368) and f.write_ops == 474
    assert f.read_ms is None and f.read_ops == 0
    # without the tree: leaves are rows no other row extends
    assert sorted(map_leaves(lat.reports)) == sorted(lat.leaves)


def test_tick_records_aligned_leaf_samples() -> None:
    index = DiskIndex([Disk("vdb", "", "disk"), Disk("vdc", "", "disk")])
    host = FakeHost(commands={C.zpool_iostat_latency(1): SECOND_REPORT},
                    files={C.DISKSTATS: DS2}, clock=100.0, tick=0.5)
    s = Sampler()
    for _ in range(5):
        r = s.tick(host, 1, pools=POOLS, leaf_disk=index.leaf_disk_name)
        assert r.latency is not None
    assert any("arcstats" in e for e in r.errors)  # no ARC file on this fake: reported, not fatal
    assert len(s.leaf_history) == 5
    sample = s.leaf_history[-1]
    assert sample[("tank", ("mirror-0", "vdc"))].zfs.write_ms == pytest.approx(0.429827)  # type: ignore[union-attr]
    # the real report: two healthy mirror members, nothing to report
    assert find_slow_disks(POOLS, s.leaf_history) == []
    # leaf_samples without ZFS figures falls back to diskstats through the disk index
    io = {"vdb": s.history("vdb")[-1]}
    only_disk = leaf_samples(POOLS, None, io, index.leaf_disk_name)
    assert only_disk[("tank", ("mirror-0", "vdb"))].zfs is None
    assert only_disk[("tank", ("mirror-0", "vdb"))].disk is not None
