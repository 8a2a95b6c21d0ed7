"""Run a `Plan` step by step: pre-checks, the exact command, the audit record, post-checks,
the wait with live progress, operator actions; progress saved after every step.

No Textual and no domain here: the UI runs `PlanRunner.run` in a worker thread and turns the
events (`engine/events.py`, passed to `on_event` in order) into messages; what a predicate,
a wait or a refusal means is registered by the domain that planned it (`engine/predicates.py`,
`engine/watch.py`, `engine/refusals.py`; ZFS's in `services/ops/zfs/`).

For each step from `start_at`:
1. runtime pre-checks (`engine/predicates.py`); one fails -> the run stops with the reason;
2. the command, exactly its argv (`host.run`, or `host.run_pipeline` for `Command.then`);
   an audit record (JSON line, fsynced) holds the argv, exit code, stdout, stderr, duration,
   host, plan, step and operator; a non-zero exit stops the run with the tool's stderr
   verbatim and `engine.refusals.explain` beside it;
3. post-checks, retried briefly (ZFS may take a moment to show a change). A step with a
   command checks them right after it; a step without one (a wait step) checks them at the
   end of its wait. If a command's step also waits and the wait's end conditions already
   hold (a tiny resilver finished before the first look), a post-check about the
   intermediate state is reported as overtaken, not failed;
4. the wait: the domain's watch for the wait's activity (ZFS: `zpool status`) every
   `poll_interval` seconds, a `WaitProgress` per look (percent, bytes, the tool's ETA and
   zconsole's own); it ends when the activity is over and the wait's `until` predicates
   hold. `cancel` only stops the watching: the host carries on, and the plan stays resumable;
5. an operator action (pull a disk...) emits `NeedsOperator` and returns "awaiting-operator";
   the UI calls `run(start_at=result.next_index)` once the operator says it is done. Such a
   step's command, if any, is an optional read-only helper (the "identify" reads) run only on
   request through `run_helper`.

Outcomes are saved to the `PlanStore` when a step starts and when it ends; a finished plan is
moved to done/. A run killed in the middle leaves the saved outcomes that
`engine.resume.find_resumable` reconciles with what the host shows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from zconsole.hosts.base import HostError, Result, writes
from zconsole.model.command import Command
from zconsole.model.plan import Step, StepOutcome, StepStatus, Wait
from zconsole.services.ops.engine.events import (
    CheckResult,
    CommandFinished,
    NeedsOperator,
    RunEvent,
    RunFailed,
    RunResult,
    StepDone,
    StepStarted,
    WaitProgress,
)
from zconsole.services.ops.engine.pool_lock import (
    PoolLock,
    PoolLockHeld,
    lock_paths,
    take_pool_lock,
)
from zconsole.services.ops.engine.predicates import Outcome, ReadFailed
from zconsole.services.ops.engine.refusals import explain
from zconsole.services.ops.engine.run_state import RunState, StopRun
from zconsole.services.ops.engine.watch import Look, Watch, watch_for

PIPELINE_TIMEOUT = 7 * 24 * 3600.0  # zfs send | zfs receive of a big dataset: days
SETTLE_POLLS = 30
MAX_READ_FAILURES = 30  # consecutive failed readings during a wait before giving up

AWAITING_OPERATOR = "awaiting the operator"

__all__ = ["CheckResult", "CommandFinished", "NeedsOperator", "PlanRunner", "RunEvent",
           "RunFailed", "RunResult", "StepDone", "StepStarted", "WaitProgress"]


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _ended(watch: Watch) -> dict[str, object]:
    """What the watch found at the wait's end, for the wait-end record: `result` (a watch
    with an `ended()`, a self-test's: the disk and its log entry); {} for the others or
    when it cannot be read again."""
    ended = getattr(watch, "ended", None)
    if ended is None:
        return {}
    try:
        result = ended()
    except ReadFailed:
        return {}
    return {"result": dict(result)} if result else {}


class PlanRunner(RunState):
    """Executes one plan on one host (the settings: `RunState`). Not reusable across hosts;
    `run` may be called again (after an operator action, or to resume)."""

    # --- the run -------------------------------------------------------------------------

    def run(
        self,
        on_event: Callable[[RunEvent], None],
        *,
        cancel: threading.Event | None = None,
        start_at: int = 0,
        outcomes: Sequence[StepOutcome] | None = None,
    ) -> RunResult:
        self._emit = on_event
        self._cancel = cancel or threading.Event()
        steps = self.plan.steps
        if not 0 <= start_at <= len(steps):
            raise ValueError(f"start_at {start_at} outside 0..{len(steps)}")
        if outcomes is not None:
            by_id = {o.step_id: o for o in outcomes}
            self.outcomes = [by_id.get(s.id, StepOutcome(s.id, StepStatus.PENDING))
                             for s in steps]
        if self.plan.blocked:
            reasons = "; ".join(c.detail for c in self.plan.checks if c.blocking)
            msg = f"the plan cannot run: {reasons}"
            self._emit(RunFailed("", msg))
            return self._result("failed", start_at, msg)
        try:
            self._audit.plan_start(start_at)
        except OSError as e:
            msg = f"nothing was run: the audit log {self.audit.path} cannot be written ({e})"
            self._emit(RunFailed("", msg))
            return self._result("failed", start_at, msg)
        try:
            self._settle_before(start_at)
            for i in range(start_at, len(steps)):
                self._run_step(i)
        except StopRun as stop:
            return stop.result
        except OSError as e:  # the journal itself failed after something ran
            msg = f"stopped: zconsole's journal cannot be written ({e}); look at zpool status"
            self._emit(RunFailed("", msg))
            return self._result("failed", start_at, msg)
        self._record("plan-end", status="done")
        self._save()
        self.store.finish(self.plan.id)
        return self._result("done", len(steps), f"{self.plan.title}: every step done")

    def _settle_before(self, start_at: int) -> None:
        """Steps before start_at: an operator step awaiting confirmation is now confirmed;
        steps never run by anyone are marked skipped."""
        for i in range(start_at):
            o, step = self.outcomes[i], self.plan.steps[i]
            if o.status is StepStatus.WAITING and step.operator_action is not None:
                self._set(i, status=StepStatus.DONE, ended_at=self._now(),
                          message="the operator said it was done")
                self._record("operator-done", step_id=step.id, text=step.operator_action)
                self._emit(StepDone(self.outcomes[i]))
            elif o.status in (StepStatus.PENDING, StepStatus.RUNNING, StepStatus.FAILED,
                              StepStatus.WAITING):
                self._set(i, status=StepStatus.SKIPPED,
                          message=o.message or "not run by zconsole (continued after it)")
        self._save()

    def _run_step(self, i: int) -> None:
        step = self.plan.steps[i]
        prior = self.outcomes[i]
        if prior.status in (StepStatus.DONE, StepStatus.SKIPPED):
            return  # proven earlier (or found done on resume): never run twice
        resume_wait = prior.status is StepStatus.WAITING and step.wait is not None \
            and step.operator_action is None
        cmd = step.command
        self._emit(StepStarted(i, step.id, step.title,
                               cmd.display() if cmd is not None and step.operator_action is None
                               else None, resumed=resume_wait))
        if step.operator_action is not None:
            self._set(i, status=StepStatus.WAITING, started_at=prior.started_at or self._now(),
                      message=AWAITING_OPERATOR)
            self._save()
            self._record("operator-needed", step_id=step.id, text=step.operator_action)
            self._emit(NeedsOperator(step.id, step.operator_action,
                                     cmd.display() if cmd is not None else None))
            raise StopRun(self._result("awaiting-operator", i + 1, step.operator_action))
        overtaken = False
        if not resume_wait:
            self._set(i, status=StepStatus.RUNNING, started_at=self._now(), ended_at=None,
                      returncode=None, stderr="", message="")
            self._save()
            lock = self._lock(i, step) if cmd is not None and cmd.writes else None
            try:
                self._prechecks(i, step)
                if cmd is not None:
                    self._command(i, step, cmd)
                    overtaken = self._postchecks(i, step, after_wait=False)
            except StopRun:
                self._unlock(step, lock)
                raise
            except BaseException:
                if lock is not None:
                    lock.release()  # the console is going down: no record, just let go
                raise
            self._unlock(step, lock)
        message = self._post_message(step)
        if step.wait is not None and not overtaken:
            self._set(i, status=StepStatus.WAITING, message=f"watching: {step.wait.description}")
            self._save()
            message = self._wait(i, step, step.wait)
        elif step.wait is not None:
            message = f"{step.wait.description}: already over when first looked at"
        if cmd is None and step.postchecks:
            # a wait (or pure check) step: its post-checks are the state at the end
            self._postchecks(i, step, after_wait=True)
            if step.wait is None:
                message = self._post_message(step)
        done = self._set(i, status=StepStatus.DONE, ended_at=self._now(), message=message)
        self._save()
        self._emit(StepDone(done))

    def _lock(self, i: int, step: Step) -> PoolLock:
        """The pool's lock on the host for this write step (pool_lock.py), or the step fails
        saying which console holds it."""
        try:
            lock = take_pool_lock(self.host, self.plan.pool, operator=self.operator,
                                  plan=self.plan.title, step=step.title, now=self._now())
        except PoolLockHeld as e:
            raise self._fail(i, str(e)) from None
        if lock.held is not None:
            self._record("pool-lock", step_id=step.id, lock=lock_paths(self.plan.pool)[0])
        else:
            self._record("pool-lock", step_id=step.id, lock=None, note=lock.note)
        return lock

    def _unlock(self, step: Step, lock: PoolLock | None) -> None:
        if lock is None or lock.held is None:
            return
        lock.release()
        try:
            self._record("pool-lock-released", step_id=step.id)
        except OSError:
            pass  # the lock is free all the same; a full log is reported by the step

    def _post_message(self, step: Step) -> str:
        if step.postchecks:
            return "proven: " + "; ".join(p.description for p in step.postchecks)
        if step.command is not None:
            return "command succeeded"
        return "done"

    # --- checks --------------------------------------------------------------------------

    def _emit_checks(self, step: Step, phase: str, outs: Sequence[Outcome]) -> None:
        for o in outs:
            self._emit(CheckResult(step.id, phase, o.predicate, o.ok, o.detail))
        if outs:
            self._audit.checks(step, phase, outs)

    def _prechecks(self, i: int, step: Step) -> None:
        if not step.prechecks:
            return
        self.evaluator.fresh()
        outs = self.evaluator.check_all(step.prechecks)
        self._emit_checks(step, "pre", outs)
        bad = [o for o in outs if not o.ok]
        if bad:
            why = "; ".join(f"{o.predicate.description}: {o.detail}" for o in bad)
            raise self._fail(i, f"not run, a pre-check does not hold: {why}")

    def _postchecks(self, i: int, step: Step, *, after_wait: bool) -> bool:
        """Post-checks of a command (after_wait False), or of a wait step at its end.
        True when a command's post-checks were overtaken by the end of the step's wait."""
        if not step.postchecks:
            return False
        outs: list[Outcome] = []
        for attempt in range(self.postcheck_attempts):
            self.evaluator.fresh()
            outs = self.evaluator.check_all(step.postchecks)
            if all(o.ok for o in outs):
                break
            if attempt + 1 < self.postcheck_attempts:
                self._pause_uncancellable(self.postcheck_delay)
        bad = [o for o in outs if not o.ok]
        if bad and not after_wait and step.wait is not None and \
                not any(o.unknown for o in bad):
            look = self._look(watch_for(self.evaluator, step.wait))
            until = self.evaluator.check_all(step.wait.until)
            if look is not None and not look.busy and until and all(u.ok for u in until):
                ends = "; ".join(u.detail for u in until)
                outs = [o if o.ok else Outcome(
                    o.predicate, True,
                    f"{o.detail} (not seen: it was already over; {ends})") for o in outs]
                self._emit_checks(step, "post", outs)
                self._emit_checks(step, "until", until)
                return True
        self._emit_checks(step, "post", outs)
        if bad:
            why = "; ".join(f"{o.predicate.description}: {o.detail}" for o in bad)
            # who is looked at: ZFS for the disk operations; a plan names another
            # ("observer", e.g. "the host" for the fix-its) in its params
            seen = dict(self.plan.params).get("observer", "ZFS")
            if after_wait:
                raise self._fail(i, f"{seen} does not show the expected end state: {why}")
            if step.command is None:
                raise self._fail(i, f"{seen} does not show the expected result: {why}")
            raise self._fail(i, f"the command ran (exit 0) but {seen} does not show the "
                                f"expected result: {why}")
        return False

    @staticmethod
    def _look(watch: Watch) -> Look | None:
        try:
            return watch.look()
        except ReadFailed:
            return None

    def _pause_uncancellable(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            time.sleep(seconds)

    # --- commands ------------------------------------------------------------------------

    def _audited(self, step: Step, cmd: Command, timeout: float | None = None) -> Result:
        """Run `cmd` (its pipeline, if any) and record the result, or the HostError it could
        not be run with (then raised again)."""
        t0 = time.monotonic()
        try:
            # a write is never run twice by the host on its own (hosts.base.writes)
            with writes() if cmd.writes else nullcontext():
                if cmd.then:
                    result = self.host.run_pipeline([list(a) for a in cmd.pipeline],
                                                    timeout=timeout or PIPELINE_TIMEOUT,
                                                    check=False)
                else:
                    result = self.host.run(list(cmd.argv),
                                           timeout=timeout or self.command_timeout, check=False)
        except HostError as e:
            self._audit.command(step, cmd, None, time.monotonic() - t0, error=str(e))
            raise
        self._audit.command(step, cmd, result, result.duration or (time.monotonic() - t0))
        return result

    def _command(self, i: int, step: Step, cmd: Command) -> None:
        if cmd.writes:
            try:
                self._audit.intent(step, cmd)
            except OSError as e:
                raise self._fail(i, f"not run: the audit log {self.audit.path} cannot be "
                                    f"written ({e}), and zconsole never runs a command that "
                                    "writes without its record") from None
        try:
            result = self._audited(step, cmd)
        except HostError as e:
            raise self._fail(i, f"{cmd.display()} could not be run: {e}. ZFS may or may not "
                                "have acted: look at zpool status before retrying",
                             explanation=explain(str(e))) from None
        self._emit(CommandFinished(step.id, cmd.display(), result))
        self._set(i, returncode=result.returncode, stderr=result.stderr)
        if result.returncode != 0:
            head = _first_line(result.stderr) or _first_line(result.stdout) or "no output"
            raise self._fail(i, f"refused (exit {result.returncode}): {head}",
                             stderr=result.stderr, returncode=result.returncode,
                             explanation=explain(result.stderr or result.stdout))

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Result:
        """Run a step's optional read-only helper (e.g. the reads that blink a disk's LED).
        Audited like every command; refuses anything that writes."""
        step = next((s for s in self.plan.steps if s.id == step_id), None)
        if step is None or step.command is None:
            raise ValueError(f"step {step_id!r} has no helper command")
        if step.command.writes:
            raise ValueError(f"step {step_id!r}: its command writes; it is not a helper")
        return self._audited(step, step.command, timeout)

    # --- the wait ------------------------------------------------------------------------

    def _progress(self, step: Step, w: Wait, look: Look, started: float) -> WaitProgress:
        return WaitProgress(
            step_id=step.id, pool=w.pool, activity=w.activity, scanning=look.busy,
            function=look.function, percent=look.percent, done_bytes=look.done_bytes,
            total_bytes=look.total_bytes, zpool_eta_s=look.tool_eta_s,
            own_eta_s=look.own_eta_s, elapsed_s=self._now() - started, detail=look.detail)

    def _wait(self, i: int, step: Step, w: Wait) -> str:
        started = self._now()
        watch = watch_for(self.evaluator, w, clock=self._now)
        self._record("wait-start", step_id=step.id, activity=w.activity, wait_pool=w.pool,
                     description=w.description)
        failures = 0
        settle_since: float | None = None
        settle_polls = 0
        forwarded = False
        last: WaitProgress | None = None
        while True:
            self.evaluator.fresh()
            try:
                look = watch.look()
            except ReadFailed as e:
                failures += 1
                self._emit(WaitProgress(step.id, w.pool, w.activity, False, None, None, None,
                                        None, None, None, self._now() - started,
                                        f"could not look: {e}", error=str(e)))
                if failures >= MAX_READ_FAILURES:
                    raise self._fail(i, f"stopped watching after {failures} failed readings "
                                        f"({e}); ZFS carries on: resume to look again") from None
                if self._pause(self.poll_interval):
                    raise self._cancelled(i, step, last) from None
                continue
            failures = 0
            last = self._progress(step, w, look, started)
            self._emit(last)
            if not last.scanning:
                until = self.evaluator.check_all(w.until)
                if all(u.ok for u in until):
                    self._emit_checks(step, "until", until)
                    ends = "; ".join(u.detail for u in until)
                    self._record("wait-end", step_id=step.id, activity=w.activity,
                                 elapsed_s=round(last.elapsed_s, 1), detail=ends or last.detail,
                                 **_ended(watch))
                    return f"{w.description}: over" + (f"; {ends}" if ends else "")
                if settle_since is None:
                    settle_since = self._now()
                settle_polls += 1
                if self._now() - settle_since >= self.settle_timeout or \
                        settle_polls >= SETTLE_POLLS:
                    self._emit_checks(step, "until", until)
                    why = "; ".join(f"{u.predicate.description}: {u.detail}"
                                    for u in until if not u.ok)
                    raise self._fail(i, f"no scrub or resilver runs in {w.pool} any more, but "
                                        f"{why}")
            else:
                settle_since, settle_polls = None, 0
                if self.fast_forward and not forwarded:
                    forwarded = True
                    if watch.hurry(self.command_timeout):
                        continue
            if self._pause(self.poll_interval):
                raise self._cancelled(i, step, last)

    def _cancelled(self, i: int, step: Step, last: WaitProgress | None) -> StopRun:
        where = f" at {last.percent:.0f} %" if last is not None and last.percent is not None \
            else ""
        what = step.wait.description if step.wait is not None else step.title
        msg = (f"stopped watching{where}; ZFS carries on by itself ({what}); "
               "the plan can be resumed")
        self._set(i, status=StepStatus.WAITING, message=msg)
        self._save()
        self._record("wait-stopped", step_id=step.id, message=msg)
        return StopRun(self._result("cancelled", i, msg))
