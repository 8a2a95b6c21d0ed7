"""Issue 30: the SMART findings on the one scale (services/health/severity.py), followed by the
session at their own cadence (services/smart_follow.py: never on a refresh), and in the
verdict every face reads (`judge_host`, the monitor's Member, `check --json`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.cli.main import main
from zconsole.hosts.base import DEFAULT_TIMEOUT, Result
from zconsole.hosts.demo import DemoHost
from zconsole.model.finding import Finding, Severity
from zconsole.services.health.severity import judge_host, level_of, pool_level
from zconsole.services.monitor.member import Member
from zconsole.services.session import HostSession
from zconsole.services.smart_follow import POLL_EVERY_S

T0 = 1_795_302_010.0
C, W = Severity.CRITICAL, Severity.WARNING


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


class Counting(DemoHost):
    """The showcase demo host, counting the smartctl it is asked to run."""

    smartctl = 0

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
            check: bool = True, stdin: str | None = None) -> Result:
        if argv and argv[0] == "smartctl":
            self.smartctl += 1
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def session(clock: Clock) -> tuple[Counting, HostSession]:
    host = Counting("showcase", clock=clock)
    s = HostSession(host, clock=clock, mono=clock)
    s.begin()
    s.done(s.refresh())
    return host, s


def by_kind(found: Sequence[Finding]) -> dict[tuple[str, str], Finding]:
    return {(f.kind, f.subject): f for f in found}


@pytest.mark.parametrize(("kind", "given", "want"), [
    ("smart-failed", W, C), ("smart-nvme-critical", W, C), ("smart-counters", C, W),
    ("smart-crc", C, W), ("smart-wear", C, W), ("smart-self-test", C, W),
    ("smart-temperature", C, C), ("smart-temperature", W, W)])
def test_each_smart_kind_has_its_level_on_the_scale(kind: str, given: Severity,
                                                    want: Severity) -> None:
    assert level_of(Finding(kind, given, "sdb", "…")) is want


def test_a_refresh_never_reads_smart_and_a_poll_reads_each_disk_once() -> None:
    clock = Clock(T0)
    host, s = session(clock)
    s.begin()
    s.done(s.refresh())
    assert host.smartctl == 0 and not s.smart.started and s.smart.findings == ()
    assert s.smart.due(clock())
    read = s.poll_smart()
    disks = s.reading.disks.value if s.reading else None
    assert disks is not None
    whole = {d.name for d in disks.whole_disks()}
    assert set(read) == whole and host.smartctl == len(whole)  # every disk, over several polls
    assert not s.smart.due(clock())
    clock.t += POLL_EVERY_S
    assert s.smart.due(clock())
    assert s.poll_smart() == [] and host.smartctl == len(whole)  # nothing due for 30 min


def test_findings_name_the_pool_of_each_disk() -> None:
    clock = Clock(T0)
    _host, s = session(clock)
    s.poll_smart()
    found = by_kind(s.smart.findings)
    reading = s.reading
    assert reading is not None and reading.disks.value is not None
    roles = {r.disk: r.pool for r in reading.disks.value.roles}
    counters = found[("smart-counters", "sdb")]
    assert counters.pool is not None and counters.pool == roles["sdb"]
    assert "48 pending sectors" in counters.message
    assert found[("smart-crc", "sdc")].pool == roles["sdc"]


def test_a_disk_asked_for_is_read_at_the_next_poll() -> None:
    clock = Clock(T0)
    host, s = session(clock)
    s.poll_smart()
    before = host.smartctl
    clock.t += 5
    assert not s.smart.due(clock())
    s.smart.request("sdb")
    assert s.smart.due(clock())
    assert s.poll_smart() == ["sdb"] and host.smartctl == before + 1


def test_growth_since_first_seen_reaches_the_verdict() -> None:
    clock = Clock(T0)
    _host, s = session(clock)
    s.poll_smart()
    clock.t += 3600
    s.smart.request("sdb")
    s.poll_smart()
    msg = by_kind(s.smart.findings)[("smart-counters", "sdb")].message
    assert "54 pending sectors, up from 48 when first seen 1 h 0 min ago" in msg


def test_smart_joins_the_host_verdict_and_its_pool() -> None:
    clock = Clock(T0)
    _host, s = session(clock)
    last = s.last
    assert last is not None
    reading = last.reading
    without = judge_host(reading, slow=last.findings)
    s.poll_smart()
    smart = s.smart.findings
    with_smart = judge_host(reading, slow=last.findings, smart=smart)
    kinds = {f.kind for f in with_smart.findings}
    assert {"smart-counters", "smart-crc", "smart-wear", "smart-self-test"} <= kinds
    assert not any(f.kind.startswith("smart-") for f in without.findings)
    pool = by_kind(smart)[("smart-counters", "sdb")].pool
    entry = next(e for e in reading.pools if e.name == pool)
    assert with_smart.pool_level(entry.name) is W
    assert pool_level(entry, slow=last.findings, smart=smart) is W


def test_a_failed_disk_outside_every_pool_raises_the_host_not_a_pool() -> None:
    clock = Clock(T0)
    _host, s = session(clock)
    last = s.last
    assert last is not None
    failed = Finding("smart-failed", C, "sdz", "sdz: SMART says the disk is failing")
    v = judge_host(last.reading, slow=last.findings, smart=(failed,))
    assert v.level is C and v.findings[0] is not None and v.findings[0].kind == "smart-failed"
    assert all(v.pool_level(e.name) is not C for e in last.reading.pools)


def test_the_members_verdict_is_judged_again_when_smart_changes() -> None:
    clock = Clock(T0)
    host = DemoHost("showcase", clock=clock)
    m = Member.of("demo", host, clock=clock, mono=clock)
    m.session.begin()
    m.session.done(m.session.refresh())
    before = m.verdict_at()
    assert not any(f.kind.startswith("smart-") for f in before.findings)
    m.session.poll_smart()
    after = m.verdict_at()
    assert any(f.kind == "smart-counters" and f.subject == "sdb" for f in after.findings)


def check_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    main(["check", "--demo", "showcase", "--sample", "0", "--json", *extra])
    doc = json.loads(capsys.readouterr().out)
    assert isinstance(doc, dict)
    return doc


def test_check_reads_smart_by_default_and_not_with_no_smart(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = check_json(capsys)
    findings = doc["findings"]
    assert isinstance(findings, list)
    smart = {(f["kind"], f["subject"]) for f in findings if f["kind"].startswith("smart-")}
    assert {("smart-counters", "sdb"), ("smart-crc", "sdc"),
            ("smart-self-test", "sdb")} <= smart
    sdb = next(f for f in findings if f["kind"] == "smart-counters")
    assert sdb["severity"] == "warning" and sdb["pool"]
    doc = check_json(capsys, "--no-smart")
    findings = doc["findings"]
    assert isinstance(findings, list)
    assert not any(f["kind"].startswith("smart-") for f in findings)


def test_the_slow_disk_sentence_says_its_pending_sectors() -> None:
    """The showcase's slow disk is its dying disk: once SMART was read, its sentence ends
    with the counter an admin reads first; before, it does not."""
    clock = Clock(T0)
    _host, s = session(clock)
    for _ in range(4):
        s.begin()
        s.done(s.refresh())
    [before] = [f for f in s.findings if f.kind == "slow-disk"]
    assert "pending" not in before.message
    s.poll_smart()
    s.begin()
    s.done(s.refresh())
    [slow] = [f for f in s.findings if f.kind == "slow-disk"]
    assert slow.message.startswith(before.message)
    assert slow.message.endswith(", and it has 48 pending sectors")
