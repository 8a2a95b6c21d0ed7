"""fix-session as a plan (services/ops/fixit/session.py), run by the engine on the demo
host's slow-session scenario (a drop-in of user@.service runs a script before the user's
manager starts: alice's first login waited 26 s) and frozen-logind (systemd-logind
stopped: pam_systemd gave up after 2 min): the service at fault named, the argv exactly,
the removal with its backup and its undo byte for byte, the re-check before the removal, the
rollback when the proof fails, the restart and its proof, and what is never done (dbus-daemon
restarted, pam_systemd removed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_fixit_boot_plan import Rig  # the demo host, its clock, one audit/store
from tests.verdicts import assert_verdict
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.slow_session import DROPIN, DROPIN_TEXT
from zconsole.hosts.demo.tools import session as demo_session
from zconsole.model.finding import Severity
from zconsole.model.plan import StepStatus
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.ops.fixit import session as fix
from zconsole.services.read.fixit import read_ssh

T0 = 1795302000.0
PID = "0123456789abcdef0123456789abcdef"
BACKUP = "/var/backups/zconsole-0123456789ab-50-home-share.conf"


# ------------------------------------------------------------------- the slow user manager


def test_the_slow_manager_is_named_with_its_drop_in(tmp_path: Path) -> None:
    d = diagnose_ssh(read_ssh(Rig(tmp_path, "slow-session").host))
    assert d.verdict.kind == "ssh-user-manager" and d.verdict.severity is Severity.WARNING
    assert d.verdict.message == (
        "The first login of alice waits 26 s for user@1000.service (the user's systemd "
        f"manager): the drop-in {DROPIN}:3 runs `ExecStartPre=/usr/local/sbin/wait-for-share "
        "--timeout 25`")
    assert [(f.title, f.plan) for f in d.fixes] == [
        (f"Remove the drop-in {DROPIN}", "fix-session"),
        ("Keep alice's manager running: `loginctl enable-linger alice`", ""),
        ("Drop pam_systemd from the SSH session (explained, not done)", "")]
    assert "no logind session: no XDG_RUNTIME_DIR" in d.fixes[-1].cost
    # the packages' own drop-in (10-login-barrier.conf) is never named
    assert "10-login-barrier" not in " ".join(d.verdict.evidence)


def test_remove_the_drop_in_argv_exactly_then_undo_byte_for_byte(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "slow-session")
    before = rig.files()
    plan = fix.plan_for(rig.host, plan_id=PID)
    assert not plan.blocked, plan.checks
    assert plan.argv_list() == [("cp", "-a", DROPIN, BACKUP), ("rm", "-f", DROPIN),
                                ("systemctl", "daemon-reload")]
    remove = plan.steps[1]
    assert remove.confirmation is not None
    assert remove.confirmation.expected == "remove the drop-in"
    assert [(p.kind, dict(p.params).get("line")) for p in remove.prechecks] == [
        ("file_line", "3"), ("file_sha256", None)]
    assert any("Not done from here: dropping pam_systemd" in x for x in plan.preview)
    run = rig.run(plan)
    assert run.applied, run.result.message
    assert DROPIN not in rig.host.machine.files
    assert rig.host.machine.files[BACKUP] == DROPIN_TEXT
    intents = [r for r in rig.records() if r["event"] == "command-intent"]
    assert [r["argv"] for r in intents] == [["cp", "-a", DROPIN, BACKUP], ["rm", "-f", DROPIN],
                                            ["systemctl", "daemon-reload"]]
    assert [p.id for p in fix.applied_fixes(rig.store, rig.host.label)] == [PID]
    # the panel: the wait stays in the journal until the next first login, which tells
    d = diagnose_ssh(read_ssh(rig.host))
    assert d.verdict.kind == "ssh-user-manager"
    assert "no drop-in acts at its start now" in " ".join(d.verdict.evidence)
    assert not any(f.plan for f in d.fixes)  # nothing more to apply
    again = fix.plan_for(rig.host)
    assert again.blocked and "no drop-in of user@1000.service acts at its start now" in \
        again.checks[0].detail
    rig.system.journal += sysr.login(rig.clock.t + 5, 2400, 10, user="alice", uid=1000,
                                     addr="192.168.10.31", manager=0.9)
    rig.clock.t += 30
    d = diagnose_ssh(read_ssh(rig.host))
    assert d.verdict.severity is Severity.OK, d.verdict
    assert any(f.message.startswith("Earlier, the first login of alice waited 26 s for "
                                    "user@1000.service; a later one started it in 0.9 s")
               for f in d.findings)

    undo = fix.undo_plan(plan, now=rig.clock.t)
    assert undo.argv_list() == [("cp", "-a", BACKUP, DROPIN), ("systemctl", "daemon-reload")]
    assert rig.runner(undo).run(lambda _e: None).done
    assert rig.files() == {**before, BACKUP: DROPIN_TEXT}  # the drop-in byte for byte
    assert fix.applied_fixes(rig.store, rig.host.label) == []


def test_a_drop_in_changed_since_the_read_is_not_removed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "slow-session")
    plan = fix.plan_for(rig.host, plan_id=PID)
    rig.host.machine.files[DROPIN] = DROPIN_TEXT.replace("--timeout 25", "--timeout 5")
    run = rig.run(plan)
    assert not run.applied and run.rollback is None
    failed = run.result.outcomes[1]
    assert failed.step_id == "remove" and failed.status is StepStatus.FAILED
    assert "still reads" in failed.message
    assert DROPIN in rig.host.machine.files  # the copy was made; the drop-in stays


def test_a_removal_that_does_not_prove_is_rolled_back(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """systemd still lists the drop-in after the reload (simulated: another copy of it in a
    directory the plan does not know): the copy goes back, systemd reloads."""
    real = demo_session.user_unit_cat

    def still(ctx, unit):  # type: ignore[no-untyped-def]
        return real(ctx, unit) + f"\n# {DROPIN}\n{DROPIN_TEXT}"

    monkeypatch.setattr(demo_session, "user_unit_cat", still)
    rig = Rig(tmp_path, "slow-session")
    plan = fix.plan_for(rig.host, plan_id=PID)
    run = rig.run(plan)
    assert not run.applied
    assert run.rollback is not None and run.rollback_result is not None
    assert run.rollback_result.done, run.rollback_result.message
    assert run.rollback.argv_list() == [("cp", "-a", BACKUP, DROPIN),
                                        ("systemctl", "daemon-reload")]
    assert rig.host.machine.files[DROPIN] == DROPIN_TEXT
    assert "rolled back" in run.result.message
    assert fix.applied_fixes(rig.store, rig.host.label) == []


def test_a_drop_in_of_the_packages_is_not_removed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "slow-session")
    text = rig.host.machine.files.pop(DROPIN)
    monkey = demo_session.BARRIER.replace("After=systemd-user-sessions.service",
                                          text.split("\n", 1)[1].strip())
    real = demo_session.BARRIER
    try:
        demo_session.BARRIER = monkey
        d = diagnose_ssh(read_ssh(rig.host))
        plan = fix.plan_for(rig.host)
    finally:
        demo_session.BARRIER = real
    assert not any(f.plan for f in d.fixes)
    assert plan.blocked and "only the packages' drop-ins act at its start" in \
        plan.checks[0].detail


# --------------------------------------------------------------------------- frozen logind


def test_a_frozen_logind_is_named_and_restarted(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "frozen-logind")
    d = diagnose_ssh(read_ssh(rig.host))
    assert_verdict(d, "ssh-logind", "Logins wait 121 s for systemd-logind, which did not "
                   "answer (pam_systemd: Connection timed out)",
                   "ps: systemd-logind pid 428 state Ts (stopped",
                   "now: loginctl list-sessions failed after 25 s",
                   severity=Severity.WARNING)
    assert [(f.title, f.plan) for f in d.fixes] == [
        ("Restart systemd-logind", "fix-session"),
        ("Drop pam_systemd from the SSH session (last resort: explained, not done)", "")]
    plan = fix.plan_for(rig.host, plan_id=PID)
    assert plan.argv_list() == [("systemctl", "restart", "systemd-logind.service")]
    assert plan.steps[0].confirmation is not None
    assert plan.steps[0].confirmation.expected == "restart logind"
    assert any("There is no undo" in x for x in plan.preview)
    run = rig.run(plan)
    assert run.applied, run.result.message
    proved = [r for r in rig.records() if r["event"] == "checks" and r["step_id"] == "prove"]
    assert proved[-1]["results"][0]["detail"] == \
        "logind answered loginctl list-sessions in 0.1 s"
    assert rig.system.daemons["systemd-logind"][1] == "Ss"
    assert fix.applied_fixes(rig.store, rig.host.label) == []  # nothing to undo
    d = diagnose_ssh(read_ssh(rig.host))
    assert d.verdict.severity is Severity.OK, d.verdict
    assert any("it answers now (the next login will tell)" in f.message for f in d.findings)


def test_a_logind_that_answers_at_the_re_check_is_not_restarted(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "frozen-logind")
    plan = fix.plan_for(rig.host, plan_id=PID)
    rig.system.daemons["systemd-logind"] = (428, "Ss")  # its watchdog restarted it meanwhile
    run = rig.run(plan)
    assert not run.applied and rig.system.logind_restarts == 0
    assert "logind answered loginctl list-sessions" in run.result.outcomes[0].message
    assert [r for r in rig.records() if r["event"] == "command"] == []


def test_a_frozen_dbus_is_named_and_never_restarted(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "frozen-logind")
    rig.system.daemons = {"dbus-daemon": (424, "Ss"), "systemd-logind": (428, "Ss")}
    rig.system.journal = [
        e if "Failed to create session" not in e.message else
        type(e)(e.at, e.unit, e.ident, e.pid, "pam_systemd(sshd:session): Failed to create "
                "session: Transport endpoint is not connected")
        for e in rig.system.journal]
    rig.system.daemons["dbus-daemon"] = (424, "Ts")
    d = diagnose_ssh(read_ssh(rig.host))
    assert d.verdict.message.startswith("Logins wait 121 s for the system bus (dbus-daemon), "
                                        "which did not answer")
    assert not any(f.plan for f in d.fixes)
    assert "disconnects logind, networkd" in d.fixes[0].cost
    plan = fix.plan_for(rig.host)
    assert plan.blocked and "zconsole does not restart it" in plan.checks[0].detail
