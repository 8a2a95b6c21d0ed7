"""Guards and plans against real OpenZFS in the QEMU guest (the guards on both flavours, each plan
run on one). Needs ZCONSOLE_VM=1.

The guest's disks: vdb vdc vdd vde = 1 GiB, vdf vdg = 2 GiB, by-id virtio-zfsvm-<name>.
Every guard is checked on real disks AND against what real zpool answers for the same
operation (the guard must refuse what zpool refuses, before zpool does); every plan's argv
is run by the PlanRunner through the real ssh host and must be accepted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from vmguest import ONE_FLOW

from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import CheckLevel, Plan
from zconsole.services.ops.engine.runner import PlanRunner, RunEvent
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.attach import build_attach
from zconsole.services.ops.zfs.common import PlanInputs, read_inputs
from zconsole.services.ops.zfs.detach import build_detach
from zconsole.services.ops.zfs.replace_grow import build_replace_grow

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

BYID = "/dev/disk/by-id/virtio-zfsvm-"


def settle(g: ZfsGuest) -> None:
    g.exec("udevadm settle", check=False, timeout=60)


def inputs(g: ZfsGuest, pool: str = "tank") -> PlanInputs:
    settle(g)
    return read_inputs(g.host(), pool)


def failing(plan_checks: object) -> dict[str, CheckLevel]:
    return {c.name: c.level for c in plan_checks if not c.passed}  # type: ignore[attr-defined]


def run_plan(g: ZfsGuest, plan: Plan, tmp: Path, *, helper: str | None = None
             ) -> tuple[str, list[RunEvent], PlanRunner]:
    runner = PlanRunner(g.host(), plan, audit=AuditLog(tmp / "audit.jsonl"),
                        store=PlanStore(tmp / "plans"), operator="guest-test",
                        poll_interval=1.0)
    events: list[RunEvent] = []
    start = 0
    for _ in range(20):
        res = runner.run(events.append, start_at=start)
        if res.status != "awaiting-operator":
            return res.status, events, runner
        step = plan.steps[res.next_index - 1] if res.next_index else plan.steps[0]
        if helper is not None and step.id == helper:
            r = runner.run_helper(step.id)
            assert r.returncode == 0, r.stderr
        start = res.next_index
    raise AssertionError("too many operator steps")


def random_data(g: ZfsGuest, path: str, mib: int = 64) -> None:
    g.exec(f"dd if=/dev/urandom of={path} bs=1M count={mib} 2>/dev/null && sync",
           timeout=300)


# ----------------------------------------------------------------------------------- guards


def test_too_small_disk_guard_agrees_with_zpool(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "tank", "mirror", "vdf", "vdg"])
    i = inputs(g)
    plan = build_attach(i.reading, "tank", "vdf", "vdb", props=i.props)
    assert failing(plan.checks).get("size") is CheckLevel.BLOCK
    size = [c for c in plan.checks if c.name == "size"][0]
    # 1 GiB disk -> 1063256064-byte leaf; the 2 GiB members have 2136997888
    assert "1063256064 bytes" in size.detail and "2136997888 bytes" in size.detail
    # real zpool refuses the very argv the plan would have run
    r = g.exec(list(plan.argv_list()[0]), check=False)
    assert r.returncode != 0 and "device is too small" in r.stderr, r.stderr
    # the 2 GiB-member pool accepts another 2 GiB-class disk? none left; a 1 GiB pool
    # accepts a 1 GiB disk exactly (the reserve is the same on both sides)
    g.exec(["zpool", "create", "small", "vdc"])
    i = inputs(g, "small")
    ok = build_attach(i.reading, "small", "vdc", "vdd", props=i.props)
    assert [c for c in ok.checks if c.name == "size"][0].passed


def test_mounted_disk_guard_agrees_with_zpool(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "tank", "vdb"])
    g.exec("mke2fs -q -F -t ext4 /dev/vdc && mkdir -p /mnt/busy && mount /dev/vdc /mnt/busy")
    try:
        i = inputs(g)
        plan = build_attach(i.reading, "tank", "vdb", "vdc", props=i.props)
        in_use = [c for c in plan.checks if c.name == "in-use"][0]
        assert (in_use.passed, in_use.level) == (False, CheckLevel.BLOCK)
        assert "mounted at /mnt/busy" in in_use.detail
        r = g.exec(list(plan.argv_list()[0]), check=False)
        assert r.returncode != 0, r
        r = g.exec(["zpool", "attach", "-f", "tank", "vdb", BYID + "vdc"], check=False)
        assert r.returncode != 0, "-f must not override a mounted filesystem"
    finally:
        g.exec("umount /mnt/busy", check=False)
    # unmounted, the ext4 filesystem is old data: a second confirmation and -f
    i = inputs(g)
    plan = build_attach(i.reading, "tank", "vdb", "vdc", props=i.props)
    assert failing(plan.checks).get("old-data") is CheckLevel.CONFIRM


def test_exported_pool_label_needs_confirmation_and_f(clean_guest: ZfsGuest, tmp_path: Path
                                                      ) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "tank", "vdb"])
    g.exec(["zpool", "create", "old", "vdd"])
    g.exec(["zpool", "export", "old"])
    i = inputs(g)
    plan = build_attach(i.reading, "tank", "vdb", "vdd", props=i.props)
    label = [c for c in plan.checks if c.name == "foreign-label"][0]
    assert (label.passed, label.level, label.force_flag) == (False, CheckLevel.CONFIRM, "-f")
    assert "pool old" in label.detail
    assert not plan.blocked and plan.needs_force
    r = g.exec(list(plan.argv_list()[0]), check=False)
    assert r.returncode != 0 and "exported pool 'old'" in r.stderr, r.stderr
    forced = build_attach(i.reading, "tank", "vdb", "vdd", props=i.props, force=True)
    assert forced.argv_list()[0][:3] == ("zpool", "attach", "-f")
    status, _, _ = run_plan(g, forced, tmp_path)
    assert status == "done"
    assert "virtio-zfsvm-vdd" in g.exec(["zpool", "status", "tank"]).stdout


def test_detach_guards_agree_with_zpool(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "solo", "vde"])
    g.exec(["zpool", "create", "tank", "mirror", "vdb", "vdc"])
    i = inputs(g)
    solo = i.reading.pool("solo")
    assert solo is not None and solo.status is not None
    c = guards.check_detach(solo.status, "vde")[0]
    assert (c.name, c.passed, c.level) == ("detach-target", False, CheckLevel.BLOCK)
    r = g.exec(["zpool", "detach", "solo", "vde"], check=False)
    assert r.returncode != 0 and "only applicable to mirror and replacing vdevs" in r.stderr

    tank = i.reading.pool("tank")
    assert tank is not None and tank.status is not None
    warn = [c for c in guards.check_detach(tank.status, "vdb") if not c.passed]
    assert [(c.name, c.level) for c in warn] == [("redundancy-after", CheckLevel.WARN)]

    g.exec(["zpool", "offline", "tank", "vdc"])
    random_data(g, "/tank/f", 16)
    i = inputs(g)
    plan = build_detach(i.reading, "tank", "vdb")
    last = [c for c in plan.checks if c.name == "last-replica"][0]
    assert (last.passed, last.level) == (False, CheckLevel.BLOCK)
    assert "cannot detach vdb: no valid replicas" in last.detail
    r = g.exec(list(plan.argv_list()[0]), check=False)
    assert r.returncode != 0 and "no valid replicas" in r.stderr, r.stderr
    g.exec(["zpool", "online", "tank", "vdc"])


# ------------------------------------------------------------------------------------ plans


@pytest.mark.zfs_flavours("2.3", why=ONE_FLOW)
def test_attach_then_detach_plans_run(clean_guest: ZfsGuest, tmp_path: Path) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "-O", "compression=off", "tank", "vdb"])
    random_data(g, "/tank/f", 64)
    i = inputs(g)
    plan = build_attach(i.reading, "tank", "vdb", "vdc", props=i.props)
    assert plan.argv_list() == [("zpool", "attach", "tank", "vdb", BYID + "vdc")]
    assert not plan.blocked and not plan.needs_force, plan.checks
    t0 = time.monotonic()
    status, _, _ = run_plan(g, plan, tmp_path / "a")
    assert status == "done", status
    out = g.exec(["zpool", "status", "tank"]).stdout
    assert "mirror-0" in out and "virtio-zfsvm-vdc" in out
    i = inputs(g)
    plan = build_detach(i.reading, "tank", "virtio-zfsvm-vdc")
    assert plan.argv_list() == [("zpool", "detach", "tank", "virtio-zfsvm-vdc")]
    status, _, _ = run_plan(g, plan, tmp_path / "d")
    assert status == "done"
    assert "virtio-zfsvm-vdc" not in g.exec(["zpool", "status", "tank"]).stdout
    print(f"attach+detach on {g.flavour}: {time.monotonic() - t0:.1f} s")


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
def test_replace_grow_plan_runs_and_grows(clean_guest: ZfsGuest, tmp_path: Path) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "-O", "compression=off", "tank", "mirror", "vdb", "vdc"])
    random_data(g, "/tank/f", 64)
    i = inputs(g)
    plan = build_replace_grow(i.reading, "tank", "mirror-0", ["vdf", "vdg"],
                                    props=i.props)
    assert plan.argv_list() == [
        ("zpool", "replace", "tank", "vdb", BYID + "vdf"),
        ("dd", f"if={BYID}vdb", "of=/dev/null", "bs=1M", "count=2000", "iflag=direct"),
        ("zpool", "replace", "tank", "vdc", BYID + "vdg"),
        ("dd", f"if={BYID}vdc", "of=/dev/null", "bs=1M", "count=2000", "iflag=direct"),
        ("zpool", "online", "-e", "tank", "virtio-zfsvm-vdf"),
        ("zpool", "online", "-e", "tank", "virtio-zfsvm-vdg"),
        ("zpool", "list", "-v", "-H", "-p", "tank"),
    ]
    assert not plan.blocked, plan.checks
    assert dict(plan.params)["size_before"] == "1006632960"
    t0 = time.monotonic()
    status, events, _ = run_plan(g, plan, tmp_path, helper="pull-1")
    assert status == "done", [e for e in events if type(e).__name__ == "RunFailed"]
    size = int(g.exec(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)
    assert size == 2080374784  # the transcript's figure for two 2 GiB disks
    text = (tmp_path / "audit.jsonl").read_text()
    assert f"zpool replace tank vdb {BYID}vdf" in text and "dd if=" in text
    print(f"replace-grow on {g.flavour}: {time.monotonic() - t0:.1f} s")
