"""zconsole's own ETA for every long pool operation, from the progress it saw over its own
samples: scrub, resilver, sequential rebuild (one per top-level vdev, e.g. each dRAID),
raidz expansion (`expand:`) and device removal (`remove:`).

zpool's ETA comes from the rate since the operation started (and is not printed below 10 MiB/s
for scans, nor beyond 30 days for expansion and removal, where it says `copy is slow`); an
operator wants "at the pace of the last minutes, when is it done". The tracker keeps the
percent done of each running operation over time and fits the recent pace. A paused operation
(a paused scrub, an expansion waiting for a resilver) keeps its identity but gets no ETA; its
pace is measured afresh once it runs again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

from zconsole.model.pool import ExpandInfo, Pool, RemovalInfo, ScanInfo, ScanState

WINDOW = 12  # samples kept per operation (a minute at the default 5 s refresh)
MIN_SPAN_S = 2.0  # below this the pace is noise

KINDS = ("scrub", "resilver", "rebuild", "expand", "remove")


class ScanEstimate(NamedTuple):
    """zconsole's estimate for one running operation of one pool.

    `function`: the scan function for scans (`scrub`, `resilver`, `errorscrub`; a sequential
    rebuild is a `resilver`), else `expand` / `remove`. `kind` tells a rebuild apart
    (`rebuild`) and `vdev` names its top-level vdev, the expanding raidz or the vdev being
    removed. `paused`: zpool says it is paused (no pace, no ETA while it is).
    """

    pool: str
    function: str
    percent_done: float
    pace_pct_per_min: float | None  # None until two samples span MIN_SPAN_S
    eta_seconds: int | None  # None when no pace yet, not progressing, paused or past 100 %
    samples: int
    span_s: float
    kind: str = ""
    vdev: str | None = None
    paused: bool = False

    @property
    def stalled(self) -> bool:
        return not self.paused and self.pace_pct_per_min is not None \
            and self.pace_pct_per_min <= 0


Key = tuple[str, str, str, int | None]  # (pool, kind, vdev, start time)
Op = ScanInfo | ExpandInfo | RemovalInfo


def _scan_kind(scan: ScanInfo) -> str:
    if scan.rebuild_vdev is not None:
        return "rebuild"
    return scan.function.value if scan.function is not None else "scan"


def operations(pool: Pool) -> list[tuple[Key, str, Op]]:
    """Every running or paused operation of a pool with its key and kind, in the order
    zpool prints them (scan lines, then expand, then remove)."""
    out: list[tuple[Key, str, Op]] = []
    for scan in pool.scans or ((pool.scan,) if pool.scan is not None else ()):
        if scan.state in (ScanState.IN_PROGRESS, ScanState.PAUSED):
            kind = _scan_kind(scan)
            out.append(((pool.name, kind, scan.rebuild_vdev or "", scan.start_time), kind,
                        scan))
    if pool.expand is not None and pool.expand.state in (ScanState.IN_PROGRESS,
                                                         ScanState.PAUSED):
        out.append(((pool.name, "expand", pool.expand.vdev or "", pool.expand.start_time),
                    "expand", pool.expand))
    if pool.removal is not None and pool.removal.state is ScanState.IN_PROGRESS:
        out.append(((pool.name, "remove", pool.removal.vdev or "", pool.removal.start_time),
                    "remove", pool.removal))
    return out


class ScanTracker:
    """Pace and ETA of every running operation, fed with each fresh `zpool status` reading.

    (The name stays from when it tracked scrubs and resilvers only.)"""

    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self._points: dict[Key, deque[tuple[float, float]]] = {}
        self._paused: dict[Key, bool] = {}

    def update(self, pools: Sequence[Pool], at: float) -> None:
        """Record the percent done of every running operation at host time `at`; forget the
        operations no longer running."""
        seen: set[Key] = set()
        for pool in pools:
            for key, _kind, op in operations(pool):
                if op.percent_done is None:
                    continue
                seen.add(key)
                points = self._points.get(key)
                paused = op.state is ScanState.PAUSED
                resumed = self._paused.get(key, False) and not paused
                if points is None or resumed or (
                        points and op.percent_done < points[-1][1] - 0.01):
                    points = deque(maxlen=self.window)  # new, restarted, or running again
                    self._points[key] = points
                self._paused[key] = paused
                if paused:
                    points.clear()
                    points.append((at, op.percent_done))
                    continue
                if points and at <= points[-1][0]:
                    continue  # same moment (frozen clock, or two reads in one second)
                points.append((at, op.percent_done))
        for gone in set(self._points) - seen:
            del self._points[gone]
            self._paused.pop(gone, None)

    def _estimate(self, key: Key, kind: str, op: Op) -> ScanEstimate | None:
        points = self._points.get(key)
        if op.percent_done is None or not points:
            return None
        function = op.function.value if isinstance(op, ScanInfo) and op.function else kind
        vdev = key[2] or None
        paused = op.state is ScanState.PAUSED
        t0, p0 = points[0]
        t1, p1 = points[-1]
        span = t1 - t0
        if paused or span < MIN_SPAN_S:
            return ScanEstimate(key[0], function, p1, None, None, len(points), span, kind,
                                vdev, paused)
        pace = (p1 - p0) / span  # percent per second
        eta = int(round((100.0 - p1) / pace)) if pace > 0 and p1 < 100.0 else None
        return ScanEstimate(key[0], function, p1, pace * 60.0, eta, len(points), span, kind,
                            vdev, False)

    def estimate(self, pool: Pool) -> ScanEstimate | None:
        """The estimate for the pool's first scan line (`Pool.scan`) while it runs."""
        scan = pool.scan
        if scan is None:
            return None
        for key, kind, op in operations(pool):
            if op is scan:
                return self._estimate(key, kind, op)
        return None

    def estimates(self, pool: Pool) -> list[ScanEstimate]:
        """One estimate per running or paused operation of the pool (scans, every rebuild,
        the expansion, the removal), in zpool's order."""
        out = []
        for key, kind, op in operations(pool):
            est = self._estimate(key, kind, op)
            if est is not None:
                out.append(est)
        return out
