"""Issue 26 items 1 and 4: a replace-failed plan never clears a device it did not put in (no
bare `zpool clear POOL`: it brings every FAULTED device back, zpool-clear(8)); clearing another
device is its own, non-default choice with its evidence; the plan ends saying what is still
wrong; the hot spare is offered first when it stands in for nobody (`zpool replace POOL OLD
SPARE`), and after the permanent replace goes back to AVAIL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_replace_failed import host, runner, to_the_end
from zconsole.model.plan import Plan
from zconsole.services.health.replace import advice, candidates, leftovers
from zconsole.services.ops.engine.events import CheckResult, RunEvent
from zconsole.services.ops.zfs import replace_failed as rf
from zconsole.services.ops.zfs.common import ref
from zconsole.services.read.collect import collect

UNAVAIL = "15712766684991486900"  # mirror-2, pulled (was ZGY8L1M2)
FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # mirror-0, 3 read / 117 write errors
SPARE = "ata-ST4000VN008-2DR166_ZGY8N3P4"  # the degraded scenario's AVAIL spare
NEW = "ata-ST4000VN008-2DR166_ZGY8Q5R6"  # sdh


def argvs(plan: Plan) -> list[tuple[str, ...]]:
    return [s.command.argv for s in plan.steps if s.command is not None]


def state_of(h, name: str) -> str:  # type: ignore[no-untyped-def]
    pool = collect(h).pool("tank")
    assert pool is not None and pool.status is not None
    leaf = pool.status.find(name)
    assert leaf is not None, name
    return leaf.state


def free_bay(h, after: str, old: str = UNAVAIL, **more: str) -> Plan:  # type: ignore[no-untyped-def]
    return rf.plan_wizard(
        h, {"old": ref("tank", old), "bay": "free", "disk": "sdh", "after": after, **more}, False
    )


@pytest.mark.parametrize("version", ["2.1", "2.3"])
@pytest.mark.parametrize("after", ["scrub", "clear-scrub", "none"])
def test_no_plan_clears_the_pool_or_the_other_faulted_disk(
    tmp_path: Path, version: str, after: str
) -> None:
    h = host(version=version)
    plan = free_bay(h, after)
    clears = [a for a in argvs(plan) if a[:2] == ("zpool", "clear")]
    assert ("zpool", "clear", "tank") not in clears
    assert clears == ([("zpool", "clear", "tank", NEW)] if after == "clear-scrub" else [])
    text = " ".join(s.explanation for s in plan.steps)
    assert "Nothing about the data changes" not in text
    assert to_the_end(runner(h, plan, tmp_path)).status == "done"
    assert state_of(h, FAULTED) == "FAULTED"  # still out of service, as before the plan
    assert state_of(h, NEW) == "ONLINE"
    pool = collect(h).pool("tank")
    assert pool is not None and pool.status is not None
    assert pool.status.state == "DEGRADED"
    todo = advice(pool.status, candidates(pool.status))
    assert todo is not None and FAULTED in todo  # the to-do line stays


def test_the_plan_ends_saying_what_is_still_wrong(tmp_path: Path) -> None:
    h = host()
    plan = free_bay(h, "scrub")
    assert plan.steps[-1].id == "report"
    events: list[RunEvent] = []
    assert to_the_end(runner(h, plan, tmp_path), events).status == "done"
    said = next(
        e.detail for e in events if isinstance(e, CheckResult) and e.step_id == "report"
    )
    assert "still wrong in tank" in said
    assert f"{FAULTED}: FAULTED (too many errors), 3 read / 117 write / 0 checksum errors" in said
    assert "tank is DEGRADED" in said
    assert UNAVAIL not in said  # the replaced one is gone


def test_clearing_another_device_is_a_separate_choice_with_its_evidence(
    tmp_path: Path,
) -> None:
    h = host()
    plan = free_bay(h, "clear-others-scrub")
    assert ("zpool", "clear", "tank") not in argvs(plan)
    step = next(s for s in plan.steps if s.id == f"clear-other-{FAULTED}")
    assert step.command is not None and step.command.argv == ("zpool", "clear", "tank", FAULTED)
    assert "3 read / 117 write / 0 checksum errors" in step.explanation
    assert "back in service" in step.explanation
    assert step.confirmation is not None and step.confirmation.expected == FAULTED
    assert [p.kind for p in step.prechecks] == ["vdev_state", "vdev_errors"]
    assert dict(step.prechecks[0].params)["state"] == "FAULTED"
    report = plan.steps[-1]
    assert report.id == "report" and "cleared none" not in report.explanation
    assert "the devices cleared above are read again" in report.explanation
    assert "this plan cleared none of them" in free_bay(host(), "scrub").steps[-1].explanation
    assert to_the_end(runner(h, plan, tmp_path)).status == "done"
    assert state_of(h, FAULTED) == "ONLINE"  # what the operator chose, and only then


def test_new_errors_since_the_preview_stop_the_clear_of_another_device(
    tmp_path: Path,
) -> None:
    from zconsole.hosts.demo.machine.pools import find_vdev

    h = host()
    plan = free_bay(h, "clear-others-scrub")
    hit = find_vdev(h.machine.pools["tank"], FAULTED)
    assert hit is not None
    hit[0].write_errors = 200  # the disk failed more between the preview and the run
    res = to_the_end(runner(h, plan, tmp_path))
    assert res.status == "failed"
    failed = next(o for o in res.outcomes if o.status.value == "failed")
    assert failed.step_id == f"clear-other-{FAULTED}"
    assert "3 read / 200 write / 0 checksum errors" in (failed.message or ""), failed.message
    assert state_of(h, FAULTED) == "FAULTED"  # not cleared on stale evidence


def test_the_default_after_choice_is_the_scrub() -> None:
    from zconsole.ui.wizards import choices as ch

    reading = collect(host())
    got = ch.after_choices(reading, "tank", UNAVAIL)
    assert got[0].value == "scrub"
    others = next(c for c in got if c.value == "clear-others-scrub")
    assert FAULTED in others.detail and "117 write" in others.detail
    assert rf.AFTER_CHOICES[0] == "scrub"


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_demo_clear_of_one_device_leaves_the_others(version: str) -> None:
    h = host(version=version)
    assert h.run(["zpool", "clear", "tank", "ata-ST4000VN008-2DR166_ZGY8A1B2"]).returncode == 0
    assert state_of(h, FAULTED) == "FAULTED"
    assert h.run(["zpool", "clear", "tank"]).returncode == 0  # the whole pool: every device
    assert state_of(h, FAULTED) == "ONLINE"


def test_leftovers_of_a_healthy_pool_are_none() -> None:
    pool = collect(host("healthy")).pool("tank")
    assert pool is not None and pool.status is not None
    assert leftovers(pool.status) == []


# ----------------------------------------------------------------- item 4: the hot spare


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_spare_goes_in_then_the_replace_then_the_spare_is_avail(
    tmp_path: Path, version: str
) -> None:
    h = host(version=version)
    first = rf.plan_wizard(h, {"old": ref("tank", UNAVAIL), "bay": "spare", "disk": SPARE},
                           False)
    assert not first.blocked, [c for c in first.checks if not c.passed]
    assert argvs(first) == [("zpool", "replace", "tank", UNAVAIL,
                             SPARE)]
    assert [s.id for s in first.steps] == ["spare-in", "resilver", "report"]
    assert to_the_end(runner(h, first, tmp_path / "1")).status == "done"
    status = h.run(["zpool", "status", "tank"]).stdout
    assert "spare-" in status and "INUSE" in status.split("spares", 1)[1]
    assert state_of(h, FAULTED) == "FAULTED"  # the other failed disk: untouched
    # the permanent replace: the existing flow with the spare standing in
    second = free_bay(h, "scrub", spare="return")
    assert [s.id for s in second.steps][:3] == ["replace", "resilver", "spare-back"]
    assert to_the_end(runner(h, second, tmp_path / "2")).status == "done"
    status = h.run(["zpool", "status", "tank"]).stdout
    assert f"{SPARE}    AVAIL" in status.split("spares", 1)[1]
    assert "spare-" not in status and UNAVAIL not in status


def test_the_wizard_offers_the_spare_first() -> None:
    from zconsole.ui.wizards.flows import ReplaceFailedFlow

    reading = collect(host())
    flow = ReplaceFailedFlow()
    stage = flow.next_stage(reading, {"old": ref("tank", UNAVAIL)})
    assert stage is not None and stage.key == "bay"
    assert stage.options[0].value == "spare" and SPARE in stage.options[0].label
    stage = flow.next_stage(reading, {"old": ref("tank", UNAVAIL), "bay": "spare"})
    assert stage is not None and stage.key == "disk"
    assert [c.value for c in stage.options] == [SPARE]
    done = {"old": ref("tank", UNAVAIL), "bay": "spare", "disk": SPARE}
    assert flow.next_stage(reading, done) is None
    # a spare already standing in: not offered again
    reading = collect(host("degraded-spare"))
    stage = flow.next_stage(reading, {"old": ref("tank", FAULTED)})
    assert stage is not None and stage.options[0].value == "free"


def test_zconsole_plan_with_the_spare_as_new() -> None:
    from zconsole.services.ops.operation import PlanRequest

    plan = rf.plan_cli(host(), PlanRequest("tank", (UNAVAIL, SPARE), {"bay": "free"}))
    assert not plan.blocked
    assert argvs(plan)[0][:4] == ("zpool", "replace", "tank", UNAVAIL)


def test_the_kept_spare_is_not_cleared() -> None:
    plan = rf.plan_wizard(
        host("degraded-spare"),
        {"old": ref("tank", FAULTED), "bay": "free", "disk": "sdh", "spare": "keep",
         "after": "clear-scrub"},
        False,
    )
    assert [a for a in argvs(plan) if a[1] == "clear"] == []
    assert any(c.name == "clear" and "No zpool clear" in c.detail for c in plan.checks)
