"""plan_io: Plan and StepOutcome to dicts and back, exactly, through real JSON."""

from __future__ import annotations

import json

import pytest

from zconsole.model.command import Command
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Confirmation,
    Plan,
    Step,
    StepOutcome,
    StepStatus,
    Wait,
    predicate,
)
from zconsole.services.ops.engine.plan_io import (
    PlanFormatError,
    outcome_from_dict,
    outcome_to_dict,
    plan_from_dict,
    plan_to_dict,
)

FULL = Plan(
    id="0f3c9a", kind="dedup-off", title="dedup off on tank/vm", host="nas1", pool="tank",
    created_at=1795302010.25,
    preview=("mirror-0 keeps 2 copies", "naïve ✓ unicode survives"),
    checks=(Check("scrub", False, CheckLevel.WARN, "a scrub will be cancelled"),
            Check("label", False, CheckLevel.CONFIRM, "sdl has a label of oldpool", "-f"),
            Check("size", True, CheckLevel.BLOCK, "big enough")),
    steps=(
        Step(id="off", title="dedup=off", explanation="new writes only",
             command=Command(("zfs", "set", "dedup=off", "tank/vm"), "stop dedup", True),
             prechecks=(predicate("dataset_property", "dedup on", dataset="tank/vm",
                                  property="dedup", value="on"),),
             postchecks=(predicate("dataset_property", "dedup off", dataset="tank/vm",
                                   property="dedup", value="off"),)),
        Step(id="copy", title="rewrite", explanation="send/receive",
             command=Command(("zfs", "send", "tank/vm@a"), "copy", True,
                             then=(("zfs", "receive", "-u", "tank/vm2"),)),
             confirmation=Confirmation("type the pool name", "tank")),
        Step(id="wait", title="wait", explanation="",
             wait=Wait("tank", "resilver", "the resilver",
                       until=(predicate("vdev_state", "new ONLINE", pool="tank", name="sdh",
                                        state="ONLINE"),))),
        Step(id="pull", title="pull", explanation="", operator_action="Pull serial X",
             command=Command(("dd", "if=/dev/disk/by-id/x", "of=/dev/null"), "blink")),
    ),
    params=(("dataset", "tank/vm"), ("mode", "send-receive")),
)


def test_plan_round_trip_is_exact_through_json() -> None:
    doc = json.loads(json.dumps(plan_to_dict(FULL)))
    back = plan_from_dict(doc)
    assert back == FULL
    assert back.steps[1].command is not None and back.steps[1].command.then == (
        ("zfs", "receive", "-u", "tank/vm2"),)
    assert back.checks[1].needs_force and back.argv_list() == FULL.argv_list()
    assert plan_to_dict(back) == plan_to_dict(FULL)


def test_outcome_round_trip() -> None:
    for o in (StepOutcome("a", StepStatus.PENDING),
              StepOutcome("b", StepStatus.FAILED, 1.5, 2.0, 1, "cannot attach\n", "refused"),
              StepOutcome("c", StepStatus.SKIPPED, message="found done")):
        assert outcome_from_dict(json.loads(json.dumps(outcome_to_dict(o)))) == o


@pytest.mark.parametrize("mutate,match", [
    (lambda d: d.update(format=99), "format 99"),
    (lambda d: d.pop("steps"), "missing 'steps'"),
    (lambda d: d["checks"][0].update(level="panic"), "unknown level"),
    (lambda d: d["steps"][0]["command"].update(argv="zpool attach"), "list of strings"),
    (lambda d: d["steps"][0]["command"].update(argv=[]), "non-empty"),
    (lambda d: d.update(created_at="yesterday"), "expected a number"),
    (lambda d: d.update(params=[["a"]]), r"\[key, value\]"),
])
def test_bad_documents_are_refused(mutate, match) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads(json.dumps(plan_to_dict(FULL)))
    mutate(doc)
    with pytest.raises(PlanFormatError, match=match):
        plan_from_dict(doc)


def test_bad_outcome_status() -> None:
    with pytest.raises(PlanFormatError, match="unknown status"):
        outcome_from_dict({"step_id": "a", "status": "exploded"})
