"""zconsole's own scrub/resilver ETA, from the progress it saw over its own samples.

zpool's ETA comes from the rate since the scan started (and is not printed below 10 MiB/s);
an operator wants "at the pace of the last minutes, when is it done". The tracker keeps the
percent done per pool scan over time and fits the recent pace.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from zconsole.model.pool import Pool, ScanInfo, ScanState

WINDOW = 12  # samples kept per scan (a minute at the default 5 s refresh)
MIN_SPAN_S = 2.0  # below this the pace is noise


@dataclass(frozen=True)
class ScanEstimate:
    pool: str
    function: str
    percent_done: float
    pace_pct_per_min: float | None  # None until two samples span MIN_SPAN_S
    eta_seconds: int | None  # None when no pace yet or not progressing
    samples: int
    span_s: float

    @property
    def stalled(self) -> bool:
        return self.pace_pct_per_min is not None and self.pace_pct_per_min <= 0


def _scan_key(scan: ScanInfo) -> tuple[str, int | None, str]:
    fn = scan.function.value if scan.function else "?"
    return (fn, scan.start_time, scan.rebuild_vdev or "")


class ScanTracker:
    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self._points: dict[str, deque[tuple[float, float]]] = {}
        self._keys: dict[str, tuple[str, int | None, str]] = {}

    def update(self, pools: Sequence[Pool], at: float) -> None:
        """Record the percent done of every running scan at host time `at`."""
        seen: set[str] = set()
        for pool in pools:
            scan = pool.scan
            if (scan is None or scan.state is not ScanState.IN_PROGRESS
                    or scan.percent_done is None):
                continue
            seen.add(pool.name)
            key = _scan_key(scan)
            points = self._points.get(pool.name)
            if points is None or self._keys.get(pool.name) != key or (
                    points and scan.percent_done < points[-1][1] - 0.01):
                points = deque(maxlen=self.window)  # a new scan (or a restarted one)
                self._points[pool.name] = points
                self._keys[pool.name] = key
            if points and at <= points[-1][0]:
                continue  # same moment (frozen clock, or two reads in one second)
            points.append((at, scan.percent_done))
        for gone in set(self._points) - seen:
            del self._points[gone]
            self._keys.pop(gone, None)

    def estimate(self, pool: Pool) -> ScanEstimate | None:
        scan = pool.scan
        points = self._points.get(pool.name)
        if scan is None or scan.percent_done is None or not points:
            return None
        t0, p0 = points[0]
        t1, p1 = points[-1]
        span = t1 - t0
        fn = scan.function.value if scan.function else "scan"
        if span < MIN_SPAN_S:
            return ScanEstimate(pool.name, fn, p1, None, None, len(points), span)
        pace = (p1 - p0) / span  # percent per second
        eta = int(round((100.0 - p1) / pace)) if pace > 0 else None
        return ScanEstimate(pool.name, fn, p1, pace * 60.0, eta, len(points), span)
