"""fix-ssh as a plan (services/ops/fixit/ssh.py): the argv exactly, the refusal by `sshd -t`
(restored, nothing applied), the rollback when the fresh login is slow, the undo byte for
byte; run by the engine on the demo host's slow-ssh scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.machine.system import Lookup
from zconsole.hosts.demo.tools import system as demo_system
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.fixit import ConfigLine, SshdSources
from zconsole.model.plan import Plan, Predicate, StepStatus
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.ops.engine.predicates import Evaluator
from zconsole.services.ops.engine.runner import CheckResult, PlanRunner, RunEvent, RunFailed
from zconsole.services.ops.fixit import ssh as fix
from zconsole.services.read.fixit import read_ssh

T0 = 1795302000.0
DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"
PID = "0123456789abcdef0123456789abcdef"
BACKUP = "/var/backups/zconsole-0123456789ab-50-hardening.conf"


def setup(tmp_path: Path) -> tuple[DemoHost, Clock, PlanStore, AuditLog]:
    c = Clock(T0)
    return (DemoHost("slow-ssh", "2.3", c), c, PlanStore(tmp_path / "plans"),
            AuditLog(tmp_path / "audit.jsonl"))


def make(host: DemoHost, c: Clock, store: PlanStore, audit: AuditLog):  # type: ignore[no-untyped-def]
    def runner(plan: Plan) -> PlanRunner:
        return PlanRunner(host, plan, audit=audit, store=store, operator="alice", clock=c,
                          sleep=c.sleep, postcheck_attempts=1, postcheck_delay=0.0)
    return runner


def events() -> tuple[list[RunEvent], object]:
    seen: list[RunEvent] = []
    return seen, seen.append


def records(audit: AuditLog) -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(audit.path).read_text().splitlines()]


def test_remove_line_plan_argv_exactly(tmp_path: Path) -> None:
    host, _, _, _ = setup(tmp_path)
    plan = fix.plan_for(host, plan_id=PID)
    assert not plan.blocked
    assert plan.argv_list() == [
        ("cp", "-a", DROPIN, BACKUP),
        ("sed", "-i", "-e", "3{/^UseDNS yes$/d;}", DROPIN),
        ("/usr/sbin/sshd", "-t"),
        ("systemctl", "reload", "ssh"),
    ]
    assert [s.id for s in plan.steps] == ["backup", "write", "validate", "prove", "reload",
                                          "verify"]
    assert [c.writes for c in plan.commands()] == [True, True, False, True]
    write = plan.steps[1]
    assert write.confirmation is not None and write.confirmation.expected == "UseDNS no"
    assert [p.kind for p in write.prechecks] == ["not_symlink", "file_line", "file_sha256"]
    assert dict(write.prechecks[1].params)["text"] == "UseDNS yes"


def test_drop_in_when_the_value_is_in_the_main_file() -> None:
    src = SshdSources((ConfigLine("/etc/ssh/sshd_config", 30, "usedns", "yes"),),
                      ("/etc/ssh/sshd_config",))
    plan = fix.build_fix_ssh("h", "yes", src, {"/etc/ssh/sshd_config": "x\n"}, plan_id=PID)
    assert plan.argv_list() == [
        ("printf", "%s\\n", fix.DROPIN_LINES[0], "UseDNS no"),
        ("/usr/sbin/sshd", "-t"),
        ("systemctl", "reload", "ssh"),
    ]
    assert plan.steps[0].command is not None
    assert plan.steps[0].command.then == (("tee", fix.DROPIN),)
    # the drop-in exists already: never overwritten
    taken = fix.build_fix_ssh("h", "yes", src, {fix.DROPIN: "UseDNS yes\n"}, plan_id=PID)
    assert taken.blocked


def test_a_later_yes_makes_it_a_drop_in() -> None:
    src = SshdSources((ConfigLine(DROPIN, 3, "usedns", "yes"),
                       ConfigLine("/etc/ssh/sshd_config", 40, "usedns", "yes")))
    t = fix.choose(src, {DROPIN: "a\nb\nUseDNS yes\n"})
    assert t.mode == "drop-in"


def test_nothing_to_fix_is_blocked() -> None:
    assert fix.build_fix_ssh("h", "no", None, {}).blocked
    assert fix.build_fix_ssh("h", None, None, {}).blocked  # not root: unknown


def test_fix_then_undo_on_the_demo(tmp_path: Path) -> None:
    host, c, store, audit = setup(tmp_path)
    before = host.machine.files[DROPIN]
    plan = fix.plan_for(host, plan_id=PID)
    seen, on = events()
    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert run.applied and run.rollback is None, run.result.message
    assert "UseDNS" not in host.machine.files[DROPIN]
    assert host.machine.files[BACKUP] == before
    assert fix.read_usedns(host) == "no"
    assert [p.id for p in fix.applied_fixes(store, host.label)] == [PID]
    kinds = [(r.get("event"), r.get("argv")) for r in records(audit)]
    assert ("command-intent", ["sed", "-i", "-e", "3{/^UseDNS yes$/d;}", DROPIN]) in kinds
    # the diagnosis no longer blames UseDNS
    c.t += 60
    diag = diagnose_ssh(read_ssh(host, "192.168.10.31"))
    assert all(f.kind != "ssh-usedns" for f in (diag.verdict, *diag.findings))

    undo = fix.undo_plan(plan)
    assert undo.argv_list() == [("cp", "-a", BACKUP, DROPIN), ("/usr/sbin/sshd", "-t"),
                                ("systemctl", "reload", "ssh")]
    result = make(host, c, store, audit)(undo).run(on)
    assert result.done, result.message
    assert host.machine.files[DROPIN] == before  # byte for byte
    assert fix.read_usedns(host) == "yes"
    assert fix.applied_fixes(store, host.label) == []


def test_sshd_t_refuses_the_change_restore_and_nothing_applied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A drop-in that would not validate (simulated: zconsole's text gets a bad line): sshd
    -t refuses it, the rollback removes it, sshd never reloads."""
    host, c, store, audit = setup(tmp_path)
    host.machine.files[DROPIN] = "MaxAuthTries 3\n"
    host.machine.files["/etc/ssh/sshd_config"] += "UseDNS yes\n"
    before = dict(host.machine.files)
    monkeypatch.setattr(fix, "DROPIN_LINES", ("Bogus yes", "UseDNS no"))
    plan = fix.plan_for(host, plan_id=PID)
    assert dict(plan.params)["mode"] == "drop-in"
    seen, on = events()
    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert not run.applied
    failed = run.result.outcomes[1]
    assert failed.step_id == "validate" and failed.status is StepStatus.FAILED
    assert "Bad configuration option: Bogus" in failed.stderr
    assert run.rollback is not None and run.rollback_result is not None
    assert run.rollback_result.done, run.rollback_result.message
    assert run.rollback.argv_list() == [("rm", "-f", fix.DROPIN), ("/usr/sbin/sshd", "-t")]
    assert "rolled back" in run.result.message and "Nothing stays applied" in run.result.message
    etc = {k: v for k, v in host.machine.files.items() if not k.startswith("/run/")}
    assert etc == before  # (the engine's lock owner file in /run aside)
    assert [r for r in records(audit) if r.get("argv") == ["systemctl", "reload", "ssh"]] == []
    assert fix.applied_fixes(store, host.label) == []
    assert store.in_flight() == []
    last = seen[-1]
    assert isinstance(last, RunFailed) and "rolled back" in last.message


def test_a_file_broken_before_the_fix_refuses_it_before_any_change(tmp_path: Path) -> None:
    """Another drop-in was broken after sshd's last reload (the running sshd is fine, `sshd
    -t` is not): the fix is refused by sshd -t before anything is written (no backup, no
    sed, no reload, no rollback to run); a plan built now is blocked saying so."""
    host, c, store, audit = setup(tmp_path)
    plan = fix.plan_for(host, plan_id=PID)
    assert not plan.blocked
    host.machine.files["/etc/ssh/sshd_config.d/60-broken.conf"] = "Bogus yes\n"
    before = {k: v for k, v in host.machine.files.items() if not k.startswith("/run/")}
    seen, on = events()
    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert not run.applied and run.rollback is None
    first = run.result.outcomes[0]
    assert first.step_id == "backup" and first.status is StepStatus.FAILED
    assert "refused by sshd -t (exit 255: /etc/ssh/sshd_config.d/60-broken.conf: line 1: " \
           "Bad configuration option: Bogus" in first.message, first.message
    assert {k: v for k, v in host.machine.files.items() if not k.startswith("/run/")} == before
    recs = records(audit)
    assert [r for r in recs if r["event"] in ("command", "command-intent")] == []
    pre = [r for r in recs if r["event"] == "checks" and r["phase"] == "pre"][0]
    assert pre["results"][0]["kind"] == "sshd_valid" and not pre["results"][0]["ok"]
    assert "refused by sshd -t" in pre["results"][0]["detail"]
    assert fix.applied_fixes(store, host.label) == []

    again = fix.plan_for(host, plan_id=PID)
    assert again.blocked
    why = [ch.detail for ch in again.checks if ch.blocking]
    assert len(why) == 1 and why[0].startswith(
        "refused by sshd -t before any change (exit 255: /etc/ssh/sshd_config.d/"
        "60-broken.conf: line 1: Bad configuration option: Bogus"), why


def test_a_rollback_that_cannot_validate_says_so(tmp_path: Path) -> None:
    """Another file is broken while the fix runs (after its write): the fix is refused and
    the rollback's own sshd -t fails too; the file is restored all the same and both plans
    stay to be looked at."""
    from zconsole.services.ops.engine.events import CommandFinished

    host, c, store, audit = setup(tmp_path)
    before = host.machine.files[DROPIN]
    plan = fix.plan_for(host, plan_id=PID)
    seen: list[RunEvent] = []

    def on(e: RunEvent) -> None:
        seen.append(e)
        if isinstance(e, CommandFinished) and e.step_id == "write":
            host.machine.files["/etc/ssh/sshd_config.d/60-broken.conf"] = "Bogus yes\n"

    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert run.result.outcomes[2].step_id == "validate"
    assert run.rollback is not None and run.rollback_result is not None
    assert run.rollback.argv_list() == [("cp", "-a", BACKUP, DROPIN), ("/usr/sbin/sshd", "-t")]
    assert not run.rollback_result.done
    assert "THE ROLLBACK STOPPED" in run.result.message
    assert host.machine.files[DROPIN] == before
    assert {p["kind"] for p, _ in store.in_flight()} == {fix.KIND, fix.ROLLBACK_KIND}


def test_slow_verify_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix is proven in the files (usedns no) but a fresh login stays slow (here: the
    reload does not take): the rollback puts the file back and reloads."""
    host, c, store, audit = setup(tmp_path)
    before = host.machine.files[DROPIN]
    plan = fix.plan_for(host, plan_id=PID)
    assert host.machine.system is not None
    host.machine.system.dns_delay = 30.0
    real = demo_system._reload_ssh

    def stuck(ctx, s):  # type: ignore[no-untyped-def]
        out = real(ctx, s)
        s.running_usedns = "yes"
        return out

    monkeypatch.setattr(demo_system, "_reload_ssh", stuck)
    seen, on = events()
    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert not run.applied
    assert run.result.outcomes[-1].step_id == "verify"
    said = run.result.outcomes[-1].message
    assert "the host does not show the expected end state" in said and "ZFS" not in said
    assert "from 192.168.10.20: logged in in 30.3 s (more than 5 s, and one from " \
           "localhost, which needs no name lookup, took 0.3 s)" in said
    assert run.rollback is not None and run.rollback_result is not None
    assert run.rollback_result.done, run.rollback_result.message
    assert run.rollback.argv_list() == [("cp", "-a", BACKUP, DROPIN), ("/usr/sbin/sshd", "-t"),
                                        ("systemctl", "reload", "ssh")]
    assert host.machine.files[DROPIN] == before
    assert fix.read_usedns(host) == "yes"
    assert fix.applied_fixes(store, host.label) == []
    assert store.in_flight() == []


def test_drop_in_fix_then_undo_on_the_demo(tmp_path: Path) -> None:
    """UseDNS yes in the main file: the drop-in is written (printf | tee), wins, and the
    undo removes it."""
    host, c, store, audit = setup(tmp_path)
    host.machine.files[DROPIN] = "MaxAuthTries 3\n"
    host.machine.files["/etc/ssh/sshd_config"] += "UseDNS yes\n"
    plan = fix.plan_for(host, plan_id=PID)
    seen, on = events()
    run = fix.run_fix(plan, make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert run.applied, run.result.message
    assert host.machine.files[fix.DROPIN] == "".join(f"{x}\n" for x in fix.DROPIN_LINES)
    assert fix.read_usedns(host) == "no"
    undo = fix.undo_plan(plan)
    assert undo.argv_list() == [("rm", "-f", fix.DROPIN), ("/usr/sbin/sshd", "-t"),
                                ("systemctl", "reload", "ssh")]
    assert make(host, c, store, audit)(undo).run(on).done
    assert fix.DROPIN not in host.machine.files
    assert fix.read_usedns(host) == "yes"


def test_a_host_slow_as_a_whole_proves_the_fix_against_localhost(tmp_path: Path) -> None:
    """A loaded VM takes 5.5 s for any login (CI's guest did): the login from the host's own
    address is judged against one from localhost, which needs no lookup, in the same round;
    a fix that did not take still fails when the lookup's wait is on top."""
    host, c, store, audit = setup(tmp_path)
    assert host.machine.system is not None
    host.machine.system.login_base = 5.5
    seen, on = events()
    run = fix.run_fix(fix.plan_for(host, plan_id=PID), make(host, c, store, audit), on)  # type: ignore[arg-type]
    assert run.applied, run.result.message
    verify = [e for e in seen if isinstance(e, CheckResult) and e.step_id == "verify"]
    assert [e.ok for e in verify] == [True]
    assert "from 192.168.10.20: logged in in 5.5 s, as fast as one from localhost (5.5 s)" \
        in verify[0].detail
    logins = [e.message for e in host.machine.system.journal if "Accepted" in e.message]
    assert any("from 192.168.10.20 " in m for m in logins[-2:])
    assert any("from 127.0.0.1 " in m for m in logins[-2:])


def test_login_fast_without_a_resolver_free_baseline_keeps_the_limit(tmp_path: Path) -> None:
    """When NSS asks a resolver before /etc/hosts, a login from localhost proves nothing
    about the lookup: only the limit counts. How long getent itself takes does not decide it
    (a loaded guest took over 0.5 s to run it: CI, stop 25)."""
    host, _c, _store, _audit = setup(tmp_path)
    assert host.machine.system is not None
    host.machine.system.login_base = 5.5
    host.machine.system.running_usedns = "no"
    host.machine.system.lookups["hosts 127.0.0.1"] = Lookup("127.0.0.1 localhost\n", 0, 2.0)
    p = Predicate("login_fast", (("seconds", "5"),), "fast")
    first = Evaluator(host).check(p)
    assert first.ok and "as fast as one from localhost" in first.detail, first.detail
    host.machine.files["/etc/nsswitch.conf"] = "hosts:   dns files  # resolver first\n"
    out = Evaluator(host).check(p)
    assert not out.ok and out.detail.endswith("logged in in 5.5 s (more than 5 s)")


@pytest.mark.parametrize(("text", "first"), [
    ("hosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname\n", "files"),
    ("# hosts: files\nhosts: dns files\n", "dns"), ("passwd: files\n", None),
    ("hosts:\n", None)])
def test_the_first_source_of_the_hosts_line(text: str, first: str | None) -> None:
    from zconsole.services.ops.fixit.predicates import nss_hosts_first

    assert nss_hosts_first(text) == first
