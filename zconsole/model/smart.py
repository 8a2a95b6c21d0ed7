"""A disk's SMART as `smartctl --json --all -n standby DEV` reports it: what the disk says
about itself (reallocated and pending sectors, NVMe wear and media errors, SCSI grown defects,
the self-test log), or why it said nothing (asleep, no SMART, smartctl missing, not root).

Pure data. The parser is `parsers/smartctl.py`, the judgement `services/health/smart.py`,
the reads (cadence, history "since when it grew") `services/read/smart.py`. Strings are
kept as the host wrote them (model, serial, messages): faces show them through
`hosttext.visible()`.

Facts behind the fields: /work/shared/reference/smart-facts.md (smartmontools 7.0-7.5 JSON,
exit status bits, self-test codes). The numbers an admin reads are the *raw* counters of the
ATA attributes (Backblaze: 5, 187, 188, 197, 198 above zero is "a reason to investigate"),
never a packed temperature raw value: `temperature` comes from smartctl's own decoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple


class Protocol(str, Enum):
    ATA = "ATA"
    NVME = "NVMe"
    SCSI = "SCSI"


class Unread(str, Enum):
    """Why a disk's SMART was not read. None of these is an error of the disk: the faces say
    it once per disk, as a fact ("asleep, not read"), never as a failure."""

    ASLEEP = "asleep"  # `-n standby` skipped a disk in STANDBY/SLEEP (exit bit 1 + message)
    NO_SMART = "no-smart"  # virtio, RAID volume, USB bridge that hides it, SMART unavailable
    MISSING = "smartctl-missing"  # the program is not installed (Debian: smartmontools)
    NOT_ROOT = "not-root"  # the device could not be opened: permission denied
    OPEN_FAILED = "open-failed"  # any other open failure (device gone, ioctl refused)

    @property
    def words(self) -> str:
        return _UNREAD_WORDS[self]


_UNREAD_WORDS = {
    Unread.ASLEEP: "asleep, not read (smartctl -n standby does not wake a disk)",
    Unread.NO_SMART: "no SMART",
    Unread.MISSING: "smartctl is not installed (Debian/Ubuntu package: smartmontools)",
    Unread.NOT_ROOT: "SMART needs root (smartctl could not open the device)",
    Unread.OPEN_FAILED: "smartctl could not open the device",
}

#: smartctl's exit status bits (smartctl(8) "EXIT STATUS"); the process exit code and
#: `smartctl.exit_status` in the JSON are the same value.
EXIT_BITS: tuple[str, ...] = (
    "command line did not parse",  # 1
    "device open failed, no IDENTIFY, or the device is in a low-power mode (-n)",  # 2
    "some SMART or other command to the disk failed, or a SMART checksum error",  # 4
    "SMART status check returned 'DISK FAILING'",  # 8
    "prefail attributes at or below their threshold now",  # 16
    "attributes at or below their threshold in the past",  # 32
    "the device error log has records of errors",  # 64
    "the self-test log has records of errors",  # 128
)

#: NVMe SMART/Health log `critical_warning` bits (NVMe base spec; smartctl's JSON names)
NVME_CRITICAL_BITS: tuple[tuple[int, str, str], ...] = (
    (0x01, "spare_below_threshold", "available spare below its threshold"),
    (0x02, "temperature_above_or_below_threshold",
     "temperature over (or under) the drive's threshold"),
    (0x04, "reliability_degraded", "NVM subsystem reliability degraded"),
    (0x08, "media_read_only", "media placed in read-only mode"),
    (0x10, "volatile_memory_backup_failed", "volatile memory backup device failed"),
    (0x20, "persistent_memory_region_unreliable",
     "persistent memory region read-only or unreliable"),
    (0xC0, "other", "a reserved warning bit"),
)

#: the ATA attributes an admin reads first, by id
REALLOCATED, REPORTED_UNCORRECT, COMMAND_TIMEOUT = 5, 187, 188
PENDING, OFFLINE_UNCORRECTABLE, UDMA_CRC = 197, 198, 199
POWER_ON_HOURS = 9
FAILURE_COUNTERS: tuple[int, ...] = (REALLOCATED, REPORTED_UNCORRECT, COMMAND_TIMEOUT,
                                     PENDING, OFFLINE_UNCORRECTABLE)
ATTRIBUTE_WORDS: dict[int, str] = {
    REALLOCATED: "reallocated sectors", REPORTED_UNCORRECT: "reported uncorrectable errors",
    COMMAND_TIMEOUT: "command timeouts", PENDING: "pending sectors",
    OFFLINE_UNCORRECTABLE: "offline uncorrectable sectors", UDMA_CRC: "UDMA CRC errors",
}


class SmartAttr(NamedTuple):
    """One row of `ata_smart_attributes.table`. `value`/`worst`/`thresh` are the normalized
    values (None when the drive gives none); `raw` is smartctl's decoded raw value.

    A NamedTuple, not a frozen dataclass: an ATA disk has 15-30 rows, so a SMART poll of
    1 000 disks makes ~17 000, and a frozen dataclass's `__init__` (one `object.__setattr__`
    per field) was a third of the parser's own time (bench/budgets.py --only smart)."""

    id: int
    name: str
    raw: int
    raw_string: str = ""
    value: int | None = None
    worst: int | None = None
    thresh: int | None = None
    when_failed: str = ""  # "now", "past" or "" (smartctl JSON; not FAILING_NOW)
    prefailure: bool | None = None

    @property
    def counter(self) -> int:
        """The counter an admin means. Seagate packs three 16-bit counters into 188's raw
        value (0x0004_0004_0004 is "4 timeouts"): above 16 bits, 188 counts its low word."""
        if self.id == COMMAND_TIMEOUT and self.raw > 0xFFFF:
            return self.raw & 0xFFFF
        return self.raw

    @property
    def failing_now(self) -> bool:
        """smartctl's rule (atacmds.cpp): threshold 0 always passes; value <= thresh fails."""
        if self.when_failed == "now":
            return True
        return bool(self.thresh) and self.value is not None and self.value <= (self.thresh or 0)


@dataclass(frozen=True)
class SelfTest:
    """One self-test log entry (newest first in `SmartReading.self_tests`)."""

    kind: str  # "short", "extended", "conveyance", "selective", "offline", "other"
    status: str  # smartctl's words ("Completed: read failure")
    passed: bool | None  # None: aborted, interrupted or still running
    hours: int | None = None  # power-on hours when it ran (ATA logs wrap at 65536)
    lba: int | None = None  # first failing LBA of a failed test
    running: bool = False


@dataclass(frozen=True)
class TestRunning:
    kind: str | None  # "short", "extended", ... when the drive says
    percent_done: int | None  # None: SCSI 7.3 gives no percentage


@dataclass(frozen=True)
class NvmeHealth:
    """`nvme_smart_health_information_log`; counters are exact Python ints (128-bit)."""

    critical_warning: int = 0
    temperature: int | None = None
    available_spare: int | None = None
    available_spare_threshold: int | None = None
    percentage_used: int | None = None
    media_errors: int | None = None
    unsafe_shutdowns: int | None = None
    error_log_entries: int | None = None
    power_on_hours: int | None = None
    data_units_written: int | None = None  # units of 1000 x 512 bytes
    warning_temp_minutes: int | None = None
    critical_temp_minutes: int | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        """The plain words of each critical_warning bit that is set."""
        return tuple(words for mask, _, words in NVME_CRITICAL_BITS
                     if self.critical_warning & mask)


@dataclass(frozen=True)
class ScsiHealth:
    grown_defects: int | None = None  # scsi_grown_defect_list
    read_uncorrected: int | None = None
    write_uncorrected: int | None = None
    verify_uncorrected: int | None = None
    endurance_used: int | None = None  # percent (SSDs)


@dataclass(frozen=True)
class Temperature:
    current: int
    limit: int | None = None  # the drive's own: ATA op_limit_max, SCSI drive_trip, NVMe WCTEMP
    critical: int | None = None  # NVMe CCTEMP / critical_limit_max when given
    limit_source: str = ""  # which field `limit` came from


@dataclass(frozen=True)
class SmartReading:
    """One disk's SMART at one moment, or why there is none (`unread`)."""

    device: str  # the path smartctl was given (device.name), as the host wrote it
    protocol: Protocol | None = None
    exit_status: int | None = None  # None: the output had no smartctl envelope
    version: tuple[int, int] | None = None  # smartctl's
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    capacity_bytes: int | None = None
    rotation_rate: int | None = None  # 0: solid state
    passed: bool | None = None  # smart_status.passed (None: no health check result)
    temperature: Temperature | None = None
    power_on_hours: int | None = None
    attributes: tuple[SmartAttr, ...] = ()
    nvme: NvmeHealth | None = None
    scsi: ScsiHealth | None = None
    self_tests: tuple[SelfTest, ...] = ()
    running: TestRunning | None = None
    # the drive's own expected self-test durations, minutes, by kind ("short", "extended",
    # "conveyance"): ATA `ata_smart_data.self_test.polling_minutes`
    test_minutes: tuple[tuple[str, int], ...] = ()
    error_log_count: int | None = None  # ATA error log entries
    messages: tuple[tuple[str, str], ...] = ()  # (severity, text) from smartctl
    unread: Unread | None = None
    unread_detail: str = ""  # smartctl's own message, when it gave one
    damaged: tuple[str, ...] = ()  # parts of the output that could not be read

    @property
    def read(self) -> bool:
        return self.unread is None

    def attr(self, attr_id: int) -> SmartAttr | None:
        return next((a for a in self.attributes if a.id == attr_id), None)

    @property
    def exit_meanings(self) -> tuple[str, ...]:
        """The words of each exit status bit that is set."""
        if not self.exit_status:
            return ()
        return tuple(words for bit, words in enumerate(EXIT_BITS)
                     if self.exit_status & (1 << bit))

    def newest_test(self, kind: str) -> SelfTest | None:
        """The newest finished test of this kind."""
        return next((t for t in self.self_tests if t.kind == kind and not t.running), None)


@dataclass(frozen=True)
class CounterTrack:
    """One SMART counter as zconsole has seen it over time (kept by the read service's
    watch): its value when first seen, now, and when it last grew. `key` names it:
    "ata-197", "nvme-media_errors", "scsi-grown_defects", ...."""

    key: str
    first: int
    first_seen: float  # epoch seconds (the console's clock)
    last: int
    grew_at: float | None = None  # the last reading that found it higher than before

    @property
    def grew(self) -> bool:
        return self.last > self.first


def counters(reading: SmartReading) -> dict[str, int]:
    """The counters that only grow and that predict failure, by track key: ATA 5, 187, 188
    (decoded), 197, 198 and 199; NVMe media errors; SCSI grown defects and uncorrected
    errors. What the history keeps and the judgement reads."""
    out: dict[str, int] = {}
    for a in reading.attributes:
        if a.id in FAILURE_COUNTERS or a.id == UDMA_CRC:
            out[f"ata-{a.id}"] = a.counter
    if reading.nvme is not None and reading.nvme.media_errors is not None:
        out["nvme-media_errors"] = reading.nvme.media_errors
    s = reading.scsi
    if s is not None:
        for key, value in (("grown_defects", s.grown_defects),
                           ("read_uncorrected", s.read_uncorrected),
                           ("write_uncorrected", s.write_uncorrected),
                           ("verify_uncorrected", s.verify_uncorrected)):
            if value is not None:
                out[f"scsi-{key}"] = value
    return out


COUNTER_WORDS: dict[str, str] = {
    **{f"ata-{k}": v for k, v in ATTRIBUTE_WORDS.items()},
    "nvme-media_errors": "media errors", "scsi-grown_defects": "grown defects",
    "scsi-read_uncorrected": "uncorrected read errors",
    "scsi-write_uncorrected": "uncorrected write errors",
    "scsi-verify_uncorrected": "uncorrected verify errors",
}
