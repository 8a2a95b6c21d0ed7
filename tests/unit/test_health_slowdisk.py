"""The slow-disk rule over hand-built vdev trees and sample histories."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, Vdev
from zconsole.services.health.slowdisk import (
    DEFAULT_RULE,
    find_slow_disks,
    redundancy_groups,
    sample_outliers,
)
from zconsole.services.read.sampling import SOURCE_DISKSTATS, Figures, LeafSample, Sample


def leaf(name: str, state: str = "ONLINE") -> Vdev:
    return Vdev(name=name, type="disk", state=state, path=f"/dev/{name}1")


def mirror_pool(*names: str, pool: str = "tank", container: str = "mirror-0",
                vtype: str = "mirror") -> Pool:
    top = Vdev(name=container, type=vtype, state="ONLINE", children=tuple(leaf(n) for n in names))
    return Pool(name=pool, state="ONLINE", vdevs=(top,))


def fig(write_ms: float | None, write_ops: float = 100, read_ms: float | None = None,
        read_ops: float = 0) -> Figures:
    return Figures(read_ms=read_ms, read_ops=read_ops, write_ms=write_ms, write_ops=write_ops)


def zsample(pool: str, container: str, figs: dict[str, Figures]) -> Sample:
    return {(pool, (container, n)): LeafSample(zfs=f) for n, f in figs.items()}


MIRROR = mirror_pool("vdb", "vdc")


def test_sustained_ten_times_slower_mirror_member_is_critical() -> None:
    samples = [zsample("tank", "mirror-0", {"vdb": fig(2.5), "vdc": fig(25.0)})] * 5
    [f] = find_slow_disks([MIRROR], samples)
    assert f.kind == "slow-disk"
    assert f.subject == "vdc"
    assert f.severity is Severity.CRITICAL
    assert f.message == ("vdc answers 10.0× slower than its mirror peer vdb; "
                         "every write to mirror-0 waits for it")
    assert any("outlier in 5 of the last 5 samples" in e for e in f.evidence)
    assert any("write 25.0 ms vs peer median 2.50 ms (10.0×) over 100 operations "
               "[zfs disk_wait]" in e for e in f.evidence)


def test_a_critical_disk_stays_critical_until_its_factor_falls_below_eight() -> None:
    """The showcase's slow disk wandered around 10×: ▲ and ✖ took turns on every refresh of
    a shared screen. Critical from 10×; once critical, warning again only below 8×."""
    def judged(factor: float, previous: list[Finding] | None = None) -> Finding:
        samples = [zsample("tank", "mirror-0", {"vdb": fig(2.5), "vdc": fig(2.5 * factor)})] * 5
        [f] = find_slow_disks([MIRROR], samples, previous=previous or [])
        return f

    assert judged(9.8).severity is Severity.WARNING  # never critical yet
    first = judged(10.1)
    assert first.severity is Severity.CRITICAL
    calm = judged(9.6, [first])
    assert calm.severity is Severity.CRITICAL and calm.factor == 9.6
    assert judged(8.0, [calm]).severity is Severity.CRITICAL
    assert judged(7.9, [calm]).severity is Severity.WARNING
    # another leaf's or another pool's critical finding does not hold this one
    other = Finding(kind="slow-disk", severity=Severity.CRITICAL, subject="vdc",
                    message="", pool="other")
    assert judged(9.6, [other]).severity is Severity.WARNING


def test_mirror_sentence_matches_the_readme_example() -> None:
    samples = [zsample("tank", "mirror-0", {"vdb": fig(1.0), "vdc": fig(9.8)})] * 4
    [f] = find_slow_disks([MIRROR], samples)
    assert f.message == ("vdc answers 9.8× slower than its mirror peer vdb; "
                         "every write to mirror-0 waits for it")
    assert f.severity is Severity.WARNING


def test_raidz_sentence_and_median_of_peers() -> None:
    names = ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    pool = mirror_pool(*names, container="raidz2-0", vtype="raidz")
    lat = {"sda": 4.0, "sdb": 4.2, "sdc": 3.9, "sdd": 24.4, "sde": 4.1, "sdf": 3.8}
    samples = [zsample("tank", "raidz2-0", {n: fig(v) for n, v in lat.items()})] * 5
    [f] = find_slow_disks([pool], samples)
    assert f.subject == "sdd"
    # median of the five peers is 4.0 ms -> 6.1×
    assert f.message == ("sdd answers 6.1× slower than the other 5 disks of raidz2-0; "
                         "every full-stripe read and write waits for it")


def test_single_blip_is_not_reported() -> None:
    calm = zsample("tank", "mirror-0", {"vdb": fig(2.0), "vdc": fig(2.1)})
    blip = zsample("tank", "mirror-0", {"vdb": fig(2.0), "vdc": fig(40.0)})
    assert find_slow_disks([MIRROR], [calm, calm, blip, calm, calm]) == []
    # three outliers in five is still not sustained
    assert find_slow_disks([MIRROR], [blip, calm, blip, calm, blip]) == []


def test_four_of_last_five_is_reported_and_older_samples_do_not_count() -> None:
    calm = zsample("tank", "mirror-0", {"vdb": fig(2.0), "vdc": fig(2.1)})
    slow = zsample("tank", "mirror-0", {"vdb": fig(2.0), "vdc": fig(30.0)})
    assert len(find_slow_disks([MIRROR], [slow, calm, slow, slow, slow])) == 1
    # the same four outliers pushed out of the window by calm samples
    assert find_slow_disks([MIRROR], [slow, slow, slow, slow, calm, calm]) == []
    # fewer than four samples can never be enough
    assert find_slow_disks([MIRROR], [slow, slow, slow]) == []


def test_busy_but_equal_pair_is_not_reported() -> None:
    samples = [zsample("tank", "mirror-0", {"vdb": fig(45.0, 900), "vdc": fig(47.0, 900)})] * 5
    assert find_slow_disks([MIRROR], samples) == []


def test_idle_disk_is_not_reported() -> None:
    samples = [zsample("tank", "mirror-0", {"vdb": fig(None, 0), "vdc": fig(None, 0)})] * 5
    assert find_slow_disks([MIRROR], samples) == []


def test_too_little_io_is_not_reported() -> None:
    # 4 writes in the interval, each slow: below the 5-operation floor
    samples = [zsample("tank", "mirror-0", {"vdb": fig(1.0, 4), "vdc": fig(30.0, 4)})] * 5
    assert find_slow_disks([MIRROR], samples) == []
    # the slow disk has enough I/O but its peer does not: nothing to compare against
    samples = [zsample("tank", "mirror-0", {"vdb": fig(1.0, 3), "vdc": fig(30.0, 50)})] * 5
    assert find_slow_disks([MIRROR], samples) == []


def test_ratio_without_absolute_margin_is_not_reported() -> None:
    # an SSD pair: 0.1 ms vs 0.5 ms is 5× but only 0.4 ms
    samples = [zsample("tank", "mirror-0", {"vdb": fig(0.1), "vdc": fig(0.5)})] * 5
    assert find_slow_disks([MIRROR], samples) == []


def test_margin_without_ratio_is_not_reported() -> None:
    # 20 ms vs 50 ms is 30 ms apart but only 2.5×
    samples = [zsample("tank", "mirror-0", {"vdb": fig(20.0), "vdc": fig(50.0)})] * 5
    assert find_slow_disks([MIRROR], samples) == []


def test_reads_are_judged_separately_from_writes() -> None:
    figs = {"vdb": Figures(read_ms=1.0, read_ops=50, write_ms=5.0, write_ops=50),
            "vdc": Figures(read_ms=12.0, read_ops=50, write_ms=5.2, write_ops=50)}
    out = sample_outliers(redundancy_groups(MIRROR)[0], zsample("tank", "mirror-0", figs))
    assert [o.direction for o in out["vdc"]] == ["read"]
    assert out["vdc"][0].ratio == 12.0


def test_offline_member_is_not_a_peer_and_single_member_groups_are_skipped() -> None:
    top = Vdev(name="mirror-0", type="mirror", state="DEGRADED",
               children=(leaf("vdb"), leaf("vdc", "OFFLINE")))
    pool = Pool(name="tank", state="DEGRADED", vdevs=(top,))
    assert redundancy_groups(pool) == []
    samples = [zsample("tank", "mirror-0", {"vdb": fig(2.0), "vdc": fig(30.0)})] * 5
    assert find_slow_disks([pool], samples) == []


def test_diskstats_fallback_when_zfs_figures_missing_for_a_member() -> None:
    # vdc has no ZFS figures in these samples: the whole group uses diskstats
    s: Sample = {
        ("tank", ("mirror-0", "vdb")): LeafSample(zfs=fig(2.0), disk=fig(2.0)),
        ("tank", ("mirror-0", "vdc")): LeafSample(zfs=None, disk=fig(21.0)),
    }
    [f] = find_slow_disks([MIRROR], [s] * 5)
    assert f.severity is Severity.CRITICAL
    assert any(SOURCE_DISKSTATS in e for e in f.evidence)


def test_three_way_mirror_and_replacing_sentences() -> None:
    pool = mirror_pool("vdb", "vdc", "vdd")
    samples = [zsample("tank", "mirror-0",
                       {"vdb": fig(2.0), "vdc": fig(8.0), "vdd": fig(2.0)})] * 5
    [f] = find_slow_disks([pool], samples)
    assert f.message == ("vdc answers 4.0× slower than its mirror peers vdb and vdd; "
                         "every write to mirror-0 waits for it")
    rpool = mirror_pool("vdb", "vdf", container="replacing-0", vtype="replacing")
    samples = [zsample("tank", "replacing-0", {"vdb": fig(2.0), "vdf": fig(8.0)})] * 5
    [f] = find_slow_disks([rpool], samples)
    assert f.message == ("vdf answers 4.0× slower than vdb in replacing-0; "
                         "the resilver and every write to replacing-0 wait for it")


def test_nested_replacing_inside_raidz_forms_its_own_group() -> None:
    rep = Vdev(name="replacing-1", type="replacing", state="ONLINE",
               children=(leaf("sdb"), leaf("sdx")))
    rz = Vdev(name="raidz1-0", type="raidz", state="ONLINE",
              children=(leaf("sda"), rep, leaf("sdc")))
    groups = redundancy_groups(Pool(name="tank", state="ONLINE", vdevs=(rz,)))
    assert [(g.container.name, [v.name for v in g.leaves], g.path) for g in groups] == [
        ("raidz1-0", ["sda", "sdc"], ("raidz1-0",)),
        ("replacing-1", ["sdb", "sdx"], ("raidz1-0", "replacing-1")),
    ]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.05, max_value=500.0), min_size=2, max_size=8),
       st.integers(min_value=0, max_value=1000))
def test_equal_workload_scaled_uniformly_never_reports(lat: list[float], ops: int) -> None:
    # Whatever the latencies, scaling every member by the same factor never changes the
    # verdict, and members within 3× of each other are never reported.
    names = [f"d{i}" for i in range(len(lat))]
    pool = mirror_pool(*names, container="raidz2-0", vtype="raidz")
    lo = min(lat)
    bounded = [min(v, lo * 2.9) for v in lat]
    samples = [zsample("tank", "raidz2-0",
                       {n: fig(v, ops) for n, v in zip(names, bounded, strict=True)})] * 5
    assert find_slow_disks([pool], samples) == []


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=0.1, max_value=50.0), st.floats(min_value=3.0, max_value=100.0))
def test_reported_factor_is_the_measured_ratio(base: float, factor: float) -> None:
    slow = base * factor
    samples = [zsample("tank", "mirror-0", {"vdb": fig(base), "vdc": fig(slow)})] * 5
    found = find_slow_disks([MIRROR], samples)
    expected = slow >= DEFAULT_RULE.ratio * base and slow - base >= DEFAULT_RULE.min_excess_ms
    assert bool(found) == expected
    if found:
        assert f"{slow / base:.1f}×" in found[0].message


# --- end to end on the demo host --------------------------------------------------------------

def test_demo_showcase_slow_mirror_member_is_found() -> None:
    demo = pytest.importorskip("zconsole.hosts.demo")
    if not hasattr(demo, "DemoHost"):
        pytest.skip("zconsole.hosts.demo.DemoHost has not landed yet")
    from zconsole.services.read.collect import collect
    from zconsole.services.read.identity import DiskIndex
    from zconsole.services.read.sampling import Sampler

    now = [1_795_302_000.0]
    host = demo.DemoHost(scenario="showcase", zfs_version="2.3", clock=lambda: now[0], seed=0)
    snap = collect(host)
    pools = snap.pool_status.value or ()
    assert pools
    index = DiskIndex(snap.disks.value.devices if snap.disks.value else ())
    sampler = Sampler()
    for _ in range(5):
        now[0] += 1.0
        r = sampler.tick(host, 1, pools=pools, leaf_disk=index.leaf_disk_name)
        assert r.errors == () and r.latency is not None and r.latency.leaves
    findings = find_slow_disks(pools, sampler.leaf_history)
    assert len(findings) == 1, findings
    f = findings[0]
    assert f.kind == "slow-disk"
    assert "slower than its mirror peer" in f.message
    assert "every write to mirror-" in f.message


@given(st.dictionaries(st.text(min_size=1, max_size=4),
                       st.one_of(st.integers(0, 50), st.floats(0, 1e4, allow_nan=False)),
                       max_size=40))
def test_peer_medians_are_the_median_of_every_other_member(values: dict[str, float]) -> None:
    """One sort per group gives, for each member, exactly statistics.median of the others
    (duplicates, odd and even groups, ints and floats)."""
    import statistics

    from zconsole.services.health.slowdisk import _peer_medians

    got = _peer_medians(values)
    want = {k: statistics.median([v for n, v in values.items() if n != k])
            for k in values} if len(values) >= 2 else {}
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-12), (k, values)
