"""The demo host's smartctl (hosts/demo/tools/smart.py, machine/smart.py): its answers read
back through the real parser and judged; the showcase's dying disk, bad cable, hot worn
NVMe and sleeping spare; exit bits and -n standby as smartctl 7.3 gives them."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Clock
from zconsole.hosts.demo.host import DemoHost
from zconsole.model.smart import Protocol, Unread
from zconsole.parsers.smartctl import parse_smartctl
from zconsole.services.health.smart import judge_disks, judge_smart
from zconsole.services.read.inventory import read_inventory
from zconsole.services.read.smart import SmartWatch, smartctl_argv

T0 = 1_795_302_000.0


def showcase(root: bool = True) -> tuple[DemoHost, Clock]:
    clock = Clock(T0)
    return DemoHost("showcase", clock=clock, root=root), clock


def smartctl(h: DemoHost, *args: str) -> tuple[int, dict[str, object]]:
    r = h.run(["smartctl", *args], check=False)
    return r.returncode, json.loads(r.stdout)


def disk_named(h: DemoHost, serial: str) -> str:
    return next(d.name for d in h.machine.disks.values() if d.serial == serial)


DYING, CABLE, HOT, SPARE = "PN2334PBJ4K7XT", "PN2334PBJ9M3QT", "S5GXNF0R123456A", "PN2334PBJ7F5ZT"
SHELF = "VK2GHJ3K"  # the unused disk with pending sectors (tests/unit/test_replace_smart.py)


def test_every_showcase_disk_parses_back() -> None:
    h, _ = showcase()
    inv = read_inventory(h)
    for d in inv.whole_disks():
        r = h.run(list(smartctl_argv(f"/dev/{d.name}")), check=False)
        reading = parse_smartctl(r.stdout)
        assert reading.damaged == ()
        assert reading.exit_status == r.returncode
        if reading.read:
            assert reading.serial == d.serial and reading.temperature is not None
            assert reading.protocol is (Protocol.NVME if d.name.startswith("nvme")
                                        else Protocol.ATA)


def test_dying_disk_is_the_slow_disk_and_its_pending_sectors_grow() -> None:
    h, clock = showcase()
    name = disk_named(h, DYING)
    assert h.machine.disks[name].io.slow > 1  # the showcase's slow disk
    first = parse_smartctl(h.run(list(smartctl_argv(f"/dev/{name}")), check=False).stdout)
    a197 = first.attr(197)
    assert a197 is not None and a197.raw == 48
    assert first.exit_status == 64 + 128  # error log entries, a failed self-test
    assert first.passed is True  # the drive still says PASSED: the counters tell
    clock.t += 3600
    later = parse_smartctl(h.run(list(smartctl_argv(f"/dev/{name}")), check=False).stdout)
    a197 = later.attr(197)
    assert a197 is not None and a197.raw == 54
    kinds = {f.kind for f in judge_smart(later, disk=name)}
    assert kinds == {"smart-counters", "smart-self-test"}


def test_watch_says_since_when_on_the_demo() -> None:
    h, clock = showcase()
    inv = read_inventory(h)
    w = SmartWatch(h, clock=clock, limit=100)
    w.poll(inv.devices)
    clock.t += 2 * 3600
    w.poll(inv.devices)
    name = disk_named(h, DYING)
    found = [f for f in judge_disks(w.states(), now=clock()) if f.subject == name]
    counters = next(f for f in found if f.kind == "smart-counters")
    assert "60 pending sectors, up from 48 when first seen 2 h 0 min ago" in counters.message
    assert "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT" in counters.message


def test_bad_cable_is_crc_only() -> None:
    h, _ = showcase()
    name = disk_named(h, CABLE)
    r = parse_smartctl(h.run(list(smartctl_argv(f"/dev/{name}")), check=False).stdout)
    assert [f.kind for f in judge_smart(r, disk=name)] == ["smart-crc"]
    assert r.exit_status == 64  # the ICRC errors are in the drive's error log


def test_hot_worn_nvme() -> None:
    h, _ = showcase()
    name = disk_named(h, HOT)
    rc, doc = smartctl(h, "--json", "--all", "-n", "standby", f"/dev/{name[:-2]}")
    assert rc == 8  # -H with critical_warning != 0: the only health bit NVMe sets
    r = parse_smartctl(json.dumps(doc))
    assert r.nvme is not None and r.nvme.percentage_used == 93
    assert r.nvme.critical_warning == 0x02 and r.passed is False
    found = {(f.kind, f.severity.value) for f in judge_smart(r, disk=name)}
    assert found == {("smart-wear", "warning"), ("smart-temperature", "warning")}


def test_spare_asleep_is_not_woken_by_standby_but_by_never() -> None:
    h, _ = showcase()
    name = disk_named(h, SPARE)
    rc, doc = smartctl(h, "--json", "--all", "-n", "standby", f"/dev/{name}")
    assert rc == 2
    assert doc["smartctl"]["messages"] == [  # type: ignore[index]
        {"string": "Device is in STANDBY mode, exit(2)", "severity": "information"}]
    assert parse_smartctl(json.dumps(doc)).unread is Unread.ASLEEP
    assert h.machine.smart[SPARE].asleep  # still asleep: nothing woke it
    rc, doc = smartctl(h, "--json", "--all", f"/dev/{name}")  # -n never (the default)
    assert rc == 0 and parse_smartctl(json.dumps(doc)).read
    assert not h.machine.smart[SPARE].asleep  # reading it spun it up


def test_not_root_and_unknown_and_virtio() -> None:
    h, _ = showcase(root=False)
    rc, doc = smartctl(h, "--json", "--all", "/dev/sda")
    assert rc == 2 and "device" not in doc
    assert parse_smartctl(json.dumps(doc), "/dev/sda").unread is Unread.NOT_ROOT
    h, _ = showcase()
    rc, doc = smartctl(h, "-j", "-a", "/dev/sdzz")
    assert rc == 2 and parse_smartctl(json.dumps(doc)).unread is Unread.OPEN_FAILED
    rc, doc = smartctl(h, "-j", "-a", "/dev/vda")
    assert rc == 1 and parse_smartctl(json.dumps(doc)).unread is Unread.NO_SMART


@pytest.mark.parametrize("args", [["-a", "/dev/sda"], ["-j", "-l", "error", "/dev/sda"],
                                  ["-t", "conveyance", "/dev/sda"],
                                  ["-j", "--nonsense", "/dev/sda"]])
def test_what_is_not_simulated_says_so(args: list[str]) -> None:
    h, _ = showcase()
    r = h.run(["smartctl", *args], check=False)
    assert r.returncode == 1


def test_healthy_disks_are_healthy_and_stable() -> None:
    h, _ = showcase()
    inv = read_inventory(h)
    sick = {disk_named(h, s) for s in (DYING, CABLE, HOT, SPARE, SHELF)}
    for d in inv.whole_disks():
        if d.name in sick:
            continue
        r = parse_smartctl(h.run(list(smartctl_argv(f"/dev/{d.name}")), check=False).stdout)
        assert r.exit_status == 0 and judge_smart(r, disk=d.name) == ()
    again, _ = showcase()
    a = again.run(["smartctl", "-j", "-a", "/dev/sda"], check=False).stdout
    assert a == h.run(["smartctl", "-j", "-a", "/dev/sda"], check=False).stdout
