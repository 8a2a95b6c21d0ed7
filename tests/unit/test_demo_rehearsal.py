"""Issue 32 §1: the demo host as a rehearsal (`zconsole --demo`) and a new device beside a
running resilver (resilver_defer). Time is a fake clock; a rehearsal's waits sleep on it."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.base import CommandTimedOut, writes
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.host import REHEARSAL_PACE
from zconsole.hosts.factory import Target, make_host
from zconsole.hosts.journal import DEMO_STATE_ENV, demo_machine_log

T0 = 1795302000.0
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"  # showcase tank mirror-0
B0 = "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K3RRRRR3"  # resilvering tank mirror-1
BAY = "pci-0000:00:1f.2-ata-9"


def rehearsal(scenario: str = "showcase") -> tuple[DemoHost, Clock, list[float]]:
    c = Clock(T0)
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        c.sleep(s)

    return DemoHost(scenario, "2.3", c, pace=REHEARSAL_PACE, sleep=sleep), c, slept


def status(h: DemoHost, pool: str = "tank") -> str:
    return h.run(["zpool", "status", pool]).stdout


def pct(text: str) -> float:
    m = re.search(r"(\d+\.\d\d)% done", text)
    assert m is not None, text
    return float(m.group(1))


def eta(text: str) -> int:
    m = re.search(r"(\d\d):(\d\d):(\d\d) to go", text)
    assert m is not None, text
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))


# ------------------------------------------------------------------------ the rehearsal pace


def test_the_console_s_demo_host_rehearses_and_the_others_do_not() -> None:
    assert getattr(make_host(Target.demo("degraded", rehearse=True)), "rehearsal", None) is True
    assert getattr(make_host(Target.demo("degraded")), "rehearsal", None) is False


def test_a_rehearsal_resilver_takes_minutes_with_progress_and_eta_moving() -> None:
    h, c, _ = rehearsal()
    assert h.run(["zpool", "attach", "tank", A0, "sdh"]).returncode == 0
    c.t += 10
    first = status(h)
    assert "(resilvering)" in first
    # 1.5 TiB of the mirror at 165 MiB/s is about 2.7 h; the rehearsal's pace makes it minutes
    assert 60 < eta(first) < 10 * 60
    c.t += 30
    second = status(h)
    assert pct(second) > pct(first) and eta(second) < eta(first)
    c.t += 15 * 60
    assert "(resilvering)" not in status(h)


def test_a_rehearsal_keeps_to_the_wall_clock_and_waits_in_real_time() -> None:
    h, c, slept = rehearsal()
    assert h.run(["zpool", "attach", "-w", "tank", A0, "sdh"], timeout=600).returncode == 0
    assert "(resilvering)" not in status(h)
    assert h.now() == c.t  # no skew: the Timeline says the operator's time
    waited = c.t - T0
    assert 60 < waited < 10 * 60 and slept and max(slept) <= 1.0
    # the scenario's own resilver in `fast` kept its pace: minutes on, not finished with it
    fast = status(h, "fast")
    assert "(resilvering)" in fast and pct(fast) > 19.53


def test_a_rehearsal_wait_gives_up_after_the_command_s_timeout() -> None:
    h, c, _ = rehearsal()
    assert h.run(["zpool", "attach", "tank", A0, "sdh"]).returncode == 0
    with pytest.raises(CommandTimedOut):
        h.run(["zpool", "wait", "-t", "resilver", "tank"], timeout=5)
    assert 5 <= c.t - T0 < 7 and h.now() == c.t
    assert "(resilvering)" in status(h)  # ZFS carries on, as after a real timeout


def test_a_waiting_zpool_wait_holds_nothing_a_read_needs() -> None:
    c = Clock(T0)
    waiting, read_done = threading.Event(), threading.Event()

    def sleep(s: float) -> None:
        waiting.set()
        read_done.wait(5)
        c.sleep(s)

    h = DemoHost("showcase", "2.3", c, pace=REHEARSAL_PACE, sleep=sleep)
    h.run(["zpool", "attach", "tank", A0, "sdh"])
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(
        h.run(["zpool", "wait", "-t", "resilver", "tank"], timeout=3600).returncode))
    t.start()
    assert waiting.wait(5)
    assert "resilver in progress" in status(h)  # another thread reads while the wait sleeps
    read_done.set()
    t.join(10)
    assert result == [0]


def test_a_rehearsal_scrub_runs_at_the_pace_and_iostat_stays_at_the_disks_speed() -> None:
    h, c, _ = rehearsal()
    assert h.run(["zpool", "scrub", "tank"]).returncode == 0
    c.t += 10
    sc = h.machine.pools["tank"].scan
    assert sc is not None and sc.pace == REHEARSAL_PACE and sc.load * REHEARSAL_PACE == sc.rate
    assert eta(status(h)) < 15 * 60
    sdh = h.machine.disks["sda"]
    reads = h.machine.disk_rates(sdh, c.t)[2]
    assert reads < 400 * 2**20  # a 4 TB HDD's own speed, not sixty times it


def test_tests_keep_the_instant_machine() -> None:
    c = Clock(T0)
    h = DemoHost("showcase", "2.3", c)
    assert h.run(["zpool", "attach", "-w", "tank", A0, "sdh"]).returncode == 0
    assert c.t == T0 and h.now() > T0


# ------------------------------------------------------------- resilver_defer (zpool-features)


def with_new_disk(h: DemoHost) -> str:
    return h.insert_disk(BAY, "WDC WD40EFRX-68N32N0", "WD-WCC7K3NEW001", 4000787030016)


def test_a_new_device_waits_behind_the_running_resilver() -> None:
    c = Clock(T0)
    h = DemoHost("resilvering", "2.3", c)
    before = pct(status(h))
    new = with_new_disk(h)
    assert h.run(["zpool", "attach", "tank", B0, new]).returncode == 0
    text = status(h)
    assert pct(text) >= before  # the running resilver carries on, not restarted
    assert re.search(r"WD-WCC7K3NEW001\s+ONLINE\s+0\s+0\s+0\s+\(awaiting resilver\)", text)
    assert re.search(r"RRRRR9\s+ONLINE\s+0\s+0\s+0\s+\(resilvering\)", text)
    assert h.machine.disk_rates(h.machine.disks[new], c.t)[3] < 1e6  # no resilver writes yet
    c.t += 3 * 3600  # the first resilver (1 h 56 min to go) is over, the deferred one runs
    second = status(h)
    assert "replacing-1" not in second
    assert re.search(r"WD-WCC7K3NEW001\s+ONLINE\s+0\s+0\s+0\s+\(resilvering\)", second)
    assert "awaiting" not in second and pct(second) < 100
    c.t += 10 * 3600
    done = status(h)
    assert "resilvering" not in done and re.search(r"scan: resilvered \S+ in ", done)
    assert "WD-WCC7K3NEW001" in done.split("mirror-1")[1]


def test_zpool_wait_waits_for_the_deferred_resilver_too() -> None:
    h = DemoHost("resilvering", "2.3", Clock(T0))
    new = with_new_disk(h)
    assert h.run(["zpool", "attach", "-w", "tank", B0, new]).returncode == 0
    done = status(h)
    assert "resilver in progress" not in done and "replacing-1" not in done


def test_without_resilver_defer_the_running_resilver_restarts() -> None:
    h = DemoHost("resilvering", "2.3", Clock(T0))
    h.machine.pools["tank"].props["feature@resilver_defer"] = "disabled"
    before = pct(status(h))
    new = with_new_disk(h)
    assert h.run(["zpool", "attach", "tank", B0, new]).returncode == 0
    text = status(h)
    assert pct(text) < 1 < before and "awaiting" not in text
    assert re.search(r"WD-WCC7K3NEW001\s+ONLINE\s+0\s+0\s+0\s+\(resilvering\)", text)


# ------------------------------------------- the machine kept beside the plans (--demo-state)

OLD = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # degraded tank, FAULTED, sdb


def test_without_a_named_demo_state_nothing_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEMO_STATE_ENV, raising=False)
    assert demo_machine_log("degraded", "2.3") is None
    assert getattr(make_host(Target.demo("degraded", rehearse=True)), "_log", "?") is None


def test_a_named_demo_state_keeps_the_machine_and_the_next_console_rebuilds_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEMO_STATE_ENV, str(tmp_path))
    log = demo_machine_log("degraded", "2.3")
    assert log is not None and log.path.parent == tmp_path
    c = Clock(T0)
    h = DemoHost("degraded", "2.3", c, pace=REHEARSAL_PACE, sleep=c.sleep, log=log)
    status(h)  # reads are not kept
    with writes():
        assert h.run(["zpool", "offline", "tank", OLD]).returncode == 0
    c.t += 40
    pull = next(x for x in h.hands() if x.title == "Demo: pull the disk sdb")
    assert "ZGY8C3D4" in pull.act()
    kept = [r["kind"] for r in log.records()]
    assert kept == ["demo-machine", "run", "pull"]
    # the console is killed; the next one, minutes later, builds the same machine again
    c.t += 300
    again = DemoHost("degraded", "2.3", c, pace=REHEARSAL_PACE, sleep=c.sleep,
                     log=demo_machine_log("degraded", "2.3"))
    text = status(again)
    assert text == status(h)  # the machine the killed console left, as it is now
    assert re.search(r"ZGY8C3D4\s+REMOVED", text)
    assert again.machine.disk_by_any("sdb") is None  # still out of its bay
    assert again.started == T0 and again.now() == c.t
    history = again.run(["zpool", "history", "tank"]).stdout
    assert f"zpool offline tank {OLD}" in history  # the Timeline has what was done
    assert any(x.title.startswith("Demo: insert a new disk into pci-0000:00:17.0-ata-2")
               for x in again.hands())


def test_a_demo_state_of_another_machine_starts_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEMO_STATE_ENV, str(tmp_path))
    c = Clock(T0)
    h = DemoHost("degraded", "2.3", c, seed=1, pace=REHEARSAL_PACE,
                 log=demo_machine_log("degraded", "2.3"))
    with writes():
        h.run(["zpool", "offline", "tank", OLD])
    fresh = DemoHost("degraded", "2.3", c, seed=0, pace=REHEARSAL_PACE,
                     log=demo_machine_log("degraded", "2.3"))
    assert re.search(r"ZGY8C3D4\s+FAULTED", status(fresh))
    log = demo_machine_log("degraded", "2.3")
    assert log is not None and [r.get("seed") for r in log.records()] == [0]


def test_the_console_s_demo_host_keeps_its_machine_in_the_named_demo_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEMO_STATE_ENV, str(tmp_path))
    host = make_host(Target.demo("degraded", rehearse=True))
    log = getattr(host, "_log", None)
    assert log is not None and log.path == tmp_path / "demo-machine-degraded-2.3.jsonl"
    assert getattr(make_host(Target.demo("degraded")), "_log", "?") is None  # subcommands


def test_the_feature_is_active_while_a_device_waits_and_its_resilver_starts_later() -> None:
    c = Clock(T0)
    h = DemoHost("resilvering", "2.3", c)

    def feature() -> str:
        return h.run(["zpool", "get", "-H", "-o", "value", "feature@resilver_defer",
                      "tank"]).stdout.strip()

    def starts() -> int:
        return h.run(["zpool", "events", "-H"]).stdout.count("resilver_start")

    assert feature() == "enabled"
    before = starts()
    new = with_new_disk(h)
    h.run(["zpool", "attach", "tank", B0, new])
    assert feature() == "active" and starts() == before  # no resilver starts for it yet
    c.t += 3 * 3600  # the first resilver ends, the deferred one starts
    assert feature() == "enabled"
    assert starts() == before + 1
