"""Killed mid-plan, then resumed: find_resumable reconciles the saved progress with what ZFS
shows (never re-running a step blindly) and run(start_at) finishes the plan."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.unit.test_runner import (
    NEW0,
    OLD0,
    Events,
    SimClock,
    attach_plan,
    audit_records,
    demo,
    replace_plan,
    runner,
)
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import PlanStore
from zconsole.model.plan import StepOutcome, StepStatus
from zconsole.services.ops.engine.plan_io import outcome_to_dict, plan_to_dict
from zconsole.services.ops.engine.resume import find_resumable
from zconsole.services.ops.engine.runner import (
    CommandFinished,
    RunEvent,
    StepStarted,
    WaitProgress,
)


class Killed(BaseException):
    """Stands for SIGKILL: nothing in the runner catches it, nothing gets cleaned up."""


def kill_after(n_progress: int, ev: Events):  # type: ignore[no-untyped-def]
    def on_event(e: RunEvent) -> None:
        ev(e)
        if isinstance(e, WaitProgress) and len(ev.of(WaitProgress)) >= n_progress:
            raise Killed

    return on_event


def run_in_thread_until_killed(r, on_event) -> None:  # type: ignore[no-untyped-def]
    caught: list[BaseException] = []

    def target() -> None:
        try:
            r.run(on_event)
        except Killed as e:
            caught.append(e)

    t = threading.Thread(target=target)
    t.start()
    t.join(30)
    assert not t.is_alive() and caught, "the run was not killed mid-wait"


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_killed_mid_wait_then_resumed_to_the_end(tmp_path: Path, version: str) -> None:
    host, clock = demo(version=version)
    plan = replace_plan(host)
    ev = Events()
    run_in_thread_until_killed(runner(host, plan, tmp_path, clock), kill_after(5, ev))
    pct = ev.of(WaitProgress)[-1].percent
    assert pct is not None and 1 < pct < 50

    # a new console starts: the plan is in flight, the resilver still runs
    store = PlanStore(tmp_path / "plans")
    clock.t += 120  # the console was down for two minutes
    found = find_resumable(host, store)
    assert len(found) == 1
    res = found[0]
    assert res.plan == plan
    assert res.phase == "wait" and res.next_index == 1
    assert res.percent is not None and res.percent > pct
    assert res.sentence == (f"replace of {OLD0} by {NEW0} on tank: resilver in progress "
                            f"({res.percent:.0f} %), continue watching?")
    assert [o.status for o in res.outcomes] == [StepStatus.DONE, StepStatus.WAITING]
    assert res.step == plan.steps[1]

    ev2 = Events()
    r2 = runner(host, res.plan, tmp_path, clock)
    result = r2.run(ev2, start_at=res.next_index, outcomes=res.outcomes)
    assert result.status == "done", result.message
    assert ev2.of(StepStarted)[0].resumed is True
    assert not ev2.of(CommandFinished)  # the replace ran once, before the kill
    first = ev2.of(WaitProgress)[0].percent
    assert first is not None and first >= res.percent
    commands = [r for r in audit_records(tmp_path) if r["event"] == "command"]
    assert len(commands) == 1 and commands[0]["argv"][:2] == ["zpool", "replace"]
    assert store.in_flight() == [] and find_resumable(host, store) == []
    assert OLD0 not in host.run(["zpool", "status", "tank"]).stdout


def test_resume_after_the_resilver_ended_while_the_console_was_down(tmp_path: Path) -> None:
    host, clock = demo()
    plan = replace_plan(host)
    ev = Events()
    run_in_thread_until_killed(runner(host, plan, tmp_path, clock), kill_after(2, ev))
    clock.t += 24 * 3600  # back the next day: the resilver ended long ago
    store = PlanStore(tmp_path / "plans")
    (res,) = find_resumable(host, store)
    assert res.phase == "finish" and res.next_index == 2
    assert res.outcomes[1].status is StepStatus.SKIPPED
    assert res.outcomes[1].message.startswith("found done on resume: no replacing vdev in tank")
    result = runner(host, plan, tmp_path, clock).run(Events(), start_at=res.next_index,
                                                      outcomes=res.outcomes)
    assert result.status == "done"
    assert store.in_flight() == []


def _save(store: PlanStore, plan, outcomes) -> None:  # type: ignore[no-untyped-def]
    store.save(plan_to_dict(plan), [outcome_to_dict(o) for o in outcomes])


def test_step_running_when_killed_is_judged_by_its_postchecks(tmp_path: Path) -> None:
    """Killed between the command and its outcome: the replace did happen (ZFS shows a
    replacing vdev) -> the step is found done and the resilver is watched, not re-run."""
    host, clock = demo()
    plan = replace_plan(host)
    store = PlanStore(tmp_path / "plans")
    _save(store, plan, [StepOutcome("replace-0", StepStatus.RUNNING, started_at=clock.t),
                        StepOutcome("wait-0", StepStatus.PENDING)])
    host.run(list(plan.steps[0].command.argv))  # type: ignore[union-attr]
    (res,) = find_resumable(host, store)
    assert res.outcomes[0].status is StepStatus.SKIPPED
    assert res.outcomes[0].message.startswith("found done on resume: replacing-0 (")
    # the wait step itself was never started: it is the next one
    assert res.phase == "next" and res.next_index == 1
    result = runner(host, plan, tmp_path, clock).run(Events(), start_at=1,
                                                      outcomes=res.outcomes)
    assert result.status == "done"
    assert not [r for r in audit_records(tmp_path) if r["event"] == "command"]


def test_step_running_when_killed_without_effect_asks_before_running_again(
        tmp_path: Path) -> None:
    host, clock = demo()
    plan = replace_plan(host)
    store = PlanStore(tmp_path / "plans")
    _save(store, plan, [StepOutcome("replace-0", StepStatus.RUNNING, started_at=clock.t),
                        StepOutcome("wait-0", StepStatus.PENDING)])
    (res,) = find_resumable(host, store)
    assert res.phase == "retry" and res.next_index == 0
    assert res.sentence == (f"replace of {OLD0} by {NEW0} on tank: \"Replace {OLD0} with "
                            f"{NEW0}\" was running when zconsole stopped; ZFS does not show "
                            "its effect (no replacing vdev in tank). Run it again?")
    assert res.outcomes[0].status is StepStatus.RUNNING  # nothing decided for the operator


def test_attach_step_with_its_own_wait_resumes_watching(tmp_path: Path) -> None:
    host, clock = demo()
    plan = attach_plan(host)
    store = PlanStore(tmp_path / "plans")
    _save(store, plan, [StepOutcome("attach", StepStatus.RUNNING, started_at=clock.t)])
    host.run(list(plan.steps[0].command.argv))  # type: ignore[union-attr]
    clock.t += 600
    (res,) = find_resumable(host, store)
    assert res.phase == "wait" and res.next_index == 0
    assert res.outcomes[0].status is StepStatus.WAITING
    assert "resilver in progress (" in res.sentence
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev, start_at=0, outcomes=res.outcomes)
    assert result.status == "done"
    assert not ev.of(CommandFinished)


def test_operator_step_is_offered_again(tmp_path: Path) -> None:
    from zconsole.model.plan import Plan, Step

    host, clock = demo()
    base = replace_plan(host)
    plan = Plan(**{**base.__dict__, "steps": (
        Step(id="swap", title="Swap", explanation="", operator_action="Pull WD-WCC4J1GROW01."),
        *base.steps)})
    res0 = runner(host, plan, tmp_path, clock).run(Events())
    assert res0.status == "awaiting-operator"
    (res,) = find_resumable(host, PlanStore(tmp_path / "plans"))
    assert res.phase == "operator" and res.next_index == 1
    assert res.operator_action == "Pull WD-WCC4J1GROW01."
    assert res.sentence.endswith("waiting for you: Pull WD-WCC4J1GROW01. Continue when it is "
                                 "done?")
    assert res.step == plan.steps[0]


def test_other_hosts_and_unreadable_files_are_left_alone(tmp_path: Path) -> None:
    host, clock = demo()
    other = DemoHost("showcase", "2.3", SimClock())
    store = PlanStore(tmp_path / "plans")
    _save(store, replace_plan(other), [StepOutcome("replace-0", StepStatus.RUNNING)])
    (tmp_path / "plans" / "broken.json").write_text("{not json")
    assert find_resumable(host, store) == []
    assert len(store.problems) == 1 and "broken.json" in store.problems[0]
    assert len(find_resumable(other, store)) == 1


def test_unreadable_zfs_never_concludes(tmp_path: Path) -> None:
    from tests.unit.test_services_fakehost import FakeHost

    host, clock = demo()
    plan = replace_plan(host)
    store = PlanStore(tmp_path / "plans")
    _save(store, plan, [StepOutcome("replace-0", StepStatus.RUNNING)])
    blind = FakeHost(label=host.label)  # answers nothing: zpool status cannot be read
    (res,) = find_resumable(blind, store)
    assert res.phase == "unknown" and "could not look at ZFS" in res.sentence
    assert res.outcomes[0].status is StepStatus.RUNNING


def test_wait_step_killed_before_it_started_watching_resumes_the_wait(tmp_path: Path) -> None:
    host, clock = demo()
    plan = replace_plan(host)
    store = PlanStore(tmp_path / "plans")
    host.run(list(plan.steps[0].command.argv))  # type: ignore[union-attr]
    _save(store, plan, [StepOutcome("replace-0", StepStatus.DONE),
                        StepOutcome("wait-0", StepStatus.RUNNING)])
    (res,) = find_resumable(host, store)
    assert res.phase == "wait" and res.next_index == 1
    assert "resilver in progress (" in res.sentence
