"""fix-ssh-auth as a plan (services/ops/fixit/ssh_auth.py): the drop-in exactly (a global
`Method no` and, for a Match block that switches the method on, the same Match line with
`Method no`), the values proven for every client and for a client of the Match block, the
undo removing the drop-in and proving the value as before; what blocks it; run by the engine
on the demo host (whose `sshd -T` follows the files: the first value wins, globally and
among the Match blocks a `-C` client matches)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.tools import system as demo_system
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.fixit import match_criteria
from zconsole.model.plan import Plan
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.ops.engine.runner import PlanRunner
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit import ssh_auth as fix
from zconsole.services.read.fixit import read_ssh

T0 = 1795302000.0
PID = "0123456789abcdef0123456789abcdef"
RECIPE = "/etc/ssh/sshd_config.d/40-zc-auth.conf"
MATCH = "Match Address 10.0.2.0/24"
# the host guest's sshd-auth-methods recipe (tests/integration/hostvm/faults.py), on the demo
MAIN_TAIL = f"{MATCH}\n    HostbasedAuthentication yes\nKerberosAuthentication yes\n"
GUEST = "user=root,addr=10.0.2.2,host=10.0.2.2"
ELSEWHERE = "user=root,addr=192.168.10.20,host=192.168.10.20"


def setup(tmp_path: Path) -> tuple[DemoHost, Clock, PlanStore, AuditLog]:
    c = Clock(T0)
    host = DemoHost("slow-ssh", "2.3", c)
    host.machine.files[RECIPE] = "GSSAPIAuthentication yes\n"
    host.machine.files["/etc/ssh/sshd_config"] += MAIN_TAIL
    return host, c, PlanStore(tmp_path / "plans"), AuditLog(tmp_path / "audit.jsonl")


def runner(host: DemoHost, c: Clock, store: PlanStore, audit: AuditLog):  # type: ignore[no-untyped-def]
    def make(plan: Plan) -> PlanRunner:
        return PlanRunner(host, plan, audit=audit, store=store, operator="alice", clock=c,
                          sleep=c.sleep, postcheck_attempts=1, postcheck_delay=0.0)
    return make


def effective(host: DemoHost, connection: str | None = None) -> dict[str, str]:
    argv = ["/usr/sbin/sshd", "-T", *(["-C", connection] if connection else [])]
    out = host.run(argv).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def test_the_demo_sshd_follows_the_files_and_match_blocks(tmp_path: Path) -> None:
    host, *_ = setup(tmp_path)
    every, guest, other = effective(host), effective(host, GUEST), effective(host, ELSEWHERE)
    assert every["gssapiauthentication"] == "yes"
    assert every["hostbasedauthentication"] == "no" and every["kerberosauthentication"] == "no"
    # Kerberos stands after the Match line: it belongs to the block
    assert guest["hostbasedauthentication"] == "yes" and guest["kerberosauthentication"] == "yes"
    assert other["hostbasedauthentication"] == "no"


@pytest.mark.parametrize("match,spec", [
    ("Match Address 10.0.2.0/24", "user=root,host=10.0.2.1,addr=10.0.2.1"),
    ("Match Address 192.168.1.7", "user=root,host=192.168.1.7,addr=192.168.1.7"),
    ("Match Address 10.1.*", "user=root,host=10.1.1.1,addr=10.1.1.1"),
    ("Match User backup Address !10.9.9.9,10.0.0.0/8",
     "user=backup,host=10.0.0.1,addr=10.0.0.1"),
    ("Match User alice", "user=alice,host=127.0.0.1,addr=127.0.0.1"),
    ("Match All", "user=root,host=127.0.0.1,addr=127.0.0.1"),
    ("Match Group admins", None),  # membership: not something a -C spec can stand for
    ("Match User !root", None),
    ("Match User ad*", None),
    ("Match User backup Address", None),  # a criterion without its value: sshd refuses it
])
def test_a_client_each_match_block_applies_to(match: str, spec: str | None) -> None:
    assert fix.client_for(match) == spec


@pytest.mark.parametrize("match,criteria", [
    ("Match All", ()),
    ("match USER backup address !10.9.9.9,10.0.0.0/8",
     (("user", "backup"), ("address", "!10.9.9.9,10.0.0.0/8"))),
    ("Match All User alice", (("user", "alice"),)),
    ("Match User backup Address", None),
])
def test_a_match_line_read_as_its_criteria(match: str,
                                           criteria: tuple[tuple[str, str], ...] | None) -> None:
    """One reading of a Match line for the fix (client_for) and the demo's sshd (match_applies)."""
    assert match_criteria(match) == criteria


def test_the_demo_sshd_applies_no_block_whose_line_it_cannot_read() -> None:
    spec = {"user": "backup", "host": "10.0.0.1", "addr": "10.0.0.1"}
    assert demo_system.match_applies("Match User backup Address 10.0.0.0/8", spec)
    assert not demo_system.match_applies("Match User backup Address", spec)
    assert not demo_system.match_applies("Match Group admins", spec)


def test_a_client_spec_matches_its_block_on_the_demo() -> None:
    """What client_for stands for, the demo's Match evaluation (as sshd's) applies to."""
    for match in ("Match Address 10.0.2.0/24", "Match Address 10.1.*", "Match All",
                  "Match User backup Address !10.9.9.9,10.0.0.0/8"):
        spec = fix.client_for(match)
        assert spec is not None
        assert demo_system.match_applies(match, dict(p.split("=") for p in spec.split(",")))


def test_global_method_drop_in_argv_exactly(tmp_path: Path) -> None:
    host, *_ = setup(tmp_path)
    plan = fix.plan_for(host, plan_id=PID)
    assert dict(plan.params)["method"] == "gssapiauthentication"  # the panel's order
    assert not plan.blocked, plan.checks
    file = "/etc/ssh/sshd_config.d/00-zconsole-gssapiauthentication.conf"
    assert plan.argv_list() == [
        ("printf", "%s\\n", "# zconsole fix-ssh-auth: GSSAPIAuthentication off (read first: "
         "the first value wins, in each Match block too)", "GSSAPIAuthentication no"),
        ("/usr/sbin/sshd", "-t"), ("systemctl", "reload", "ssh")]
    assert plan.steps[0].command is not None and plan.steps[0].command.then == (("tee", file),)
    assert plan.preview[0] == f"GSSAPIAuthentication yes is set for every client ({RECIPE}:1)."
    assert "Kerberos single sign-on (GSSAPI) logins to this host stop working" in \
        plan.preview[2]
    assert plan.steps[0].confirmation is not None
    assert plan.steps[0].confirmation.expected == "GSSAPIAuthentication no"


def test_match_block_method_repeats_the_match_line(tmp_path: Path) -> None:
    host, *_ = setup(tmp_path)
    plan = fix.plan_for(host, "hostbasedauthentication", plan_id=PID)
    assert not plan.blocked, plan.checks
    assert plan.argv_list()[0][2:] == (
        "# zconsole fix-ssh-auth: HostbasedAuthentication off (read first: the first value "
        "wins, in each Match block too)", "HostbasedAuthentication no", MATCH,
        "    HostbasedAuthentication no")
    proves = [s for s in plan.steps if s.id.startswith("prove")]
    assert [dict(s.postchecks[0].params) for s in proves] == [
        {"key": "hostbasedauthentication", "value": "no"},
        {"key": "hostbasedauthentication", "value": "no",
         "connection": "user=root,host=10.0.2.1,addr=10.0.2.1"}]
    assert plan.preview[0] == ("HostbasedAuthentication yes is set for the clients "
                               f"`{MATCH}` matches (/etc/ssh/sshd_config:124).")


def test_fix_then_undo_on_the_demo(tmp_path: Path) -> None:
    """Kerberos (in the Match block only): applied, it is no for the guest's client and for
    every client; sshd -T proved it for the block's client; undone, the drop-in goes and the
    guest's client has it on again."""
    host, c, store, audit = setup(tmp_path)
    make = runner(host, c, store, audit)
    plan = fix.plan_for(host, "kerberosauthentication", plan_id=PID)
    run = common.run_fix(plan, make, lambda _e: None)
    assert run.applied, run.result.message
    file = fix.dropin("kerberosauthentication")
    assert host.machine.files[file] == "".join(
        f"{x}\n" for x in fix.dropin_lines("kerberosauthentication", [MATCH]))
    assert effective(host, GUEST)["kerberosauthentication"] == "no"
    assert effective(host)["kerberosauthentication"] == "no"
    assert effective(host, GUEST)["hostbasedauthentication"] == "yes"  # only the one method
    assert [p.kind for p in fix.applied_fixes(store, str(host.label))] == [fix.KIND]
    # the SSH panel no longer names it for the guest's client
    d = diagnose_ssh(read_ssh(host, "10.0.2.2"))
    said = [f.message for f in d.findings if f.kind == "ssh-auth-method"]
    assert not any(m.startswith("KerberosAuthentication") for m in said), said
    assert any(m.startswith("HostbasedAuthentication yes for this client") for m in said)
    undo = fix.undo_plan(plan)
    assert undo.argv_list() == [("rm", "-f", file), ("/usr/sbin/sshd", "-t"),
                                ("systemctl", "reload", "ssh")]
    assert make(undo).run(lambda _e: None).done
    assert file not in host.machine.files
    assert effective(host, GUEST)["kerberosauthentication"] == "yes"
    assert fix.applied_fixes(store, str(host.label)) == []


def test_a_value_that_does_not_hold_is_rolled_back(tmp_path: Path) -> None:
    """A drop-in that does not win (here: the demo's Include gone from the top, as on a host
    whose sshd_config reads drop-ins last): the proof for the Match block's client fails, the
    drop-in goes again, nothing stays applied."""
    host, c, store, audit = setup(tmp_path)
    plan = fix.plan_for(host, "hostbasedauthentication", plan_id=PID)
    real = demo_system.configured

    def late(ctx, spec=None):  # type: ignore[no-untyped-def]
        got = real(ctx, spec)
        if spec is not None and demo_system.match_applies(MATCH, spec):
            got["hostbasedauthentication"] = "yes"  # the main file's block read first
        return got

    demo_system.configured = late  # type: ignore[assignment]
    try:
        run = common.run_fix(plan, runner(host, c, store, audit), lambda _e: None)
    finally:
        demo_system.configured = real  # type: ignore[assignment]
    assert not run.applied
    assert run.rollback_result is not None and run.rollback_result.done, run
    assert "sshd -T -C user=root,host=10.0.2.1,addr=10.0.2.1 shows " \
           "`hostbasedauthentication yes`" in run.result.message
    assert fix.dropin("hostbasedauthentication") not in host.machine.files


def test_what_blocks_it(tmp_path: Path) -> None:
    host, *_ = setup(tmp_path)
    file = fix.dropin("gssapiauthentication")
    host.machine.files[file] = "# someone's\n"
    taken = fix.plan_for(host, "gssapiauthentication")
    assert taken.blocked and "exists already" in taken.checks[-1].detail
    nothing = fix.plan_for(DemoHost("slow-ssh", "2.3", Clock(T0)), "gssapiauthentication")
    assert nothing.blocked
    assert nothing.checks[-1].detail.startswith("sshd -T shows gssapiauthentication no and "
                                                "no Match block sets it yes")
    assert fix.plan_for(DemoHost("slow-ssh", "2.3", Clock(T0))).blocked  # none on at all
    user = DemoHost("slow-ssh", "2.3", Clock(T0), root=False)
    assert "needs root" in fix.plan_for(user).checks[-1].detail


def test_the_panel_offers_the_fix_for_each_method_on(tmp_path: Path) -> None:
    host, *_ = setup(tmp_path)
    d = diagnose_ssh(read_ssh(host, "10.0.2.2"))
    auth = [f for f in d.fixes if f.plan == "fix-ssh-auth"]
    assert [f.title for f in auth] == ["Switch GSSAPIAuthentication off",
                                       "Switch KerberosAuthentication off",
                                       "Switch HostbasedAuthentication off"]
    assert f"`{MATCH}`" in auth[2].change and "00-zconsole-hostbasedauthentication.conf" in \
        auth[2].change


# ------------------------------------------------- issue 26, item 9: no group locked out

def test_a_method_a_match_block_requires_is_refused_naming_who() -> None:
    """The demo's ssh-auth-lockout: KbdInteractiveAuthentication no for everyone, and
    `Match Group ops` requires keyboard-interactive after the key. `sshd -t` would pass and
    every member of ops be locked out: the plan is blocked, naming the group, the file:line
    of the AuthenticationMethods line, and the users the journal shows logging in with it."""
    from zconsole.hosts.demo.scenarios import ssh_auth_lockout as scenario

    host = DemoHost(scenario.NAME, "2.3", Clock(T0))
    plan = fix.plan_for(host, plan_id=PID)
    assert dict(plan.params)["method"] == "kbdinteractiveauthentication"
    assert plan.blocked and plan.steps == ()
    said = {c.name: c.detail for c in plan.checks if c.blocking}
    line = host.machine.files["/etc/ssh/sshd_config"].splitlines().index(
        "    AuthenticationMethods publickey,keyboard-interactive") + 1
    assert said["authentication-methods"].startswith(
        "KbdInteractiveAuthentication off would lock out members of group ops: "
        f"/etc/ssh/sshd_config:{line}: `AuthenticationMethods publickey,keyboard-interactive` "
        "inside `Match Group ops` (members of group ops) requires keyboard-interactive")
    assert said["recent-logins"].startswith(
        "KbdInteractiveAuthentication off would lock out alice, bob: the journal of the last "
        "week shows logins with keyboard-interactive: alice (2 logins, last: ")
    assert "Accepted keyboard-interactive/pam for bob from 192.168.10.31" in \
        said["recent-logins"]


@pytest.mark.parametrize(("line", "method"), [
    ("AuthenticationMethods publickey,gssapi-with-mic", "gssapiauthentication"),
    ("AuthenticationMethods publickey,keyboard-interactive:pam password",
     "kbdinteractiveauthentication"),
    ("AuthenticationMethods hostbased publickey", "hostbasedauthentication")])
def test_a_global_authentication_methods_line_blocks_its_method(tmp_path: Path, line: str,
                                                                 method: str) -> None:
    host, *_ = setup(tmp_path)
    host.machine.files[RECIPE] = ("GSSAPIAuthentication yes\nKbdInteractiveAuthentication "
                                  f"yes\nHostbasedAuthentication yes\n{line}\n")
    plan = fix.plan_for(host, method, plan_id=PID)
    assert plan.blocked
    check = next(c for c in plan.checks if c.blocking)
    assert check.name == "authentication-methods"
    assert f"would lock out every user: {RECIPE}:4: `{line}` (every user)" in check.detail
    # a method no line names is not held back by the others
    other = "kerberosauthentication"
    assert not fix.plan_for(host, other, plan_id=PID).blocked


def test_recent_logins_with_the_method_block_it(tmp_path: Path) -> None:
    """No AuthenticationMethods line, but carol logged in with keyboard-interactive
    yesterday (the journal's `Accepted keyboard-interactive/pam`): blocked, naming her."""
    from zconsole.hosts.demo.machine.system import JournalEntry

    host, *_ = setup(tmp_path)
    host.machine.files[RECIPE] = "KbdInteractiveAuthentication yes\n"
    assert host.machine.system is not None
    host.machine.system.journal.append(JournalEntry(
        T0 - 86400, "ssh.service", "sshd", 4242,
        "Accepted keyboard-interactive/pam for carol from 192.168.10.44 port 50000 ssh2"))
    plan = fix.plan_for(host, "kbdinteractiveauthentication", plan_id=PID)
    check = next(c for c in plan.checks if c.blocking)
    assert check.name == "recent-logins"
    assert check.detail.startswith("KbdInteractiveAuthentication off would lock out carol: ")
    assert "sshd[4242]: Accepted keyboard-interactive/pam for carol" in check.detail
    # older than a week: not recent
    host.machine.system.journal[-1] = JournalEntry(
        T0 - 8 * 86400, "ssh.service", "sshd", 4242,
        "Accepted keyboard-interactive/pam for carol from 192.168.10.44 port 50000 ssh2")
    plan = fix.plan_for(host, "kbdinteractiveauthentication", plan_id=PID)
    assert not plan.blocked, plan.checks


def _refuse_logins(monkeypatch: pytest.MonkeyPatch, host: DemoHost, after: str | None) -> None:
    """The demo's `ssh localhost true` refused (`Permission denied`), once `after` exists
    (None: always)."""
    real = demo_system.ssh

    def refused(ctx, argv):  # type: ignore[no-untyped-def]
        if after is None or after in host.machine.files:
            return 255, "", "root@localhost: Permission denied (publickey).\n"
        return real(ctx, argv)

    from zconsole.hosts.demo import tools

    monkeypatch.setitem(tools.PROGRAMS, "ssh", refused)


def test_a_refused_login_after_the_change_is_no_proof(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """sshd answers the fresh login with `Permission denied` once the drop-in is read: that
    is not proof that logins still work. The step fails, the change is rolled back."""
    host, c, store, audit = setup(tmp_path)
    file = fix.dropin("gssapiauthentication")
    _refuse_logins(monkeypatch, host, file)
    plan = fix.plan_for(host, "gssapiauthentication", plan_id=PID)
    assert not plan.blocked, plan.checks
    run = common.run_fix(plan, runner(host, c, store, audit), lambda _e: None)
    assert not run.applied
    assert "a fresh login from localhost was refused after" in run.result.message
    assert "Permission denied (publickey)" in run.result.message
    assert run.rollback_result is not None and run.rollback_result.done
    assert file not in host.machine.files


def test_a_login_refused_before_the_change_stops_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, c, store, audit = setup(tmp_path)
    _refuse_logins(monkeypatch, host, None)
    plan = fix.plan_for(host, "gssapiauthentication", plan_id=PID)
    run = common.run_fix(plan, runner(host, c, store, audit), lambda _e: None)
    assert not run.applied and run.rollback is None
    assert "succeeds before the change" in run.result.message
    assert fix.dropin("gssapiauthentication") not in host.machine.files


def test_the_deprecated_alias_in_a_match_block_is_switched_off_too(tmp_path: Path) -> None:
    """`ChallengeResponseAuthentication yes` (sshd_config(5): a deprecated alias of
    KbdInteractiveAuthentication) in a Match block: the drop-in repeats that Match line with
    `KbdInteractiveAuthentication no`; with `AuthenticationMethods ...keyboard-interactive`
    in the same block the plan is refused instead, naming the block's users."""
    host, *_ = setup(tmp_path)
    host.machine.files[RECIPE] = ""
    host.machine.files["/etc/ssh/sshd_config"] += (
        "Match User backup\n    ChallengeResponseAuthentication yes\n")
    plan = fix.plan_for(host, "kbdinteractiveauthentication", plan_id=PID)
    assert not plan.blocked, plan.checks
    assert plan.argv_list()[0][-2:] == ("Match User backup", "    KbdInteractiveAuthentication no")
    host.machine.files["/etc/ssh/sshd_config"] += (
        "    AuthenticationMethods publickey,keyboard-interactive:pam\n")
    plan = fix.plan_for(host, "kbdinteractiveauthentication", plan_id=PID)
    check = next(c for c in plan.checks if c.blocking)
    assert check.detail.startswith("KbdInteractiveAuthentication off would lock out users "
                                   "backup: ")
