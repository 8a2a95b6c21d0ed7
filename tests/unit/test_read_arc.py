"""services.arc: the ARC report from real arcstats (fixtures) and from the demo host over time.

Interval figures are made the way the console makes them: two readings, the sampler's
`ArcDelta` between them (Sampler.add_arcstats), and the report on top.
"""

from __future__ import annotations

import pytest

from tests.fakes import Clock
from tests.paths import parser_text
from zconsole.hosts.demo import DemoHost
from zconsole.model.arc import ArcStats
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import Part
from zconsole.parsers.arcstats import (
    arc_hit_ratio,
    arc_iohit_ratio,
    demand_data_efficiency,
    parse_arcstats,
)
from zconsole.services import fmt
from zconsole.services.health.arc import ArcReport, report
from zconsole.services.read.arc import (
    FAMILY_21,
    FAMILY_22,
    ONLY_21,
    ONLY_22,
    ArcRow,
    ArcWatch,
    arc_family,
)
from zconsole.services.read.sampling import Sampler
from zconsole.services.session import HostSession

T0 = 1_795_302_010.0


def read(name: str) -> ArcStats:
    return parse_arcstats(parser_text("arcstats", name))


def minus(a: ArcStats, **deltas: int) -> ArcStats:
    return ArcStats(fields={k: v - deltas.get(k, 0) for k, v in a.fields.items()})


def plus(a: ArcStats, **deltas: int) -> ArcStats:
    return ArcStats(fields={**a.fields, **{k: a.fields.get(k, 0) + v
                                           for k, v in deltas.items()}})


def two_readings(prev: ArcStats, cur: ArcStats, interval: float = 10.0,
                 pools: tuple[Pool, ...] = ()) -> tuple[ArcReport, ArcReport]:
    """The report after the first reading and after the second, as the screen makes them."""
    sampler, watch = Sampler(), ArcWatch()
    sampler.add_arcstats(prev, T0)
    first = report(watch, Part(prev, T0), sampler.arc_history, now=T0 + 1,
                         refresh_interval=5.0, pools=pools)
    sampler.add_arcstats(cur, T0 + interval)
    second = report(watch, Part(cur, T0 + interval), sampler.arc_history,
                          now=T0 + interval + 1, refresh_interval=5.0, pools=pools)
    return first, second


# ------------------------------------------------------------------- formatting


def test_formatting() -> None:
    assert fmt.size(16 * 2**30) == "16.0 GiB" and fmt.size(0) == "0 B"
    assert fmt.size(13_002_342_400) == "12.1 GiB" and fmt.size(None) == "-"
    assert fmt.pct(0.9731) == "97.3 %" and fmt.pct(1.0) == "100.0 %"
    assert fmt.pct(0.99996) == ">99.9 %"  # never 100 % while there were misses
    assert fmt.pct(0.0004) == "<0.1 %" and fmt.pct(0.0) == "0.0 %" and fmt.pct(None) == "-"
    assert fmt.duration(10.2) == "10 s" and fmt.duration(300) == "5 min"
    assert fmt.rate(24_500, 10) == "2,450/s" and fmt.rate(4, 10) == "0.4/s"
    assert fmt.rate(0, 10) == "0/s" and fmt.rate(1, 100) == "<0.1/s"


# ------------------------------------------------------------------- fixtures


def test_pre22_file_first_reading_then_interval() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    prev = minus(cur, hits=900, misses=100, demand_data_hits=30, demand_data_misses=10,
                 demand_metadata_hits=50, prefetch_data_misses=10, mru_hits=300,
                 mfu_hits=600, mru_ghost_hits=7)
    first, r = two_readings(prev, cur)

    assert first.readable and first.family == FAMILY_21
    assert first.area("hits").sentence == \
        "Hit ratio appears after the second refresh (in about 5 s)."
    assert first.hit_ratio is None and first.detail.demand_data is None
    assert first.area("throttle").state == "WAITING"

    assert (r.size, r.target, r.c_min, r.c_max) == (1603939792, 1643208777, 33554432,
                                                    8367976448)
    assert r.size_of_target == pytest.approx(1603939792 / 1643208777)
    assert r.target_of_max == pytest.approx(1643208777 / 8367976448)
    assert r.area("size").sentence == ("ARC holds 1.5 GiB of a 1.5 GiB target "
                                       "(at most 7.8 GiB, at least 32.0 MiB).")
    assert r.hit_ratio == pytest.approx(0.9) == arc_hit_ratio(prev, cur)
    assert r.iohit_ratio is None and r.reads == 1000 and r.hit_interval_s == 10.0
    assert r.area("hits").title == "Hit ratio 90.0 %"
    assert r.area("hits").sentence == "90.0 % of reads hit in the last 10 s (100 reads/s)."
    assert r.detail.demand_data is not None
    assert r.detail.demand_data.ratio == pytest.approx(0.75) == demand_data_efficiency(prev, cur)
    assert r.detail.demand_metadata is not None and r.detail.demand_metadata.ratio == 1.0
    assert r.detail.prefetch_data is not None and r.detail.prefetch_data.ratio == 0.0
    assert r.detail.demand_share == pytest.approx(90 / 100)
    assert r.area("demand").sentence == (
        "In the last 10 s, 90.0 % of reads were demand reads (asked for by programs), "
        "10.0 % prefetch; hits: demand data 75.0 %, demand metadata 100.0 %, "
        "prefetch data 0.0 %.")
    assert r.detail.mru_hit_share == pytest.approx(1 / 3) and r.detail.ghost_hits == 7
    assert r.area("lists").sentence == (
        "In the last 10 s, 33.3 % of hits came from MRU (recently used), 66.7 % from MFU "
        "(frequently used); MRU holds 383.9 MiB, MFU 1017.2 MiB. 7 ghost hits (0.7/s): "
        "recently evicted blocks that a larger ARC would have served.")
    assert not r.l2_present and r.area("l2arc").state == "NONE"
    assert r.throttled is False and r.throttle_count == 0
    assert r.area("throttle").sentence == ("Not throttled in the last 10 s; "
                                           "memory_throttle_count is 0 since the zfs module "
                                           "loaded.")
    rows = {row.label: row for row in r.rows}
    assert rows["MRU target (p)"].value == "492.5 MiB" and rows["MRU target (p)"].only == ONLY_21
    assert rows["arc_meta_limit"].only == ONLY_21 and "iohits" not in rows
    assert rows["hits"].value == "90.0/s" and rows["misses"].value == "10.0/s"
    assert rows["demand data hit"].value == "75.0 %"
    assert rows["prefetch metadata hit"].value == "no reads"


def test_22plus_excerpt_counts_iohits() -> None:
    cur = read("2.2plus-issue10255-excerpt.txt")
    prev = minus(cur, hits=600, iohits=100, misses=300, demand_data_hits=50,
                 demand_data_iohits=5, demand_data_misses=45)
    _, r = two_readings(prev, cur)
    assert r.family == FAMILY_22
    assert r.hit_ratio == pytest.approx(0.6) == arc_hit_ratio(prev, cur)
    assert r.iohit_ratio == pytest.approx(0.1) == arc_iohit_ratio(prev, cur)
    assert r.area("hits").sentence == ("60.0 % of reads hit in the last 10 s (100 reads/s; "
                                       "10.0 % joined a read already in flight).")
    assert r.detail.demand_data is not None and r.detail.demand_data.iohits == 5
    assert r.detail.demand_data.ratio == pytest.approx(50 / 95) == demand_data_efficiency(prev, cur)
    # the excerpt stops before size, c, c_max: said so, not guessed
    assert r.size is None and r.area("size").sentence == \
        "arcstats has no size or target (c) field."
    assert r.area("throttle").state == "UNKNOWN"
    rows = {row.label: row for row in r.rows}
    assert rows["iohits"] == ArcRow("iohits", "10.0/s", ONLY_22)
    assert "MRU target (p)" not in rows


def test_232_excerpt_sizes_and_missing_counters() -> None:
    cur = read("2.3.2-head3-plus-grep-excerpt.txt")
    _, r = two_readings(minus(cur, hits=95, misses=5), cur)
    assert r.area("size").sentence == ("ARC holds 759.8 MiB of a 840.0 MiB target "
                                       "(at most 1.2 GiB, at least 61.5 MiB).")
    assert r.size_of_max == pytest.approx(796679064 / 1289003520)
    assert r.hit_ratio == pytest.approx(0.95)
    # grep dropped iohits and p: the fields alone cannot tell the family; the version can
    assert r.family is None
    assert arc_family(cur, (2, 3, 2)) == FAMILY_22 and arc_family(cur, (2, 1, 11)) == FAMILY_21
    # counters the excerpt lacks are reported missing, never as "no reads"
    assert r.area("demand").sentence == "arcstats has no demand_* or prefetch_* counters."
    assert r.area("lists").sentence.startswith("arcstats has no mru_hits/mfu_hits counters")
    assert not r.l2_present  # l2_size 0 and no cache device


# ------------------------------------------------------------------- edge cases


def test_no_reads_in_the_interval() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    _, r = two_readings(cur, cur, interval=10.0)
    assert r.hit_ratio is None and r.reads == 0
    assert r.area("hits").sentence == "No reads in the last 10 s."
    assert r.area("demand").sentence == "No demand or prefetch reads in the last 10 s."
    assert r.hit_series == (None,)


def test_throttle_grows() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    _, r = two_readings(cur, plus(cur, memory_throttle_count=3, hits=10))
    assert r.throttled is True and r.detail.throttle_delta == 3 and r.throttle_count == 3
    area = r.area("throttle")
    assert (area.state, area.level) == ("THROTTLED", "warn")
    assert area.sentence == ("THROTTLED: the ARC made writers wait for memory 3 times in the "
                             "last 10 s; memory_throttle_count is 3 since the zfs module loaded.")
    assert r.throttled_intervals == 1


def test_lifetime_throttle_count_alone_is_not_throttled() -> None:
    cur = plus(read("node_exporter-fixture-pre2.2.txt"), memory_throttle_count=12)
    _, r = two_readings(cur, plus(cur, hits=5))
    assert r.throttled is False and r.area("throttle").state == "NOT THROTTLED"
    assert "memory_throttle_count is 12 since" in r.area("throttle").sentence


def test_counters_restart_after_module_reload() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    _, r = two_readings(plus(cur, hits=1000, misses=10), cur)
    assert r.detail.counters_reset and r.detail.demand_data is None
    assert "counters restarted" in r.area("demand").sentence


def test_target_at_minimum_under_memory_pressure_warns() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    low = ArcStats(fields={**cur.fields, "c": cur.fields["c_min"], "size": 30_000_000,
                           "arc_no_grow": 1})
    _, r = two_readings(low, low)
    area = r.area("size")
    assert (area.state, area.level) == ("AT MINIMUM", "warn")
    assert "fallen to its minimum (c_min) and arc_no_grow is set" in area.sentence
    neg = ArcStats(fields={**low.fields, "arc_no_grow": 0, "memory_available_bytes": -2**20})
    _, r = two_readings(neg, neg)
    assert r.area("size").level == "warn"
    assert "memory_available_bytes is 1.0 MiB below zero" in r.area("size").sentence


def test_target_at_minimum_on_an_idle_host_is_no_alarm() -> None:
    """A freshly booted host guest (OpenZFS 2.3.2, idle) showed ARC 'AT MINIMUM' in yellow:
    the target starts at c_min and grows with reads. Without the kernel's signs of pressure
    (arc_no_grow 0, memory available) it is said plainly, not warned about."""
    cur = read("node_exporter-fixture-pre2.2.txt")
    idle = ArcStats(fields={**cur.fields, "c": cur.fields["c_min"], "size": 20_000_000,
                            "arc_no_grow": 0, "memory_available_bytes": 900 * 2**20})
    _, r = two_readings(idle, idle)
    area = r.area("size")
    assert (area.state, area.level) == ("NOT GROWN YET", "ok")
    assert "no sign of memory pressure" in area.sentence


def test_l2arc_from_cache_device_and_counters() -> None:
    cur = plus(read("node_exporter-fixture-pre2.2.txt"), l2_size=10 * 2**30,
               l2_asize=7 * 2**30)
    _, r = two_readings(cur, plus(cur, hits=5, misses=20, l2_hits=6, l2_misses=14))
    assert r.l2_present and r.l2_hit_ratio == pytest.approx(0.3)
    assert r.area("l2arc").sentence == ("L2ARC holds 10.0 GiB (7.0 GiB on disk); 30.0 % of its "
                                        "lookups hit in the last 10 s (2.0 lookups/s).")
    empty = read("node_exporter-fixture-pre2.2.txt")
    pool = Pool(name="tank", state="ONLINE", cache=(Vdev(name="nvme0n1", type="disk", state="ONLINE"),))
    _, r2 = two_readings(empty, empty, pools=(pool,))
    assert r2.l2_present and r2.area("l2arc").sentence.startswith(
        "L2ARC cache device present but still empty")


def test_unreadable_and_stale() -> None:
    watch = ArcWatch()
    # each part as the console stamps it: the host's clock, and the console's (seen)
    failed: Part[ArcStats] = Part(None, T0, "/proc/spl/kstat/zfs/arcstats",
                                  error="permission denied", error_type="PermissionDenied",
                                  seen=T0)
    r = report(watch, failed, (), now=T0 + 7, refresh_interval=5.0)
    assert not r.readable and r.error == "permission denied" and r.error_age == 7.0
    area = r.areas[0]
    assert (area.state, area.level) == ("UNREADABLE", "bad")
    assert area.sentence == ("ARC could not be read: permission denied (tried 7 s ago). "
                             "No ARC figures are shown rather than a guess.")
    # a good reading, then a failure: the old figures stay, marked with their age
    good = read("node_exporter-fixture-pre2.2.txt")
    report(watch, Part(good, T0 + 10, seen=T0 + 10), (), now=T0 + 10, refresh_interval=5.0)
    late: Part[ArcStats] = Part(None, T0 + 20, error="timed out after 20 s",
                                error_type="CommandTimedOut", seen=T0 + 20)
    r = report(watch, late, (), now=T0 + 25, refresh_interval=5.0)
    assert r.readable and r.stale and r.data_age == 15.0 and r.size == good.size
    assert r.notice == ("ARC could not be read: timed out after 20 s (tried 5 s ago). "
                        "The figures below are from the reading of 15 s ago.")


def test_ages_and_order_on_the_consoles_clock_whatever_the_hosts() -> None:
    """Issue 27 item 6: a host whose clock stopped (every part the same host time) still
    gives newer readings, and their age counts on the console's clock from `seen`."""
    a = read("node_exporter-fixture-pre2.2.txt")
    watch = ArcWatch()
    report(watch, Part(a, T0, seen=100.0), (), now=100.0, refresh_interval=5.0)
    b = plus(a, hits=1)
    r = report(watch, Part(b, T0, seen=105.0), (), now=105.0, refresh_interval=5.0)
    assert watch.latest is not None and watch.latest.stats is b and not r.stale
    late: Part[ArcStats] = Part(None, T0 - 86400, error="timed out", error_type="E",
                                seen=110.0)
    r = report(watch, late, (), now=112.0, refresh_interval=5.0)
    assert r.stale and r.data_age == 7.0 and r.error_age == 2.0  # never 1 d from the host


def test_watch_ignores_repeated_and_failed_parts() -> None:
    a = read("node_exporter-fixture-pre2.2.txt")
    w = ArcWatch()
    w.observe(Part(a, T0))
    w.observe(Part(plus(a, hits=1), T0))  # same taken_at: the same refresh seen twice
    w.observe(Part(None, T0 + 5, error="x"))
    assert w.previous is None and w.latest is not None and w.latest.stats is a


# ------------------------------------------------------------------- the demo host over time


@pytest.mark.parametrize("version,family", [("2.1", FAMILY_21), ("2.3", FAMILY_22)])
def test_demo_host_over_clock_steps(version: str, family: str) -> None:
    clock = Clock(T0)
    host = DemoHost("showcase", zfs_version=version, clock=clock, seed=0)
    live = HostSession(host)
    watch = ArcWatch()
    arcs: list[ArcStats] = []
    reports: list[ArcReport] = []
    for _ in range(4):
        r = live.refresh()
        assert r.reading.arc.value is not None
        arcs.append(r.reading.arc.value)
        reports.append(report(watch, r.reading.arc, live.sampler.arc_history, now=clock.t,
                                    refresh_interval=5.0,
                                    pools=r.reading.pool_status.value or (),
                                    zfs_version=r.reading.zfs.version))
        clock.t += 5.0
    first, last = reports[0], reports[-1]
    assert first.hit_ratio is None and "after the second refresh" in first.area("hits").sentence
    assert last.family == family
    # the snapshot read and the sampler read happen at the same host time: same counters
    assert last.hit_ratio == arc_hit_ratio(arcs[-2], arcs[-1])
    assert last.hit_series == tuple(arc_hit_ratio(a, b) for a, b in zip(arcs[:-1], arcs[1:], strict=True))
    assert last.detail.demand_data is not None
    assert last.detail.demand_data.ratio == demand_data_efficiency(arcs[-2], arcs[-1])
    assert (last.size, last.target, last.c_max) == (arcs[-1].size, arcs[-1].target,
                                                    arcs[-1].c_max)
    assert last.detail.seconds == last.hit_interval_s == 5.0
    # the showcase machine: 64 GiB of RAM, ARC at 92 % of c_max, an L2ARC of 180 GiB
    assert last.area("size").sentence == ("ARC holds 35.5 GiB of a 35.9 GiB target "
                                          "(at most 38.6 GiB, at least 1.9 GiB).")
    assert last.l2_present and last.l2_size == 180 * 2**30
    mru = (arcs[-1].get("mru_hits") or 0) - (arcs[-2].get("mru_hits") or 0)
    mfu = (arcs[-1].get("mfu_hits") or 0) - (arcs[-2].get("mfu_hits") or 0)
    assert last.detail.mru_hit_share == mru / (mru + mfu) == pytest.approx(0.45, abs=1e-4)
    assert last.throttled is False
    rows = {row.label: row for row in last.rows}
    if version == "2.3":
        assert last.iohit_ratio is not None and "iohits" in rows and "MRU target (p)" not in rows
        assert last.iohit_ratio == arc_iohit_ratio(arcs[-2], arcs[-1])
        assert rows["uncached"].only == ONLY_22
    else:
        assert last.iohit_ratio is None and "iohits" not in rows
        assert rows["MRU target (p)"].only == ONLY_21
    # exact figures of this deterministic machine (seed 0), one interval of 5 s
    expected = {"2.1": "97.6 % of reads hit in the last 5 s (2,560 reads/s). Last 3 refreshes: "
                       "97.4 % to 97.6 %.",
                "2.3": "97.3 % of reads hit in the last 5 s (2,568 reads/s; 0.3 % joined a "
                       "read already in flight). Last 3 refreshes: 97.1 % to 97.3 %."}
    assert last.area("hits").sentence == expected[version]
