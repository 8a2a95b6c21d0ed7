"""The plans engineer B's builders (services.plans) executed by the runner on the demo host,
both OpenZFS flavours: every wizard's plan runs to the end and leaves ZFS in the state the
plan promised (or stops where the demo cannot follow, saying so)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.fakes import DelegatingHost
from tests.unit.test_runner import DdHost, Events, SimClock, audit_records, runner
from zconsole.hosts.base import Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import Plan, StepStatus
from zconsole.services.ops.engine.runner import NeedsOperator, PlanRunner, RunResult, WaitProgress
from zconsole.services.ops.zfs.attach import build_attach
from zconsole.services.ops.zfs.dedup_off import build_dedup_off
from zconsole.services.ops.zfs.detach import build_detach
from zconsole.services.ops.zfs.replace import build_replace
from zconsole.services.ops.zfs.replace_grow import build_replace_grow
from zconsole.services.read.collect import collect

A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
A1 = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"
NEW = "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE"  # showcase sdh
GROW01 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
GROW02 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02"

VERSIONS = pytest.mark.parametrize("version", ["2.1", "2.3"])


def run_through(r: PlanRunner, ev: Events) -> RunResult:
    """Run; at each operator step answer "done" (what the UI does after the operator)."""
    res = r.run(ev)
    while res.status == "awaiting-operator":
        res = r.run(ev, start_at=res.next_index, outcomes=res.outcomes)
    return res


def status(host: DemoHost) -> str:
    return host.run(["zpool", "status", "tank"]).stdout


def size(host: DemoHost) -> int:
    return int(host.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout)


@VERSIONS
def test_attach(tmp_path: Path, version: str) -> None:
    clock = SimClock()
    host = DemoHost("showcase", version, clock)
    plan = build_attach(collect(host), "tank", A0, "sdh")
    assert not plan.blocked
    ev = Events()
    res = run_through(runner(host, plan, tmp_path, clock), ev)
    assert res.status == "done", res.message
    assert all(o.status is StepStatus.DONE for o in res.outcomes)
    assert any(p.scanning for p in ev.of(WaitProgress))
    mirror0 = status(host).split("mirror-0")[1].split("mirror-1")[0]
    assert NEW in mirror0 and "resilvering" not in mirror0


@VERSIONS
def test_detach(tmp_path: Path, version: str) -> None:
    clock = SimClock()
    host = DemoHost("showcase", version, clock)
    plan = build_detach(collect(host), "tank", A1)
    res = run_through(runner(host, plan, tmp_path, clock), Events())
    assert res.status == "done", res.message
    assert A1 not in status(host)


@VERSIONS
def test_replace(tmp_path: Path, version: str) -> None:
    clock = SimClock()
    host = DemoHost("showcase", version, clock)
    plan = build_replace(collect(host), "tank", A1, "sdh")
    res = run_through(runner(host, plan, tmp_path, clock), Events())
    assert res.status == "done", res.message
    text = status(host)
    assert A1 not in text and NEW in text and "replacing" not in text


@VERSIONS
@pytest.mark.parametrize("expand", ["online-e", "autoexpand"])
def test_replace_to_grow(tmp_path: Path, version: str, expand: str) -> None:
    clock = SimClock()
    host = DdHost("grow", version, clock)  # answers the identify reads (dd)
    before = size(host)
    plan = build_replace_grow(collect(host), "tank", "mirror-0", ["sdc", "sdd"],
                                    expand=expand)
    assert not plan.blocked
    ev = Events()
    res = run_through(runner(host, plan, tmp_path, clock), ev)
    assert res.status == "done", res.message
    assert size(host) > before
    text = status(host)
    assert GROW01 not in text and GROW02 not in text
    assert len(ev.of(NeedsOperator)) == 2  # pull each old disk
    cmds = [r["command"] for r in audit_records(tmp_path) if r["event"] == "command"]
    assert [c.split()[:2] for c in cmds if c.startswith("zpool replace")] == \
        [["zpool", "replace"]] * 2


@VERSIONS
def test_dedup_off_with_a_rewrite(tmp_path: Path, version: str) -> None:
    """dedup=off everywhere, tank/vm rewritten by zfs send | zfs receive (a pipeline, no
    shell) and swapped in; the old copy is kept, so the table has not shrunk yet."""
    from zconsole.services.read import dedup

    clock = SimClock()
    host = DemoHost("dedup", version, clock)
    before = dedup.read_dedup(host, "tank")
    plan: Plan = build_dedup_off(before, reading=collect(host), rewrite=["tank/vm"])
    ev = Events()
    res = run_through(runner(host, plan, tmp_path, clock), ev)
    assert res.status == "done", res.message
    after = dedup.read_dedup(host, "tank")
    assert after.entries is not None and after.entries == before.entries
    props = host.run(["zfs", "get", "-H", "-p", "-o", "name,value", "dedup", "tank/vm"]).stdout
    assert props.split() == ["tank/vm", "off"]
    pipes = [r for r in audit_records(tmp_path)
             if r["event"] == "command" and isinstance(r["argv"][0], list)]
    assert len(pipes) == 1 and pipes[0]["argv"][1][:2] == ["zfs", "receive"]
    assert pipes[0]["exit_code"] == 0


SDL = "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567"  # showcase sdl: an exported pool's label


def _attach_forced(host: DemoHost) -> Plan:
    plan = build_attach(collect(host), "tank", A0, "sdl", force=True)
    assert plan.needs_force and not plan.blocked
    assert plan.argv_list()[0][:3] == ("zpool", "attach", "-f")
    return plan


def test_force_approved_for_a_label_still_runs(tmp_path: Path) -> None:
    """The preview's approval (-f for oldpool's label) covers what the preview showed."""
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    res = run_through(runner(host, _attach_forced(host), tmp_path, clock), Events())
    assert res.status == "done", res.message
    assert SDL in status(host)


def test_force_does_not_cover_a_filesystem_made_after_the_preview(tmp_path: Path) -> None:
    """Issue 'trust', item 5: -f approved for an exported pool's label also overwrote an ext4
    filesystem created on the disk after the preview. The new-disk guards now run again right
    before the command; the changed condition stops the run and nothing is written."""
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    plan = _attach_forced(host)
    host.machine.disks["sdl"].partitions[0].fs_type = "ext4"  # mkfs.ext4 /dev/sdl1, meanwhile
    host.machine.disks["sdl"].partitions[0].fs_label = "scratch"
    res = run_through(runner(host, plan, tmp_path, clock), Events())
    assert res.status == "failed"
    assert "changed since the preview" in res.message and "ext4" in res.message
    assert SDL not in status(host)
    commands = [r for r in audit_records(tmp_path) if r.get("event") in ("command-intent", "command")]
    assert commands == []  # zpool attach never ran


def test_another_disk_at_the_approved_path_is_refused(tmp_path: Path) -> None:
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    plan = _attach_forced(host)
    host.machine.disks["sdl"].serial = "ZZZ-SWAPPED"  # someone swapped the disk in that bay
    res = run_through(runner(host, plan, tmp_path, clock), Events())
    # by-id names carry the serial, so the approved name is gone (a by-path name would still
    # be there, with another serial: "now a different disk")
    assert res.status == "failed" and "nothing is written" in res.message
    assert SDL not in status(host)


class FullDiskAudit(AuditLog):
    """An audit log whose disk is full from the first record of event `full_at` on."""

    def __init__(self, path: Path, full_at: str) -> None:
        super().__init__(path)
        self.full_at = full_at
        self.full = False

    def append(self, record: Mapping[str, object]) -> None:
        self.full = self.full or record.get("event") == self.full_at
        if self.full:
            raise OSError(28, "No space left on device")
        super().append(record)


def test_a_write_never_runs_without_its_intent_record(tmp_path: Path) -> None:
    """Issue 'trust', item 6: when the audit log fills up right before `zpool attach`, the
    command does not run (before, it ran and left no trace)."""
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    plan = build_attach(collect(host), "tank", A0, "sdh")
    audit = FullDiskAudit(tmp_path / "audit.jsonl", "command-intent")
    r = PlanRunner(host, plan, audit=audit, store=PlanStore(tmp_path / "plans"),
                   operator="alice", clock=clock, sleep=clock.sleep, fast_forward=False,
                   postcheck_delay=0.0, poll_interval=60.0)
    res = r.run(Events())
    assert res.status == "failed"
    assert "never runs a command that writes without its record" in res.message
    assert NEW not in status(host)


def test_the_intent_is_on_disk_before_the_command_runs(tmp_path: Path) -> None:
    """A console killed during a long command leaves a record of which command started."""
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    plan = build_attach(collect(host), "tank", A0, "sdh")
    seen: list[list[str]] = []

    class Killed(BaseException):
        pass

    class Dies(DelegatingHost):
        def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
                stdin: str | None = None) -> Result:
            if tuple(argv[:2]) == ("zpool", "attach"):
                seen.extend(r["event"] for r in audit_records(tmp_path))  # type: ignore[misc]
                raise Killed  # the console dies while the command runs
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)

    with pytest.raises(Killed):
        runner(Dies(host), plan, tmp_path, clock).run(Events())  # type: ignore[arg-type]
    assert seen[-1] == "command-intent"
    records = audit_records(tmp_path)
    assert records[-1]["event"] == "command-intent"
    assert records[-1]["argv"][:2] == ["zpool", "attach"]


def test_a_second_console_cannot_write_while_the_first_holds_the_pool(tmp_path: Path) -> None:
    """Issue 'trust', item 8: two consoles detach the two halves of one mirror. The second
    arrives while the first's `zpool detach` runs: it is told who holds the pool and runs
    nothing; once the first is done, its own pre-check (the mirror has one disk left) refuses."""
    clock = SimClock()
    host = DemoHost("showcase", "2.3", clock)
    first = build_detach(collect(host), "tank", A1)
    second = build_detach(collect(host), "tank", A0)  # both planned from the same reading
    assert not first.blocked and not second.blocked
    (tmp_path / "b").mkdir()
    results: list[RunResult] = []

    class SecondConsoleArrives(DelegatingHost):
        def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
                stdin: str | None = None) -> Result:
            if tuple(argv[:2]) == ("zpool", "detach") and not results:
                r2 = PlanRunner(host, second, audit=AuditLog(tmp_path / "b" / "audit.jsonl"),
                                store=PlanStore(tmp_path / "b" / "plans"), operator="bob",
                                clock=clock, sleep=clock.sleep, postcheck_delay=0.0)
                results.append(r2.run(Events()))
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)

    res = runner(SecondConsoleArrives(host), first, tmp_path, clock).run(Events())  # type: ignore[arg-type]
    assert res.status == "done", res.message
    held = results[0]
    assert held.status == "failed"
    assert "another zconsole is changing pool tank" in held.message
    assert "alice" in held.message and "'detach'" not in held.message.split("(")[0]
    assert first.title in held.message  # says which plan holds it
    b_events = [r["event"] for r in audit_records(tmp_path / "b")]
    assert "command-intent" not in b_events and "command" not in b_events
    assert A0 in status(host) and A1 not in status(host)  # only the first detach ran
    assert host.machine.locks == {}  # let go after the step
    again = PlanRunner(host, second, audit=AuditLog(tmp_path / "b" / "audit.jsonl"),
                       store=PlanStore(tmp_path / "b" / "plans"), operator="bob", clock=clock,
                       sleep=clock.sleep, postcheck_delay=0.0).run(Events())
    assert again.status == "failed" and "another zconsole" not in again.message
    assert A0 in status(host)  # zconsole's own guard, not ZFS, refused the last copy
