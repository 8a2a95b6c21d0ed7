"""The Pools screen's progress sentences from real `zpool status` series captured on the guests
(tests/fixtures/parsers/zpool-status/guest-zfs-*-series.txt): every running operation gets its
own sentence with zconsole's ETA (from the pace of the readings) beside zpool's."""

from __future__ import annotations

import re

import pytest

from tests.unit.test_parsers_guest_captures import series
from zconsole.model.pool import ScanState
from zconsole.services.read.progress import ScanTracker
from zconsole.ui.screens.pools.pool_block import progress_sentences


def _fed(version: str, state: str):  # type: ignore[no-untyped-def]
    readings = series(version, state)
    t = ScanTracker()
    for at, pool in readings:
        t.update([pool], float(at))
    last = readings[-1][1]
    return last, t.estimates(last)


def test_expansion_sentence_with_both_etas() -> None:
    pool, est = _fed("2.3.2", "raidz-expand-in-progress")
    assert pool.expand is not None and est and est[0].eta_seconds is not None
    (line,) = [s for s in progress_sentences(pool, est) if s.startswith("expansion")]
    assert line.startswith(f"expansion of raidz1-0 in progress, {pool.expand.percent_done:.1f}"
                           "% done (")
    assert "copied); at the pace of the last" in line and "done in about" in line
    assert "(zpool says" in line
    # before a second reading zconsole has no pace of its own, and says when it will
    (first,) = [s for s in progress_sentences(pool) if s.startswith("expansion")]
    assert "zconsole's own estimate after the next refresh" in first


@pytest.mark.parametrize("version", ["2.1.11", "2.3.2"])
def test_rebuild_sentence(version: str) -> None:
    readings = series(version, "draid-rebuild")
    t = ScanTracker()
    running = [(at, p) for at, p in readings
               if any(s.rebuild_vdev and s.state is ScanState.IN_PROGRESS
                      for s in (p.scans or ((p.scan,) if p.scan else ())))]
    assert running
    for at, pool in running:
        t.update([pool], float(at))
    pool = running[-1][1]
    lines = progress_sentences(pool, t.estimates(pool))
    assert any(re.match(r"rebuild of draid\S* in progress, [0-9.]+% done; ", s) for s in lines), \
        lines


@pytest.mark.parametrize("version", ["2.1.11", "2.3.2"])
def test_removal_sentences_running_then_finished(version: str) -> None:
    readings = series(version, "removal-in-progress")
    t = ScanTracker()
    running = [(at, p) for at, p in readings
               if p.removal and p.removal.state is ScanState.IN_PROGRESS]
    for at, pool in running:
        t.update([pool], float(at))
    pool = running[-1][1]
    assert pool.removal is not None
    (line,) = [s for s in progress_sentences(pool, t.estimates(pool))
               if s.startswith("removal")]
    assert line.startswith(f"removal of {pool.removal.vdev} in progress, "
                           f"{pool.removal.percent_done:.1f}% done")
    assert "no progress in the last" in line or "done in about" in line
    done = readings[-1][1]
    (fin,) = [s for s in progress_sentences(done) if s.startswith("removal")]
    assert fin.startswith("removal of ") and "finished" in fin
