"""services.plans: golden argv lists on the demo host (showcase, grow, dedup, degraded; both
OpenZFS versions give the same commands), the checks each plan carries, and every plan run
to the end through the PlanRunner on the demo host (whose state changes as ZFS's would)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import CheckLevel, Plan
from zconsole.services.ops.engine.runner import NeedsOperator, PlanRunner, RunEvent
from zconsole.services.ops.zfs.attach import build_attach
from zconsole.services.ops.zfs.common import PlanInputs, read_inputs
from zconsole.services.ops.zfs.dedup_cleanup import build_cleanup
from zconsole.services.ops.zfs.dedup_off import build_dedup_off
from zconsole.services.ops.zfs.dedup_rewrite import stamp
from zconsole.services.ops.zfs.detach import build_detach
from zconsole.services.ops.zfs.replace import build_replace
from zconsole.services.ops.zfs.replace_grow import build_replace_grow
from zconsole.services.read.dedup import read_dedup

T0 = 1795302000.0
VERSIONS = ["2.1", "2.3"]
BYID = "/dev/disk/by-id/"
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
B0 = "ata-HGST_HUS724040ALE640_PN2334PBJ9M3QT"
B1 = "ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT"
NEW_8T = "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE"  # sdh in showcase
OLDPOOL = "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567"  # sdl: label of exported pool oldpool
G1 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
G2 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02"
G3 = "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW03"
G4 = "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW04"
FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"
FRESH = "ata-ST4000VN008-2DR166_ZGY8Q5R6"


def host(scenario: str, version: str) -> tuple[DemoHost, Clock]:
    c = Clock(T0)
    return DemoHost(scenario, version, clock=c), c


def inputs(h: DemoHost) -> PlanInputs:
    return read_inputs(h, "tank")


def golden(plan: Plan) -> list[tuple[tuple[str, ...], ...]]:
    return [c.pipeline for c in plan.commands()]


def run_all(h: DemoHost, c: Clock, plan: Plan, tmp: Path) -> tuple[str, list[RunEvent]]:
    """Run a plan to the end; operator steps are 'done' at once."""
    runner = PlanRunner(h, plan, audit=AuditLog(tmp / "audit.jsonl"),
                        store=PlanStore(tmp / "plans"), operator="test", clock=c,
                        sleep=c.sleep, poll_interval=5)
    events: list[RunEvent] = []
    start = 0
    for _ in range(20):
        res = runner.run(events.append, start_at=start)
        if res.status != "awaiting-operator":
            return res.status, events
        start = res.next_index
    raise AssertionError("too many operator steps")


def audit(tmp: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp / "audit.jsonl").read_text().splitlines()]


# ---------------------------------------------------------------------------------- attach


@pytest.mark.parametrize("version", VERSIONS)
def test_attach_golden(version: str) -> None:
    h, _ = host("showcase", version)
    i = inputs(h)
    plan = build_attach(i.reading, "tank", "mirror-1", "sdh", props=i.props,
                              plan_id="p1")
    assert golden(plan) == [(("zpool", "attach", "tank", B0, BYID + NEW_8T),)]
    assert not plan.blocked and not plan.needs_force
    attach, resilver = plan.steps
    assert attach.confirmation is not None and attach.confirmation.expected == "VK1ABCDE"
    assert resilver.wait is not None and resilver.wait.activity == "resilver"
    assert [p.kind for p in resilver.wait.until] == ["vdev_state"]
    assert dict(resilver.wait.until[0].params)["name"] == NEW_8T
    assert plan.preview[1] == (f"mirror-1 keeps 2 copies ({B0}, {B1}) while {NEW_8T} is "
                               "resilvered; 3 copies after.")
    assert "-w" not in plan.argv_list()[0]


@pytest.mark.parametrize("version", VERSIONS)
def test_attach_force_only_after_confirmation(version: str) -> None:
    h, _ = host("showcase", version)
    i = inputs(h)
    plain = build_attach(i.reading, "tank", A0, "sdl", props=i.props)
    assert plain.needs_force and not plain.blocked
    assert golden(plain) == [(("zpool", "attach", "tank", A0, BYID + OLDPOOL),)]
    forced = build_attach(i.reading, "tank", A0, "sdl", props=i.props, force=True)
    assert golden(forced) == [(("zpool", "attach", "-f", "tank", A0, BYID + OLDPOOL),)]
    # force on a clean disk adds nothing
    clean = build_attach(i.reading, "tank", A0, "sdh", props=i.props, force=True)
    assert "-f" not in clean.argv_list()[0]


@pytest.mark.parametrize("disk,check", [("sdi", "size"), ("sdk", "in-use"), ("sdc", "in-pool"),
                                        ("sdj", "sector-size")])
def test_attach_blocked(disk: str, check: str) -> None:
    h, _ = host("showcase", "2.3")
    i = inputs(h)
    plan = build_attach(i.reading, "tank", A0, disk, props=i.props)
    assert plan.blocked
    assert check in [c.name for c in plan.checks if c.blocking]


def test_attach_runs_on_the_demo_and_the_audit_log_holds_it(tmp_path: Path) -> None:
    h, c = host("showcase", "2.3")
    i = inputs(h)
    plan = build_attach(i.reading, "tank", "mirror-1", "sdh", props=i.props)
    status, _ = run_all(h, c, plan, tmp_path)
    assert status == "done"
    out = h.run(["zpool", "status", "tank"]).stdout
    assert NEW_8T in out
    commands = [r for r in audit(tmp_path) if r["event"] == "command"]
    assert [(r["argv"], r["exit_code"], r["step_id"]) for r in commands] == [
        (["zpool", "attach", "tank", B0, BYID + NEW_8T], 0, "attach")]
    assert [r["event"] for r in audit(tmp_path)][-1] == "plan-end"


# ---------------------------------------------------------------------------------- detach


@pytest.mark.parametrize("version", VERSIONS)
def test_detach_golden_and_run(version: str, tmp_path: Path) -> None:
    h, c = host("showcase", version)
    plan = build_detach(inputs(h).reading, "tank", B1)
    assert golden(plan) == [(("zpool", "detach", "tank", B1),)]
    step = plan.steps[0]
    assert step.confirmation is not None and step.confirmation.expected == "tank"
    assert [p.kind for p in step.prechecks] == ["vdev_present", "vdev_state"]
    assert [p.kind for p in step.postchecks] == ["vdev_absent"]
    assert [c.name for c in plan.checks if not c.passed] == ["redundancy-after"]
    status, _ = run_all(h, c, plan, tmp_path)
    assert status == "done"
    assert B1 not in h.run(["zpool", "status", "tank"]).stdout


def test_detach_of_the_last_good_copy_is_blocked_and_does_not_run(tmp_path: Path) -> None:
    h, c = host("showcase", "2.3")
    plan = build_detach(inputs(h).reading, "fast", "nvme-WD_BLACK_SN770_1TB_22517D801234")
    assert plan.blocked
    status, _ = run_all(h, c, plan, tmp_path)
    assert status == "failed"
    assert "22517D801234" in h.run(["zpool", "status", "fast"]).stdout


# --------------------------------------------------------------------------------- replace


@pytest.mark.parametrize("version", VERSIONS)
def test_replace_failed_disk_golden_and_run(version: str, tmp_path: Path) -> None:
    h, c = host("degraded", version)
    i = inputs(h)
    plan = build_replace(i.reading, "tank", FAULTED, "sdh", props=i.props,
                               on_site=True)
    assert golden(plan) == [
        (("zpool", "replace", "tank", FAULTED, BYID + FRESH),),
        (("dd", f"if={BYID}{FAULTED}", "of=/dev/null", "bs=1M", "count=2000",
          "iflag=direct"),),
    ]
    assert [s.id for s in plan.steps] == ["replace", "resilver", "pull"]
    pull = plan.steps[2]
    assert pull.command is not None and not pull.command.writes
    assert pull.operator_action is not None and "serial ZGY8C3D4" in pull.operator_action
    assert "ATA port 2 (pci-0000:00:17.0-ata-2)" in pull.operator_action
    healthy = [c for c in plan.checks if c.name == "healthy-target"][0]
    assert healthy.passed and "FAULTED" in healthy.detail
    status, events = run_all(h, c, plan, tmp_path)
    assert status == "done"
    assert any(isinstance(e, NeedsOperator) and e.helper for e in events)
    out = h.run(["zpool", "status", "tank"]).stdout
    assert FRESH in out and FAULTED not in out


def test_replace_of_a_healthy_disk_warns() -> None:
    h, _ = host("showcase", "2.3")
    i = inputs(h)
    plan = build_replace(i.reading, "tank", A0, "sdh", props=i.props, findings=[])
    c = [c for c in plan.checks if c.name == "healthy-target"][0]
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert c.detail.startswith("CAREFUL")


# ------------------------------------------------------------------------- replace to grow


@pytest.mark.parametrize("version", VERSIONS)
def test_replace_grow_golden(version: str) -> None:
    h, _ = host("grow", version)
    i = inputs(h)
    plan = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                    props=i.props)
    dd = ("of=/dev/null", "bs=1M", "count=2000", "iflag=direct")
    assert golden(plan) == [
        (("zpool", "replace", "tank", G1, BYID + G3),),
        (("dd", f"if={BYID}{G1}", *dd),),
        (("zpool", "replace", "tank", G2, BYID + G4),),
        (("dd", f"if={BYID}{G2}", *dd),),
        (("zpool", "online", "-e", "tank", G3),),
        (("zpool", "online", "-e", "tank", G4),),
        (("zpool", "list", "-v", "-H", "-p", "tank"),),
    ]
    assert [s.id for s in plan.steps] == ["replace-1", "resilver-1", "pull-1", "replace-2",
                                          "resilver-2", "pull-2", "expand-1", "expand-2",
                                          "prove-growth", "show-size"]
    params = dict(plan.params)
    assert params["size_before"] == "996432412672"
    assert int(params["size_expected_at_least"]) > 996432412672
    wait = plan.steps[1].wait
    assert wait is not None and wait.activity == "replace"
    assert [p.kind for p in wait.until] == ["container_absent", "vdev_state", "vdev_absent"]
    prove = plan.steps[8]
    assert [p.kind for p in prove.postchecks] == ["pool_size_at_least"]
    assert [c.name for c in plan.checks if not c.passed] == []  # 512e disks on ashift 12


@pytest.mark.parametrize("version", VERSIONS)
def test_replace_grow_autoexpand_remote_golden(version: str) -> None:
    h, _ = host("grow", version)
    i = inputs(h)
    plan = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                    props=i.props, expand="autoexpand", on_site=False)
    assert golden(plan) == [
        (("zpool", "set", "autoexpand=on", "tank"),),
        (("zpool", "replace", "tank", G1, BYID + G3),),
        (("zpool", "replace", "tank", G2, BYID + G4),),
        (("zpool", "list", "-v", "-H", "-p", "tank"),),
    ]


@pytest.mark.parametrize("expand", ["online-e", "autoexpand"])
def test_replace_grow_runs_and_proves_the_growth(expand: str, tmp_path: Path) -> None:
    h, c = host("grow", "2.3")
    i = inputs(h)
    plan = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                    props=i.props, expand=expand)
    status, events = run_all(h, c, plan, tmp_path)
    assert status == "done"
    assert sum(isinstance(e, NeedsOperator) for e in events) == 2
    size = int(h.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    assert size > 1.9e12  # was 996432412672
    text = (tmp_path / "audit.jsonl").read_text()
    assert f"zpool replace tank {G1} {BYID}{G3}" in text
    assert f"zpool replace tank {G2} {BYID}{G4}" in text


def test_replace_grow_refusals() -> None:
    h, _ = host("grow", "2.3")
    i = inputs(h)
    one = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc"], props=i.props)
    assert "disk-count" in [c.name for c in one.checks if c.blocking]
    twice = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdc"],
                                     props=i.props)
    assert "duplicate-disk" in [c.name for c in twice.checks if c.blocking]
    h2, _ = host("showcase", "2.3")
    i2 = inputs(h2)
    same = build_replace_grow(i2.reading, "tank", "mirror-1", ["sdj", "sdl"],
                                    props=i2.props)
    growth = [c for c in same.checks if c.name == "growth"][0]
    assert (growth.passed, growth.level) == (False, CheckLevel.WARN)
    assert "will not grow" in growth.detail
    assert "sector-size#1" in [c.name for c in same.checks if c.blocking]
    with pytest.raises(ValueError):
        build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                 expand="sometimes")


# ------------------------------------------------------------------------------- dedup off


@pytest.mark.parametrize("version", VERSIONS)
def test_dedup_off_golden_volume_rewrite(version: str) -> None:
    h, _ = host("showcase", version)
    report = read_dedup(h, "tank")
    plan = build_dedup_off(report, None, rewrite=["tank/vm/win11"],
                                 reading=inputs(h).reading, now=T0)
    w = "tank/vm/win11"
    snap = f"{w}@zconsole-rewrite-20261121"
    assert golden(plan) == [
        (("zfs", "set", "dedup=off", "tank/vm"),),
        (("zfs", "set", "readonly=on", w),),
        (("zfs", "snapshot", "-r", snap),),
        (("zfs", "send", "-R", snap),
         ("zfs", "receive", "-u", "-o", "dedup=off", "-x", "readonly",
          f"{w}.zconsole-dedup-new")),
        (("zfs", "set", "volmode=none", f"zconsole:dedup-old-of={w}", w),),
        (("zfs", "rename", w, f"{w}.zconsole-dedup-old-20261121"),),
        (("zfs", "rename", f"{w}.zconsole-dedup-new", w),),
        (("zpool", "status", "-D", "tank"),),
    ]
    first = plan.steps[0]
    # the four volumes that inherit dedup from tank/vm are proven off too
    assert len(first.postchecks) == 5
    assert [s.confirmation for s in plan.steps] == [None] * len(plan.steps)
    # built without reading the tree's mounts and encryption: said, not guessed
    assert [c.name for c in plan.checks if not c.passed] == [
        "existing-blocks", "rewrite-state", "rewrite-writers", "rewrite-snapshots"]


@pytest.mark.parametrize("version", VERSIONS)
def test_dedup_off_golden_filesystem_rewrite(version: str) -> None:
    h, _ = host("dedup", version)
    plan = build_dedup_off(read_dedup(h, "tank"), None, rewrite=["tank/vm"],
                                 reading=inputs(h).reading, now=T0)
    snap = "tank/vm@zconsole-rewrite-20261121"
    assert golden(plan) == [
        (("zfs", "set", "dedup=off", "tank/backup"),),
        (("zfs", "set", "dedup=off", "tank/vm"),),
        (("zfs", "set", "readonly=on", "tank/vm"),),
        (("zfs", "snapshot", "-r", snap),),
        (("zfs", "send", "-R", snap),
         ("zfs", "receive", "-u", "-o", "dedup=off", "-x", "readonly",
          "tank/vm.zconsole-dedup-new")),
        (("zfs", "set", "mountpoint=none", "zconsole:dedup-old-of=tank/vm", "tank/vm"),),
        (("zfs", "rename", "tank/vm", "tank/vm.zconsole-dedup-old-20261121"),),
        (("zfs", "rename", "tank/vm.zconsole-dedup-new", "tank/vm"),),
        (("zfs", "mount", "tank/vm"),),
        (("zpool", "status", "-D", "tank"),),
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_dedup_off_runs_and_the_table_shrinks_after_the_cleanup(version: str,
                                                                tmp_path: Path) -> None:
    h, c = host("dedup", version)
    before = read_dedup(h, "tank")
    plan = build_dedup_off(before, None, rewrite=["tank/vm"],
                                 reading=inputs(h).reading)
    status, _ = run_all(h, c, plan, tmp_path / "run")
    assert status == "done"
    kept = read_dedup(h, "tank")
    assert kept.entries == before.entries  # the old copy still holds its blocks
    assert kept.datasets == ()  # nothing writes deduplicated any more
    assert dict(plan.params)["ddt_entries_before"] == str(before.entries)
    old = f"tank/vm.zconsole-dedup-old-{stamp(plan.created_at)}"
    cleanup = build_cleanup(inputs(h).reading, "tank", old, "tank/vm")
    status, _ = run_all(h, c, cleanup, tmp_path / "cleanup")
    assert status == "done"
    after = read_dedup(h, "tank")
    assert before.entries is not None and after.entries is not None
    assert after.entries < before.entries * 0.7


def test_dedup_off_refusals() -> None:
    h, _ = host("healthy", "2.3")
    none = build_dedup_off(read_dedup(h, "tank"), None, reading=inputs(h).reading)
    assert none.blocked and none.checks[0].name == "no-dedup"
    h, _ = host("showcase", "2.3")
    snap = inputs(h).reading
    report = read_dedup(h, "tank")
    kids = build_dedup_off(report, None, rewrite=["tank/vm"], reading=snap)
    assert not kids.blocked  # zfs send -R carries the children
    clones = build_dedup_off(report, None, rewrite=["tank/vm/debian12-test"], reading=snap)
    blocking = [c for c in clones.checks if c.blocking]
    assert [c.name for c in blocking] == ["rewrite-clones"]
    assert "tank/vm/debian12-test" in blocking[0].detail
    wrong = build_dedup_off(report, ["tank/home"], reading=snap)
    assert wrong.blocked and "tank/home" in wrong.checks[0].detail


def test_unknown_pool_gives_a_blocked_plan() -> None:
    h, _ = host("showcase", "2.3")
    snap = inputs(h).reading
    for plan in (build_attach(snap, "nopool", "x", "sdh"),
                 build_detach(snap, "nopool", "x"),
                 build_replace(snap, "nopool", "x", "sdh"),
                 build_replace_grow(snap, "nopool", "mirror-0", ["sdh"])):
        assert plan.blocked and plan.steps == ()
        assert "no imported pool named nopool" in plan.checks[0].detail


def test_plans_never_name_a_disk_by_its_kernel_name_in_commands() -> None:
    h, _ = host("grow", "2.3")
    i = inputs(h)
    plan = build_replace_grow(i.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                    props=i.props)
    for argv in plan.argv_list():
        assert not any(a in ("sdc", "sdd", "/dev/sdc", "/dev/sdd") for a in argv), argv
    for step in plan.steps:
        assert "sdc" not in step.title and "sdd" not in step.title
