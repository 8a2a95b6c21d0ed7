"""Issue 30 §3: `check` says each disk's SMART state — read (with its finding kinds), "no
SMART" and why, "asleep, not read", "needs root", "smartctl missing" (which package) — in
the JSON's "disks" and, for the disks not read, once per disk in the text; never as an
error, never in the exit code. On the demo (`check --demo showcase`) and a fake host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import Clock
from tests.unit.test_smart_read import FAIL2, disk, host
from zconsole.cli.formats.json_out import as_json
from zconsole.cli.formats.nagios import nagios_text
from zconsole.cli.formats.smart_disks import disks_json, disks_text
from zconsole.cli.main import main
from zconsole.hosts.base import CommandNotFound, PermissionDenied
from zconsole.model.finding import Severity
from zconsole.services.health.smart import judge_disks
from zconsole.services.monitor.report import Report
from zconsole.services.read.smart import SmartWatch

T0 = 1_795_302_010.0


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


def report_of(answers: dict[str, object], names: list[str]) -> Report:
    _fake, h = host(answers)
    watch = SmartWatch(h, clock=Clock(T0))
    disks = [disk(n, transport="virtio" if n.startswith("vd") else "sata") for n in names]
    watch.poll(disks)
    v = Report("fake", T0, list(judge_disks(watch.states(), now=T0)))
    v.smart = watch.states()  # as check sets it from the session's watch
    return v


def test_each_disk_says_its_state_once_and_the_exit_code_is_the_findings() -> None:
    v = report_of({"/dev/sdb": (64, FAIL2, ""),
                   "/dev/sdc": PermissionDenied(["smartctl"], "/dev/sdc: Permission denied")},
                  ["vda", "sdb", "sdc"])
    by_disk = {d["disk"]: d for d in disks_json(v)}
    assert by_disk["vda"]["state"] == "no-smart"
    assert "virtio" in str(by_disk["vda"]["words"])
    assert by_disk["sdc"]["state"] == "not-root"
    assert by_disk["sdb"]["state"] == "read" and by_disk["sdb"]["words"] == ""
    assert "smart-failed" in by_disk["sdb"]["findings"]  # type: ignore[operator]
    assert by_disk["sdb"]["serial"] and by_disk["sdb"]["read_at"] == T0
    lines = disks_text(v)
    assert len(lines) == 2 and all(line.startswith("• SMART of ") for line in lines)
    assert any(line.startswith("• SMART of vda (ata-DISK_vda): no SMART") for line in lines)
    assert any("sdc" in line and "needs root" in line for line in lines)
    assert v.status is Severity.CRITICAL  # the failed sdb, not the unread disks
    text = nagios_text(v)
    assert sum("vda" in line for line in text.splitlines()) == 1 and "ERROR" not in text
    assert json.loads(json.dumps(as_json(v)))["disks"] == disks_json(v)


def test_smartctl_missing_everywhere_is_said_once_with_its_package() -> None:
    v = report_of({"/dev/sda": CommandNotFound(["smartctl"]),
                   "/dev/sdb": CommandNotFound(["smartctl"])}, ["sda", "sdb"])
    assert {d["state"] for d in disks_json(v)} == {"smartctl-missing"}
    assert disks_text(v) == ["• SMART not read: smartctl is not installed (Debian/Ubuntu "
                             "package: smartmontools)"]
    assert v.status is Severity.OK


def test_hostile_disk_names_are_made_visible() -> None:
    v = report_of({}, ["vd\x1b[31ma"])
    [d] = disks_json(v)
    assert "\x1b" not in json.dumps(d, ensure_ascii=False) and "\\u001b" in str(d["disk"])
    assert "\x1b" not in "".join(disks_text(v))


def test_the_demo_says_the_sleeping_spare_once_and_the_dying_disk_s_kinds(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--demo", "showcase", "--sample", "0", "--json"])
    doc = json.loads(capsys.readouterr().out)
    by_disk = {d["disk"]: d for d in doc["disks"]}
    assert by_disk["sdb"]["state"] == "read" and by_disk["sdb"]["pool"] == "tank"
    assert {"smart-counters", "smart-self-test"} <= set(by_disk["sdb"]["findings"])
    assert by_disk["sdc"]["findings"] == ["smart-crc"]
    [asleep] = [d for d in doc["disks"] if d["state"] == "asleep"]
    assert asleep["words"].startswith("asleep, not read")
    assert code == doc["exit_code"] == 1
    main(["check", "--demo", "showcase", "--sample", "0"])
    text = capsys.readouterr().out
    said = [line for line in text.splitlines() if "asleep, not read" in line]
    assert len(said) == 1 and said[0].startswith(f"• SMART of {asleep['disk']} ")
