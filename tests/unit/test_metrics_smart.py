"""Issue 31, SMART: each disk's SMART as Prometheus families (services/monitor/
metrics_smart.py), from what the session's SMART watch holds (never a smartctl on a scrape),
polled by the exporter's monitor on its own thread; `check --prometheus` writes the same.
The showcase's sick disks: sdb dying (pending, reallocated, offline uncorrectable), sdc with
UDMA CRC errors, nvme1n1 hot and worn, the spare sdg asleep."""

from __future__ import annotations

import dataclasses
import subprocess
import time
from pathlib import Path

import pytest

from tests.unit._prometheus import tool
from tests.unit.test_metrics import T, one, samples
from zconsole.hosts.demo import DemoHost
from zconsole.model.smart import SmartReading, Unread
from zconsole.services.monitor.loop import Monitor
from zconsole.services.monitor.member import Member
from zconsole.services.monitor.metrics import exposition, seen_of_member
from zconsole.services.monitor.metrics_smart import smart_state
from zconsole.services.read.smart import DiskSmart


def showcase(poll: bool = True) -> tuple[Monitor, Member]:
    mon = Monitor()
    m = mon.add(Member.of("demo-showcase", DemoHost("showcase", clock=lambda: T)))
    m.session.use_clocks(lambda: T, lambda: T)
    mon.refresh(m)
    if poll:
        assert mon.poll_smart(m)
    return mon, m


def test_the_showcase_disks_smart_as_gauges_with_a_stable_label_set() -> None:
    mon, m = showcase()
    s = samples(exposition([seen_of_member(mon, m)]))
    sdb = {"host": "demo-showcase", "disk": "sdb", "pool": "tank"}
    counts = {dict(k)["counter"]: v for k, v in one(s, "zconsole_smart_attribute_raw", **sdb).items()}
    assert counts["pending_sectors"] >= 48 and counts["reallocated_sectors"] == 24
    assert counts["offline_uncorrectable"] == 8  # HGST drives have no 187
    assert counts["udma_crc_errors"] == 0
    [crc] = one(s, "zconsole_smart_attribute_raw", disk="sdc", counter="udma_crc_errors").values()
    assert crc == 312
    [temp] = one(s, "zconsole_smart_temperature_celsius", disk="nvme1n1").values()
    [used] = one(s, "zconsole_smart_endurance_used_ratio", disk="nvme1n1").values()
    [cw] = one(s, "zconsole_smart_nvme_critical_warning", disk="nvme1n1").values()
    assert (temp, used, cw) == (74, 0.93, 2)
    # overall health: ATA passes (the dying disk still says PASSED, as real ones often do);
    # NVMe's is only critical_warning == 0, so it is not said (a hot NVMe is not FAILED)
    assert one(s, "zconsole_smart_health_passed", disk="sdb") and all(
        v == 1 for v in one(s, "zconsole_smart_health_passed").values())
    assert not one(s, "zconsole_smart_health_passed", disk="nvme1n1")
    # one gauge per state; the asleep spare has a state and no values
    states = {dict(k)["disk"]: dict(k)["state"]
              for k, v in one(s, "zconsole_smart_state").items() if v == 1}
    assert states["sdg"] == "asleep" and states["sdb"] == "read"
    assert sum(1 for k in one(s, "zconsole_smart_state", disk="sdb")) == 4
    assert not one(s, "zconsole_smart_temperature_celsius", disk="sdg")
    # the same label names on every SMART family, by_id the disk's own
    names = {frozenset(n for n, _ in k[1]) - {"state", "counter"}
             for k in s if k[0].startswith("zconsole_smart_")}
    assert names == {frozenset({"host", "disk", "by_id", "pool"})}
    [by_id] = {dict(k)["by_id"] for k in one(s, "zconsole_smart_state", disk="sdb")}
    assert by_id.startswith("ata-HGST_")


def test_no_smartctl_on_a_scrape_and_none_before_the_first_poll() -> None:
    mon, m = showcase(poll=False)
    runs: list[tuple[str, ...]] = []
    real = m.host.run

    def counted(argv, *a, **k):  # type: ignore[no-untyped-def]
        runs.append(tuple(argv))
        return real(argv, *a, **k)

    m.host.run = counted  # type: ignore[method-assign]
    text = exposition([seen_of_member(mon, m)])
    assert "zconsole_smart_state{" not in text
    assert mon.poll_smart(m) and any(r[0] == "smartctl" for r in runs)
    runs.clear()
    for _ in range(3):
        assert "zconsole_smart_state{" in exposition([seen_of_member(mon, m)])
    assert runs == []
    assert not mon.poll_smart(m)  # not due again (the console's cadence)


def test_a_host_whose_refresh_failed_is_not_polled_and_says_no_smart() -> None:
    mon, m = showcase()
    mon.record_failure(m, "TimeoutError: no answer")
    m.session.smart.polled_at = None  # due
    assert not mon.poll_smart(m)
    text = exposition([seen_of_member(mon, m)])
    assert 'zconsole_up{host="demo-showcase"} 0.0' in text
    assert "zconsole_smart_state{" not in text  # never the last known state as the present


def test_the_smart_states() -> None:
    d = DiskSmart("sdx", None)
    assert smart_state(d) == "unreadable"  # never read
    read = dataclasses.replace(d, reading=SmartReading("/dev/sdx"), read_at=1.0)
    assert smart_state(read) == "read"
    for why, state in ((Unread.ASLEEP, "asleep"), (Unread.NO_SMART, "no_smart"),
                       (Unread.NOT_ROOT, "unreadable"), (Unread.MISSING, "unreadable")):
        unread = SmartReading("/dev/sdx", unread=why)
        assert smart_state(dataclasses.replace(read, unread=unread)) == state
    assert smart_state(dataclasses.replace(read, error="timed out")) == "unreadable"


def test_the_monitor_smart_thread_polls_without_delaying_refreshes() -> None:
    mon = Monitor()
    m = mon.add(Member.of("demo-showcase", DemoHost("showcase")))
    mon.start(interval=0.2, smart=True, smart_every=0.1)
    try:
        deadline = time.monotonic() + 60
        while not m.session.smart.states() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        mon.stop(timeout=30)
    assert "sdb" in m.session.smart.states()
    assert not mon._threads  # the refresh loop and the SMART thread ended


def test_a_smart_poll_that_raises_is_said_and_never_stops_the_loop() -> None:
    mon, m = showcase(poll=False)
    told: list[str] = []
    mon.subscribe(lambda name, _reading, _verdict: told.append(name))

    def broken(_inventory: object) -> list[str]:
        raise RuntimeError("smartctl said nonsense")

    m.session.smart.poll = broken  # type: ignore[method-assign]
    assert mon.poll_smart(m)
    assert m.session.smart.error == "RuntimeError: smartctl said nonsense"
    assert told == ["demo-showcase"]


def test_check_prometheus_writes_the_smart_families(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from zconsole.cli.main import main

    target = tmp_path / "zconsole.prom"
    main(["check", "--demo", "showcase", "--prometheus", str(target), "--no-advice"])
    capsys.readouterr()
    s = samples(target.read_text())
    [crc] = one(s, "zconsole_smart_attribute_raw", disk="sdc", counter="udma_crc_errors").values()
    assert crc == 312
    main(["check", "--demo", "showcase", "--prometheus", str(target), "--no-smart"])
    assert "zconsole_smart_state{" not in target.read_text()


def test_promtool_check_metrics_passes_with_smart() -> None:
    mon, m = showcase()
    p = subprocess.run([tool("promtool"), "check", "metrics"],
                       input=exposition([seen_of_member(mon, m)]), text=True,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
