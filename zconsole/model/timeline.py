"""The Timeline: one time-ordered list of what happened on a host, from every source.

An `Entry` is one thing that happened: when (epoch seconds, the host's clock or ZFS's own
`time`), what kind, on which pool and vdev, the words an operator reads, and where zconsole
learnt it (`Source`). `Timeline` is the merged list with what each source said about
itself (read, failed, how far back it reaches).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta, timezone, tzinfo
from enum import Enum

# the host's time zone as zconsole knows it: its rules (a tzinfo from the IANA name, right
# across daylight-saving changes), else the offset it has now in seconds, else None (UTC)
Zone = int | tzinfo | None


# the epoch seconds a datetime can show in any zone: 1970-01-02 .. 9999-12-30 (a day's margin
# on both sides for the zone's offset). A time outside is unreadable, never formatted: a
# forged or damaged `time = 0x7fffffffffffffff 0x0` made `datetime.fromtimestamp` raise.
EPOCH_MIN = 86_400.0
EPOCH_MAX = 253_402_128_000.0


def readable_epoch(at: float | None) -> bool:
    """Whether `at` is a time a screen can show (see EPOCH_MIN/EPOCH_MAX)."""
    return at is not None and EPOCH_MIN <= at <= EPOCH_MAX


def as_tz(zone: Zone) -> tzinfo:
    """`zone` as a tzinfo: UTC for None, a fixed offset for seconds."""
    if zone is None:
        return timezone.utc
    if isinstance(zone, int):
        return timezone(timedelta(seconds=zone))
    return zone


class Kind(str, Enum):
    """What an entry is about; the Timeline screen filters on it."""

    STATE = "state"  # a vdev or pool changed state (statechange, removed, observed)
    ERROR = "error"  # I/O, checksum, data, delay errors (ereports)
    SCAN = "scan"  # scrub, resilver, rebuild started / finished / paused
    CONFIG = "config"  # attach, detach, replace, add, remove, config sync, import, export
    COMMAND = "command"  # a command run on the pool (`zpool history`), a zconsole command
    INTERNAL = "internal"  # ZFS's own internal history records (txg, property changes)
    OTHER = "other"


class Source(str, Enum):
    """Where an entry comes from."""

    EVENTS = "zpool events"
    HISTORY = "zpool history"
    AUDIT = "zconsole audit log"
    OBSERVED = "zconsole observed"


@dataclass(frozen=True)
class Entry:
    """One thing that happened. `at` is epoch seconds (a float: events carry nanoseconds,
    history whole seconds). `vdev` is the short vdev name ("sdb", "mirror-1") or "";
    `words` is the sentence shown (host text: names come from the host). `detail` is the
    raw line or class it was made from."""

    at: float
    kind: Kind
    pool: str
    vdev: str
    words: str
    source: Source
    detail: str = ""
    state: str = ""  # the vdev/pool state the entry reports, when it reports one
    seq: int = 0  # order among entries of one source with the same time
    # what happened, named the same by each source that saw it ("" for most entries): a
    # self-test's result, which zconsole's audit log and the drive's own log both hold
    # (`self_test_ref`); the Timeline shows it once (services/read/timeline.fold_self_tests)
    ref: str = ""


def self_test_ref(model: str, serial: str, test: str, hours: int | None,
                  status: str, disk: str = "") -> str:
    """One self-test result of one disk, as the drive's log holds it: the disk (model and
    serial), the test ("short", "extended"), the power-on hour and the status. A disk that
    reports no serial is told by its kernel name (`disk`): the one name both the audit's
    record and the SMART poll hold, and the same disk for as long as a test runs. "" with
    neither (no disk to tell it by). A key, never shown."""
    who = serial or (f"kernel name {disk}" if disk else "")
    if not who:
        return ""
    return "\x1f".join(("self-test", model, who, test,
                        "" if hours is None else str(hours), status))


@dataclass(frozen=True)
class SourceRead:
    """What one source gave: how many entries, its error when it failed, and the oldest time
    it reaches back to (zpool events is a ring buffer lost at reboot)."""

    source: Source
    entries: int = 0
    error: str | None = None
    oldest: float | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Timeline:
    """Every entry, oldest first, with what each source said about its read.

    `utc_offset` is the host's offset from UTC in seconds (times are shown in the host's
    time zone, named `tz_name`), None when it could not be read (times shown in UTC)."""

    entries: tuple[Entry, ...]
    sources: tuple[SourceRead, ...]
    taken_at: float
    utc_offset: int | None = None
    tz_name: str = ""
    pools: tuple[str, ...] = field(default_factory=tuple)
    rules: tzinfo | None = None  # the host's zone rules (from its IANA name), when known

    @property
    def zone(self) -> Zone:
        """What times are converted with: the zone's rules, else today's offset."""
        return self.rules if self.rules is not None else self.utc_offset

    def source(self, s: Source) -> SourceRead | None:
        for r in self.sources:
            if r.source is s:
                return r
        return None
