"""zconsole's own scan ETA from its samples."""

from __future__ import annotations

import pytest

from zconsole.model.pool import Pool, ScanFunction, ScanInfo, ScanState
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
