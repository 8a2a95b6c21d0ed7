"""services/read/smart.py: the argv, which disks, why-not-read, the watch's cadence (a fake
clock, never wall-clock time) and the counter history across readings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import pytest

from tests.fakes import Clock
from tests.paths import parser_text
from zconsole.hosts.base import DEFAULT_TIMEOUT, CommandNotFound, CommandTimedOut, Host, Result
from zconsole.model.disk import Disk
from zconsole.model.smart import Unread
from zconsole.services.health.smart import judge_disks
from zconsole.services.read.smart import (
    SmartWatch,
    device_path,
    read_smart,
    smartctl_argv,
)

FAIL2 = parser_text("smartctl", "scrutiny-smart-fail2.json")


def with_pending(text: str, pending: int, serial: str | None = None) -> str:
    d = json.loads(text)
    for row in d["ata_smart_attributes"]["table"]:
        if row["id"] == 197:
            row["raw"] = {"value": pending, "string": str(pending)}
    if serial:
        d["serial_number"] = serial
    return json.dumps(d)


class SmartHost:
    """Answers `smartctl ... DEV` from `answers` (device path -> Result fields or an
    exception), records every argv."""

    kind, simulated, concurrent_reads, label = "fake", False, False, "fake"

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        assert not isinstance(argv, str)
        self.calls.append(tuple(argv))
        answer = self.answers[argv[-1]]
        if isinstance(answer, BaseException):
            raise answer
        rc, out, err = answer
        return Result(tuple(argv), rc, out, err, 0.0)


def host(answers: dict[str, Any]) -> tuple[SmartHost, Host]:
    h = SmartHost(answers)
    return h, cast(Host, h)


def disk(name: str, **kw: Any) -> Disk:
    return Disk(name=name, devpath="", kind=kw.pop("kind", "disk"),
                by_id=(f"ata-DISK_{name}",), **kw)


def test_argv_is_one_disk_json_all_standby() -> None:
    assert smartctl_argv("/dev/sda") == ("smartctl", "--json", "--all", "-n", "standby",
                                         "/dev/sda")
    assert device_path(disk("nvme0n1")) == "/dev/nvme0"  # the controller, not the namespace
    assert device_path(disk("sdb")) == "/dev/sdb"


def test_virtio_is_no_smart_without_running_anything() -> None:
    fake, h = host({})
    r = read_smart(h, disk("vdb", transport="virtio"))
    assert r.unread is Unread.NO_SMART and fake.calls == []
    assert read_smart(h, disk("xvda")).unread is Unread.NO_SMART


def test_missing_smartctl_names_the_package() -> None:
    _, h = host({"/dev/sda": CommandNotFound(["smartctl"])})
    r = read_smart(h, disk("sda"))
    assert r.unread is Unread.MISSING and "smartmontools" in r.unread.words
    _, remote = host({"/dev/sda": (127, "", "bash: smartctl: command not found\n")})
    assert read_smart(remote, disk("sda")).unread is Unread.MISSING


def test_exit_bits_do_not_hide_the_data() -> None:
    _, h = host({"/dev/sdc": (216, FAIL2, "")})
    r = read_smart(h, disk("sdc"))
    assert r.read and r.exit_status == 216 and r.passed is False


def read_twice(dev: str, first: Any, then: Any, *, start: float = 0.0, later: float = 3600.0,
               **watch: Any) -> tuple[SmartWatch, Clock, list[str]]:
    """A watch that read /dev/`dev` once (smartctl answering `first`) and polls it again
    `later` seconds on (answering `then`): the watch, its clock, what the second poll read."""
    clock = Clock(start)
    answers: dict[str, Any] = {f"/dev/{dev}": first}
    _, h = host(answers)
    w = SmartWatch(h, clock=clock, **watch)
    w.poll([disk(dev)])
    answers[f"/dev/{dev}"] = then
    clock.t += later
    return w, clock, w.poll([disk(dev)])


def test_watch_cadence_with_a_fake_clock() -> None:
    clock = Clock(1000.0)
    fake, h = host({"/dev/sda": (0, FAIL2, ""), "/dev/sdb": (0, FAIL2, "")})
    w = SmartWatch(h, interval=1800.0, clock=clock)
    disks = [disk("sda"), disk("sdb"), disk("sda1", kind="part")]
    assert w.poll(disks) == ["sda", "sdb"]  # whole disks only
    clock.t += 1799
    assert w.poll(disks) == []  # not due: nothing run
    assert len(fake.calls) == 2
    w.request("sdb")  # on demand
    assert w.poll(disks) == ["sdb"]
    clock.t += 1
    assert w.poll(disks) == ["sda"]  # sdb was read on demand a second ago
    assert len(fake.calls) == 4


def test_poll_limit_spreads_a_big_host() -> None:
    clock = Clock(0.0)
    names = [f"sd{c}" for c in "abcdefghij"]
    _, h = host({f"/dev/{n}": (0, FAIL2, "") for n in names})
    w = SmartWatch(h, limit=4, clock=clock)
    disks = [disk(n) for n in names]
    assert w.poll(disks) == names[:4]
    assert w.poll(disks) == names[4:8]
    assert w.poll(disks) == names[8:]


def test_no_smart_is_said_once_and_not_asked_again() -> None:
    clock = Clock(0.0)
    fake, h = host({"/dev/sda": (0, FAIL2, "")})
    w = SmartWatch(h, clock=clock)
    disks = [disk("vda", transport="virtio"), disk("sda")]
    w.poll(disks)
    clock.t += 10 * 3600
    assert w.poll(disks) == ["sda"]
    state = w.state("vda")
    assert state is not None and state.words == "no SMART"


def test_missing_smartctl_stops_the_poll() -> None:
    fake, h = host({"/dev/sda": CommandNotFound(["smartctl"]), "/dev/sdb": (0, FAIL2, "")})
    w = SmartWatch(h, clock=Clock(0.0))
    w.poll([disk("sda"), disk("sdb")])
    assert len(fake.calls) == 1
    sdb = w.state("sdb")
    assert sdb is not None and sdb.unread is not None
    assert sdb.unread.unread is Unread.MISSING and sdb.unread.device == "/dev/sdb"


def test_asleep_keeps_the_last_reading() -> None:
    asleep = (2, json.dumps({"smartctl": {"exit_status": 2, "messages": [
        {"string": "Device is in STANDBY mode, exit(2)", "severity": "information"}]},
        "device": {"name": "/dev/sda", "protocol": "ATA"}}), "")
    w, _, _ = read_twice("sda", (0, FAIL2, ""), asleep)
    s = w.state("sda")
    assert s is not None and s.reading is not None and s.read_at == 0.0
    assert s.words.startswith("asleep, not read")


def test_timeout_keeps_the_last_reading_and_says_why() -> None:
    w, _, read = read_twice("sda", (0, FAIL2, ""), CommandTimedOut(["smartctl"], 30.0))
    assert read == []
    s = w.state("sda")
    assert s is not None and s.reading is not None and "SMART not read" in s.words


def test_growing_counter_is_tracked_since_first_seen() -> None:
    w, clock, _ = read_twice("sdb", (0, with_pending(FAIL2, 12), ""),
                             (0, with_pending(FAIL2, 48), ""), start=10_000.0,
                             later=2 * 3600, interval=1800.0)
    s = w.state("sdb")
    assert s is not None
    t = s.tracks["ata-197"]
    assert (t.first, t.first_seen, t.last, t.grew_at) == (12, 10_000.0, 48, 17_200.0)
    clock.t += 600
    findings = judge_disks(w.states(), now=clock(), pools={"sdb": "tank"})
    counters = next(f for f in findings if f.kind == "smart-counters")
    assert counters.pool == "tank" and counters.subject == "sdb"
    assert "48 pending sectors, up from 12 when first seen 2 h 10 min ago" in counters.message


def test_another_disk_under_the_same_name_starts_a_new_history() -> None:
    w, _, _ = read_twice("sdb", (0, with_pending(FAIL2, 12), ""),
                         (0, with_pending(FAIL2, 0, serial="NEWDISK"), ""))
    s = w.state("sdb")
    assert s is not None and s.tracks["ata-197"].first == 0
    assert s.tracks["ata-197"].first_seen == 3600.0


@pytest.mark.parametrize("module", ["zconsole.ui.app", "zconsole.services.session"])
def test_not_on_the_first_frame_path(module: str) -> None:
    """Nothing on the first refresh imports the SMART read (bench first_frame)."""
    import subprocess
    import sys

    code = (f"import sys, {module}; "
            "print(any(m.startswith(('zconsole.services.read.smart', "
            "'zconsole.parsers.smartctl')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
