"""The fix-ssh undo after a hand edit, on the Debian 12 host guest (real sshd 9.2, GNU sed)
through zconsole's own SshHost (issue 26 item 6): fix-ssh removes `UseDNS yes` with the
guarded sed script (address and pattern); the admin then hardens the same drop-in by hand
(`PermitRootLogin no`); the undo refuses, at plan time and right before its write, showing
the diff of the file now against what the fix left; the file is unchanged and `sshd -T`
keeps the hardening. No reboot; the guest the fixture gives.
Needs ZCONSOLE_VM=1 (or ZCONSOLE_HOSTVM_ATTACH=RUN_DIR of a running guest).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostvm import faults
from hostvm.guest import HostGuest

from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.hosts.ssh import SshHost
from zconsole.model.plan import Plan
from zconsole.services.ops.engine.runner import PlanRunner
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit import ssh as fix

pytestmark = pytest.mark.hostvm


def test_undo_refuses_after_a_hand_edit_and_keeps_it(host_guest: HostGuest,
                                                     slow_reverse_dns: faults.Fault,
                                                     tmp_path: Path) -> None:
    g, fault = host_guest, slow_reverse_dns
    fault.apply()
    dropin = faults.SlowReverseDns.DROPIN
    host = SshHost(f"root@{g.alias}", ssh_config=str(g.ssh_config))
    audit, store = AuditLog(tmp_path / "audit.jsonl"), PlanStore(tmp_path / "plans")

    def runner(p: Plan) -> PlanRunner:
        return PlanRunner(host, p, audit=audit, store=store, operator="hostvm-test")

    try:
        plan = fix.plan_for(host)
        assert not plan.blocked, plan.checks
        assert plan.argv_list()[1] == ("sed", "-i", "-e", "2{/^UseDNS yes$/d;}", dropin)
        run = fix.run_fix(plan, runner, lambda _e: None)
        assert run.applied and run.rollback is None, run.result.message
        left = g.exec(f"cat {dropin}").stdout
        assert left == dict(plan.params)["left"] and "UseDNS" not in left
        assert g.exec(f"sha256sum {dropin}").stdout.split()[0] == common.sha256(left)

        g.exec(f"printf 'PermitRootLogin no\\n' >> {dropin}")  # the admin, by hand
        edited = g.exec(f"cat {dropin}").stdout
        assert "permitrootlogin no" in g.exec("sshd -T").stdout.lower()

        # read at plan time (the Host screen's undo): blocked, with the diff
        blocked = fix.undo_plan(plan, host=host)
        assert blocked.blocked
        assert "+PermitRootLogin no" in " ".join(c.detail for c in blocked.checks)
        # and right before the write, when run anyway
        undo = fix.undo_plan(plan)
        assert "+UseDNS yes" in (undo.steps[0].command.diff if undo.steps[0].command else "")
        result = runner(undo).run(lambda _e: None)
        assert not result.done, result.message
        assert "+PermitRootLogin no" in result.message
        assert g.exec(f"cat {dropin}").stdout == edited
        effective = g.exec("sshd -T").stdout.lower().splitlines()
        assert "permitrootlogin no" in effective and "usedns no" in effective
        assert fix.applied_fixes(store, host.label) == [plan]  # still applied: not undone
    finally:
        g.exec("rm -f /var/backups/zconsole-*", check=False)


ODD = ("# zconsole fault recipe\f(page 2)\n# pasted from a wiki:\u2028see there\n"
       "PermitRootLogin no\nUseDNS yes\n")


def test_a_form_feed_and_u2028_in_comments_move_no_line(host_guest: HostGuest,
                                                         slow_reverse_dns: faults.Fault,
                                                         tmp_path: Path) -> None:
    """Real sshd reads the comments as comments, and real sed counts lines at \\n only: the
    fix names line 4 (str.splitlines would have said 6) and deletes `UseDNS yes`, nothing
    else; the undo puts the file back byte for byte (issue 26 item 10)."""
    g, fault = host_guest, slow_reverse_dns
    fault.apply()
    dropin = faults.SlowReverseDns.DROPIN
    g.write_file(dropin, ODD)
    host = SshHost(f"root@{g.alias}", ssh_config=str(g.ssh_config))
    audit, store = AuditLog(tmp_path / "audit.jsonl"), PlanStore(tmp_path / "plans")

    def runner(p: Plan) -> PlanRunner:
        return PlanRunner(host, p, audit=audit, store=store, operator="hostvm-test")

    try:
        assert g.exec("sshd -t", check=False).returncode == 0
        plan = fix.plan_for(host)
        assert not plan.blocked, plan.checks
        assert plan.argv_list()[1] == ("sed", "-i", "-e", "4{/^UseDNS yes$/d;}", dropin)
        run = fix.run_fix(plan, runner, lambda _e: None)
        assert run.applied and run.rollback is None, run.result.message
        assert g.exec(f"cat {dropin}").stdout == ODD.replace("UseDNS yes\n", "")
        assert "permitrootlogin no" in g.exec("sshd -T").stdout.lower().splitlines()
        result = runner(fix.undo_plan(plan, host=host)).run(lambda _e: None)
        assert result.done, result.message
        assert g.exec(f"cat {dropin}").stdout == ODD
    finally:
        g.exec("rm -f /var/backups/zconsole-*", check=False)
