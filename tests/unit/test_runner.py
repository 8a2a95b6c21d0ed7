"""PlanRunner on the demo host: hand-built plans (attach, replace, refusals, operator steps),
live progress over a simulated clock, the audit log and the saved progress."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from zconsole.hosts.base import DEFAULT_TIMEOUT, Result, writing
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Plan,
    Step,
    StepStatus,
    Wait,
    predicate,
)
from zconsole.services.ops.engine.runner import (
    CheckResult,
    CommandFinished,
    NeedsOperator,
    PlanRunner,
    RunEvent,
    RunFailed,
    StepDone,
    StepStarted,
    WaitProgress,
)

T0 = 1795302000.0
OLD0 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
OLD1 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02"
NEW0 = "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW03"
NEW1 = "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW04"
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"  # showcase tank mirror-0
BYID = "/dev/disk/by-id/"


class SimClock:
    """Host time and runner sleeps in one simulated clock: a poll every 60 s costs nothing."""

    def __init__(self, t: float = T0) -> None:
        self.t = t
        self.slept = 0.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds
        self.slept += seconds


def demo(scenario: str = "grow", version: str = "2.3") -> tuple[DemoHost, SimClock]:
    c = SimClock()
    return DemoHost(scenario, version, c), c


def journal(tmp_path: Path) -> tuple[AuditLog, PlanStore]:
    return AuditLog(tmp_path / "audit.jsonl"), PlanStore(tmp_path / "plans")


def runner(host: DemoHost, plan: Plan, tmp_path: Path, clock: SimClock | None = None,
           **kw: object) -> PlanRunner:
    audit, store = journal(tmp_path)
    if clock is not None:
        kw.setdefault("clock", clock)
        kw.setdefault("sleep", clock.sleep)
        kw.setdefault("fast_forward", False)
    kw.setdefault("postcheck_delay", 0.0)
    return PlanRunner(host, plan, audit=audit, store=store, operator="alice",
                      poll_interval=60.0, **kw)  # type: ignore[arg-type]


def attach_plan(host: DemoHost, existing: str = OLD0, new: str = NEW0,
                pool: str = "tank") -> Plan:
    return Plan(
        id=uuid.uuid4().hex, kind="attach", title=f"attach {new} to {existing} in {pool}",
        host=host.label, pool=pool, created_at=T0,
        preview=("mirror-0 has 2 copies now; 3 once the resilver ends",),
        steps=(
            Step(
                id="attach", title=f"Attach {new}",
                explanation="Adds a third copy to mirror-0 and starts a resilver.",
                command=Command(("zpool", "attach", pool, existing, BYID + new),
                                "add a copy", writes=True),
                prechecks=(predicate("vdev_absent", f"{new} is not in {pool} yet",
                                     pool=pool, name=new),
                           predicate("vdev_state", f"{existing} is ONLINE", pool=pool,
                                     name=existing, state="ONLINE")),
                postchecks=(predicate("vdev_present", f"{new} is in {pool}", pool=pool,
                                      name=BYID + new),),
                wait=Wait(pool, "resilver", f"the resilver onto {new}",
                          until=(predicate("vdev_state", f"{new} is ONLINE", pool=pool,
                                           name=new, state="ONLINE"),)),
            ),
        ),
        params=(("existing", existing), ("new", new)),
    )


def replace_steps(pool: str, old: str, new: str, n: int = 0, *,
                  wait_flag: bool = False) -> tuple[Step, Step]:
    argv = ("zpool", "replace", *(("-w",) if wait_flag else ()), pool, old, BYID + new)
    return (
        Step(id=f"replace-{n}", title=f"Replace {old} with {new}",
             explanation="Starts a resilver onto the new disk; the old one leaves at the end.",
             command=Command(argv, "replace a member", writes=True),
             postchecks=(predicate("container_present", "a replacing vdev exists", pool=pool,
                                   type="replacing"),)),
        Step(id=f"wait-{n}", title="Wait for the resilver", explanation="",
             wait=Wait(pool, "replace", f"the resilver onto {new}",
                       until=(predicate("container_absent", "no replacing vdev", pool=pool,
                                        type="replacing"),
                              predicate("vdev_state", f"{new} is ONLINE", pool=pool,
                                        name=new, state="ONLINE"),
                              predicate("vdev_absent", f"{old} has left", pool=pool,
                                        name=old)))),
    )


def replace_plan(host: DemoHost, old: str = OLD0, new: str = NEW0, *,
                 wait_flag: bool = False) -> Plan:
    return Plan(id=uuid.uuid4().hex, kind="replace-grow", title=f"replace of {old} by {new} "
                f"on tank", host=host.label, pool="tank", created_at=T0,
                steps=replace_steps("tank", old, new, wait_flag=wait_flag))


class Events:
    def __init__(self) -> None:
        self.items: list[RunEvent] = []

    def __call__(self, e: RunEvent) -> None:
        self.items.append(e)

    def of(self, kind: type) -> list:  # type: ignore[type-arg]
        return [e for e in self.items if isinstance(e, kind)]


def audit_records(tmp_path: Path) -> list[dict[str, object]]:
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


# --------------------------------------------------------------------------- full runs


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_attach_plan_runs_to_the_end_with_progress_and_audit(tmp_path: Path,
                                                             version: str) -> None:
    host, clock = demo(version=version)
    plan = attach_plan(host)
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)

    assert result.status == "done" and result.next_index == 1
    assert [o.status for o in result.outcomes] == [StepStatus.DONE]
    assert result.outcomes[0].message.startswith("the resilver onto")
    # the events, in order
    kinds = [type(e).__name__ for e in ev.items]
    assert kinds[:4] == ["StepStarted", "CheckResult", "CheckResult", "CommandFinished"]
    assert kinds[-2:] == ["CheckResult", "StepDone"]
    started = ev.of(StepStarted)[0]
    assert started.command == f"zpool attach tank {OLD0} {BYID}{NEW0}"
    done_cmd = ev.of(CommandFinished)[0]
    assert done_cmd.result.argv == ("zpool", "attach", "tank", OLD0, BYID + NEW0)
    assert done_cmd.result.returncode == 0
    # live progress: percent rises to the end; bytes; zconsole's own ETA once it has a pace
    prog = ev.of(WaitProgress)
    scanning = [p for p in prog if p.scanning]
    assert len(scanning) >= 10
    pcts = [p.percent for p in scanning]
    assert all(p is not None for p in pcts) and pcts == sorted(pcts)  # type: ignore[type-var]
    assert pcts[0] < 10 and pcts[-1] > 90  # type: ignore[operator]
    assert all(p.function == "resilver" for p in scanning)
    assert all(p.total_bytes and p.done_bytes is not None for p in scanning)
    assert any(p.own_eta_s is not None and p.own_eta_s > 0 for p in scanning[2:])
    assert not prog[-1].scanning
    until = [c for c in ev.of(CheckResult) if c.phase == "until"]
    assert [(c.ok, c.detail) for c in until] == [(True, f"{NEW0} is ONLINE")]
    # ZFS's state: a three-way mirror, resilver finished
    status = host.run(["zpool", "status", "tank"]).stdout
    assert NEW0 in status and "resilvering" not in status
    # saved progress: moved to done/, nothing in flight
    store = PlanStore(tmp_path / "plans")
    assert store.in_flight() == []
    assert (tmp_path / "plans" / "done" / f"{plan.id}.json").exists()
    # the audit log
    recs = audit_records(tmp_path)
    assert [r["event"] for r in recs] == ["plan-start", "pool-lock", "checks", "command-intent",
                                          "command", "checks", "pool-lock-released",
                                          "wait-start", "checks", "wait-end", "plan-end"]
    assert recs[1]["lock"] == "/run/zconsole.pool-tank.lock"  # held from pre- to post-check
    intent, cmd = recs[3], recs[4]  # the intent is written (fsynced) before the command runs
    assert intent["argv"] == ["zpool", "attach", "tank", OLD0, BYID + NEW0]
    assert "exit_code" not in intent and intent["writes"] is True
    assert cmd["argv"] == ["zpool", "attach", "tank", OLD0, BYID + NEW0]
    assert cmd["command"] == f"zpool attach tank {OLD0} {BYID}{NEW0}"
    assert cmd["exit_code"] == 0 and cmd["stdout"] == "" and cmd["stderr"] == ""
    assert cmd["writes"] is True and isinstance(cmd["duration_s"], float)
    for r in recs:
        assert r["plan_id"] == plan.id and r["kind"] == "attach" and r["operator"] == "alice"
        assert r["host"] == "demo: grow" and isinstance(r["ts"], float)
    assert recs[0]["commands"] == [f"zpool attach tank {OLD0} {BYID}{NEW0}"]


def test_replace_plan_runs_both_steps_and_the_old_disk_leaves(tmp_path: Path) -> None:
    host, clock = demo()
    plan = replace_plan(host)
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)
    assert result.status == "done", result.message
    post = [c for c in ev.of(CheckResult) if c.phase == "post"]
    assert post[0].ok and post[0].detail.startswith("replacing-0 (")
    until = [c.detail for c in ev.of(CheckResult) if c.phase == "until"]
    assert until == ["no replacing vdev in tank", f"{NEW0} is ONLINE",
                     f"{OLD0} is not in tank"]
    assert OLD0 not in host.run(["zpool", "status", "tank"]).stdout


def test_refusal_stops_with_stderr_verbatim_and_explanation(tmp_path: Path) -> None:
    host, clock = demo("showcase")
    plan = Plan(id=uuid.uuid4().hex, kind="attach", title="attach sdi", host=host.label,
                pool="tank", created_at=T0, steps=(
                    Step(id="attach", title="Attach sdi", explanation="",
                         command=Command(("zpool", "attach", "tank", A0, "sdi"), "x",
                                         writes=True),
                         wait=Wait("tank", "resilver", "resilver")),
                    Step(id="never", title="never reached", explanation="",
                         command=Command(("zpool", "set", "autoexpand=on", "tank"), "y",
                                         writes=True))))
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)
    assert result.status == "failed" and result.next_index == 0
    failed = ev.of(RunFailed)
    assert len(failed) == 1
    f = failed[0]
    assert f.step_id == "attach"
    assert f.stderr == f"cannot attach sdi to {A0}: device is too small\n"
    assert f.message == f"refused (exit 1): cannot attach sdi to {A0}: device is too small"
    assert f.explanation is not None and "smaller than the smallest member" in f.explanation
    assert [o.status for o in result.outcomes] == [StepStatus.FAILED, StepStatus.PENDING]
    assert result.outcomes[0].returncode == 1
    assert result.outcomes[0].stderr == f.stderr
    recs = audit_records(tmp_path)
    cmd = [r for r in recs if r["event"] == "command"]
    assert len(cmd) == 1 and cmd[0]["exit_code"] == 1 and cmd[0]["stderr"] == f.stderr
    assert [r["event"] for r in recs][-2:] == ["step-failed", "pool-lock-released"]
    assert recs[-2]["explanation"] == f.explanation
    # nothing more ran: autoexpand untouched, and the plan stays in flight (failed)
    assert "off" in host.run(["zpool", "get", "-H", "autoexpand", "tank"]).stdout
    saved = PlanStore(tmp_path / "plans").in_flight()
    assert len(saved) == 1 and saved[0][1][0]["status"] == "failed"


def test_precheck_failure_runs_nothing(tmp_path: Path) -> None:
    host, clock = demo()
    plan = attach_plan(host, existing=OLD0, new=OLD1)  # OLD1 is already in the pool
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)
    assert result.status == "failed"
    assert not ev.of(CommandFinished)
    pre = [c for c in ev.of(CheckResult) if c.phase == "pre"]
    assert (pre[0].ok, pre[0].detail) == (False, f"{OLD1} is still in tank (ONLINE)")
    assert ev.of(RunFailed)[0].message == (
        f"not run, a pre-check does not hold: {OLD1} is not in tank yet: "
        f"{OLD1} is still in tank (ONLINE)")
    assert not [r for r in audit_records(tmp_path) if r["event"] == "command"]


def test_blocked_plan_is_refused_before_anything(tmp_path: Path) -> None:
    host, clock = demo()
    plan = attach_plan(host)
    plan = Plan(**{**plan.__dict__, "checks": (
        Check("size", False, CheckLevel.BLOCK, "sdz is smaller than the members"),)})
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)
    assert result.status == "failed"
    assert ev.of(RunFailed)[0].message == "the plan cannot run: sdz is smaller than the members"
    assert not (tmp_path / "audit.jsonl").exists()
    assert NEW0 not in host.run(["zpool", "status"]).stdout


def test_postcheck_failure_after_exit_zero_is_reported(tmp_path: Path) -> None:
    host, clock = demo()
    plan = Plan(id=uuid.uuid4().hex, kind="x", title="set", host=host.label, pool="tank",
                created_at=T0, steps=(Step(
                    id="set", title="autoexpand on", explanation="",
                    command=Command(("zpool", "set", "autoexpand=on", "tank"), "x", True),
                    postchecks=(predicate("pool_property", "autotrim is on", pool="tank",
                                          property="autotrim", value="on"),)),))
    ev = Events()
    result = runner(host, plan, tmp_path, clock, postcheck_attempts=3).run(ev)
    assert result.status == "failed"
    assert ev.of(RunFailed)[0].message == (
        "the command ran (exit 0) but ZFS does not show the expected result: autotrim is on: "
        "autotrim of tank is off (expected on)")
    assert clock.slept == 0.0  # postcheck_delay 0 in these tests


def test_postcheck_overtaken_by_a_quick_resilver(tmp_path: Path) -> None:
    """`zpool replace -w` (the demo fast-forwards it) is over before the first look: the
    'replacing vdev exists' post-check is overtaken, the wait's conditions prove the rest."""
    host, clock = demo()
    steps = replace_steps("tank", OLD0, NEW0, wait_flag=True)
    step = Step(**{**steps[0].__dict__, "wait": steps[1].wait})
    plan = Plan(id=uuid.uuid4().hex, kind="replace", title="quick", host=host.label,
                pool="tank", created_at=T0, steps=(step,))
    ev = Events()
    result = runner(host, plan, tmp_path, clock).run(ev)
    assert result.status == "done", result.message
    post = [c for c in ev.of(CheckResult) if c.phase == "post"]
    assert post[0].ok and "it was already over" in post[0].detail
    assert result.outcomes[0].message.endswith("already over when first looked at")
    assert not ev.of(WaitProgress)


# ------------------------------------------------------------------------ demo & cancel


def test_demo_wait_fast_forwards_with_a_frozen_clock(tmp_path: Path) -> None:
    """The UI's demo host has a frozen clock: the wait jumps to the end (zpool wait)."""
    host = DemoHost("grow", "2.3", lambda: T0)
    plan = attach_plan(host)
    audit, store = journal(tmp_path)
    ev = Events()
    r = PlanRunner(host, plan, audit=audit, store=store, operator="demo",
                   poll_interval=0.01, clock=lambda: T0).run(ev)
    assert r.status == "done", r.message
    prog = ev.of(WaitProgress)
    assert prog[0].scanning and prog[0].percent is not None and prog[0].percent < 5
    assert not prog[-1].scanning
    assert len(prog) == 2


def test_cancel_during_wait_only_stops_watching(tmp_path: Path) -> None:
    host, clock = demo()
    plan = attach_plan(host)
    cancel = threading.Event()
    ev = Events()

    def on_event(e: RunEvent) -> None:
        ev(e)
        if isinstance(e, WaitProgress) and len(ev.of(WaitProgress)) == 3:
            cancel.set()

    r = runner(host, plan, tmp_path, clock).run(on_event, cancel=cancel)
    assert r.status == "cancelled" and r.next_index == 0
    assert r.outcomes[0].status is StepStatus.WAITING
    pct = ev.of(WaitProgress)[-1].percent
    assert r.message == (f"stopped watching at {pct:.0f} %; ZFS carries on by itself (the "
                         f"resilver onto {NEW0}); the plan can be resumed")
    assert not ev.of(StepDone)
    # ZFS goes on resilvering, and the plan is still in flight
    assert "resilver in progress" in host.run(["zpool", "status", "tank"]).stdout
    saved = PlanStore(tmp_path / "plans").in_flight()
    assert [o["status"] for o in saved[0][1]] == ["waiting"]
    assert audit_records(tmp_path)[-1]["event"] == "wait-stopped"


# ------------------------------------------------------------------------ operator steps


class DdHost(DemoHost):
    """The demo host plus a `dd` that reads (the identify helper)."""

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
            check: bool = True, stdin: str | None = None) -> Result:
        if argv and argv[0] == "dd":
            return Result(tuple(argv), 0, "", "2000+0 records in\n2000+0 records out\n", 4.2)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def test_operator_step_pauses_then_continues(tmp_path: Path) -> None:
    clock = SimClock()
    host = DdHost("grow", "2.3", clock)
    dd = Command(("dd", f"if={BYID}{OLD0}", "of=/dev/null", "bs=1M", "count=2000",
                  "iflag=direct"), "blink the activity LED of the disk to pull")
    steps = (
        Step(id="swap", title="Swap the disk", explanation="", command=dd,
             operator_action="Pull the disk with serial WD-WCC4J1GROW01 (slot 0); insert "
                             "the new one."),
        *replace_steps("tank", OLD0, NEW0),
    )
    plan = Plan(id=uuid.uuid4().hex, kind="replace-grow", title="grow", host=host.label,
                pool="tank", created_at=T0, steps=steps)
    r1 = runner(host, plan, tmp_path, clock)
    ev = Events()
    res = r1.run(ev)
    assert res.status == "awaiting-operator" and res.next_index == 1
    need = ev.of(NeedsOperator)
    assert [(n.step_id, n.helper) for n in need] == [("swap", dd.display())]
    assert not ev.of(CommandFinished)  # the helper never runs by itself
    assert res.outcomes[0].status is StepStatus.WAITING
    # identify on request: audited, read-only only
    out = r1.run_helper("swap")
    assert out.returncode == 0
    with pytest.raises(ValueError, match="writes"):
        r1.run_helper("replace-0")
    # the operator says done
    ev2 = Events()
    res2 = r1.run(ev2, start_at=res.next_index, outcomes=res.outcomes)
    assert res2.status == "done", res2.message
    assert [o.status for o in res2.outcomes] == [StepStatus.DONE] * 3
    assert res2.outcomes[0].message == "the operator said it was done"
    events = [r["event"] for r in audit_records(tmp_path)]
    assert events[:3] == ["plan-start", "operator-needed", "command"]  # the dd helper
    # the run that goes on after the operator's step says so; the plan started once
    assert events.count("plan-start") == 1
    cont = [r for r in audit_records(tmp_path) if r["event"] == "plan-continue"]
    assert [c["start_at"] for c in cont] == [res.next_index] and res.next_index > 0
    assert "operator-done" in events
    dd_rec = [r for r in audit_records(tmp_path) if r["event"] == "command"][0]
    assert dd_rec["writes"] is False and dd_rec["duration_s"] == 4.2


# ------------------------------------------------------------------------ pipelines


class PipeHost(DemoHost):
    def __init__(self, *a: object, **kw: object) -> None:
        super().__init__(*a, **kw)  # type: ignore[arg-type]
        self.pipelines: list[list[tuple[str, ...]]] = []

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *,
                     timeout: float = DEFAULT_TIMEOUT, check: bool = True) -> Result:
        self.pipelines.append([tuple(a) for a in argvs])
        return Result(tuple(argvs[0]), 0, "", "", 1.5)


def test_pipeline_runs_through_run_pipeline_without_a_shell(tmp_path: Path) -> None:
    clock = SimClock()
    host = PipeHost("dedup", "2.3", clock)
    send = ("zfs", "send", "-R", "tank/vm@zc-rewrite")
    recv = ("zfs", "receive", "-u", "tank/vm.zc-new")
    plan = Plan(id=uuid.uuid4().hex, kind="dedup-off", title="rewrite", host=host.label,
                pool="tank", created_at=T0, steps=(Step(
                    id="copy", title="copy", explanation="",
                    command=Command(send, "rewrite without dedup", True, then=(recv,))),))
    ev = Events()
    assert runner(host, plan, tmp_path, clock).run(ev).status == "done"
    assert host.pipelines == [[send, recv]]
    rec = [r for r in audit_records(tmp_path) if r["event"] == "command"][0]
    assert rec["argv"] == [list(send), list(recv)]
    assert rec["command"] == "zfs send -R tank/vm@zc-rewrite | zfs receive -u tank/vm.zc-new"


class WritesSeenHost(DemoHost):
    """The demo host, noting for every command whether the runner ran it inside
    `hosts.base.writes()` (a host never retries those on its own)."""

    def __init__(self, *a: object, **k: object) -> None:
        super().__init__(*a, **k)  # type: ignore[arg-type]
        self.seen: list[tuple[tuple[str, ...], bool]] = []

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
            check: bool = True, stdin: str | None = None) -> Result:
        self.seen.append((tuple(argv), writing()))
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def test_a_write_runs_marked_as_one_and_the_reads_around_it_do_not(tmp_path: Path) -> None:
    clock = SimClock()
    host = WritesSeenHost("grow", "2.3", clock)
    res = runner(host, attach_plan(host), tmp_path, clock).run(Events())
    assert res.status == "done", res
    marked = [argv for argv, w in host.seen if w]
    assert marked == [("zpool", "attach", "tank", OLD0, BYID + NEW0)]
    assert any(argv[:2] == ("zpool", "status") and not w for argv, w in host.seen)
    assert not writing()  # nothing left marked on this thread
