"""The ZFS watch: a resilver (or scrub, or any `zpool wait -t` activity) followed through
`zpool status`, registered with the engine for those activities (`engine/watch.py`).

A look reads the pool's status tree (once per evaluator round, shared with the predicates),
says whether a scrub or resilver still runs in the pool, with zpool's figures and ETA, and,
for the runner, zconsole's own ETA from the pace over its recent looks
(`services.read.progress.ScanTracker`). On the demo host, `hurry` runs `zpool wait`, which the
simulation answers by finishing the activity.
"""

from __future__ import annotations

from collections.abc import Callable

from zconsole.hosts.base import HostError
from zconsole.model.plan import Wait
from zconsole.model.pool import Pool, ScanInfo, ScanState
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed
from zconsole.services.ops.engine.watch import Look, watch_activity
from zconsole.services.ops.zfs.predicates import describe_scan, pool, running_scans
from zconsole.services.read.progress import ScanTracker

# `zpool wait -t` activities; the first three are scans `hurry` can fast-forward.
SCAN_ACTIVITIES = ("resilver", "replace", "scrub")
ACTIVITIES = (*SCAN_ACTIVITIES, "remove", "initialize", "trim", "discard", "free",
              "raidz_expand")


def _summary(scan: ScanInfo) -> str:
    fn = scan.function.value if scan.function else "scan"
    pct = f" ({scan.percent_done:.0f} %)" if scan.percent_done is not None else ""
    return f"{fn} in progress{pct}"


@watch_activity(*ACTIVITIES)
class PoolScanWatch:
    """Follows the scans of `wait.pool` until none runs."""

    def __init__(self, ev: Evaluator, wait: Wait,
                 clock: Callable[[], float] | None = None) -> None:
        self.ev = ev
        self.wait = wait
        self.clock = clock
        self.tracker = ScanTracker()
        self.paces: list[tuple[float, int]] = []  # (when, bytes copied) of an expansion

    def look(self) -> Look:
        found = pool(self.ev, self.wait.pool)
        if found is None:
            raise ReadFailed(f"pool {self.wait.pool} is not imported")
        if self.wait.activity == "raidz_expand":
            return self._expansion(found)
        scans = running_scans(found)
        scan = scans[0] if scans else None
        own_eta: int | None = None
        if self.clock is not None:
            try:
                at = self.ev.host.now()
            except HostError:
                at = self.clock()
            self.tracker.update([found], at)
            est = self.tracker.estimate(found) if scan is not None else None
            own_eta = est.eta_seconds if est is not None else None
        if scan is None:
            return Look(False, f"no scrub or resilver running in {found.name}")
        return Look(True, "; ".join(describe_scan(s) for s in scans), _summary(scan),
                    function=scan.function.value if scan.function else None,
                    percent=scan.percent_done, done_bytes=scan.issued_bytes,
                    total_bytes=scan.total_bytes, tool_eta_s=scan.eta_seconds,
                    own_eta_s=own_eta)

    def _expansion(self, found: Pool) -> Look:
        """A raidz expansion (`expand:`, OpenZFS 2.3), with zpool's figures and zconsole's own
        ETA from the pace of the bytes copied between its looks."""
        exp = found.expand
        if exp is None or exp.state not in (ScanState.IN_PROGRESS, ScanState.PAUSED):
            return Look(False, f"no raidz expansion running in {found.name}")
        pct = f" ({exp.percent_done:.0f} %)" if exp.percent_done is not None else ""
        paused = " paused (a scrub or resilver runs)" if exp.state is ScanState.PAUSED \
            else " in progress"
        text = f"expansion of {exp.vdev or 'raidz'}{paused}{pct}"
        own_eta: int | None = None
        if self.clock is not None and exp.copied_bytes is not None and exp.total_bytes:
            try:
                at = self.ev.host.now()
            except HostError:
                at = self.clock()
            self.paces.append((at, exp.copied_bytes))
            self.paces = self.paces[-10:]
            (t0, b0), (t1, b1) = self.paces[0], self.paces[-1]
            if t1 > t0 and b1 > b0:
                own_eta = int(max(0, exp.total_bytes - b1) / ((b1 - b0) / (t1 - t0)))
        return Look(True, text, text, function="expand", percent=exp.percent_done,
                    done_bytes=exp.copied_bytes, total_bytes=exp.total_bytes,
                    tool_eta_s=exp.eta_seconds, own_eta_s=own_eta)

    def hurry(self, timeout: float) -> bool:
        if self.wait.activity not in SCAN_ACTIVITIES:
            return False
        try:
            self.ev.host.run(["zpool", "wait", "-t", self.wait.activity, self.wait.pool],
                             timeout=timeout, check=False)
        except HostError:
            pass
        return True
