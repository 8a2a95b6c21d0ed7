"""The advisor's commands as plans (services/ops/zfs/advice.py, kind "advice"): built from a
fresh reading judged again, each action's argv, re-checks and typed confirmation, run through
the engine on the demo's advice host with the audit log's intent and result records; blocked
when the host no longer earns the advice, when it has no safe command, and refused before
anything runs when the value changed between the preview and the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.advice import AdviceAction
from zconsole.model.plan import Plan
from zconsole.services.ops import registry
from zconsole.services.ops.engine.runner import PlanRunner, RunResult
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import advice as ops

T0 = 1_790_000_000.0
TOKEN = "nvme-INTEL_SSDPEK1A118GA_PHOC2150009X118B"  # the advice demo's idle log device
L2 = "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R900002B"  # its cache device


def demo(version: str = "2.3") -> DemoHost:
    return DemoHost("advice", zfs_version=version, clock=lambda: T0, seed=0)


def run(host: DemoHost, plan: Plan, tmp: Path) -> RunResult:
    return PlanRunner(host, plan, audit=AuditLog(tmp / "audit.jsonl"),
                      store=PlanStore(tmp / "plans"), operator="test").run(lambda _e: None)


def commands(tmp: Path) -> list[list[str]]:
    """Every command the audit log holds a result record for, in order."""
    lines = (tmp / "audit.jsonl").read_text().splitlines()
    return [r["argv"] for r in map(json.loads, lines) if r["event"] == "command"]


def get(host: DemoHost, prop: str, ds: str) -> str:
    return host.run(["zfs", "get", "-H", "-p", "-o", "value", prop, ds]).stdout.strip()


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_relatime_is_set_rechecked_and_audited(tmp_path: Path, version: str) -> None:
    host = demo(version)
    plan = ops.plan_for(host, "advice-atime", "tank", now=T0)
    assert not plan.blocked and plan.kind == "advice" and plan.pool == "tank"
    assert plan.argv_list() == [("zfs", "set", "relatime=on", "tank/mail")]
    [step] = plan.steps
    assert step.writes and step.confirmation is not None
    assert step.confirmation.expected == "tank/mail"
    assert [(p.kind, dict(p.params)) for p in step.prechecks] == [
        ("dataset_property", {"dataset": "tank/mail", "property": "relatime", "value": "off"})]
    assert [(p.kind, dict(p.params)) for p in step.postchecks] == [
        ("dataset_property", {"dataset": "tank/mail", "property": "relatime", "value": "on"})]
    assert plan.preview[0].startswith("Why: With atime=on and relatime=off every read")
    assert plan.preview[-1].startswith("To take it back: zfs set relatime=off tank/mail")
    assert get(host, "relatime", "tank/mail") == "off"
    result = run(host, plan, tmp_path)
    assert result.done, result.message
    assert get(host, "relatime", "tank/mail") == "on"
    assert commands(tmp_path) == [["zfs", "set", "relatime=on", "tank/mail"]]
    # the intent before the command, its result after, the re-checks either side
    events = [json.loads(x)["event"] for x in (tmp_path / "audit.jsonl").read_text()
              .splitlines()]
    assert events.index("checks") < events.index("command-intent") < \
        events.index("command") < len(events) - 1 - events[::-1].index("checks")
    assert events[-1] == "plan-end"
    # judged again: the host no longer earns it, so there is nothing to run
    again = ops.plan_for(host, "advice-atime", "tank", now=T0)
    assert again.blocked and again.steps == ()
    assert "no longer earns it" in again.checks[0].detail


def test_recordsize_rechecks_the_bytes_zfs_get_prints(tmp_path: Path) -> None:
    host = demo()
    plan = ops.plan_for(host, "advice-recordsize", "tank", "tank/libvirt", now=T0)
    assert plan.argv_list() == [("zfs", "set", "recordsize=64K", "tank/libvirt")]
    pre, post = plan.steps[0].prechecks[0], plan.steps[0].postchecks[0]
    assert dict(pre.params)["value"] == "131072" and dict(post.params)["value"] == "65536"
    assert run(host, plan, tmp_path).done
    assert get(host, "recordsize", "tank/libvirt") == "65536"


def test_a_value_changed_after_the_preview_is_refused_before_anything_runs(
        tmp_path: Path) -> None:
    host = demo()
    plan = ops.plan_for(host, "advice-compression", "tank", now=T0)
    assert plan.argv_list() == [("zfs", "set", "compression=lz4", "tank")]
    # off was tank's default, not a value someone set: the way back is to inherit it
    assert plan.preview[-1] == ("To take it back: zfs inherit compression tank (it was the "
                                "default); blocks written meanwhile keep the new setting.")
    host.run(["zfs", "set", "compression=zstd", "tank"])  # someone else, meanwhile
    result = run(host, plan, tmp_path)
    assert not result.done
    assert "compression of tank is zstd (expected off)" in result.message, result.message
    assert get(host, "compression", "tank") == "zstd"
    assert not (tmp_path / "audit.jsonl").exists() or commands(tmp_path) == []


def test_scrub_waits_for_no_scan_and_starts_one(tmp_path: Path) -> None:
    host = demo()
    plan = ops.plan_for(host, "advice-scrub", "scratch", now=T0)
    assert plan.argv_list() == [("zpool", "scrub", "scratch")]
    assert [p.kind for p in plan.steps[0].prechecks] == ["no_scan"]
    assert plan.steps[0].confirmation is not None
    assert plan.steps[0].confirmation.expected == "scratch"
    assert run(host, plan, tmp_path).done
    assert "scrub in progress" in host.run(["zpool", "status", "scratch"]).stdout
    # the same plan run again is refused at its re-check: a scrub runs already
    result = run(host, plan, tmp_path / "again")
    assert not result.done and "scrub in progress" in result.message, result.message


@pytest.mark.parametrize(("kind", "pool", "device", "role"), [
    ("advice-slog-idle", "scratch", TOKEN, "log"),
    ("advice-l2arc", "tank", L2, "cache")])
def test_an_idle_log_or_cache_device_is_removed(tmp_path: Path, kind: str, pool: str,
                                                device: str, role: str) -> None:
    host = demo()
    plan = ops.plan_for(host, kind, pool, now=T0)
    assert plan.argv_list() == [("zpool", "remove", pool, device)]
    step = plan.steps[0]
    assert step.confirmation is not None and step.confirmation.expected == device
    assert [p.kind for p in step.prechecks] == ["vdev_present"]
    assert [p.kind for p in step.postchecks] == ["vdev_absent"]
    assert plan.preview[-1] == f"To take it back: zpool add {pool} {role} {device}."
    assert device in host.run(["zpool", "status", pool]).stdout
    assert run(host, plan, tmp_path).done
    assert device not in host.run(["zpool", "status", pool]).stdout


def test_advice_without_a_safe_command_is_blocked_with_its_cost() -> None:
    plan = ops.plan_for(demo(), "advice-ashift", "tank", now=T0)
    assert plan.blocked and plan.steps == ()
    assert "has no safe command to run: ashift is fixed when a vdev is created" in \
        plan.checks[0].detail


def test_the_command_is_the_action_as_the_operator_reads_it() -> None:
    a = AdviceAction.set("tank/my data", "xattr", "sa", before="on")
    assert a.argv == ("zfs", "set", "xattr=sa", "tank/my data")
    assert a.pool == "tank"
    assert AdviceAction.remove("tank", "sdb", "cache").argv == ("zpool", "remove", "tank", "sdb")
    with pytest.raises(ValueError):
        _ = AdviceAction("rm", "tank").argv


def test_zconsole_plan_advice_is_in_the_registry(tmp_path: Path) -> None:
    entry = registry.get("advice")
    assert entry.wizard is None  # opened from the Advice screen's x, not a Pools key
    host = demo()
    plan = entry.plan(host, PlanRequest("tank", ("advice-xattr",)))
    assert plan.argv_list() == [("zfs", "set", "xattr=sa", "tank")]
    assert dict(plan.params) == {"advice": "advice-xattr", "subject": "tank",
                                 "command": "zfs set xattr=sa tank"}
    named = entry.plan(host, PlanRequest("tank", ("advice-recordsize", "tank/libvirt")))
    assert named.argv_list() == [("zfs", "set", "recordsize=64K", "tank/libvirt")]
    other = entry.plan(host, PlanRequest("tank", ("advice-recordsize", "tank/mail")))
    assert other.blocked and "does not advise advice-recordsize on tank/mail" in \
        other.checks[0].detail


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_a_log_re_added_as_a_spare_meanwhile_is_not_removed(tmp_path: Path,
                                                            version: str) -> None:
    """Issue 26, item 12: the plan removes the idle log device; between the preview and the
    run someone removes it as a log and adds it back as a spare. `zpool remove` would remove
    the spare: the re-check right before the run is the device's role, not its presence."""
    host = demo(version)
    plan = ops.plan_for(host, "advice-slog-idle", "scratch", now=T0)
    assert [dict(p.params) for p in plan.steps[0].prechecks] == [
        {"pool": "scratch", "name": TOKEN, "section": "logs"}]
    host.run(["zpool", "remove", "scratch", TOKEN])  # someone else, meanwhile
    host.run(["zpool", "add", "scratch", "spare", TOKEN])
    result = run(host, plan, tmp_path)
    assert not result.done
    assert "in its spares section now, not logs" in result.message, result.message
    assert not (tmp_path / "audit.jsonl").exists() or commands(tmp_path) == []
    status = host.run(["zpool", "status", "scratch"]).stdout
    assert "spares" in status and TOKEN in status.split("spares", 1)[1]
