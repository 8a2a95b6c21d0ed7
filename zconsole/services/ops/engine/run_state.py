"""A plan run's state and bookkeeping, apart from its procedure (`runner.py`): the host, the
plan, the journal and the settings; the step outcomes, saved after every change; the audit
records; a failure turned into the result that stops the run."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable

from zconsole.hosts.base import Host, HostError
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import Plan, StepOutcome, StepStatus
from zconsole.services.ops.engine.audit import RunAudit
from zconsole.services.ops.engine.events import RunEvent, RunFailed, RunResult
from zconsole.services.ops.engine.plan_io import outcome_to_dict, plan_to_dict
from zconsole.services.ops.engine.predicates import Evaluator

COMMAND_TIMEOUT = 600.0  # zpool attach/replace/detach/set return in seconds
POSTCHECK_ATTEMPTS = 5
POSTCHECK_DELAY = 1.0
SETTLE_TIMEOUT = 60.0  # scan over, `until` not holding yet: how long to keep looking


class StopRun(Exception):
    """Ends a run early with its result (a failure, the operator's turn, a cancel)."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(result.message)
        self.result = result


class RunState:
    """One run of `plan` on `host`: settings, outcomes, records (`PlanRunner` runs it)."""

    def __init__(
        self,
        host: Host,
        plan: Plan,
        *,
        audit: AuditLog,
        store: PlanStore,
        operator: str,
        poll_interval: float = 2.0,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
        fast_forward: bool | None = None,
        command_timeout: float = COMMAND_TIMEOUT,
        postcheck_attempts: int = POSTCHECK_ATTEMPTS,
        postcheck_delay: float = POSTCHECK_DELAY,
        settle_timeout: float = SETTLE_TIMEOUT,
    ) -> None:
        """`clock`: wall-clock seconds for records (default time.time). `sleep`: how to pass
        time between polls (default: wait on the cancel event); tests pass a simulated one.
        `fast_forward`: on the demo host (the default there) a wait asks the simulation to
        jump to the end (`zpool wait`) after its first reading, instead of living through a
        simulated resilver in real time."""
        self.host = host
        self.plan = plan
        self.audit = audit
        self.store = store
        self.operator = operator
        self.poll_interval = poll_interval
        self._clock = clock or time.time
        self._sleep = sleep
        self.fast_forward = bool(getattr(host, "simulated", False)) if fast_forward is None \
            else fast_forward
        self.command_timeout = command_timeout
        self.postcheck_attempts = max(1, postcheck_attempts)
        self.postcheck_delay = postcheck_delay
        self.settle_timeout = settle_timeout
        self.evaluator = Evaluator(host)
        self.outcomes: list[StepOutcome] = [StepOutcome(s.id, StepStatus.PENDING)
                                            for s in plan.steps]
        self._cancel = threading.Event()
        self._emit: Callable[[RunEvent], None] = lambda _e: None
        try:
            self.host_label = str(host.label)
        except HostError:
            self.host_label = "host"
        self._audit = RunAudit(audit, plan, host=self.host_label, operator=operator,
                               clock=self._now)

    # --- plumbing ------------------------------------------------------------------------

    def _now(self) -> float:
        return float(self._clock())

    def _pause(self, seconds: float) -> bool:
        """Let time pass; True when the run was cancelled meanwhile."""
        if self._cancel.is_set():
            return True
        if self._sleep is None:
            return self._cancel.wait(seconds)
        self._sleep(seconds)
        return self._cancel.is_set()

    def _record(self, event: str, **fields: object) -> None:
        self._audit.record(event, **fields)

    def _save(self) -> None:
        self.store.save(plan_to_dict(self.plan), [outcome_to_dict(o) for o in self.outcomes])

    def _set(self, i: int, **changes: object) -> StepOutcome:
        o = dataclasses.replace(self.outcomes[i], **changes)  # type: ignore[arg-type]
        self.outcomes[i] = o
        return o

    def _result(self, status: str, next_index: int, message: str) -> RunResult:
        return RunResult(status, tuple(self.outcomes), next_index, message)

    def _fail(self, i: int, message: str, *, stderr: str = "", returncode: int | None = None,
              explanation: str | None = None) -> StopRun:
        step = self.plan.steps[i]
        self._set(i, status=StepStatus.FAILED, ended_at=self._now(), message=message,
                  stderr=stderr, returncode=returncode)
        self._save()
        self._emit(RunFailed(step.id, message, stderr, explanation))
        try:
            self._record("step-failed", step_id=step.id, message=message, stderr=stderr,
                         explanation=explanation)
        except OSError:
            pass  # the log is what failed; the result below says why the run stopped
        return StopRun(self._result("failed", i, message))
