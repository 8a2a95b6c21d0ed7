"""The SMART self-test as a plan (issue 30): `smartctl -t short|long DEV` through the
registry, its checks (refused while the pool resilvers or scrubs unless insisted on, a
running test, NVMe on smartctl 7.3, a sleeping or SMART-less disk), the re-checks right
before the command, and the run on the demo host from start through progress to the result
in the audit log and the Timeline."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from tests.unit.test_runner import Events, SimClock, audit_records
from zconsole.cli.commands.plan import build as cli_build
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import CheckLevel, StepStatus
from zconsole.model.smart import SmartReading, Unread
from zconsole.model.timeline import self_test_ref
from zconsole.services.ops import registry
from zconsole.services.ops.engine.resume import find_resumable
from zconsole.services.ops.engine.runner import PlanRunner, WaitProgress
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.smart.selftest import build_self_test, read_target
from zconsole.services.read.timeline import audit_entries

SDB = "/dev/disk/by-id/ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # showcase: the dying disk
SDA = "/dev/disk/by-id/ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"


def _plan(host: DemoHost, disk: str, **kw: object):  # type: ignore[no-untyped-def]
    reading, smart = read_target(host, disk)
    return build_self_test(reading, disk, smart, **kw)  # type: ignore[arg-type]


def _check(plan, name: str):  # type: ignore[no-untyped-def]
    return next(c for c in plan.checks if c.name == name)


def test_the_argv_is_exact_and_names_the_disk_by_id() -> None:
    host = DemoHost("showcase", clock=SimClock())
    short = _plan(host, "sdb")
    assert short.kind == "self-test" and short.pool == "tank" and not short.blocked
    assert short.argv_list() == [("smartctl", "-t", "short", SDB)]
    assert registry.get("self-test").plan(host, PlanRequest("", ("sdb",), {"long": True})
                                          ).argv_list() == [("smartctl", "-t", "long", SDB)]
    assert not short.needs_force
    # the drive's own expected minutes (polling_minutes) are said
    assert "short test to take 2 minutes" in _check(short, "expected duration").detail
    assert "555 minutes" in _check(_plan(host, "sdb", test="long"), "expected duration").detail
    # the watch step follows the same device and counts the log from now
    wait = short.steps[1].wait
    assert wait is not None and wait.activity == "self-test"
    until = wait.until[0]
    assert until.kind == "self_test_logged" and until.param("device") == SDB
    assert until.param("seen") == "0" and until.param("minutes") == "2"


def test_refused_while_the_pool_scrubs_unless_the_operator_insists() -> None:
    host = DemoHost("showcase", clock=SimClock())
    host.run(["zpool", "scrub", "tank"])
    plan = _plan(host, "sdb")
    scan = _check(plan, "pool not scanning")
    assert not scan.passed and scan.level is CheckLevel.CONFIRM and plan.needs_force
    assert "tank is busy: scrub in progress" in scan.detail
    pre = [p.kind for p in plan.steps[0].prechecks]
    assert pre == ["smart_idle", "no_scan"]
    # insisting (the wizard's second confirmation, --force): the run no longer asks
    forced = _plan(host, "sdb", force=True)
    assert [p.kind for p in forced.steps[0].prechecks] == ["smart_idle"]
    assert forced.argv_list() == plan.argv_list()
    # a disk in no pool is never refused for a scan
    assert _plan(host, "sdh").pool == "" and not _plan(host, "sdh").needs_force


def test_blocked_when_a_test_runs_on_nvme_7_3_and_without_smart() -> None:
    host = DemoHost("showcase", clock=SimClock())
    host.run(["smartctl", "-t", "short", "/dev/sdb"])
    running = _plan(host, "sdb")
    assert running.blocked and not _check(running, "no self-test running").passed
    assert "already runs on sdb" in _check(running, "no self-test running").detail
    nvme = _plan(host, "nvme2n1")
    assert nvme.blocked and "smartctl 7.4" in _check(nvme, "NVMe self-test").detail
    assert nvme.argv_list() == [("smartctl", "-t", "short", "/dev/nvme2")]
    reading, _ = read_target(host, "sda")
    virtio = build_self_test(reading, "sda", SmartReading(
        "/dev/sda", unread=Unread.NO_SMART, unread_detail="a virtio disk"))
    assert virtio.blocked and "no SMART (a virtio disk)" in virtio.checks[0].detail
    missing = build_self_test(reading, "sda", SmartReading("/dev/sda",
                                                           unread=Unread.MISSING))
    assert missing.blocked and "smartmontools" in missing.checks[0].detail
    unknown = build_self_test(reading, "sdz", None)
    assert unknown.blocked and not unknown.steps


def test_a_sleeping_disk_is_woken_only_on_a_second_confirmation() -> None:
    host = DemoHost("showcase", clock=SimClock())
    plan = _plan(host, "sdg")  # the spun-down spare
    smart = _check(plan, "disk answers SMART")
    assert smart.level is CheckLevel.CONFIRM and not smart.passed and not plan.blocked
    assert "asleep" in smart.detail and "your choice" in smart.detail
    # building the plan did not wake it (the read is -n standby)
    assert host.machine.smart[host.machine.disks["sdg"].serial].asleep


def runner(host: DemoHost, plan, tmp_path: Path, clock: SimClock,  # type: ignore[no-untyped-def]
           fast_forward: bool = False) -> PlanRunner:
    """A poll every 20 s of the simulated clock, the host's time passing with it."""
    return PlanRunner(host, plan, audit=AuditLog(tmp_path / "audit.jsonl"),
                      store=PlanStore(tmp_path / "plans"), operator="alice",
                      poll_interval=20.0, clock=clock, sleep=clock.sleep,
                      fast_forward=fast_forward, postcheck_delay=0.0)


def _run(host: DemoHost, plan, tmp_path: Path, clock: SimClock,  # type: ignore[no-untyped-def]
         fast_forward: bool = False):
    ev = Events()
    return runner(host, plan, tmp_path, clock, fast_forward).run(ev), ev


def test_recheck_before_the_command_refuses_a_scrub_started_after_the_preview(
        tmp_path: Path) -> None:
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    plan = _plan(host, "sdb")
    assert not plan.needs_force
    host.run(["zpool", "scrub", "tank"])  # between the preview and the run
    result, _ = _run(host, plan, tmp_path, clock)
    assert result.status == "failed" and "no scrub or resilver runs in tank" in result.message
    assert not any(r["event"] == "command" for r in audit_records(tmp_path))
    assert host.machine.smart[host.machine.disks["sdb"].serial].running is None
    # a test someone else started meanwhile: not started twice
    host.run(["zpool", "scrub", "-s", "tank"])
    host.run(["smartctl", "-t", "long", "/dev/sdb"])
    again, _ = _run(host, plan, tmp_path / "2", clock)
    assert again.status == "failed" and "no self-test runs on sdb" in again.message


@pytest.mark.parametrize(("disk", "device", "result"), [
    ("sdb", SDB, "short self-test FAILED: Completed: read failure at LBA 5,112,093,184"),
    ("sda", SDA, "short self-test passed: Completed without error"),
])
def test_demo_run_start_progress_result_in_audit_and_timeline(
        tmp_path: Path, disk: str, device: str, result: str) -> None:
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    plan = _plan(host, disk)
    res, ev = _run(host, plan, tmp_path, clock)
    assert res.status == "done", res.message
    assert all(o.status is StepStatus.DONE for o in res.outcomes)
    # progress as the drive reports it, every 20 s of a 2-minute test
    pct = [p.percent for p in ev.of(WaitProgress) if p.scanning]
    assert pct == sorted(pct) and len(pct) >= 4 and pct[0] is not None and pct[-1] is not None
    assert pct[0] < pct[-1] < 100
    assert ev.of(WaitProgress)[0].detail == f"self-test {pct[0]:.0f} % done on {device}"
    records = audit_records(tmp_path)
    cmd = next(r for r in records if r["event"] == "command")
    assert cmd["argv"] == ["smartctl", "-t", "short", device] and cmd["exit_code"] == 0
    end = next(r for r in records if r["event"] == "wait-end")
    assert end["activity"] == "self-test" and result in str(end["detail"])
    assert result in res.outcomes[1].message
    # the Timeline (read from the audit log) says the command and the result
    words = [e.words for e in audit_entries(records, str(host.label))]
    assert f"smartctl -t short {device}" in words
    assert any(w.startswith("zconsole watched to its end: ") and result in w for w in words)
    # the drive's log holds it, as the Disks screen reads it
    reading, smart = read_target(host, disk)
    assert smart is not None and smart.running is None
    t = smart.self_tests[0]
    assert t.kind == "short"
    # the wait's end records that entry, so the Timeline tells it is the drive log's
    assert end["result"] == {"device": device, "disk": disk, "model": smart.model,
                             "serial": smart.serial,
                             "test": "short", "hours": t.hours, "status": t.status,
                             "lba": t.lba, "passed": t.passed}
    [ended] = [e for e in audit_entries(records, str(host.label)) if e.ref]
    assert ended.ref == self_test_ref(smart.model or "", smart.serial or "", t.kind, t.hours,
                                      t.status)


def test_fast_forward_on_the_demo_lets_the_drive_time_pass(tmp_path: Path) -> None:
    """The runner's hurry on a simulated host: `sleep` for the drive's minutes (the demo
    jumps ahead), then the result."""
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    plan = _plan(host, "sda", test="long")
    started = host.now()
    res, _ = _run(host, plan, tmp_path, clock, fast_forward=True)
    assert res.status == "done", res.message
    assert "long (extended) self-test passed" in res.outcomes[1].message
    assert host.now() - started >= 555 * 60 and clock.slept < 600  # jumped, not polled


def test_interrupted_watch_is_resumed_and_the_test_went_on_in_the_disk(
        tmp_path: Path) -> None:
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    plan = _plan(host, "sdb")
    cancel = threading.Event()
    store = PlanStore(tmp_path / "plans")

    def stop_at_first_progress(e: object) -> None:
        if isinstance(e, WaitProgress) and e.scanning:
            cancel.set()

    r = runner(host, plan, tmp_path, clock)
    first = r.run(stop_at_first_progress, cancel=cancel)
    assert first.status == "cancelled" and "carries on" in first.message
    clock.sleep(600)  # the console was closed; the drive finished meanwhile
    found = find_resumable(host, store)
    assert len(found) == 1 and found[0].plan.id == plan.id
    again = runner(host, found[0].plan, tmp_path, clock).run(
        Events(), start_at=found[0].next_index, outcomes=found[0].outcomes)
    assert again.status == "done"
    assert "FAILED: Completed: read failure" in again.outcomes[1].message
    # the command ran once
    assert sum(1 for x in audit_records(tmp_path) if x["event"] == "command") == 1


def test_the_cli_takes_the_disk_and_long() -> None:
    host = DemoHost("showcase", clock=SimClock())
    plan = cli_build(host, "self-test", PlanRequest("", ("sdb",), {"long": True}))
    assert plan.argv_list() == [("smartctl", "-t", "long", SDB)]
    with pytest.raises(ValueError, match="plan self-test needs DISK"):
        cli_build(host, "self-test", PlanRequest("", (), {}))
    with pytest.raises(ValueError, match="needs DISK"):
        cli_build(host, "self-test", PlanRequest("", ("sdb", "sdc"), {}))


def test_the_wizard_answers_build_the_same_plan() -> None:
    host = DemoHost("showcase", clock=SimClock())
    wizard = registry.get("self-test").wizard
    assert wizard is not None and wizard.screen == "disks" and wizard.asks == ("disk", "test")
    plan = wizard.plan(host, {"disk": "sdb", "test": "long"}, False)
    assert plan.argv_list() == [("smartctl", "-t", "long", SDB)]
    assert dataclasses.replace(plan, id="x").params == dataclasses.replace(
        _plan(host, "sdb", test="long"), id="x").params


def test_the_demo_smartctl_refuses_a_second_test_and_aborts() -> None:
    host = DemoHost("showcase", clock=SimClock())
    first = host.run(["smartctl", "-t", "short", SDB])
    assert first.returncode == 0 and "Please wait 2 minutes for test to complete." in \
        first.stdout
    second = host.run(["smartctl", "-t", "long", SDB], check=False)
    assert second.returncode == 4 and "Can't start self-test without aborting" in \
        second.stdout
    assert host.run(["smartctl", "-X", SDB]).returncode == 0
    _, smart = read_target(host, "sdb")
    assert smart is not None and smart.running is None
    assert smart.self_tests[0].status == "Aborted by host" and smart.self_tests[0].passed \
        is None
    nvme = host.run(["smartctl", "-t", "short", "/dev/nvme2"], check=False)
    assert nvme.returncode == 4


def test_a_test_over_before_the_first_look_is_done_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QEMU's emulated ATA disk logs "Completed without error" the moment `-t` returns and
    never shows one running (smart-facts.md §5.2): the start is proven by the new log entry
    and the watch ends at its first look."""
    from zconsole.hosts.demo.machine import selftest as demo_selftest

    monkeypatch.setattr(demo_selftest, "polling_minutes",
                        lambda rotational: {"short": 0, "extended": 0})
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    host.run(["smartctl", "-t", "short", SDA])  # an earlier test: counted as seen
    plan = _plan(host, "sda")
    assert plan.steps[1].wait is not None
    assert plan.steps[1].wait.until[0].param("seen") == "1"
    res, ev = _run(host, plan, tmp_path, clock)
    assert res.status == "done", res.message
    assert not [p for p in ev.of(WaitProgress) if p.scanning]
    assert "short self-test passed" in res.outcomes[1].message


def test_a_sleeping_disk_insisted_on_is_woken_by_the_test_itself(tmp_path: Path) -> None:
    """The re-check before the command reads with -n standby too: asleep means no test
    runs, and the disk is woken only by `smartctl -t`, the operator's choice."""
    clock = SimClock()
    host = DemoHost("showcase", clock=clock)
    plan = _plan(host, "sdg", force=True)
    assert plan.needs_force and not plan.blocked
    res, _ = _run(host, plan, tmp_path, clock)
    assert res.status == "done", res.message
    checks = [r for r in audit_records(tmp_path) if r["event"] == "checks"
              and r["phase"] == "pre"]
    assert checks[0]["results"][0]["detail"] == "asleep (STANDBY): no self-test runs"
    assert not host.machine.smart[host.machine.disks["sdg"].serial].asleep
    assert "short self-test passed" in res.outcomes[1].message


def test_new_entries_count_from_the_hour_read_and_through_the_ata_wrap() -> None:
    """A drive past 65,535 power-on hours logs its tests modulo 65,536 (ATA): the entries
    from the plan's hour on are still found."""
    from zconsole.model.smart import SelfTest
    from zconsole.services.ops.smart.watch import new_entries

    log = (SelfTest("short", "Completed without error", True, hours=4_470),  # 70,006 h
           SelfTest("short", "Completed without error", True, hours=4_400),
           SelfTest("extended", "Completed: read failure", False, hours=4_470))
    old = SmartReading("/dev/sda", self_tests=log, power_on_hours=70_006)
    assert [t.hours for t in new_entries(old, "short", 70_000)] == [4_470]
    young = SmartReading("/dev/sda", self_tests=(
        SelfTest("short", "Completed without error", True, hours=31_208),
        SelfTest("short", "Completed without error", True, hours=31_100)))
    assert [t.hours for t in new_entries(young, "short", 31_207)] == [31_208]
    assert len(new_entries(young, "short", None)) == 2
