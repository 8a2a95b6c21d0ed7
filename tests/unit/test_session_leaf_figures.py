"""Per-leaf figures and zconsole's own scan ETA through HostSession, on the demo host with a clock
that moves as a real one would between refreshes."""

from __future__ import annotations

from zconsole.hosts.demo import DemoHost
from zconsole.services.session import HostSession


class StepClock:
    def __init__(self, start: float = 1795302010.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


def test_leaf_metrics_and_scan_estimate_over_refreshes() -> None:
    clock = StepClock()
    live = HostSession(DemoHost("showcase", clock=clock, seed=0))
    results = []
    for _ in range(6):
        results.append(live.refresh())
        clock.t += 5.0
    last = results[-1]
    tank = {k[1]: m for k, m in last.leaves.items() if k[0] == "tank"}
    slow = next(f for f in last.findings if f.kind == "slow-disk")
    slow_path = next(p for p in tank if p[-1] == slow.subject)
    peers = [m for p, m in tank.items() if p[:-1] == slow_path[:-1] and p != slow_path]
    me = tank[slow_path]
    assert me.busy_pct is not None and 0 <= me.busy_pct <= 100
    assert me.w_await_ms is not None and peers[0].w_await_ms is not None
    assert me.w_await_ms > 5 * peers[0].w_await_ms  # the kernel sees it too
    assert me.disk is not None and me.serial and me.serial in slow.subject
    assert len(me.trend) == 6 and min(me.trend) > 3 * max(peers[0].trend)

    (est,) = last.scan_estimates["fast"]
    assert est.samples == 6 and est.span_s == 25.0
    assert est.pace_pct_per_min is not None and est.pace_pct_per_min > 0
    assert est.eta_seconds is not None
    first_pct = results[0].reading.pool("fast").status.scan.percent_done  # type: ignore[union-attr]
    assert est.percent_done > first_pct


def test_frozen_clock_gives_no_kernel_figures_and_no_pace() -> None:
    live = HostSession(DemoHost("showcase", clock=lambda: 1795302010.0, seed=0))
    live.refresh()
    r = live.refresh()
    assert all(m.busy_pct is None for m in r.leaves.values())
    assert r.scan_estimates["fast"][0].eta_seconds is None
