"""Find plans left in flight (the console was closed or killed) and say how to continue.

`find_resumable(host, store)` reads the saved plans of this host and reconciles their saved
progress with what ZFS shows now:
* a step whose post-checks already hold is done (found done, never re-run);
* a step that was running when the console died is judged by its post-checks, never re-run
  blindly: if ZFS shows no effect, the operator is asked whether to run it again;
* a step that was waiting: if the scrub/resilver still runs, continue watching it; if it is
  over and the wait's conditions hold, the step is done;
* a step waiting for the operator (pull a disk) asks again.

Each `Resumable` carries what `PlanRunner.run(start_at=..., outcomes=...)` needs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.hosts.journal import PlanStore
from zconsole.model.plan import Plan, Step, StepOutcome, StepStatus
from zconsole.services.ops.engine.plan_io import (
    PlanFormatError,
    outcomes_from_dicts,
    plan_from_dict,
)
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed
from zconsole.services.ops.engine.watch import watch_for

FOUND_DONE = "found done on resume: "


@dataclass(frozen=True)
class Resumable:
    plan: Plan
    outcomes: tuple[StepOutcome, ...]  # reconciled: pass to run(outcomes=...)
    next_index: int  # pass to run(start_at=...)
    sentence: str  # "replace of vdb by vdf on tank: resilver in progress (42 %), continue
    # watching?"
    phase: str  # "wait", "operator", "retry", "next", "finish", "unknown"
    percent: float | None = None
    operator_action: str | None = None

    @property
    def step(self) -> Step | None:
        steps = self.plan.steps
        if self.phase == "operator":
            return steps[self.next_index - 1]
        return steps[self.next_index] if self.next_index < len(steps) else None


def _host_label(host: Host) -> str:
    try:
        return str(host.label)
    except HostError:
        return ""


class _Reconciler:
    def __init__(self, host: Host, plan: Plan, outcomes: list[StepOutcome]) -> None:
        self.plan = plan
        self.ev = Evaluator(host)
        self.outcomes = outcomes

    def found_done(self, i: int, why: str) -> None:
        self.outcomes[i] = dataclasses.replace(self.outcomes[i], status=StepStatus.SKIPPED,
                                               message=FOUND_DONE + why)

    def postchecks_hold(self, step: Step) -> tuple[bool | None, str]:
        """True/False, or None when zconsole could not look (or the step has none)."""
        if not step.postchecks:
            return None, "this step has no post-check to tell"
        outs = self.ev.check_all(step.postchecks)
        if any(o.unknown for o in outs):
            return None, "; ".join(o.detail for o in outs if o.unknown)
        bad = [o for o in outs if not o.ok]
        if bad:
            return False, "; ".join(o.detail for o in bad)
        return True, "; ".join(o.detail for o in outs)

    def wait_state(self, step: Step) -> tuple[str, str, float | None]:
        """("running", words, percent) / ("over", details, None) / ("stuck", why, None) /
        ("unknown", why, None)."""
        w = step.wait
        assert w is not None
        try:
            look = watch_for(self.ev, w).look()
        except ReadFailed as e:
            return "unknown", str(e), None
        if look.busy:
            return "running", look.summary, look.percent
        outs = self.ev.check_all(w.until)
        if any(o.unknown for o in outs):
            return "unknown", "; ".join(o.detail for o in outs if o.unknown), None
        bad = [o for o in outs if not o.ok]
        if bad:
            return "stuck", "; ".join(o.detail for o in bad), None
        return "over", "; ".join(o.detail for o in outs) or f"no scan runs in {w.pool}", None

    def reconcile(self) -> Resumable:
        plan, steps = self.plan, self.plan.steps
        title = plan.title
        i = 0
        while i < len(steps):
            step, o = steps[i], self.outcomes[i]
            if o.status in (StepStatus.DONE, StepStatus.SKIPPED):
                i += 1
                continue
            if step.operator_action is not None:
                if o.status is StepStatus.WAITING:
                    return self._make(i + 1, "operator",
                                      f"{title}: waiting for you: {step.operator_action} "
                                      "Continue when it is done?",
                                      operator_action=step.operator_action)
                return self._make(i, "next", f"{title}: next step: {step.title}. Continue?")
            if o.status is StepStatus.PENDING:
                return self._make(i, "next", f"{title}: stopped before \"{step.title}\" "
                                             "(not started). Continue?")
            watching = step.wait is not None and (
                o.status is StepStatus.WAITING or step.command is None)
            if watching and step.wait is not None:
                state, words, pct = self.wait_state(step)
                if state == "over" and step.command is None and step.postchecks:
                    held, why = self.postchecks_hold(step)
                    if held is None:
                        state, words = "unknown", why
                    elif not held:
                        state, words = "stuck", why
                if state == "running":
                    return self._make(i, "wait", f"{title}: {words}, continue watching?",
                                      percent=pct)
                if state == "over":
                    self.found_done(i, words)
                    i += 1
                    continue
                if state == "stuck":
                    return self._make(i, "wait", f"{title}: the {step.wait.activity} is over "
                                                 f"but {words}; look again?")
                return self._make(i, "unknown", f"{title}: could not look at ZFS ({words}); "
                                                "try again later")
            # RUNNING (killed during the command or its post-checks) or FAILED
            held, why = self.postchecks_hold(step)
            if held:
                if step.wait is None:
                    self.found_done(i, why)
                    i += 1
                    continue
                state, words, pct = self.wait_state(step)
                if state == "over":
                    self.found_done(i, f"{why}; {words}")
                    i += 1
                    continue
                self.outcomes[i] = dataclasses.replace(
                    o, status=StepStatus.WAITING, message=f"found running on resume: {why}")
                if state == "running":
                    return self._make(i, "wait", f"{title}: {words}, continue watching?",
                                      percent=pct)
                return self._make(i, "wait", f"{title}: \"{step.title}\" happened ({why}) "
                                             f"but {words}; look again?")
            if held is None and step.postchecks:
                return self._make(i, "unknown", f"{title}: could not look at ZFS ({why}); "
                                                "try again later")
            was = "was running when zconsole stopped" if o.status is StepStatus.RUNNING \
                else f"failed ({o.message})" if o.message else "failed"
            if held is None:
                return self._make(i, "retry", f"{title}: \"{step.title}\" {was} and zconsole "
                                              "cannot tell whether it took effect (no "
                                              "post-check); look before running it again?")
            return self._make(i, "retry", f"{title}: \"{step.title}\" {was}; ZFS does not "
                                          f"show its effect ({why}). Run it again?")
        return self._make(len(steps), "finish", f"{title}: every step is done according to "
                                                "ZFS; mark the plan finished?")

    def _make(self, next_index: int, phase: str, sentence: str, *,
              percent: float | None = None, operator_action: str | None = None) -> Resumable:
        return Resumable(self.plan, tuple(self.outcomes), next_index, sentence, phase,
                         percent, operator_action)


def reconcile(host: Host, plan: Plan, outcomes: Sequence[StepOutcome]) -> Resumable:
    """One plan's saved progress against what ZFS shows now."""
    by_id = {o.step_id: o for o in outcomes}
    full = [by_id.get(s.id, StepOutcome(s.id, StepStatus.PENDING)) for s in plan.steps]
    return _Reconciler(host, plan, full).reconcile()


def find_resumable(host: Host, store: PlanStore) -> list[Resumable]:
    """Plans of this host left in flight, oldest first, each with the sentence to offer.
    Saved plans of other hosts are left alone; unreadable ones are named in
    `store.problems` and skipped."""
    label = _host_label(host)
    found: list[Resumable] = []
    for plan_doc, outcome_docs in store.in_flight():
        try:
            plan = plan_from_dict(plan_doc)
            outcomes = outcomes_from_dicts(outcome_docs)
        except PlanFormatError as e:
            store.problems.append(f"plan {plan_doc.get('id', '?')}: {e}")
            continue
        if plan.host != label:
            continue
        found.append(reconcile(host, plan, outcomes))
    return found
