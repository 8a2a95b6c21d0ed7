"""A fix-it rehearsed on a demo host: its clock, one audit log and plan store, and the
runner the console would build for a plan (no post-check retries, the clock's sleep)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import Plan
from zconsole.services.ops.engine.runner import PlanRunner
from zconsole.services.ops.fixit import common

T0 = 1795302000.0


class FixitRig:
    """The demo host of `scenario` (OpenZFS 2.3) on a hand-moved clock."""

    def __init__(self, tmp_path: Path, scenario: str) -> None:
        self.clock = Clock(T0)
        self.host = DemoHost(scenario, "2.3", self.clock)
        self.store = PlanStore(tmp_path / "plans")
        self.audit = AuditLog(tmp_path / "audit.jsonl")

    def runner(self, plan: Plan) -> PlanRunner:
        return PlanRunner(self.host, plan, audit=self.audit, store=self.store,
                          operator="alice", clock=self.clock, sleep=self.clock.sleep,
                          postcheck_attempts=1, postcheck_delay=0.0)

    def run(self, plan: Plan) -> common.FixRun:
        """The fix as the Host screen runs it (rolled back when it stopped half-way)."""
        return common.run_fix(plan, self.runner, lambda _e: None)
