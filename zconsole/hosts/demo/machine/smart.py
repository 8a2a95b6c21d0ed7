"""What each demo disk's SMART says: `SmartState`, kept in `Machine.smart` by serial
number (a kernel name can move to another disk; a serial cannot). A disk a scenario did not
give one reads as healthy (`smart_of`), with power-on hours and a temperature derived from
its serial, so the demo is the same every run.

The showcase's sick disks (scenarios/showcase.py): `dying` (pending sectors that grow with
demo time, reallocations, a failed extended self-test), `bad_cable` (UDMA CRC errors only:
the link, not the disk), `hot_worn` (an NVMe hot and at 93 % of its rated endurance) and
`asleep` (a spun-down spare: `smartctl -n standby` skips it, exit 2).

The JSON smartctl prints from this state is `tools/smart.py`'s.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.disks import Disk
    from zconsole.hosts.demo.machine.selftest import RunningTest
    from zconsole.hosts.demo.machine.state import Machine


@dataclass
class LoggedTest:
    """One self-test log entry. `status` is the ATA status byte (high nibble: 0 passed,
    7 read failure, ...; low nibble: tenths remaining), `hours_ago` counts back from now."""

    kind: int  # ATA test type: 1 short, 2 extended
    status: int
    hours_ago: int
    lba: int | None = None
    at_hours: int | None = None  # the power-on hours it ended at (a test run in the demo)


@dataclass
class NvmeLog:
    """What only an NVMe drive's health log says (smartctl's
    `nvme_smart_health_information_log`): the wear, the spare, media errors and the
    critical warning bits. An ATA disk keeps one too, never printed."""

    percentage_used: int = 2
    available_spare: int = 100
    media_errors: int = 0
    critical_warning: int = 0


@dataclass
class SmartState:
    hours: int = 20_000  # power-on hours at `since`
    since: float = 0.0  # demo time the counters below were true
    passed: bool = True  # the drive's overall health self-assessment
    reallocated: int = 0
    pending: int = 0
    pending_every_s: float = 0.0  # one more pending sector every N seconds (0: steady)
    offline_uncorrectable: int = 0
    reported_uncorrect: int = 0
    crc: int = 0
    temperature: int = 34
    temperature_min: int = 18
    temperature_max: int = 45
    asleep: bool = False  # in STANDBY: `-n standby` skips it; `-n never` wakes it
    power_cycles: int = 41
    unsafe_shutdowns: int = 6  # ATA attributes 174/192 too
    nvme: NvmeLog = field(default_factory=NvmeLog)
    tests: list[LoggedTest] = field(default_factory=list)  # newest first
    running: RunningTest | None = None  # a self-test `smartctl -t` started (selftest.py)

    def hours_at(self, now: float) -> int:
        return self.hours + max(0, int((now - self.since) // 3600))

    def pending_at(self, now: float) -> int:
        if self.pending_every_s <= 0:
            return self.pending
        return self.pending + max(0, int((now - self.since) // self.pending_every_s))


def smart_of(m: Machine, d: Disk) -> SmartState:
    """The disk's SMART state: the scenario's, else a healthy one made from its serial
    (and kept, so that `-n never` waking it or a later self-test stick)."""
    state = m.smart.get(d.serial)
    if state is None:
        h = zlib.crc32(d.serial.encode())
        state = SmartState(hours=6_000 + h % 30_000, since=m.boot_time,
                           temperature=(38 + h % 6) if d.transport == "nvme" else 30 + h % 7,
                           tests=[LoggedTest(1, 0, 30 + h % 100)])
        m.smart[d.serial] = state
    return state


# --- the showcase's sick disks ----------------------------------------------------------

def dying(now: float) -> SmartState:
    """Pending sectors growing (one more every 10 minutes of demo time), reallocations,
    uncorrectable reads, and an extended self-test that failed with a read error."""
    return SmartState(hours=31_207, since=now, reallocated=24, pending=48,
                      pending_every_s=600.0, offline_uncorrectable=8, reported_uncorrect=3,
                      temperature=41, temperature_max=49,
                      tests=[LoggedTest(1, 0, 20),
                             LoggedTest(2, 0x79, 70, lba=5_112_093_184),  # read failure, 90 %
                             LoggedTest(2, 0, 24 * 30)])


def bad_cable(now: float) -> SmartState:
    """Nothing wrong with the disk; 312 UDMA CRC errors from a bad SATA cable."""
    return SmartState(hours=31_190, since=now, crc=312, temperature=36,
                      tests=[LoggedTest(1, 0, 20)])


def hot_worn(now: float) -> SmartState:
    """An L2ARC NVMe that has written its life away and runs hot (over the 70 °C a
    consumer NVMe warns at)."""
    return SmartState(hours=19_874, since=now, temperature=74, temperature_max=81,
                      unsafe_shutdowns=11,
                      nvme=NvmeLog(percentage_used=93, available_spare=100,
                                   critical_warning=0x02))  # the drive sets it over its threshold


def asleep(now: float) -> SmartState:
    """A hot spare spun down to STANDBY."""
    return SmartState(hours=4_512, since=now, asleep=True, temperature=29,
                      tests=[LoggedTest(1, 0, 200)])


# --- the replace wizard's bad new disk (issue 30) -----------------------------------------

def shelf_bad(now: float) -> SmartState:
    """A "new" disk from the shelf that is not: 8 pending and 16 reallocated sectors from
    an earlier life and the 2 read errors (UNC) that left them in its error log, steady (the
    replace wizard warns before writing to it)."""
    return SmartState(hours=9_318, since=now, reallocated=16, pending=8, reported_uncorrect=2,
                      temperature=33, tests=[LoggedTest(1, 0, 9_000)])
