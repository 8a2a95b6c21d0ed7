"""The on-site replace of a failed disk (services/ops/zfs/replace_failed.py, bay.py) on the
demo host: the bay plan, the swap watched disk by disk (the old one gone, a wrong one pulled,
a new one too small or fitting), the replace plan with the disk that appeared, the hot spare,
and a run killed while waiting for the new disk, then resumed."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes import DelegatingHost
from zconsole.hosts.base import PathNotFound, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.hosts.replay import ReplayHost
from zconsole.model.plan import Plan
from zconsole.model.pool import Vdev
from zconsole.services.ops.engine.events import RunEvent, WaitProgress
from zconsole.services.ops.engine.predicates import evaluate
from zconsole.services.ops.engine.resume import find_resumable
from zconsole.services.ops.engine.runner import PlanRunner, RunResult
from zconsole.services.ops.zfs import bay
from zconsole.services.ops.zfs import replace_failed as rf
from zconsole.services.ops.zfs.common import read_inputs, ref
from zconsole.services.read.collect import collect

T0 = 1795302000.0
OLD = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # FAULTED, sdb, bay ata-2
PEER = "ata-ST4000VN008-2DR166_ZGY8A1B2"  # the good copy beside it, sda
TWO_TB = 2000398934016
FOUR_TB = 4000787030016


def host(scenario: str = "degraded", version: str = "2.3") -> DemoHost:
    return DemoHost(scenario, version, clock=lambda: T0)


def bay_plan(h: DemoHost, old: str = OLD, **answers: str) -> Plan:
    return rf.plan_wizard(h, {"old": ref("tank", old), "bay": "same", **answers}, False)


def runner(h: DemoHost, plan: Plan, tmp: Path, *, fast: bool = True) -> PlanRunner:
    return PlanRunner(
        h,
        plan,
        audit=AuditLog(str(tmp / "audit.jsonl")),
        store=PlanStore(tmp / "plans"),
        operator="t",
        poll_interval=0.0,
        fast_forward=fast,
        settle_timeout=0.0,
    )


def to_the_end(r: PlanRunner, events: list[RunEvent] | None = None) -> RunResult:
    res = r.run((events if events is not None else []).append)
    while res.status == "awaiting-operator":
        res = r.run((events if events is not None else []).append, start_at=res.next_index)
    return res


def sight(h: DemoHost, plan: Plan) -> bay.BaySight:
    swap = next(s for s in plan.steps if s.id == "swap")
    assert swap.wait is not None
    base = bay.Baseline.from_params(dict(swap.wait.until[0].params))
    return bay.look_at_bay(collect(h), base)


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_bay_plan_offlines_shows_the_disk_and_watches_the_swap(version: str) -> None:
    plan = bay_plan(host(version=version))
    assert not plan.blocked
    assert [s.id for s in plan.steps] == ["offline", "find", "swap"]
    assert plan.argv_list()[0] == ("zpool", "offline", "tank", OLD)
    offline = plan.steps[0]
    assert offline.confirmation is not None and offline.confirmation.expected == "ZGY8C3D4"
    find = plan.steps[1]
    assert find.operator_action and "serial ZGY8C3D4" in find.operator_action
    assert "Press i" in find.operator_action  # no ledctl on the demo: the activity blink
    assert find.command is not None and not find.command.writes
    swap = plan.steps[2]
    assert swap.wait is not None and swap.wait.activity == "disk-swap"
    assert any("While the bay is empty" in p for p in plan.preview)


def test_the_offline_of_a_faulted_disk_expects_it_may_stay_faulted() -> None:
    """Real OpenZFS keeps showing a FAULTED disk as FAULTED after `zpool offline` succeeds
    (seen in the 2.1.11 guest test of the same bay; vdev_open() checks the fault before the
    offline flag): the step's postcheck must not call that a failure."""
    h = host()
    offline = bay_plan(h).steps[0]
    assert offline.id == "offline"
    (post,) = offline.postchecks
    assert post.param("state") == "OFFLINE|FAULTED"
    ok, seen = evaluate(h, post)  # OLD is FAULTED on the demo, as it stays after the offline
    assert ok, seen
    # a disk that was not FAULTED must really end OFFLINE
    assert evaluate(h, dataclasses.replace(post, params=(
        ("pool", "tank"), ("name", PEER), ("state", "OFFLINE"))))[0] is False


def test_ledctl_and_the_enclosure_slot_when_the_host_has_them() -> None:
    h = host()
    inputs = read_inputs(h, "tank")
    site = rf.Site(ledctl=True, slots={"sdb": "enclosure 0:0:8:0 slot 02"})
    plan = rf.build_replace_failed(inputs.reading, "tank", OLD, bay="same", site=site)
    assert [s.id for s in plan.steps] == ["offline", "locate", "find", "swap"]
    assert plan.steps[1].command is not None
    assert plan.steps[1].command.argv == ("ledctl", f"locate=/dev/disk/by-id/{OLD}")
    assert "enclosure 0:0:8:0 slot 02" in plan.steps[2].title
    assert "locate LED is lit" in (plan.steps[2].operator_action or "")
    after = rf.build_replace_failed(inputs.reading, "tank", OLD, bay="same", new="sdh", site=site)
    assert after.argv_list()[0] == (
        "ledctl",
        "locate_off=/dev/disk/by-id/ata-ST4000VN008-2DR166_ZGY8Q5R6",
    )


def test_a_disk_zfs_lost_is_found_by_elimination_without_offline() -> None:
    plan = bay_plan(host(), "15712766684991486900")
    assert [s.id for s in plan.steps] == ["find", "swap"]
    action = plan.steps[0].operator_action or ""
    assert "by elimination" in action and "ZGY8A1B2" in action and "ZGY8L1M2" in action


def test_the_last_good_copy_cannot_leave_its_bay() -> None:
    plan = bay_plan(host(), PEER)
    assert plan.blocked
    assert any(c.name == "same-bay" and c.blocking for c in plan.checks)
    assert any(c.name == "healthy-target" and "CAREFUL" in c.detail for c in plan.checks)


def test_the_watch_says_what_it_sees_wrong_disk_too_small_then_fitting() -> None:
    h = host()
    plan = bay_plan(h)
    h.run(["zpool", "offline", "tank", OLD])
    s = sight(h, plan)
    assert not s.old_gone and s.lines == ("Waiting for sdb with serial ZGY8C3D4 to be pulled.",)
    # the wrong disk: a healthy member of mirror-1 comes out
    h.pull_disk("ZGY8G7H8")
    s = sight(h, plan)
    assert s.wrong and not s.done
    assert any(
        line.startswith("⚠ WRONG DISK: serial ZGY8G7H8")
        and "Put it back" in line
        and "zpool online tank ata-ST4000VN008-2DR166_ZGY8G7H8" in line
        for line in s.lines
    )
    status = h.run(["zpool", "status", "tank"]).stdout
    assert "ata-ST4000VN008-2DR166_ZGY8G7H8  REMOVED" in status
    # put back (the same disk in its bay), then the right one out
    h.insert_disk("pci-0000:00:17.0-ata-4", "ST4000VN008-2DR166", "ZGY8G7H8", FOUR_TB)
    h.pull_disk("ZGY8C3D4")
    s = sight(h, plan)
    assert s.old_gone and not s.wrong
    assert s.lines == ("sdb with serial ZGY8C3D4 is gone.", "Insert the new disk in the same bay.")
    # a new disk, too small: refused with the guard's reason, nothing written
    name = h.insert_disk("pci-0000:00:17.0-ata-2", "ST2000VN004-2E41", "ZSMALL01", TWO_TB)
    s = sight(h, plan)
    assert not s.done and s.new is not None and s.new.name == name
    assert "REFUSED" in s.lines[-1] and "too small" in s.lines[-1].lower()
    assert "zfs_member" not in h.run(["lsblk", "-f", f"/dev/{name}"], check=False).stdout
    # taken out, a fitting one in
    h.pull_disk("ZSMALL01")
    h.insert_disk("pci-0000:00:17.0-ata-2", "ST4000VN008-2DR166", "ZNEW0001", FOUR_TB)
    s = sight(h, plan)
    assert s.done and s.new is not None and s.new.serial == "ZNEW0001"
    assert s.lines[-1].startswith("A new disk appeared: sd") and s.lines[-1].endswith("clean.")


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_same_bay_end_to_end_on_the_demo(tmp_path: Path, version: str) -> None:
    from zconsole.ui.wizards.flows import follow_up

    h = host(version=version)
    plan = bay_plan(h, after="clear-scrub")
    events: list[RunEvent] = []
    assert to_the_end(runner(h, plan, tmp_path), events).status == "done"
    said = [e.detail for e in events if isinstance(e, WaitProgress)]
    assert any("sdb with serial ZGY8C3D4 is gone. A new disk appeared: sd" in d for d in said)
    nxt = follow_up(plan)
    assert nxt is not None and nxt.preset["disk"] == rf.IN_BAY
    second = rf.plan_wizard(h, nxt.preset, False)
    assert not second.blocked and "step 2 of 2" in second.title
    [replace, clear, scrub] = second.argv_list()
    assert replace[:4] == ("zpool", "replace", "tank", OLD)
    assert replace[4].startswith("/dev/disk/by-id/ata-ST4000VN008-2DR166_ZNEW")
    # only the new disk's counters (issue 26): a bare `zpool clear tank` would reopen others
    assert clear == ("zpool", "clear", "tank", replace[4].rsplit("/", 1)[1])
    assert scrub == ("zpool", "scrub", "tank")
    assert to_the_end(runner(h, second, tmp_path)).status == "done"
    status = h.run(["zpool", "status", "tank"]).stdout
    assert OLD not in status and "ZNEW" in status
    assert "15712766684991486900             UNAVAIL" in status  # not part of the plan
    assert "mirror-0                           ONLINE" in status


def test_killed_while_waiting_for_the_new_disk_then_resumed(tmp_path: Path) -> None:
    h = host()
    plan = bay_plan(h)
    r = runner(h, plan, tmp_path, fast=False)
    res = r.run(lambda e: None)
    assert res.status == "awaiting-operator"
    cancel = threading.Event()

    def stop_after_first_look(e: RunEvent) -> None:
        if isinstance(e, WaitProgress):
            cancel.set()

    res = r.run(stop_after_first_look, start_at=res.next_index, cancel=cancel)
    assert res.status == "cancelled"
    # the console is gone; the operator pulls the disk meanwhile
    h.pull_disk("ZGY8C3D4")
    [found] = find_resumable(h, PlanStore(tmp_path / "plans"))
    assert found.phase == "wait" and found.plan.id == plan.id
    assert "ZGY8C3D4 is gone" in found.sentence
    h.insert_disk("pci-0000:00:17.0-ata-2", "ST4000VN008-2DR166", "ZNEW0009", FOUR_TB)
    again = runner(h, found.plan, tmp_path, fast=False)
    res = again.run(lambda e: None, start_at=found.next_index, outcomes=found.outcomes)
    assert res.status == "done"
    assert PlanStore(tmp_path / "plans").in_flight() == []
    records = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    argvs = [r["argv"] for r in records if r["event"] == "command"]
    assert argvs == [["zpool", "offline", "tank", OLD]]  # never run twice
    events = [r["event"] for r in records]
    assert events.count("command-intent") == 1
    assert events.index("command-intent") < events.index("command")  # intent, then result


@pytest.mark.parametrize("keep", [False, True])
def test_a_spare_in_use_returns_to_avail_or_stays(tmp_path: Path, keep: bool) -> None:
    h = host("degraded-spare")
    plan = rf.plan_wizard(
        h,
        {
            "old": ref("tank", OLD),
            "bay": "free",
            "disk": "sdh",
            "spare": "keep" if keep else "return",
            "after": "none",
        },
        False,
    )
    ids = [s.id for s in plan.steps]
    assert ids == (
        ["detach-failed", "add-spare", "pull", "report"]
        if keep
        else ["replace", "resilver", "spare-back", "pull", "report"]
    )
    assert to_the_end(runner(h, plan, tmp_path)).status == "done"
    status = h.run(["zpool", "status", "tank"]).stdout
    spares = status.split("spares", 1)[1]
    if keep:
        assert "ata-ST4000VN008-2DR166_ZGY8Q5R6    AVAIL" in spares
        assert "ZGY8N3P4" in status.split("spares", 1)[0]
    else:
        assert "ata-ST4000VN008-2DR166_ZGY8N3P4    AVAIL" in spares
        assert "spare-" not in status


def test_the_same_path_is_detected_from_a_by_path_vdev() -> None:
    from zconsole.model.disk import Disk

    leaf = Vdev(
        "pci-0000:00:17.0-ata-2",
        "disk",
        "REMOVED",
        path="/dev/disk/by-path/pci-0000:00:17.0-ata-2-part1",
    )
    new = Disk("sdm", "/dev/sdm", "disk", by_path=("pci-0000:00:17.0-ata-2",))
    other = Disk("sdn", "/dev/sdn", "disk", by_path=("pci-0000:00:17.0-ata-7",))
    assert rf.same_path(leaf, new) == "by-path pci-0000:00:17.0-ata-2"
    assert rf.same_path(leaf, other) is None
    # vdev_id.conf names: the by-vdev link of the bay now points at the new disk
    bay_a3 = Vdev("A3", "disk", "REMOVED", path="/dev/disk/by-vdev/A3-part1")
    assert rf.same_path(bay_a3, new, rf.Site(by_vdev={"A3": "sdm"})) == "by-vdev A3"
    assert rf.same_path(bay_a3, new, rf.Site(by_vdev={"A3": "sdb"})) is None
    assert rf.same_path(bay_a3, new) is None
    by_id = Vdev("x", "disk", "REMOVED", path=f"/dev/disk/by-id/{OLD}-part1")
    assert rf.same_path(by_id, new) is None
    assert rf.old_serial_hint(by_id) == "ZGY8C3D4"


def test_the_serial_of_a_lost_virtio_disk_is_its_by_id_name() -> None:
    """udev names a virtio disk by-id `virtio-SERIAL` (no model, no underscore): the missing
    disk's sentence gives the serial its label reads (seen on the OpenZFS guests: "Find the
    missing disk (virtio-zfsvm-vdd)" said no serial)."""
    gone = Vdev("virtio-zfsvm-vdd", "disk", "REMOVED",
                path="/dev/disk/by-id/virtio-zfsvm-vdd-part1")
    assert rf.old_serial_hint(gone) == "zfsvm-vdd"
    was = Vdev("1234567890", "disk", "UNAVAIL", note="was /dev/disk/by-id/virtio-QM00005-part1")
    assert rf.old_serial_hint(was) == "QM00005"
    assert rf.old_serial_hint(Vdev("x", "disk", "UNAVAIL", path="/dev/disk/by-id/virtio-")) \
        is None


def test_the_serial_of_a_lost_disk_without_a_path() -> None:
    """OpenZFS 2.1's text status gives a leaf's name, no path: a name in udev's by-id form
    still says the serial (seen on the 2.1 guest, the same sentence as above)."""
    assert rf.old_serial_hint(Vdev("virtio-zfsvm-vdd", "disk", "REMOVED")) == "zfsvm-vdd"
    assert rf.old_serial_hint(Vdev(OLD, "disk", "REMOVED")) == "ZGY8C3D4"
    assert rf.old_serial_hint(Vdev("sdb", "disk", "REMOVED")) is None
    assert rf.old_serial_hint(Vdev("wwn-0x5000c500a1b2c3d4", "disk", "REMOVED")) is None


def test_the_rehearsal_hands_a_too_small_disk_first(tmp_path: Path) -> None:
    h = host("degraded-small")
    plan = bay_plan(h)
    r = runner(h, plan, tmp_path)
    res = r.run(lambda e: None)
    events: list[RunEvent] = []
    cancel = threading.Event()

    def watch(e: RunEvent) -> None:
        events.append(e)
        if isinstance(e, WaitProgress) and "REFUSED" in e.detail:
            cancel.set()

    res = r.run(watch, start_at=res.next_index, cancel=cancel)
    assert res.status == "cancelled"
    refused = next(
        e.detail for e in events if isinstance(e, WaitProgress) and "REFUSED" in e.detail
    )
    assert "2.00 TB" in refused and "too small" in refused.lower()


def test_the_slow_disk_finding_travels_with_the_answers() -> None:
    slow_disk = "ata-ST4000VN008-2DR166_ZGY8E5F6"
    h = host()
    base = {"old": ref("tank", slow_disk), "bay": "free", "disk": "sdh"}
    unchecked = rf.plan_wizard(h, base, False)
    [target] = [c for c in unchecked.checks if c.name == "healthy-target"]
    assert not target.passed and "CAREFUL" in target.detail
    slow = rf.plan_wizard(h, {**base, "slow": "answers 10.8x slower than its peer"}, False)
    [target] = [c for c in slow.checks if c.name == "healthy-target"]
    assert target.passed and "10.8x slower" in target.detail


class EnclosureHost(DelegatingHost):
    """The demo host with an SES enclosure in /sys/class/enclosure and ledmon's ledctl."""

    TREE = {
        "/sys/class/enclosure": ["0:0:8:0"],
        "/sys/class/enclosure/0:0:8:0": ["Slot 01", "Slot 02", "Slot 03"],
        "/sys/class/enclosure/0:0:8:0/Slot 01/device/block": ["sda"],
        "/sys/class/enclosure/0:0:8:0/Slot 02/device/block": ["sdb"],
    }
    label = "demo: degraded"

    def list_dir(self, path: str) -> list[str]:
        if path in self.TREE:
            return self.TREE[path]
        if path.startswith("/sys/class/enclosure"):
            raise PathNotFound(path)
        return self.inner.list_dir(path)

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 30.0,
        check: bool = True,
        stdin: str | None = None,
    ) -> Result:
        if list(argv[:1]) == ["ledctl"]:
            return Result(tuple(argv), 0, "ledctl 0.97\n", "", 0.0)
        return self.inner.run(argv, timeout=timeout, check=check, stdin=stdin)


def test_the_enclosure_slot_and_ledctl_are_read_from_the_host() -> None:
    from zconsole.services.read import enclosure

    h = EnclosureHost(host())
    assert enclosure.read_slots(h) == {
        "sda": "enclosure 0:0:8:0 slot Slot 01",
        "sdb": "enclosure 0:0:8:0 slot Slot 02",
    }
    assert enclosure.has_ledctl(h) and not enclosure.has_ledctl(host())
    assert enclosure.read_slots(host()) == {}
    plan = rf.plan_wizard(h, {"old": ref("tank", OLD), "bay": "same"}, False)
    assert [s.id for s in plan.steps] == ["offline", "locate", "find", "swap"]
    assert "enclosure 0:0:8:0 slot Slot 02" in plan.steps[2].title
    assert any(c.name == "locate" and "ledctl locate=" in c.detail for c in plan.checks)


def test_zconsole_plan_prints_the_plan_the_wizard_runs() -> None:
    import re

    from zconsole.cli.commands.plan import render
    from zconsole.services.ops.operation import PlanRequest

    def shown(plan: Plan) -> str:
        return re.sub(r"\b[0-9a-f]{32}\b", "<id>", render(plan))

    h = host()
    for bay_, extra, answers in (
        ("same", (), {"bay": "same"}),
        ("free", ("sdh",), {"bay": "free", "disk": "sdh"}),
    ):
        cli = rf.plan_cli(h, PlanRequest("tank", (OLD, *extra), {"bay": bay_}))
        wizard = rf.plan_wizard(h, {"old": ref("tank", OLD), **answers}, False)
        assert shown(cli) == shown(wizard)


def test_a_new_disk_at_the_old_by_path_name_is_replaced_by_naming_only_the_old_one() -> None:
    """A pool named by path: the new disk in the same bay gets the same by-path name, so the
    command is `zpool replace POOL OLD` and the leaf keeps its name."""
    h = host()
    h.pull_disk("ZGY8C3D4")
    h.insert_disk("pci-0000:00:17.0-ata-2", "ST4000VN008-2DR166", "ZNEW0007", FOUR_TB)
    reading = collect(h)
    link = "pci-0000:00:17.0-ata-2"

    def by_path(v: Vdev) -> Vdev:
        if v.name == OLD:
            return dataclasses.replace(v, name=link, path=f"/dev/disk/by-path/{link}-part1")
        return dataclasses.replace(v, children=tuple(by_path(c) for c in v.children))

    status = reading.pool_status.value
    assert status is not None
    tank = dataclasses.replace(status[0], vdevs=tuple(by_path(v) for v in status[0].vdevs))
    reading = dataclasses.replace(
        reading, pool_status=dataclasses.replace(reading.pool_status, value=(tank,))
    )
    new = next(
        d.name
        for d in reading.disks.value.whole_disks()  # type: ignore[union-attr]
        if d.serial == "ZNEW0007"
    )
    plan = rf.build_replace_failed(reading, "tank", link, bay="same", new=new, after="none")
    assert plan.argv_list()[0] == ("zpool", "replace", "tank", link)
    assert any(c.name == "same-path" and f"by-path {link}" in c.detail for c in plan.checks)
    assert [s.id for s in plan.steps] == ["replace", "resilver", "report"]


# ------------------------------------------- the same bay on real OpenZFS (guest captures)

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "capture"
GUEST_VERSIONS = ["2.1.11", "2.3.2"]


def guest_bay_plan(version: str, state: str, **answers: str) -> tuple[Plan, ReplayHost]:
    h = ReplayHost(str(CAPTURES / f"zfs-{version}" / state))
    return rf.plan_wizard(h, {"bay": "same", "after": "scrub", **answers}, False), h


@pytest.mark.parametrize("version", GUEST_VERSIONS)
def test_the_bay_plan_of_a_faulted_member_on_the_guests(version: str) -> None:
    """faulted-member: a 3-way mirror of by-id names, vdc overwritten, scrubbed, faulted."""
    plan, _ = guest_bay_plan(version, "faulted-member", old="tank\tvirtio-zfsvm-vdc")
    assert not plan.blocked
    assert [s.id for s in plan.steps] == ["offline", "find", "swap"]
    offline, find, _ = plan.steps
    assert offline.command is not None
    assert offline.command.argv == ("zpool", "offline", "tank", "virtio-zfsvm-vdc")
    assert offline.confirmation is not None and offline.confirmation.expected == "zfsvm-vdc"
    # ZFS shows the fault over the offline: either state is the offline done
    assert dict(offline.postchecks[0].params)["state"] == "OFFLINE|FAULTED"
    params = dict(plan.params)
    assert params["locate"] == "blink" and params["old_serial"] == "zfsvm-vdc"
    assert find.operator_action is not None and "serial zfsvm-vdc" in find.operator_action
    assert params["members"] == "zfsvm-vdb=virtio-zfsvm-vdb,zfsvm-vdd=virtio-zfsvm-vdd"


@pytest.mark.parametrize("version", GUEST_VERSIONS)
def test_the_bay_plan_of_a_pulled_disk_with_its_spare_in_use_on_the_guests(
        version: str) -> None:
    """raidz2-spare-removed: vdd pulled (REMOVED), the hot spare vdf INUSE in spare-2. The
    missing disk is found by elimination, its serial read off its by-id name (2.1's text
    status gives no path); the spare in use is one member, not two (it is a leaf of spare-2
    and of the spares), so pulling it by mistake is said once."""
    plan, h = guest_bay_plan(version, "raidz2-spare-removed", old="tank\tvirtio-zfsvm-vdd",
                             spare="return")
    assert not plan.blocked
    assert [s.id for s in plan.steps] == ["find", "swap"]  # ZFS lost it: no offline
    params = dict(plan.params)
    assert params["locate"] == "elimination" and params["old_serial"] == ""
    find = plan.steps[0].operator_action or ""
    assert "Find the missing disk (its old name ends in serial zfsvm-vdd)" in find
    assert ("these serials stay in the machine: zfsvm-scratch, zfsvm-vdb, zfsvm-vdc, "
            "zfsvm-vde, zfsvm-vdf, zfsvm-vdg.") in find
    assert params["members"] == ("zfsvm-vdb=virtio-zfsvm-vdb,zfsvm-vdc=virtio-zfsvm-vdc,"
                                 "zfsvm-vde=virtio-zfsvm-vde,zfsvm-vdf=virtio-zfsvm-vdf")
    reading = collect(h)
    inv = reading.disks.value
    assert inv is not None
    pulled = dataclasses.replace(reading, disks=dataclasses.replace(
        reading.disks, value=inv._replace(
            devices=tuple(d for d in inv.devices if d.serial != "zfsvm-vdf"))))
    sight = bay.look_at_bay(pulled, bay.Baseline.from_params(params))
    assert sight.wrong == ("serial zfsvm-vdf (virtio-zfsvm-vdf)",)
    assert sight.lines[0].count("zpool online tank virtio-zfsvm-vdf") == 1
