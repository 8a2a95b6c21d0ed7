"""`zpool events -v` -> `ZpoolEvents`, and each event's class decoded into words.

Format (cmd/zpool/zpool_main.c, the same in OpenZFS 2.1 and 2.3):

    TIME                           CLASS
    Nov 25 2026 03:12:40.123456789 resource.fs.zfs.statechange
            version = 0x0
            class = "resource.fs.zfs.statechange"
            pool = "tank"
            vdev_path = "/dev/disk/by-id/ata-ST4000...-part1"
            vdev_state = "FAULTED" (0x5)
            vdev_laststate = "ONLINE" (0x7)
            time = 0x6924f0a1 0x75bcd15
            eid = 0x2c
            ...
            (a blank line ends the event)

* The header line is `ctime(3)` of the event in the host's local time zone (month, day,
  year, time) with the nanoseconds; `time = SEC NSEC` (an int64 array, each value followed
  by a space) is the same instant in epoch seconds: the parser takes `time` when it is there
  and keeps the header's local date for the rest.
* Fields are printed by `zpool_do_events_nvprint`: integers in hex (`0x5`), strings in
  double quotes with nothing escaped (a value may hold a line break: the next lines belong
  to it), `vdev_state`/`vdev_laststate` as `"FAULTED" (0x5)`, arrays as values each followed
  by a space, embedded nvlists as `name = (embedded nvlist)` ... `(end name)` 8 columns
  deeper (kept out: nothing here needs them).
* `dropped N events` appears where the ring buffer overflowed between two reads.
* The ring buffer (`zfs_zevent_len_max`) lives in the kernel module: it is empty after a
  reboot or a module reload, and its oldest events are dropped once it is full.

This parser reads one text by the look of its lines, and host strings are printed unescaped:
a property value that closes its quote and goes on with a blank line and an event's first
line is read as that event (proven on the guests: tests/fixtures/parsers/zpool-events/
guest-zfs-*-hostile-v.txt). Its result is `verified=False`; the Timeline reads events with
parsers/zpool_events_checked.py, which splits this output at the events `zpool events -H`
lists. `describe` and the words below serve both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from zconsole.model.timeline import Kind
from zconsole.parsers.errors import ParseError, Skipped, parser

SOURCE = "zpool events"

HEADER = re.compile(
    r"([A-Z][a-z]{2}) ([ 0-9][0-9]) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{9}) "
    r"(\S+)$", re.ASCII)
FIELD = re.compile(r" {8}([A-Za-z0-9_.\-\[\]]+) = (.*)$", re.ASCII)
_NVLISTS = re.compile(r"\([0-9]+ embedded nvlists\)", re.ASCII)
DROPPED = re.compile(r"dropped ([0-9]+) events$", re.ASCII)
_STATE = re.compile(r'"([A-Z_]+)" \(0x[0-9a-f]+\)$', re.ASCII)
MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}


@dataclass(frozen=True)
class ZpoolEvent:
    """One event. `at` is epoch seconds from `time` (None without -v); `local` the header's
    date and time in the host's time zone, naive; `fields` the top-level fields as text
    (strings without their quotes, numbers as printed, a state as its word)."""

    cls: str
    local: datetime
    at: float | None
    fields: Mapping[str, str] = field(default_factory=dict)
    line_no: int = 0

    def get(self, name: str) -> str:
        return self.fields.get(name, "")

    def number(self, name: str) -> int | None:
        v = self.fields.get(name, "")
        try:
            return int(v.split()[0], 0) if v else None
        except ValueError:
            return None


@dataclass(frozen=True)
class ZpoolEvents:
    """The events read. `verified` when they were split at the events `zpool events -H`
    listed (parsers/zpool_events_checked.py), then `damaged` counts the listed events whose
    fields could not be told apart from host text and `unconfirmed` those in one of the two
    listings only; both are left out of `events`. Unverified (this module's parser, one
    text): a string value can forge whole events, see the checked parser."""

    events: tuple[ZpoolEvent, ...]
    dropped: int = 0
    damaged: int = 0
    unconfirmed: int = 0
    verified: bool = False
    # events that could not be read at all (a date that is no date, a line that is no
    # field, a listed line that is no `TIME CLASS`): left out, each with its first line
    skipped: tuple[Skipped, ...] = ()


def _local(m: re.Match[str], line_no: int, line: str) -> datetime:
    month = MONTHS.get(m.group(1))
    if month is None:
        raise ParseError(SOURCE, "unknown month", line_no, line)
    try:
        return datetime(int(m.group(3)), month, int(m.group(2)), int(m.group(4)),
                        int(m.group(5)), int(m.group(6)))
    except ValueError as e:
        raise ParseError(SOURCE, f"not a date: {e}", line_no, line) from None


def _value(raw: str) -> tuple[str, bool]:
    """The field's text and whether it is a string still open (its closing quote is on a
    later line)."""
    st = _STATE.match(raw)
    if st:
        return st.group(1), False
    if raw.startswith('"'):
        if len(raw) >= 2 and raw.endswith('"'):
            return raw[1:-1], False
        return raw[1:], True
    return raw.strip(), False


def event_time(text: str) -> float | None:
    parts = text.split()
    if len(parts) != 2:
        return None
    try:
        sec, nsec = int(parts[0], 16), int(parts[1], 16)
    except ValueError:
        return None
    if sec >= 1 << 63:  # int64 printed as unsigned hex
        sec -= 1 << 64
    return sec + nsec / 1e9


class EventFields:
    """One event's field lines as `zpool_do_events_nvprint` prints them, fed a line at a time
    (its first line and the empty line after it excluded): `name = value` 8 columns deep, a
    string value whose closing quote comes on a later line (those lines are the value's),
    embedded nvlists skipped to their `(end name)`, deeper lines (an array's nvlists) passed
    over. Linear in the lines fed."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.repeated = False  # a field name came twice (the kernel's nvlists never do)
        self._open: str | None = None  # a string value whose closing quote has not come yet
        self._parts: list[str] = []
        self._skip_to: str | None = None  # the line that ends an embedded nvlist skipped
        self._names: set[str] = set()

    @property
    def in_string(self) -> bool:
        return self._open is not None

    @property
    def complete(self) -> bool:
        """No string value left open, no embedded nvlist left unended."""
        return self._open is None and self._skip_to is None

    def feed(self, line: str) -> bool:
        """Take one line; False when it cannot be one of the event's fields."""
        if self._open is not None:
            if line.endswith('"'):
                self._parts.append(line[:-1])
                self.fields[self._open] = "\n".join(self._parts)
                self._open = None
            else:
                self._parts.append(line)
            return True
        if self._skip_to is not None:
            if line == self._skip_to:
                self._skip_to = None
            return True
        f = FIELD.match(line)
        if f is None:
            return line.startswith(" " * 9)  # deeper than the event's own fields
        name, raw = f.group(1), f.group(2)
        self.repeated = self.repeated or name in self._names
        self._names.add(name)
        if raw == "(embedded nvlist)" or _NVLISTS.fullmatch(raw):
            self._skip_to = f"{' ' * 8}(end {name})"
            return True
        value, still_open = _value(raw)
        self.fields[name] = value
        if still_open:
            self._open, self._parts = name, [value]
        return True

    def read(self) -> dict[str, str]:
        """The fields read, a string still open at the end with the lines it had."""
        if self._open is not None:
            self.fields[self._open] = "\n".join(self._parts)
        return self.fields


@parser(SOURCE)
def parse_zpool_events(text: str) -> ZpoolEvents:
    """Parse `zpool events -v` (or `zpool events`, then without fields and epoch times).
    An event that cannot be read (a date that is no date, a line that is no field) is left
    out with its lines until the next event and listed in `skipped`; a ParseError only when
    no event is readable."""
    events: list[ZpoolEvent] = []
    skipped: list[Skipped] = []
    dropped = 0
    cur: tuple[str, datetime, int] | None = None  # class, local time, line of the header
    fields = EventFields()
    skipping = False  # inside an event left out: its lines go with it
    head = ""  # the current event's first line

    def close() -> None:
        nonlocal cur, fields
        if cur is not None:
            read = fields.read()
            events.append(ZpoolEvent(cur[0], cur[1], event_time(read.get("time", "")), read,
                                     cur[2]))
        cur, fields = None, EventFields()

    for line_no, line in enumerate(text.splitlines(), 1):
        if fields.in_string:
            fields.feed(line)
            continue
        if not line.strip():
            close()
            continue
        if line.startswith("TIME ") and line.split() == ["TIME", "CLASS"]:
            continue
        m = HEADER.match(line)
        if m:
            close()
            skipping, head = False, line
            try:
                cur = (m.group(8), _local(m, line_no, line), line_no)
            except ParseError as e:
                skipped.append(Skipped(line_no, line, _reason(e)))
                skipping = True
            continue
        d = DROPPED.match(line)
        if d:
            close()
            dropped += int(d.group(1))
            continue
        if skipping:
            continue
        if cur is None:
            skipped.append(Skipped(line_no, line, "expected an event's time and class"))
            skipping = True
        elif not fields.feed(line):
            skipped.append(Skipped(cur[2], head, f"line {line_no} is no `name = value`"))
            cur, fields, skipping = None, EventFields(), True
    close()
    if skipped and not events:
        first = skipped[0]
        raise ParseError(SOURCE, f"no readable event: {first.reason}", first.line_no,
                         first.line)
    return ZpoolEvents(tuple(events), dropped, skipped=tuple(skipped))


def _reason(e: ParseError) -> str:
    return str(e).removeprefix(f"{SOURCE}: ").split(" (line ", 1)[0]


# ------------------------------------------------------------------------- into words


def vdev_short(path: str) -> str:
    """The name zpool status shows for a leaf's path: the last component, `-part1` or a
    trailing partition number of a whole-disk kernel name dropped (`/dev/sdb1` -> `sdb`)."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    if base.endswith("-part1"):
        return base[:-len("-part1")]
    if path.startswith("/dev/") and not path.startswith("/dev/disk/"):
        if re.fullmatch(r"(?:sd[a-z]+|vd[a-z]+|xvd[a-z]+|hd[a-z]+)1", base, re.ASCII):
            return base[:-1]
        if re.fullmatch(r"nvme[0-9]+n[0-9]+p1", base, re.ASCII):
            return base[:-2]
    return base


def event_vdev(ev: ZpoolEvent) -> str:
    """The vdev an event is about: its path's short name, else its type and guid."""
    path = ev.get("vdev_path")
    if path:
        return vdev_short(path)
    guid = ev.get("vdev_guid")
    if guid:
        n = ev.number("vdev_guid")
        kind = ev.get("vdev_type")
        return f"{kind + ' ' if kind else ''}{n if n is not None else guid}"
    return ""


_IO_TYPE = {1: "read", 2: "write", 3: "free", 4: "claim", 5: "flush", 6: "trim"}
_ERRNO = {5: "EIO", 6: "ENXIO", 52: "ECKSUM", 61: "ENODATA", 110: "ETIMEDOUT", 28: "ENOSPC",
          122: "EDQUOT", 85: "ERESTART", 19: "ENODEV", 2: "ENOENT"}

_SYSEVENT_WORDS = {
    "resilver_start": (Kind.SCAN, "resilver started"),
    "resilver_finish": (Kind.SCAN, "resilver finished"),
    "scrub_start": (Kind.SCAN, "scrub started"),
    "scrub_finish": (Kind.SCAN, "scrub finished"),
    "scrub_abort": (Kind.SCAN, "scrub cancelled"),
    "scrub_paused": (Kind.SCAN, "scrub paused"),
    "scrub_resume": (Kind.SCAN, "scrub resumed"),
    "errorscrub_start": (Kind.SCAN, "error scrub started"),
    "errorscrub_finish": (Kind.SCAN, "error scrub finished"),
    "errorscrub_abort": (Kind.SCAN, "error scrub cancelled"),
    "errorscrub_paused": (Kind.SCAN, "error scrub paused"),
    "errorscrub_resume": (Kind.SCAN, "error scrub resumed"),
    "trim_start": (Kind.SCAN, "TRIM started"),
    "trim_finish": (Kind.SCAN, "TRIM finished"),
    "trim_cancel": (Kind.SCAN, "TRIM cancelled"),
    "trim_suspend": (Kind.SCAN, "TRIM suspended"),
    "trim_resume": (Kind.SCAN, "TRIM resumed"),
    "initialize_start": (Kind.SCAN, "initialize started"),
    "initialize_finish": (Kind.SCAN, "initialize finished"),
    "initialize_cancel": (Kind.SCAN, "initialize cancelled"),
    "initialize_suspend": (Kind.SCAN, "initialize suspended"),
    "initialize_resume": (Kind.SCAN, "initialize resumed"),
    "config_sync": (Kind.CONFIG, "configuration written (config sync)"),
    "pool_create": (Kind.CONFIG, "pool created"),
    "pool_destroy": (Kind.CONFIG, "pool destroyed"),
    "pool_import": (Kind.CONFIG, "pool imported"),
    "pool_export": (Kind.CONFIG, "pool exported"),
    "pool_reguid": (Kind.CONFIG, "pool given a new guid"),
    "vdev_add": (Kind.CONFIG, "vdevs added"),
}
_VDEV_SYSEVENT = {
    "vdev_attach": "{} attached",
    "vdev_remove": "{} removed from the pool",
    "vdev_remove_aux": "{} (spare or cache) removed from the pool",
    "vdev_remove_dev": "{} removed from the pool",
    "vdev_clear": "errors cleared on {}",
    "vdev_online": "{} brought online",
    "vdev_spare": "spare {} put in use",
    "vdev_autoexpand": "{} expanded (autoexpand)",
    "vdev_check": "{} checked",
    "bootfs_vdev_attach": "{} attached (boot pool)",
}
_EREPORT_WORDS = {
    "checksum": "checksum error on {}",
    "delay": "slow I/O on {} (over zio_slow_io_ms)",
    "deadman": "hung I/O on {} (deadman)",
    "probe_failure": "probe failure on {}",
    "vdev.open_failed": "{} could not be opened",
    "vdev.corrupt_data": "{}: corrupt label data",
    "vdev.no_replicas": "{}: no valid replicas",
    "vdev.bad_guid_sum": "{}: bad guid sum",
    "vdev.too_small": "{} is too small",
    "vdev.bad_label": "{}: bad label",
    "vdev.bad_ashift": "{}: bad ashift",
    "vdev.unknown": "{}: unknown error",
}


def describe(ev: ZpoolEvent) -> tuple[Kind, str, str, str]:
    """(kind, vdev, words, state) of an event: `ereport.fs.zfs.checksum` on sdb reads
    "checksum error on sdb", a statechange "sdb FAULTED (was ONLINE)". Unknown classes
    read as their last part with spaces."""
    cls = ev.cls
    vdev = event_vdev(ev)
    who = vdev or f"pool {ev.get('pool') or '?'}"
    for prefix in ("sysevent.fs.zfs.", "ereport.fs.zfs.", "resource.fs.zfs."):
        if cls.startswith(prefix):
            tail = cls[len(prefix):]
            break
    else:
        return Kind.OTHER, vdev, cls, ""
    if cls.startswith("sysevent."):
        if tail in _VDEV_SYSEVENT:
            return Kind.CONFIG, vdev, _VDEV_SYSEVENT[tail].format(who), ""
        if tail == "history_event":
            name = ev.get("history_internal_name")
            ds = ev.get("history_dsname")
            text = ev.get("history_internal_str")
            words = " ".join(w for w in (name, ds, text) if w) or "history record"
            # no vdev: its string fields are host text, a vdev field there could be forged
            return Kind.INTERNAL, "", words, ""
        kind, words = _SYSEVENT_WORDS.get(tail, (Kind.OTHER, tail.replace("_", " ")))
        rtype = ev.get("resilver_type")
        if tail.startswith("resilver_") and rtype == "sequential":
            words = words.replace("resilver", "sequential rebuild")
        return kind, vdev, words, ""
    if cls.startswith("resource."):
        if tail == "statechange":
            state = ev.get("vdev_state")
            last = ev.get("vdev_laststate")
            words = f"{who} {state or 'changed state'}"
            if last and last != state:
                words += f" (was {last})"
            return Kind.STATE, vdev, words, state
        if tail == "removed":
            return Kind.STATE, vdev, f"{who} removed", "REMOVED"
        if tail == "autoreplace":
            return Kind.CONFIG, vdev, f"{who} replaced automatically (autoreplace)", ""
        return Kind.STATE, vdev, f"{who}: {tail.replace('_', ' ')}", ""
    # ereports
    if tail == "io":
        io = _IO_TYPE.get(ev.number("zio_type") or 0, "")
        err = ev.number("zio_err")
        words = f"{io + ' ' if io else ''}I/O error on {who}"
        if err:
            words += f" ({_ERRNO.get(err, f'errno {err}')})"
        return Kind.ERROR, vdev, words, ""
    if tail == "data":
        return Kind.ERROR, vdev, f"data error in pool {ev.get('pool') or '?'} " \
                                 "(a block could not be read from any copy)", ""
    if tail == "io_failure":
        return Kind.ERROR, vdev, f"pool {ev.get('pool') or '?'} suspended or failing I/O " \
                                 "(failmode)", ""
    if tail == "authentication":
        return Kind.ERROR, vdev, "authentication error (an encrypted block failed its MAC)", ""
    if tail == "config_cache_write":
        return Kind.ERROR, vdev, "the pool cache file could not be written", ""
    if tail == "log_replay":
        return Kind.ERROR, vdev, "intent log could not be replayed", ""
    template = _EREPORT_WORDS.get(tail)
    if template is not None:
        return Kind.ERROR, vdev, template.format(who), ""
    return Kind.ERROR, vdev, f"{tail.replace('_', ' ')} error on {who}", ""
