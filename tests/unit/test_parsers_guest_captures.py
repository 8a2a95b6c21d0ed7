"""The human forms and the long operations, on real output of the QEMU guest.

OpenZFS 2.1.11 and 2.3.2 in the guest of tools/testvm, put into each state by
tools/capture_fixtures.py: `zconsole capture` recordings under tests/fixtures/capture/zfs-VER/
STATE/ (setup.sh says how the state was made) and, recorded in the same run, the human
`zpool list` / `zpool iostat` forms and a series of `zpool status` readings over time under
tests/fixtures/parsers/KIND/guest-zfs-VER-STATE-*.txt (their SOURCES.md name the commands).
The human outputs are checked against the scripted (-H -p) reads of the same capture.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.paths import FIXTURES
from zconsole.model.iostat import PoolIostat
from zconsole.model.pool import Pool, PoolUsage, ScanFunction, ScanState, Section
from zconsole.parsers.zpool_iostat import parse_zpool_iostat
from zconsole.parsers.zpool_list import parse_zpool_list
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services.read.progress import ScanTracker

FIXTURES = FIXTURES
PARSERS = FIXTURES / "parsers"
CAPTURE = FIXTURES / "capture"
BOTH = ("2.1.11", "2.3.2")


def guest(kind: str, version: str, state: str, slug: str) -> str:
    return (PARSERS / kind / f"guest-zfs-{version}-{state}-{slug}.txt").read_text()


def manifest(version: str, state: str) -> dict[str, Any]:
    return json.loads((CAPTURE / f"zfs-{version}" / state / "manifest.json").read_text())


def captured(version: str, state: str, *argv: str) -> str:
    """stdout of a command `zconsole capture` recorded in that state."""
    for c in manifest(version, state)["commands"]:
        if tuple(c["argv"]) == argv:
            return (CAPTURE / f"zfs-{version}" / state / c["stdout"]).read_text()
    raise KeyError(argv)


def status(version: str, state: str) -> Pool:
    (pool,) = parse_zpool_status(captured(version, state, "zpool", "status", "-p"),
                                 ddt_sizes_are_totals=version.startswith("2.3"))
    return pool


def scripted_list(version: str, state: str) -> PoolUsage:
    (pool,) = parse_zpool_list(captured(version, state, "zpool", "list", "-H", "-p", "-v"))
    return pool


def series(version: str, state: str) -> list[tuple[int, Pool]]:
    """`date +%s; zpool status tank` readings: (epoch, pool) in order."""
    text = guest("zpool-status", version, state, "series")
    out = []
    for chunk in re.split(r"^(?=[0-9]{10}$)", text, flags=re.M):
        if chunk.strip():
            epoch, rest = chunk.split("\n", 1)
            (pool,) = parse_zpool_status(rest)
            out.append((int(epoch), pool))
    return out


# ------------------------------------------------------------------ all-classes: human forms

CLASS_TREE = [
    ("mirror-0", Section.DATA, 0, None), ("vdb", Section.DATA, 1, "mirror-0"),
    ("vdc", Section.DATA, 1, "mirror-0"),
    ("mirror-3", Section.DEDUP, 0, None), ("vdd3", Section.DEDUP, 1, "mirror-3"),
    ("vde3", Section.DEDUP, 1, "mirror-3"),
    ("mirror-2", Section.SPECIAL, 0, None), ("vdd2", Section.SPECIAL, 1, "mirror-2"),
    ("vde2", Section.SPECIAL, 1, "mirror-2"),
    ("mirror-1", Section.LOGS, 0, None), ("vdd1", Section.LOGS, 1, "mirror-1"),
    ("vde1", Section.LOGS, 1, "mirror-1"),
    ("vdf", Section.CACHE, 0, None), ("vdg", Section.SPARES, 0, None),
]


def tree(pool: PoolUsage) -> list[tuple[str, Section, int | None, str | None]]:
    return [(v.name, v.section, v.depth,
             pool.vdevs[v.parent].name if v.parent is not None else None) for v in pool.vdevs]


@pytest.mark.parametrize("version", BOTH)
def test_human_list_v_and_vp_every_class(version: str) -> None:
    scripted = scripted_list(version, "all-classes")
    for slug in ("v", "vp"):
        (p,) = parse_zpool_list(guest("zpool-list", version, "all-classes", slug))
        assert tree(p) == CLASS_TREE, slug
        # the same rows, sections and order as the scripted read of the capture
        assert [(v.name, v.section) for v in p.vdevs] == [
            (v.name, v.section) for v in scripted.vdevs]
        assert p.vdevs[-1].health == "AVAIL" and p.health == "ONLINE"
    (vp,) = parse_zpool_list(guest("zpool-list", version, "all-classes", "vp"))
    assert vp.exact and all(v.exact for v in vp.vdevs)
    # sizes do not move while the writer runs: -vp and -H -p -v agree to the byte
    assert [v.size for v in vp.vdevs] == [v.size for v in scripted.vdevs]
    assert vp.size == scripted.size
    (v,) = parse_zpool_list(guest("zpool-list", version, "all-classes", "v"))
    assert not v.exact and v.size is not None and scripted.size is not None
    assert abs(v.size - scripted.size) <= scripted.size * 0.005  # "1.72G": rounded


@pytest.mark.parametrize("version", BOTH)
def test_human_list_p_and_plain(version: str) -> None:
    scripted = scripted_list(version, "all-classes")
    (p,) = parse_zpool_list(guest("zpool-list", version, "all-classes", "p"))
    assert p.exact and p.size == scripted.size and p.dedupratio == 1.0 and p.vdevs == ()
    (h,) = parse_zpool_list(guest("zpool-list", version, "all-classes", "plain"))
    assert not h.exact and h.capacity is not None and h.fragmentation is not None


def iostat(version: str, slug: str, **kw: Any) -> list[list[PoolIostat]]:
    return parse_zpool_iostat(guest("zpool-iostat", version, "all-classes", slug), **kw)


IOSTAT_ROWS = [(name, section) for name, section, _, _ in CLASS_TREE if section not in (
    Section.SPARES,)]  # iostat shows no spares


@pytest.mark.parametrize("version", BOTH)
def test_human_iostat_v_vl_vq_every_class(version: str) -> None:
    for slug in ("v", "vl", "vq"):
        ((p,),) = iostat(version, slug, omitted_since_boot=False)
        assert p.pool == "tank" and p.since_boot is True, slug
        assert [(r.name, r.section) for r in p.rows] == IOSTAT_ROWS, slug
        assert [r.vdev_path for r in p.rows[:3]] == [("mirror-0",), ("mirror-0", "vdb"),
                                                     ("mirror-0", "vdc")]
        assert p.rows[1].alloc is None and p.rows[0].alloc  # leaves print `-`
    ((vl,),) = iostat(version, "vl")
    assert vl.pool_row.total_wait_write is not None  # the writer loop runs
    ((vq,),) = iostat(version, "vq")
    has_rebuild_queue = version.startswith("2.3")
    assert (vq.pool_row.rebuildq_write_pend is not None) is has_rebuild_queue
    assert vq.pool_row.trimq_write_pend is not None


@pytest.mark.parametrize("version", BOTH)
def test_human_iostat_vly_three_interval_reports(version: str) -> None:
    reports = iostat(version, "vly_1_3", omitted_since_boot=True)
    assert [[(p.pool, p.report, p.since_boot) for p in r] for r in reports] == [
        [("tank", n, False)] for n in range(3)]
    assert all([r.name for r in p.rows] == [n for n, _ in IOSTAT_ROWS]
               for (p,) in reports)


@pytest.mark.parametrize("version", BOTH)
def test_human_iostat_l_and_q_pool_only(version: str) -> None:
    ((l_,),) = iostat(version, "l")
    assert l_.rows == () and l_.pool_row.alloc is not None
    ((q,),) = iostat(version, "q")
    assert q.rows == () and q.pool_row.syncq_read_pend == 0


# ------------------------------------------------------------------ raidz expansion (2.3)


def test_expand_series_zpool_and_zconsole_eta() -> None:
    readings = series("2.3.2", "raidz-expand-in-progress")
    assert len(readings) == 6
    exps = [p.expand for _, p in readings]
    assert all(e is not None and e.vdev == "raidz1-0" and e.state is ScanState.IN_PROGRESS
               for e in exps)
    pcts = [e.percent_done for e in exps if e is not None]
    assert pcts == sorted(pcts) and pcts[0] is not None and pcts[-1] is not None
    assert pcts[0] < pcts[-1] < 100
    t = ScanTracker()
    for at, pool in readings:
        t.update([pool], float(at))
    (est,) = t.estimates(readings[-1][1])
    assert (est.kind, est.vdev, est.paused, est.samples) == ("expand", "raidz1-0", False, 6)
    assert est.pace_pct_per_min is not None and est.pace_pct_per_min > 0
    assert est.eta_seconds is not None
    span = readings[-1][0] - readings[0][0]
    pace = (pcts[-1] - pcts[0]) / span  # percent per second, over the readings
    assert est.eta_seconds == round((100 - pcts[-1]) / pace)
    zpool_eta = exps[-1].eta_seconds if exps[-1] is not None else None
    assert zpool_eta is not None and zpool_eta > 0  # zpool's, from the pace since the start


def test_expand_in_progress_capture_text_and_json() -> None:
    p = status("2.3.2", "raidz-expand-in-progress")
    e = p.expand
    assert e is not None and (e.vdev, e.state, e.slow) == ("raidz1-0", ScanState.IN_PROGRESS,
                                                           False)
    assert e.percent_done is not None and 0 < e.percent_done < 100
    assert e.copied_bytes and e.total_bytes and e.rate_bytes_per_s and e.eta_seconds
    assert len(p.vdevs[0].children) == 4  # vde attached
    text = captured("2.3.2", "raidz-expand-in-progress", "zpool", "status", "-j", "--json-int")
    # the capture ran while the expansion was held: zpool's elapsed time is copied / rate
    elapsed = round(e.copied_bytes / e.rate_bytes_per_s)
    (j,) = parse_zpool_status_json(text)
    je = j.expand
    assert je is not None and je.exact and je.start_time is not None
    assert (je.vdev, je.state) == ("raidz1-0", ScanState.IN_PROGRESS)  # JSON says `raidz1`
    assert je.percent_done == pytest.approx(e.percent_done, abs=0.05)
    (j2,) = parse_zpool_status_json(text, now=je.start_time + elapsed)
    assert j2.expand is not None and j2.expand.eta_seconds == pytest.approx(e.eta_seconds,
                                                                             rel=0.05)


def test_expand_finished_text_and_json_agree() -> None:
    p = status("2.3.2", "raidz-expand-finished")
    e = p.expand
    assert e is not None and (e.vdev, e.state, e.percent_done) == ("raidz1-0",
                                                                   ScanState.FINISHED, 100.0)
    assert p.scan is not None and (p.scan.function, p.scan.state) == (ScanFunction.SCRUB,
                                                                      ScanState.FINISHED)
    (j,) = parse_zpool_status_json(
        captured("2.3.2", "raidz-expand-finished", "zpool", "status", "-j", "--json-int"))
    je = j.expand
    assert je is not None and (je.vdev, je.state) == ("raidz1-0", ScanState.FINISHED)
    assert je.duration_seconds == e.duration_seconds
    assert e.copied_bytes is not None and je.copied_bytes is not None
    assert abs(e.copied_bytes - je.copied_bytes) <= je.copied_bytes * 0.005  # "82.5M"
    (v,) = parse_zpool_list(guest("zpool-list", "2.3.2", "raidz-expand-finished", "v"))
    assert [x.name for x in v.vdevs] == ["raidz1-0", "vdb", "vdc", "vdd", "vde"]
    exact = scripted_list("2.3.2", "raidz-expand-finished").size
    assert v.size is not None and exact is not None and abs(v.size - exact) <= exact * 0.005


# ------------------------------------------------------------------ device removal


@pytest.mark.parametrize("version", BOTH)
def test_removal_finished_status_list_and_json(version: str) -> None:
    p = status(version, "removal-finished")
    r = p.removal
    assert r is not None and (r.state, r.vdev, r.vdev_index) == (ScanState.FINISHED, None, 1)
    assert r.duration_seconds == 0 and r.mapping_memory_bytes  # "0h0m", "240 memory used"
    assert [v.name for v in p.vdevs] == ["mirror-0"]  # status hides the indirect vdev
    assert not any(v.removing for _, _, v in p.walk())
    scripted = scripted_list(version, "removal-finished")
    for slug in ("v", "vp"):
        (lv,) = parse_zpool_list(guest("zpool-list", version, "removal-finished", slug))
        assert [(v.name, v.depth, v.parent) for v in lv.vdevs] == [
            ("mirror-0", 0, None), ("vdb", 1, 0), ("vdc", 1, 0), ("indirect-1", 0, None)]
        ind = lv.vdevs[3]
        assert (ind.size, ind.alloc, ind.health) == (None, None, "ONLINE")
    (vp,) = parse_zpool_list(guest("zpool-list", version, "removal-finished", "vp"))
    assert [v.name for v in scripted.vdevs] == [v.name for v in vp.vdevs]
    assert vp.size == scripted.size and vp.exact
    if version.startswith("2.3"):
        (j,) = parse_zpool_status_json(
            captured(version, "removal-finished", "zpool", "status", "-j", "--json-int"))
        jr = j.removal
        assert jr is not None and (jr.vdev, jr.vdev_index, jr.state) == (
            "indirect-1", 1, ScanState.FINISHED)
        assert jr.mapping_memory_bytes == r.mapping_memory_bytes and jr.exact
        assert r.copied_bytes is not None and jr.copied_bytes is not None
        assert abs(r.copied_bytes - jr.copied_bytes) <= jr.copied_bytes * 0.005


# ------------------------------------------------------------------ dRAID sequential rebuilds


@pytest.mark.parametrize("version", BOTH)
def test_draid_rebuild_every_scan_line_and_spares_in_use(version: str) -> None:
    """One scan line per dRAID vdev's rebuild. In the 2.1.11 capture the rebuild of -0 had
    finished; in the 2.3.2 one it was held at 99.47 % (191M / 192M issued) beside -1's."""
    p = status(version, "draid-rebuild")
    first, running = p.scans
    assert p.scan is first
    first_state = ScanState.FINISHED if version == "2.1.11" else ScanState.IN_PROGRESS
    assert (first.rebuild_vdev, first.state) == ("draid1:1d:3c:1s-0", first_state)
    if first_state is ScanState.IN_PROGRESS:
        assert first.percent_done == 99.47 and first.eta_seconds is None
    assert (running.rebuild_vdev, running.state) == ("draid1:1d:3c:1s-1",
                                                     ScanState.IN_PROGRESS)
    assert first.is_rebuild and running.function is ScanFunction.RESILVER
    assert running.percent_done is not None and 0 < running.percent_done < 100
    assert running.processed_bytes and running.eta_seconds is None  # "no estimated ..."
    # the spares: in the tree inside spare-1 of each dRAID vdev, and listed as in use
    for top, spare in zip(p.vdevs, ("draid1-0-0", "draid1-1-0"), strict=True):
        assert top.type == "draid" and top.parity == 1
        (sp,) = (c for c in top.children if c.type == "spare")
        assert [(c.name, c.type) for c in sp.children] == [
            (sp.children[0].name, "disk"), (spare, "dspare")]
        assert sp.children[0].state == "OFFLINE" and sp.children[1].is_distributed_spare
    assert [(v.name, v.type, v.state, v.note) for v in p.spares] == [
        ("draid1-0-0", "dspare", "INUSE", "currently in use"),
        ("draid1-1-0", "dspare", "INUSE", "currently in use")]


def test_draid_rebuild_json_232_untyped_draid_vdevs() -> None:
    """2.3.2 prints dRAID vdevs without vdev_type and state (openzfs/zfs#18431) and a
    scan_stats holding only rebuild_stats: the real tree, rebuild lines as in the text."""
    text = status("2.3.2", "draid-rebuild")
    (j,) = parse_zpool_status_json(
        captured("2.3.2", "draid-rebuild", "zpool", "status", "-j", "--json-int"))
    assert j.root is not None and j.root.type == "root"
    assert [(v.name, v.type, v.parity) for v in j.vdevs] == [
        (v.name, v.type, v.parity) for v in text.vdevs]
    assert [v.state for v in j.vdevs] == ["UNKNOWN", "UNKNOWN"]  # not printed by 2.3.2
    assert all(v.raw_state is None for v in j.vdevs)
    for jt, tt in zip(j.vdevs, text.vdevs, strict=True):  # below them states are printed
        assert [(c.name, c.type, c.state) for c in jt.children] == [
            (c.name, c.type, c.state) for c in tt.children]
    assert [(v.name, v.type, v.state) for v in j.spares] == [
        ("draid1-0-0", "dspare", "INUSE"), ("draid1-1-0", "dspare", "INUSE")]
    assert [(s.rebuild_vdev, s.state) for s in j.scans] == [
        (s.rebuild_vdev, s.state) for s in text.scans]
    assert j.scans[1].percent_done == pytest.approx(text.scans[1].percent_done, abs=0.005)
    assert j.scans[1].exact and not text.scans[1].exact


@pytest.mark.parametrize("version", BOTH)
def test_draid_rebuild_series_zconsole_eta(version: str) -> None:
    """-1's rebuild progresses over the series and zconsole gives it an ETA where zpool gives
    none. -0's: finished in the 2.1.11 capture (no estimate); in the 2.3.2 one it stands at
    99.47 % through all four readings, which zconsole says is stalled (no ETA)."""
    readings = series(version, "draid-rebuild")
    assert len(readings) == 4
    pcts = [p.scans[1].percent_done for _, p in readings]
    assert all(pct is not None for pct in pcts) and pcts == sorted(pcts)
    assert pcts[0] is not None and pcts[-1] is not None and pcts[0] < pcts[-1]
    t = ScanTracker()
    for at, pool in readings:
        t.update([pool], float(at))
    last = readings[-1][1]
    by_vdev = {e.vdev: e for e in t.estimates(last)}
    est = by_vdev.pop("draid1:1d:3c:1s-1")
    assert (est.kind, est.function) == ("rebuild", "resilver")
    assert est.eta_seconds is not None and est.eta_seconds > 0
    assert last.scans[1].eta_seconds is None  # zpool gives none below 10 MiB/s
    if version == "2.1.11":
        assert t.estimate(last) is None and by_vdev == {}  # Pool.scan: -0's, finished
    else:
        assert {p.scans[0].percent_done for _, p in readings} == {99.47}
        held = by_vdev.pop("draid1:1d:3c:1s-0")
        assert held.stalled and held.eta_seconds is None and held.samples == 4
        assert t.estimate(last) == held and by_vdev == {}  # Pool.scan: -0's, running


@pytest.mark.parametrize("version", BOTH)
def test_draid_rebuild_iostat_vl_reports_with_spares_in_the_tree(version: str) -> None:
    reports = parse_zpool_iostat(guest("zpool-iostat", version, "draid-rebuild", "vl_1_3"),
                                 omitted_since_boot=False)
    assert [p.since_boot for (p,) in reports] == [True, False, False]
    (first,) = reports[0]
    assert [r.vdev_path[-1] for r in first.rows[:6]] == [
        "draid1:1d:3c:1s-0", "vdb", "spare-1", "vdc", "draid1-0-0", "vdd"]
    assert first.rows[4].vdev_path == ("draid1:1d:3c:1s-0", "spare-1", "draid1-0-0")
    if version.startswith("2.3"):  # the 11th latency column: the rebuild's own waits
        assert first.pool_row.rebuild_wait is not None and first.pool_row.rebuild_wait > 0
    else:
        assert all(r.rebuild_wait is None for (p,) in reports for r in (p.pool_row, *p.rows))


@pytest.mark.parametrize("version", BOTH)
def test_removal_in_progress_capture(version: str) -> None:
    p = status(version, "removal-in-progress")
    r = p.removal
    assert r is not None and (r.state, r.vdev, r.vdev_index) == (ScanState.IN_PROGRESS,
                                                                 "mirror", None)
    assert r.total_bytes == 512 * 2**20 and r.copied_bytes and r.rate_bytes_per_s
    assert r.percent_done is not None and 0 < r.percent_done < 100
    # both captures say "0h0m to go" (the last 80-124M at 26-33M/s): read as 0 s, not as none
    assert r.eta_seconds == 0 and not r.slow
    assert r.mapping_memory_bytes  # the first removal's mappings (indirect-1)
    assert [v.name for v in p.vdevs] == ["mirror-0", "mirror-2"]
    removing = [v.name for _, _, v in p.walk() if v.removing]
    # 2.3 marks the row being evacuated, and its leaves `(non-allocating)`; 2.1.11 neither
    if version.startswith("2.3"):
        assert removing == ["mirror-0"]
        assert [c.note for c in p.vdevs[0].children] == ["(non-allocating)"] * 2
    else:
        assert removing == []
    (lv,) = parse_zpool_list(guest("zpool-list", version, "removal-in-progress", "v"))
    assert [(v.name, v.depth) for v in lv.vdevs] == [
        ("mirror-0", 0), ("vdb", 1), ("vdc", 1), ("indirect-1", 0), ("mirror-2", 0),
        ("vdf", 1), ("vdg", 1)]
    (rep, *_) = parse_zpool_iostat(guest("zpool-iostat", version, "removal-in-progress",
                                         "vl_1_3"))
    assert [r.vdev_path for r in rep[0].rows] == [
        ("mirror-0",), ("mirror-0", "vdb"), ("mirror-0", "vdc"), ("indirect-1",),
        ("mirror-2",), ("mirror-2", "vdf"), ("mirror-2", "vdg")]


def test_removal_in_progress_json_232() -> None:
    text = status("2.3.2", "removal-in-progress").removal
    (j,) = parse_zpool_status_json(
        captured("2.3.2", "removal-in-progress", "zpool", "status", "-j", "--json-int"))
    r = j.removal
    assert text is not None and r is not None
    assert (r.vdev, r.vdev_index, r.state) == ("mirror-0", 0, ScanState.IN_PROGRESS)
    assert r.exact and r.total_bytes is not None and r.start_time is not None
    assert r.percent_done == pytest.approx(text.percent_done, abs=0.01)
    assert r.mapping_memory_bytes == text.mapping_memory_bytes
    assert [v.name for v in j.vdevs if v.removing] == ["mirror-0"]


@pytest.mark.parametrize("version", BOTH)
def test_removal_series_steps_then_finished(version: str) -> None:
    """A removal reports its copies in steps: between them the figure stands still (at 21 %
    for half a minute in both captures) while zpool's own ETA (from the rate since the start)
    goes up to 0h2m. zconsole's pace says what it sees - no progress, then the step's pace
    and an ETA - and forgets the removal once zpool reports it finished."""
    readings = series(version, "removal-in-progress")
    assert len(readings) == 12
    running = [(at, p) for at, p in readings if p.removal and p.removal.state is
               ScanState.IN_PROGRESS]
    finished = [p for _, p in readings if p.removal and p.removal.state is ScanState.FINISHED]
    assert running and finished and len(running) + len(finished) == 12
    assert all(p.removal is not None and p.removal.eta_seconds is not None
               for _, p in running)  # zpool's ETA: 0h0m .. 0h2m
    pcts = [p.removal.percent_done for _, p in running if p.removal]
    assert pcts == sorted(pcts) and len(set(pcts)) == 2  # one step inside the series
    still = [(at, p) for at, p in running if p.removal and p.removal.percent_done == pcts[0]]
    assert len(still) >= 6 and float(still[-1][0]) - float(still[0][0]) >= 25
    t = ScanTracker()
    for at, pool in still:
        t.update([pool], float(at))
    (est,) = t.estimates(still[-1][1])
    assert (est.kind, est.vdev, est.samples) == ("remove", "mirror", len(still))
    assert est.stalled and est.eta_seconds is None
    last_still = still[-1][1].removal
    assert last_still is not None and last_still.eta_seconds == 120  # zpool: "0h2m to go"
    for at, pool in running[len(still):]:
        t.update([pool], float(at))
    (est,) = t.estimates(running[-1][1])
    assert (est.samples, est.percent_done) == (len(running), pcts[-1])
    assert not est.stalled and est.pace_pct_per_min is not None and est.pace_pct_per_min > 0
    assert est.eta_seconds is not None and est.eta_seconds > 0
    t.update([finished[0]], float(readings[-1][0]))
    assert t.estimates(finished[0]) == []
