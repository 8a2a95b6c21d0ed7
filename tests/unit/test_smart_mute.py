"""Issue 30 §4: the SMART findings an admin can knowingly live with (a cable they know
about, the counters of a disk already scheduled for replacement) are muted through the one
mute mechanism (`severity.MUTABLE`, `hosts.journal.MuteStore`, `check --mute`); a FAILED disk
never is. Muted, they raise nothing on every face alike: check's exit code, the metrics, the
Fleet row and the Pools to-do level."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import pytest

from tests.unit.test_verdict_agreement import T, metrics, sampled
from zconsole.cli.main import main
from zconsole.hosts.journal import MuteStore
from zconsole.model.advice import Mute
from zconsole.model.finding import Finding, Severity
from zconsole.services.fleet import fleet_row
from zconsole.services.health.severity import judge_host, mutable, pool_level
from zconsole.services.monitor.report import judge


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


@pytest.mark.parametrize(("kind", "can"), [
    ("smart-crc", True), ("smart-counters", True), ("smart-self-test", True),
    ("smart-wear", True), ("smart-failed", False), ("smart-nvme-critical", False),
    ("smart-temperature", False), ("pool-state", False), ("redundancy-lost", False)])
def test_which_smart_kinds_an_operator_may_mute(kind: str, can: bool) -> None:
    assert mutable(kind) is can


def test_a_muted_cable_and_a_disk_due_for_replacement_leave_every_face() -> None:
    """The healthy demo with the showcase's dying disk and bad cable put on two of its pool
    disks: WARNING on check, the metrics, Fleet and Pools; both muted: OK on each. A FAILED
    disk muted the same way stays CRITICAL everywhere."""
    m = sampled("healthy", smart=False)
    last = m.session.last
    assert last is not None
    reading = last.reading
    assert reading.disks.value is not None
    pool, disk_a, disk_b = next((r.pool, r.disk, s.disk) for r in reading.disks.value.roles
                                for s in reading.disks.value.roles
                                if r.pool and r.pool == s.pool and r.disk < s.disk)
    crc = Finding("smart-crc", Severity.WARNING, disk_a, f"{disk_a} has 312 UDMA CRC errors",
                  pool=pool)
    counters = Finding("smart-counters", Severity.WARNING, disk_b,
                       f"{disk_b} has 48 pending sectors", pool=pool)
    mutes = (Mute("smart-crc", disk_a, "cable known, swapped Tuesday", T),
             Mute("smart-counters", disk_b, "replacement scheduled", T))
    entry = next(e for e in reading.pools if e.name == pool)
    for muted, want in (((), Severity.WARNING), (mutes, Severity.OK)):
        v = judge(reading, slow=last.findings, estimates=last.scan_estimates,
                  smart=(crc, counters), mutes=muted)
        assert v.status is want
        assert metrics(v)[("zconsole_host_severity", "")] == want.value
        assert metrics(v)[("zconsole_pool_severity", pool)] == want.value
        m.mutes = muted
        m.session.smart.findings = (crc, counters)
        assert fleet_row(m, T, 1e9).state is want
        assert pool_level(entry, slow=last.findings, smart=(crc, counters),
                          mutes=muted) is want
    failed = Finding("smart-failed", Severity.CRITICAL, disk_a, "SMART says FAILED", pool=pool)
    hv = judge_host(reading, smart=(failed,), mutes=(Mute("smart-failed", disk_a, "x", T),))
    assert hv.level is Severity.CRITICAL and hv.muted == ()
    assert pool_level(entry, smart=(failed,),
                      mutes=(Mute("smart-failed", disk_a, "x", T),)) is Severity.CRITICAL


def run_check(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, object]]:
    code = main(["check", "--demo", "showcase", "--sample", "0", "--no-advice", "--json",
                 *extra])
    doc = json.loads(capsys.readouterr().out)
    assert isinstance(doc, dict)
    return code, doc


def said(doc: dict[str, object], key: str) -> set[tuple[str, str]]:
    items = doc[key]
    assert isinstance(items, list)
    return {(x["kind"], x["subject"]) for x in items}


def test_check_mute_keeps_the_mute_and_the_next_check_leaves_it_out(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, doc = run_check(capsys)
    assert ("smart-crc", "sdc") in said(doc, "findings") and code == 1
    code, doc = run_check(capsys, "--mute", "smart-crc:sdc", "--mute", "smart-counters:sdb",
                          "--reason", "a cable we know about; sdb is replaced Friday")
    assert {("smart-crc", "sdc"), ("smart-counters", "sdb")} <= said(doc, "muted")
    assert not {("smart-crc", "sdc"), ("smart-counters", "sdb")} & said(doc, "findings")
    muted = doc["muted"]
    assert isinstance(muted, list)
    assert {m["reason"] for m in muted} == {"a cable we know about; sdb is replaced Friday"}
    kept = MuteStore(tmp_path / "demo-state" / "advice-mutes.json").load("demo: showcase")
    assert {(k.kind, k.subject) for k in kept} == {("smart-crc", "sdc"),
                                                   ("smart-counters", "sdb")}
    _code, doc = run_check(capsys)  # a later check, without --mute: still muted
    assert ("smart-crc", "sdc") in said(doc, "muted")
    _code, doc = run_check(capsys, "--unmute", "smart-crc:sdc")
    assert ("smart-crc", "sdc") in said(doc, "findings")


@pytest.mark.parametrize("extra", [
    ("--mute", "smart-failed:sdb", "--reason", "x"),
    ("--mute", "pool-state:tank", "--reason", "x"),
    ("--mute", "smart-crc:sdc"),  # no reason
    ("--mute", "smart-crc", "--reason", "x")])  # no subject
def test_check_refuses_a_mute_it_cannot_keep_before_reading(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: tuple[str, ...]) -> None:
    assert main(["check", "--demo", "showcase", "--sample", "0", *extra]) == 3
    out = capsys.readouterr().out
    assert out.startswith("UNKNOWN: ") and len(out.splitlines()) == 1
    assert not (tmp_path / "demo-state" / "advice-mutes.json").exists()


def test_a_mute_matches_one_kind_and_one_disk() -> None:
    mute = Mute("smart-counters", "sdb", "replacement scheduled", T)
    f = Finding("smart-counters", Severity.WARNING, "sdb", "…")
    assert mute.matches(f)
    assert not mute.matches(dataclasses.replace(f, subject="sdc"))
    assert not mute.matches(dataclasses.replace(f, kind="smart-crc"))


def test_a_mute_is_kept_even_when_the_host_does_not_answer(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The operator's decision does not wait for the host: kept by its label, the name its
    readings (and the console's mutes) go by."""
    from zconsole.cli.commands.check import run_check
    from zconsole.hosts.silent import SilentHost

    args = argparse.Namespace(sample=0.0, timeout=0.2, smart=True, no_advice=True,
                              advice=False, scrub_weeks=None, capacity_warn=80,
                              capacity_crit=90, json=False, prometheus=None,
                              mute=["smart-crc:sdc"], unmute=[], reason="known cable")
    host = SilentHost("gone")
    assert run_check(host, args, sys.stdout) == 3
    assert capsys.readouterr().out.startswith("UNKNOWN: ")
    kept = MuteStore(tmp_path / "demo-state" / "advice-mutes.json").load(str(host.label))
    assert [(k.kind, k.subject, k.reason) for k in kept] == [("smart-crc", "sdc",
                                                             "known cable")]
