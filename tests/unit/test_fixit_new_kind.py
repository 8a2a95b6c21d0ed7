"""A new fix-it kind is one registry entry plus its own modules (issue 28, 2b): a throw-away
kind registered in a fixture (this module is its "own module": its plan, undo and rollback,
under the names `registry.fix_it_entry` reads; the entry is one `fix_it_entry(...)`)
is found, with no other edit, by `zconsole plan`, the wizard launcher (`make_flow`), the
wizard's runner (`FixRunner` with its rollback, a plan read back from JSON too) and the
Host screen's lookups. And every registered kind has a plan builder, a flow when it has a
wizard, and its section in docs/plans-review.md."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from zconsole.cli.main import main
from zconsole.hosts.base import Host, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import Plan, Step, StepOutcome, StepStatus
from zconsole.services.ops import registry
from zconsole.services.ops.engine.events import RunEvent, RunResult
from zconsole.services.ops.engine.plan_io import plan_from_dict, plan_to_dict
from zconsole.services.ops.fixit import common
from zconsole.services.ops.operation import Operation, PlanRequest

KIND = "fix-test"
UNDO_KIND = "fix-test-undo"
ROLLBACK_KIND = "fix-test-rollback"
DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"
ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------- the throw-away kind's module


def build(host: Host, *, plan_id: str | None = None) -> Plan:
    """Back up the SSH drop-in (a command the demo host runs)."""
    pid = plan_id or "f" * 32
    return common.make_plan(KIND, "Test fix", str(host.label), host.now(), "sshd",
                            plan_id=pid, preview=("a throw-away fix",),
                            steps=(common.backup_step(DROPIN, common.backup_path(pid, DROPIN)),))


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    return build(host)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    return build(host)


def undo_plan(fix: Plan, *, host: Host, now: float) -> Plan:
    return common.make_plan(UNDO_KIND, "Undo the test fix", fix.host, now, "sshd",
                            params=(("of", fix.id),), steps=(Step(
                                id="undo", title="remove the copy", explanation="",
                                command=Command(
                                    ("rm", "-f", "/var/backups/test-copy"), "the copy",
                                    writes=True)),))


def rollback_for(fix: Plan, result: RunResult, *, now: float) -> Plan | None:
    if result.done:
        return None
    return common.make_plan(ROLLBACK_KIND, "Roll the test fix back", fix.host, now,
                            "sshd", steps=(Step(id="rollback-copy", title="remove the copy",
                                             explanation=""),))


def rolled_back(fix: Plan, back: Plan, result: RunResult) -> str:
    return "the test fix was rolled back" if result.done else "the test rollback failed"


APPLIED: list[Plan] = []


def applied_fixes(store: PlanStore, host: str) -> list[Plan]:
    return list(APPLIED)


@pytest.fixture
def new_kind(monkeypatch: pytest.MonkeyPatch) -> Operation:
    """The kind registered for one test only (the table is put back afterwards)."""
    monkeypatch.setattr(registry, "OPERATIONS", registry.OPERATIONS)
    monkeypatch.setattr(registry, "BY_KIND", dict(registry.BY_KIND))
    APPLIED.clear()
    return registry.register(entry())


def entry() -> Operation:
    """The one registry entry: this module's functions, and the kind's words."""
    return registry.fix_it_entry(
        sys.modules[__name__], "Fix something for the test", "a throw-away fix-it",
        panel="ssh", offer="apply the test fix as a plan", undo_title="Undo the test fix")


# ------------------------------------------------------------------------------- the tests


def test_the_registry_holds_it_once(new_kind: Operation) -> None:
    assert registry.get(KIND) is new_kind and registry.kinds()[-1] == KIND
    assert registry.fixit(KIND) is new_kind.fixit and new_kind in registry.fixits()
    assert new_kind in registry.with_wizard("host") and new_kind not in registry.with_wizard()
    with pytest.raises(ValueError, match="registered already"):
        registry.register(entry())


def test_zconsole_plan_finds_it(new_kind: Operation, capsys: pytest.CaptureFixture[str]
                                ) -> None:
    rc = main(["plan", KIND, "--demo", "slow-ssh", "--dry-run", "--json"])
    out = capsys.readouterr().out
    assert rc == 0, out
    doc = json.loads(out)
    plan = plan_from_dict(doc.get("plan", doc))
    assert plan.kind == KIND and [s.id for s in plan.steps] == ["backup"]


def test_the_wizard_launcher_finds_its_flow(new_kind: Operation) -> None:
    from zconsole.ui.wizards.flows import PlanFlow, make_flow

    flow = make_flow(KIND)
    assert isinstance(flow, PlanFlow) and flow.KIND == KIND
    assert flow.TITLE == "Fix something for the test"
    assert flow.next_stage(None, {}) is None
    plan = flow.build(DemoHost("slow-ssh"), None, {}, False)
    assert plan.kind == KIND


class FakeRunner:
    """A runner whose run ends as told, recording the plans it was made for."""

    def __init__(self, plan: Plan, status: str, made: list[Plan]) -> None:
        self.plan, self.status = plan, status
        made.append(plan)

    def run(self, on_event: Callable[[RunEvent], None], *,
            cancel: threading.Event | None = None, start_at: int = 0,
            outcomes: Sequence[StepOutcome] | None = None) -> RunResult:
        done = self.status == "done"
        return RunResult(self.status, tuple(StepOutcome(s.id, StepStatus.DONE if done
                                                        else StepStatus.FAILED)
                                            for s in self.plan.steps), 0, self.status)

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Result:
        raise AssertionError("no helper")


def test_its_run_is_rolled_back_by_its_own_rollback(new_kind: Operation) -> None:
    """FixRunner finds the kind's rollback in the registry (no table of its own)."""
    made: list[Plan] = []
    fix = build(DemoHost("slow-ssh"))

    def runner(p: Plan) -> FakeRunner:
        return FakeRunner(p, "failed" if p.kind == KIND else "done", made)

    run = common.run_fix(fix, runner, lambda _e: None)
    assert not run.applied and run.rollback is not None
    assert [p.kind for p in made] == [KIND, f"{KIND}-rollback"]
    assert run.result.message.endswith("the test fix was rolled back")


def test_a_saved_plan_resumes_under_its_fix_runner(new_kind: Operation, tmp_path: Path
                                                   ) -> None:
    """The wizard's runner (a resumed plan, read back from JSON, too) runs the kind under
    FixRunner with its registry entry's Fixit; its undo runs plainly."""
    from zconsole.services.ops.engine.runner import PlanRunner
    from zconsole.ui.wizards.backend import runner_factory

    host = DemoHost("slow-ssh")
    app: Any = SimpleNamespace(state_directory=tmp_path, host=host)
    make = runner_factory(app)
    saved = plan_from_dict(json.loads(json.dumps(plan_to_dict(build(host)))))
    r = make(host, saved)
    assert isinstance(r, common.FixRunner) and r.kind is new_kind.fixit
    assert isinstance(make(host, undo_plan(saved, host=host, now=0.0)), PlanRunner)


def test_without_the_entry_it_is_unknown() -> None:
    """The same checks fail without the registry entry: the entry is what makes it known."""
    from zconsole.ui.wizards.flows import make_flow

    assert registry.fixit(KIND) is None
    with pytest.raises(KeyError):
        make_flow(KIND)
    with pytest.raises(KeyError, match="not a fix-it kind"):
        common.FixRunner(build(DemoHost("slow-ssh")), lambda p: FakeRunner(p, "done", []))


def test_every_kind_has_a_plan_a_flow_and_its_review() -> None:
    """Each registered kind: a plan builder; a flow when it has a wizard (a fix-it always
    has one, on the Host screen, with its Fixit); its section in docs/plans-review.md."""
    from zconsole.ui.wizards.flows import make_flow

    headings = [line for line in (ROOT / "docs" / "plans-review.md").read_text(
        encoding="utf-8").splitlines() if line.startswith("## ")]
    for op in registry.OPERATIONS:
        assert callable(op.plan), op.kind
        if op.wizard is not None:
            assert make_flow(op.kind).KIND == op.kind
        if op.fixit is not None:
            assert op.wizard is not None and op.wizard.screen == "host", op.kind
        word = re.compile(rf"(?<![\w-]){re.escape(op.kind)}(?![\w-])")
        assert any(word.search(h) for h in headings), f"{op.kind}: no section in the review"
