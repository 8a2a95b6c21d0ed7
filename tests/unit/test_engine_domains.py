"""The plan engine knows no domain: predicate kinds, wait watches and refusal explanations are
registered by the domains (ZFS today), and a plan of another domain runs through the same
engine (services/ops/engine/{predicates,watch,refusals}.py)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.fakes import DelegatingHost
from zconsole.hosts.base import DEFAULT_TIMEOUT, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import Plan, Predicate, Step, Wait, predicate
from zconsole.services.ops.engine import predicates as P
from zconsole.services.ops.engine import refusals as R
from zconsole.services.ops.engine import watch as W
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed
from zconsole.services.ops.engine.runner import PlanRunner, RunFailed, WaitProgress
from zconsole.services.ops.fixit.predicates import KINDS as FIXIT_KINDS
from zconsole.services.ops.smart.watch import KINDS as SMART_KINDS
from zconsole.services.ops.zfs.predicates import KINDS as ZFS_KINDS


def test_importing_the_engine_registers_every_domain() -> None:
    code = ("from zconsole.services.ops.engine.predicates import PREDICATES\n"
            "from zconsole.services.ops.engine.watch import WATCHES\n"
            "from zconsole.services.ops.engine.refusals import EXPLAINERS\n"
            "print(sorted(PREDICATES)); print(','.join(WATCHES)); print(len(EXPLAINERS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == str(sorted(ZFS_KINDS + FIXIT_KINDS + SMART_KINDS))
    assert {"resilver", "replace", "scrub", "self-test"} <= set(out[1].split(","))
    assert out[2] == "1"


class SystemdHost(DelegatingHost):
    """The demo host with a `systemctl is-active` that says sshd is activating."""

    systemctl_calls = 0

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if list(argv[:1]) in (["systemctl"], ["true"]):
            self.systemctl_calls += argv[0] == "systemctl"
            out = "activating\n" if argv[0] == "systemctl" else ""
            return Result(tuple(argv), 0 if argv[0] == "true" else 3, out, "", 0.0)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


@pytest.fixture
def fixit_domain() -> Iterator[list[str]]:
    """A pretend second domain: one predicate kind, one wait activity, one explainer."""
    seen: list[str] = []

    @P.predicate_kind("unit_active")
    def unit_active(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
        unit = p.param("unit")
        state = ev.reading(f"unit:{unit}", lambda: ev.host.run(
            ["systemctl", "is-active", unit], check=False).stdout.strip() or "inactive")
        seen.append(unit)
        return state == "active", f"{unit} is {state}"

    class Restart:
        def __init__(self, ev: Evaluator, wait: Wait,
                     clock: Callable[[], float] | None = None) -> None:
            self.looks = 0

        def look(self) -> W.Look:
            self.looks += 1
            if self.looks == 1:
                return W.Look(True, "restarting", "restarting", percent=50.0)
            return W.Look(False, "restarted")

        def hurry(self, timeout: float) -> bool:
            return False

    W.watch_activity("unit-restart")(Restart)

    def explain(text: str) -> str | None:
        return "sshd refused its configuration." if "sshd" in text else None

    R.register_explainer(explain)
    yield seen
    del P.PREDICATES["unit_active"]
    del W.WATCHES["unit-restart"]
    R.EXPLAINERS.remove(explain)


def test_a_registered_kind_is_evaluated_once_per_round(fixit_domain: list[str]) -> None:
    host = SystemdHost(DemoHost("showcase"))
    ev = Evaluator(host)
    p = predicate("unit_active", "sshd runs", unit="sshd")
    first = ev.check(p)
    assert (first.ok, first.unknown, first.detail) == (False, False, "sshd is activating")
    ev.check(p)
    assert fixit_domain == ["sshd", "sshd"] and host.systemctl_calls == 1  # one read a round
    ev.fresh()
    ev.check(p)
    assert host.systemctl_calls == 2


def test_unknown_kinds_and_failed_reads() -> None:
    ev = Evaluator(DemoHost("showcase"))
    out = ev.check(predicate("unit_active", "x", unit="sshd"))
    assert (out.ok, out.unknown) == (False, False)
    assert out.detail == "unknown predicate kind 'unit_active': zconsole cannot evaluate it"
    calls = []

    def fails() -> int:
        calls.append(1)
        raise ReadFailed("could not read the unit")

    for _ in range(2):
        with pytest.raises(ReadFailed, match="could not read the unit"):
            ev.reading("k", fails)
    assert len(calls) == 1  # a failure is remembered for the round too


def test_a_kind_has_one_function() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        P.predicate_kind("vdev_present")(lambda ev, p: (True, ""))


def test_explanations_come_from_every_registered_explainer(fixit_domain: list[str]) -> None:
    assert R.explain("sshd: bad option") == "sshd refused its configuration."
    both = R.explain("cannot attach sdb to sda: device is too small; sshd")
    assert both is not None and both.startswith("The new disk is smaller")
    assert both.endswith(" sshd refused its configuration.")
    assert R.explain("all fine") is None


def test_another_domains_plan_runs_through_the_same_engine(tmp_path: Path,
                                                          fixit_domain: list[str]) -> None:
    host = SystemdHost(DemoHost("showcase"))
    plan = Plan(id=uuid.uuid4().hex, kind="fixit-test", title="restart sshd", host=host.label,
                pool="", created_at=0.0, steps=(
                    Step(id="restart", title="Restart sshd", explanation="",
                         command=Command(("true",), "pretend", writes=False),
                         wait=Wait("", "unit-restart", "sshd restarting")),
                    Step(id="never", title="never", explanation="",
                         prechecks=(predicate("unit_active", "sshd runs", unit="sshd"),)),
                ))
    events: list[object] = []
    runner = PlanRunner(host, plan, audit=AuditLog(str(tmp_path / "audit.jsonl")),
                        store=PlanStore(tmp_path / "plans"), operator="t",
                        poll_interval=0.0, sleep=lambda _s: None)
    result = runner.run(events.append)
    progress = [e for e in events if isinstance(e, WaitProgress)]
    assert [(p.scanning, p.percent, p.detail) for p in progress] == [
        (True, 50.0, "restarting"), (False, None, "restarted")]
    failed = [e for e in events if isinstance(e, RunFailed)]
    assert result.status == "failed" and failed[0].step_id == "never"
    assert failed[0].message == ("not run, a pre-check does not hold: sshd runs: sshd is "
                                 "activating")
