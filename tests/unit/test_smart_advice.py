"""Issue 30 §2: SMART advice — how the disks are watched, not their health: no recent
self-test on a disk that runs them, smartctl missing (with its package), not root, a pool
member with no SMART (once per disk). INFO or WARNING like every advice: it never raises
`check`'s exit code unless `--advice`, and then at most WARNING."""

from __future__ import annotations

from pathlib import Path

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import MuteStore
from zconsole.model.finding import Severity
from zconsole.model.smart import Protocol, SelfTest, SmartReading, Unread
from zconsole.services.health.advice.smart import SELF_TEST_DAYS, judge_smart_advice
from zconsole.services.health.severity import judge_host
from zconsole.services.read.smart import DiskSmart
from zconsole.services.session import HostSession

T0 = 1_795_302_010.0
OK_TEST = "Completed without error"


def ata(poh: int, *tests: tuple[str, int]) -> SmartReading:
    # test_minutes: the drive's polling minutes (ata_smart_data.self_test): it runs them
    return SmartReading("/dev/sdb", protocol=Protocol.ATA, model="M", serial="S",
                        power_on_hours=poh, test_minutes=(("short", 2), ("extended", 500)),
                        self_tests=tuple(
                            SelfTest(kind, OK_TEST, True, hours=h) for kind, h in tests))


def read(name: str, r: SmartReading) -> DiskSmart:
    return DiskSmart(name, f"ata-M_{name}", reading=r, read_at=T0, tried_at=T0)


def unread(name: str, why: Unread, detail: str = "") -> DiskSmart:
    return DiskSmart(name, None, unread=SmartReading(f"/dev/{name}", unread=why,
                                                     unread_detail=detail), tried_at=T0)


def kinds(states: list[DiskSmart], pools: dict[str, str] | None = None
          ) -> list[tuple[str, str]]:
    return [(a.kind, a.subject) for a in judge_smart_advice(states, pools or {})]


def test_a_disk_whose_newest_self_test_is_over_a_month_old_is_advised() -> None:
    limit = SELF_TEST_DAYS * 24
    fresh = read("sda", ata(40_000, ("short", 40_000 - limit), ("extended", 30_000)))
    stale = read("sdb", ata(40_000, ("short", 40_000 - limit - 1)))
    never = read("sdc", ata(100))  # ATA, no test in its log
    unknown = read("sdd", SmartReading("/dev/sdd", protocol=Protocol.ATA, serial="X",
                                       power_on_hours=100))  # no log, no durations: not known
    got = judge_smart_advice([fresh, stale, never, unknown], {"sdb": "tank"})
    assert [(a.kind, a.subject) for a in got] == [("advice-smart-self-test", "sdb"),
                                                  ("advice-smart-self-test", "sdc")]
    assert got[0].severity is Severity.INFO and got[0].pool == "tank"
    assert "30 days of power-on time ago" in got[0].message
    assert "has no self-test in its log" in got[1].message
    assert "smartctl -t long /dev/sdb" in got[0].cost


def test_an_nvme_without_self_tests_and_a_running_test_are_not_advised() -> None:
    nvme = read("nvme0n1", SmartReading("/dev/nvme0", protocol=Protocol.NVME, serial="N",
                                        power_on_hours=9_000))
    assert kinds([nvme]) == []


def test_the_ata_log_s_16_bit_hours_wrap() -> None:
    # 70 000 power-on hours: the log says 70 000 - 65 536 = 4 464 for a test an hour ago
    assert kinds([read("sda", ata(70_000, ("short", 70_000 - 65_536 - 1)))]) == []


def test_smartctl_missing_is_said_once_for_the_host_with_its_package() -> None:
    states = [unread(n, Unread.MISSING) for n in ("sda", "sdb", "sdc")]
    [a] = judge_smart_advice(states, {"sda": "tank"})
    assert a.kind == "advice-smart-missing" and a.severity is Severity.WARNING
    assert "smartmontools" in a.cost


def test_not_root_is_said_once() -> None:
    states = [unread(n, Unread.NOT_ROOT, "Permission denied") for n in ("sda", "sdb")]
    assert kinds(states) == [("advice-smart-access", "SMART")]


def test_a_pool_member_with_no_smart_is_said_once_per_disk_a_spare_disk_not() -> None:
    states = [unread("vda", Unread.NO_SMART, "a virtio disk"),
              unread("vdb", Unread.NO_SMART, "a virtio disk"),
              unread("vdc", Unread.NO_SMART, "a virtio disk")]
    got = judge_smart_advice(states, {"vda": "tank", "vdb": "tank"})
    assert [(a.kind, a.subject) for a in got] == [("advice-smart-none", "vda"),
                                                  ("advice-smart-none", "vdb")]
    assert "a member of tank, has no SMART (a virtio disk)" in got[0].message


def test_smart_advice_raises_the_verdict_only_with_check_advice_and_at_most_warning(
        ) -> None:
    host = DemoHost("healthy", clock=lambda: T0)
    s = HostSession(host, clock=lambda: T0, mono=lambda: T0)
    s.begin()
    s.done(s.refresh())
    reading = s.reading
    assert reading is not None
    advice = judge_smart_advice([unread("sda", Unread.MISSING)], {})
    assert judge_host(reading, advice=advice).level is Severity.OK
    assert judge_host(reading, advice=advice, advice_counts=True).level is Severity.WARNING


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path))
    return tmp_path


def test_the_advice_screen_s_judge_lists_the_smart_advice(state: Path) -> None:
    from zconsole.ui.screens.advice.screen import judge

    host = DemoHost("healthy", clock=lambda: T0)
    s = HostSession(host, clock=lambda: T0, mono=lambda: T0)
    s.begin()
    s.done(s.refresh())
    assert s.reading is not None and s.reading.disks.value is not None
    [member] = [r.disk for r in s.reading.disks.value.roles if r.pool][:1]
    states = (unread(member, Unread.NO_SMART, "a USB bridge"),)
    advice, _mutes, _note = judge(host, s.reading, MuteStore(state / "m.json"), states)
    [a] = [a for a in advice if a.kind.startswith("advice-smart-")]
    assert a.kind == "advice-smart-none" and a.subject == member and a.why
    plain, _m, _n = judge(host, s.reading, MuteStore(state / "m.json"))
    assert not any(a.kind.startswith("advice-smart-") for a in plain)
