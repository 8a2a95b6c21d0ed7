"""What the fix-its share (services/ops/fixit/common.py): the diff a file change carries, in
the plan (saved and read back) and in the audit log's intent record before the command
runs; the backup path; the line edits the diffs are made from."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import Plan
from zconsole.services.ops.engine.plan_io import plan_from_dict, plan_to_dict
from zconsole.services.ops.engine.runner import PlanRunner
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit import ssh as fix_ssh

PID = "0123456789abcdef0123456789abcdef"
DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"


def test_unified_diff_of_a_change_a_new_file_and_a_removal() -> None:
    assert common.unified_diff("/etc/x", "a\nb\n", "a\nc\n") == (
        "--- a/etc/x\n+++ b/etc/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
    assert common.unified_diff("/etc/x", None, "new\n") == (
        "--- /dev/null\n+++ b/etc/x\n@@ -0,0 +1 @@\n+new\n")
    assert common.unified_diff("/etc/x", "old\n", None) == (
        "--- a/etc/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n")
    assert common.unified_diff("/etc/x", "same\n", "same\n") == ""


def test_line_edits() -> None:
    assert common.delete_line("a\nb\nc\n", 2) == "a\nc\n"
    # a line ends at \n only: the \r is part of the line (sed's `s/^...$/` replaces it too)
    assert common.replace_line("auto eno2\r\niface\n", 1, "allow-hotplug eno2") == \
        "allow-hotplug eno2\niface\n"
    assert common.replace_line("a\n", 5, "x") == "a\n"  # no such line: unchanged
    assert common.backup_path(PID, "/etc/network/interfaces") == \
        "/var/backups/zconsole-0123456789ab-interfaces"


def test_the_diff_is_in_the_plan_and_in_the_audit_intent(tmp_path: Path) -> None:
    c = Clock(1795302000.0)
    host = DemoHost("slow-ssh", "2.3", c)
    before = host.machine.files[DROPIN]
    plan = fix_ssh.plan_for(host, plan_id=PID)
    write = next(s for s in plan.steps if s.id == "write")
    assert write.command is not None
    assert write.command.diff == common.unified_diff(DROPIN, before,
                                                     common.delete_line(before, 3))
    assert "-UseDNS yes\n" in write.command.diff
    assert plan_from_dict(plan_to_dict(plan)) == plan  # saved and resumed with its diff
    audit, store = AuditLog(tmp_path / "audit.jsonl"), PlanStore(tmp_path / "plans")

    def runner(p: Plan) -> PlanRunner:
        return PlanRunner(host, p, audit=audit, store=store, operator="alice", clock=c,
                          sleep=c.sleep, postcheck_attempts=1, postcheck_delay=0.0)

    assert common.run_fix(plan, runner, lambda _e: None).applied
    recs = [json.loads(x) for x in Path(audit.path).read_text().splitlines()]
    intents = {r["step_id"]: r for r in recs if r["event"] == "command-intent"}
    assert intents["write"]["diff"] == write.command.diff
    assert "diff" not in intents["backup"]  # a copy changes no file it names
    applied = common.applied_records(store, host.label, fix_ssh.KIND, fix_ssh.UNDO_KIND)
    assert [a.plan.id for a in applied] == [PID]
    assert applied[0].applied_at >= plan.created_at
