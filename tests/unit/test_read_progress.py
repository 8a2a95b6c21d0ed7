"""zconsole's own scan ETA from its samples."""

from __future__ import annotations

import pytest

from zconsole.model.pool import ExpandInfo, Pool, RemovalInfo, ScanFunction, ScanInfo, ScanState
from zconsole.services.read.progress import ScanTracker


def pool(pct: float | None, start: int = 100, state: ScanState = ScanState.IN_PROGRESS,
         name: str = "tank") -> Pool:
    return Pool(name, "ONLINE", scan=ScanInfo(ScanFunction.RESILVER, state, percent_done=pct,
                                               start_time=start))


def test_eta_from_recent_pace() -> None:
    t = ScanTracker()
    t.update([pool(10.0)], 1000.0)
    t.update([pool(12.0)], 1010.0)
    t.update([pool(14.0)], 1020.0)
    e = t.estimate(pool(14.0))
    assert e is not None
    assert e.pace_pct_per_min == pytest.approx(12.0)  # 4 % in 20 s
    assert e.eta_seconds == 430  # 86 % at 0.2 %/s
    assert e.samples == 3 and e.span_s == 20.0


def test_no_estimate_until_time_has_passed() -> None:
    t = ScanTracker()
    t.update([pool(10.0)], 1000.0)
    t.update([pool(10.0)], 1000.0)  # frozen clock: same moment is not a second sample
    e = t.estimate(pool(10.0))
    assert e is not None and e.pace_pct_per_min is None and e.eta_seconds is None
    assert e.samples == 1


def test_stalled_scan_has_no_eta() -> None:
    t = ScanTracker()
    t.update([pool(50.0)], 1000.0)
    t.update([pool(50.0)], 1030.0)
    e = t.estimate(pool(50.0))
    assert e is not None and e.stalled and e.eta_seconds is None


def test_new_scan_restarts_the_history() -> None:
    t = ScanTracker()
    t.update([pool(90.0, start=100)], 1000.0)
    t.update([pool(95.0, start=100)], 1010.0)
    t.update([pool(1.0, start=2000)], 1020.0)  # a new resilver started
    e = t.estimate(pool(1.0, start=2000))
    assert e is not None and e.samples == 1


def test_finished_scan_is_forgotten() -> None:
    t = ScanTracker()
    t.update([pool(90.0)], 1000.0)
    t.update([pool(None, state=ScanState.FINISHED)], 1010.0)
    assert t.estimate(pool(90.0)) is None


# ------------------------------------------------------------------ every long operation


def expanding(pct: float, state: ScanState = ScanState.IN_PROGRESS) -> Pool:
    return Pool("tank", "ONLINE", expand=ExpandInfo("raidz1-0", state, percent_done=pct))


def test_expansion_has_its_own_pace_and_eta() -> None:
    t = ScanTracker()
    t.update([expanding(10.0)], 1000.0)
    t.update([expanding(20.0)], 1060.0)
    (e,) = t.estimates(expanding(20.0))
    assert (e.function, e.kind, e.vdev) == ("expand", "expand", "raidz1-0")
    assert e.pace_pct_per_min == pytest.approx(10.0) and e.eta_seconds == 480
    assert t.estimate(expanding(20.0)) is None  # estimate() is for Pool.scan


def test_paused_expansion_is_paused_not_stalled_and_restarts_its_pace() -> None:
    t = ScanTracker()
    t.update([expanding(10.0)], 1000.0)
    t.update([expanding(20.0)], 1060.0)
    t.update([expanding(20.0, ScanState.PAUSED)], 1120.0)
    (e,) = t.estimates(expanding(20.0, ScanState.PAUSED))
    assert e.paused and not e.stalled and e.eta_seconds is None and e.pace_pct_per_min is None
    t.update([expanding(20.0)], 1500.0)  # running again: the pause is not in the pace
    t.update([expanding(25.0)], 1530.0)
    (e,) = t.estimates(expanding(25.0))
    assert e.samples == 2 and e.pace_pct_per_min == pytest.approx(10.0)


def test_past_100_percent_gives_no_eta() -> None:
    """zpool's expansion total is an estimate: copied can pass it (120.25% done)."""
    t = ScanTracker()
    t.update([expanding(100.1)], 1000.0)
    t.update([expanding(100.3)], 1010.0)
    (e,) = t.estimates(expanding(100.3))
    assert e.eta_seconds is None and not e.stalled


def test_removal_and_every_rebuild_line_are_tracked_apart() -> None:
    def pool(scrub: float, r0: float, r1: float, rm: float) -> Pool:
        scans = (ScanInfo(ScanFunction.SCRUB, ScanState.IN_PROGRESS, percent_done=scrub),
                 ScanInfo(ScanFunction.RESILVER, ScanState.IN_PROGRESS, percent_done=r0,
                          rebuild_vdev="draid1:1d:3c:1s-0"),
                 ScanInfo(ScanFunction.RESILVER, ScanState.IN_PROGRESS, percent_done=r1,
                          rebuild_vdev="draid1:1d:3c:1s-1"))
        return Pool("tank", "DEGRADED", scan=scans[0], scans=scans,
                    removal=RemovalInfo("mirror-1", ScanState.IN_PROGRESS, percent_done=rm))

    t = ScanTracker()
    t.update([pool(10, 20, 30, 40)], 0.0)
    t.update([pool(11, 22, 33, 44)], 60.0)
    est = t.estimates(pool(11, 22, 33, 44))
    assert [(e.kind, e.vdev, e.pace_pct_per_min) for e in est] == [
        ("scrub", None, 1.0), ("rebuild", "draid1:1d:3c:1s-0", 2.0),
        ("rebuild", "draid1:1d:3c:1s-1", 3.0), ("remove", "mirror-1", 4.0)]
    assert [e.eta_seconds for e in est] == [5340, 2340, 1340, 840]
    assert est[1].function == "resilver"  # a rebuild is a resilver, told apart by kind
    first = t.estimate(pool(11, 22, 33, 44))
    assert first is not None and first.kind == "scrub"
