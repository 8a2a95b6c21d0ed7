"""Issue 26 item 1 against real OpenZFS (one test on each flavour). Needs ZCONSOLE_VM=1.

A 3-way mirror with two members faulted as zed would (`zpool offline -f`): the replace-failed
plan of one (free bay, `--after clear-scrub`), run by the PlanRunner through the real ssh host,
holds no bare `zpool clear POOL` and leaves the other one FAULTED; the plan's last step says so.
A bare `zpool clear POOL` afterwards (by hand) brings it back ONLINE: what the plan must never
do by itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_plans_guest import inputs, random_data, run_plan, settle
from vmguest import ONE_FLOW

from zconsole.services.ops.engine.events import CheckResult
from zconsole.services.ops.zfs import replace_failed as rf
from zconsole.services.read.collect import collect

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

BYID = "/dev/disk/by-id/virtio-zfsvm-"


def status(g: ZfsGuest, pool: str) -> str:
    return str(g.exec(["zpool", "status", pool]).stdout)


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
def test_replacing_one_faulted_member_leaves_the_other_faulted(clean_guest: ZfsGuest,
                                                               tmp_path: Path) -> None:
    g, pool = clean_guest, "rclear"
    g.exec(["zpool", "create", "-f", "-O", "compression=off", pool, "mirror",
            f"{BYID}vdb", f"{BYID}vdc", f"{BYID}vdd"])
    random_data(g, f"/{pool}/data", 32)
    g.exec(["zpool", "offline", "-f", pool, "virtio-zfsvm-vdc"])
    g.exec(["zpool", "offline", "-f", pool, "virtio-zfsvm-vdd"])
    before = status(g, pool)
    assert re.search(r"virtio-zfsvm-vdc\s+FAULTED", before), before
    assert re.search(r"virtio-zfsvm-vdd\s+FAULTED", before), before

    settle(g)
    got = inputs(g, pool)
    plan = rf.build_replace_failed(got.reading, pool, "virtio-zfsvm-vdc", bay="free",
                                   new="vdf", props=got.props, findings=got.findings,
                                   after="clear-scrub")
    assert not plan.blocked, [c for c in plan.checks if not c.passed]
    argvs = [s.command.argv for s in plan.steps if s.command is not None]
    clears = [a for a in argvs if a[:2] == ("zpool", "clear")]
    assert clears == [("zpool", "clear", pool, "virtio-zfsvm-vdf")], argvs
    others = [s for s in plan.steps if s.id.startswith("clear-other")]
    assert others == []  # not the default: only with after=clear-others-scrub

    result, events, _ = run_plan(g, plan, tmp_path)
    assert result == "done", [e for e in events if getattr(e, "message", None)]
    after = status(g, pool)
    assert re.search(r"virtio-zfsvm-vdd\s+FAULTED", after), after  # not brought back
    assert re.search(r"virtio-zfsvm-vdf\s+ONLINE", after), after
    assert "virtio-zfsvm-vdc" not in after
    assert re.search(r"state: DEGRADED", after), after
    said = next(e.detail for e in events
                if isinstance(e, CheckResult) and e.step_id == "report")
    assert "virtio-zfsvm-vdd: FAULTED" in said and f"{pool} is DEGRADED" in said, said
    entry = collect(g.host()).pool(pool)
    assert entry is not None and entry.status is not None
    assert entry.status.find("virtio-zfsvm-vdd") is not None
    assert entry.status.find("virtio-zfsvm-vdd").state == "FAULTED"

    # what the old plan did, by hand: the whole pool cleared brings the faulted one back
    g.exec(["zpool", "clear", pool])
    g.exec(["zpool", "wait", "-t", "resilver", pool], timeout=300)
    assert re.search(r"virtio-zfsvm-vdd\s+ONLINE", status(g, pool)), status(g, pool)


@pytest.mark.zfs_flavours("2.3", why=ONE_FLOW)
def test_the_spare_in_now_then_the_replace_then_the_spare_avail(clean_guest: ZfsGuest,
                                                                tmp_path: Path) -> None:
    """Issue 26 item 4: an AVAIL spare and a failed member no spare has taken. The spare-in
    plan (`zpool replace POOL OLD SPARE`), then the permanent replace; ZFS returns the spare
    to AVAIL by itself (the plan's spare-back step checks it). The other faulted member is
    left as it was throughout."""
    g, pool = clean_guest, "rspare"
    old, other, spare = "virtio-zfsvm-vdc", "virtio-zfsvm-vdd", "virtio-zfsvm-vde"
    g.exec(["zpool", "create", "-f", "-O", "compression=off", pool, "mirror",
            f"{BYID}vdb", f"{BYID}vdc", f"{BYID}vdd", "spare", f"{BYID}vde"])
    random_data(g, f"/{pool}/data", 32)
    g.exec(["zpool", "offline", "-f", pool, old])
    g.exec(["zpool", "offline", "-f", pool, other])
    before = status(g, pool)
    assert re.search(rf"{spare}\s+AVAIL", before), before  # no zed took it

    got = inputs(g, pool)
    first = rf.build_replace_failed(got.reading, pool, old, bay="spare", new=spare,
                                    props=got.props, findings=got.findings)
    assert not first.blocked, [c for c in first.checks if not c.passed]
    argvs = [s.command.argv for s in first.steps if s.command is not None]
    assert argvs == [("zpool", "replace", pool, old, spare)]
    result, events, _ = run_plan(g, first, tmp_path / "1")
    assert result == "done", events[-3:]
    mid = status(g, pool)
    assert re.search(rf"{spare}\s+INUSE", mid) and "spare-" in mid, mid
    assert re.search(rf"{other}\s+FAULTED", mid), mid

    got = inputs(g, pool)
    second = rf.build_replace_failed(got.reading, pool, old, bay="free", new="vdf",
                                     props=got.props, findings=got.findings, after="scrub")
    assert not second.blocked, [c for c in second.checks if not c.passed]
    assert [s.id for s in second.steps][:3] == ["replace", "resilver", "spare-back"]
    result, events, _ = run_plan(g, second, tmp_path / "2")
    assert result == "done", events[-3:]
    after = status(g, pool)
    assert re.search(rf"{spare}\s+AVAIL", after) and "spare-" not in after, after
    assert re.search(r"virtio-zfsvm-vdf\s+ONLINE", after) and old not in after, after
    assert re.search(rf"{other}\s+FAULTED", after), after
