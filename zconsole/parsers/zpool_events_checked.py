"""`zpool events -v` read against `zpool events -H`: the events as OpenZFS printed them, not as
their lines look.

Why (issue 27, proven on the OpenZFS 2.1.11 and 2.3.2 guests, tests/fixtures/parsers/
zpool-events/guest-zfs-*-hostile-*.txt): `zpool_do_events_nvprint` prints a string value as
`name = "VALUE"` with nothing escaped, and a delegated user's property value or snapshot name
reaches a `sysevent.fs.zfs.history_event`'s `history_internal_str`. A value such as
`y"` + blank line + `Nov 28 2026 10:00:00.000000002 resource.fs.zfs.statechange` + fields
prints, byte for byte, as a FAULTED statechange at a time the writer chose: no rule on the
look of the lines can tell it from a real one.

What cannot be forged: `zpool_do_events_short` prints each event's first line from the
kernel's own `time` (ctime of tv[0] and the nanoseconds) and `class`, and in `-H` (scripted)
mode that line is all it prints: `Mon DD YYYY HH:MM:SS.NNNNNNNNN<TAB>CLASS`, no host string
at all. In `-v` mode the same function prints the same line (a space instead of the tab)
before the event's fields, then `zpool_do_events_nvprint` and one empty line. So:

* the short listing gives the real events, in order, with their class and time;
* each of those lines is found in the verbose output in order (a subsequence of its lines);
  an event's fields are the lines between its line and the next real event's line;
* a line of the short listing that occurs more than once where it could be that event's (a
  copy inside a string value) leaves the events on both sides of it uncertain: the earliest
  and the latest in-order matches differ. They are counted as damaged, never guessed;
* inside an event, a line that is not a field, a field name twice (the kernel's nvlists have
  unique names: a real field repeated by forged text), a line that looks like an event's
  first line, a `class` other than the listed one, or a `time` that is not the listed
  instant marks the event damaged: counted, its fields never shown;
* field names a class does not have can still be forged inside a string value without any
  of the marks above (a `vdev_path` inside a history_event): nothing here decides a class,
  a time or a state from such a field (`describe` takes no vdev from a history_event);
* a listed line that is not `TIME<TAB>CLASS` or whose date is no date (`Feb 30`) still
  marks where its event starts; that event is left out and listed in `skipped` with its
  line, the others are kept (a ParseError only when no listed line reads).

The two listings are two reads of a ring buffer (short first): an event that came or went
between them is in one listing only. One listed in the short read and gone from the verbose
one is counted as unconfirmed; event lines after the last listed event (new events, or text
that looks like them) are counted as unconfirmed, and the last listed event, whose end can
then not be told, as damaged (the Timeline reads the pair once more first). Linear in the input (a bisect per
listed event); raises only ParseError (a short listing that is not one).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from zconsole.parsers.errors import ParseError, Skipped, parser
from zconsole.parsers.zpool_events import (
    DROPPED,
    HEADER,
    MONTHS,
    EventFields,
    ZpoolEvent,
    ZpoolEvents,
    event_time,
)

SOURCE = "zpool events -H"

_SHORT = re.compile(
    r"(([A-Z][a-z]{2}) ([ 0-9][0-9]) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{9,}))"
    r"[\t ](\S+)$", re.ASCII)


@dataclass(frozen=True)
class Listed:
    """One event of the short listing: its first line as `-v` prints it, class, local time
    (naive, the host's zone) and nanoseconds."""

    line: str
    cls: str
    local: datetime
    nsec: int
    bad: str = ""  # why the listed line cannot be read (then `local` means nothing)
    line_no: int = 0


def parse_short(text: str) -> tuple[list[Listed], int]:
    """`zpool events -H` (or `zpool events`): the listed events and the dropped count."""
    out: list[Listed] = []
    dropped = 0
    for line_no, line in enumerate(text.split("\n"), 1):
        if not line.strip() or (line.startswith("TIME ") and line.split() == ["TIME", "CLASS"]):
            continue
        d = DROPPED.match(line)
        if d:
            dropped += int(d.group(1))
            continue
        m = _SHORT.match(line)
        month = MONTHS.get(m.group(2)) if m else None
        if m is None or month is None:
            # still where an event starts in `-v` (the same line, a space for the tab): its
            # lines are kept from the event before it, and it is counted, never shown
            out.append(Listed(line.replace("\t", " ", 1), "", datetime.min, 0,
                              "expected `TIME<TAB>CLASS`", line_no))
            continue
        try:
            local = datetime(int(m.group(4)), month, int(m.group(3)), int(m.group(5)),
                             int(m.group(6)), int(m.group(7)))
        except ValueError as e:
            out.append(Listed(f"{m.group(1)} {m.group(9)}", m.group(9), datetime.min, 0,
                              f"not a date: {e}", line_no))
            continue
        out.append(Listed(f"{m.group(1)} {m.group(9)}", m.group(9), local, int(m.group(8)),
                          line_no=line_no))
    if out and all(ev.bad for ev in out):
        raise ParseError(SOURCE, out[0].bad, out[0].line_no, out[0].line)
    return out, dropped


def _positions(lines: Sequence[str], listed: Sequence[Listed]) -> list[int | None]:
    """Where each listed event's line is in `lines`: its index when the earliest and the
    latest in-order match agree, -1 when they differ (uncertain), None when it is not there."""
    wanted = {ev.line for ev in listed}
    where: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if line in wanted:
            where.setdefault(line, []).append(i)
    n = len(listed)
    first: list[int | None] = [None] * n
    last: list[int | None] = [None] * n
    pos = -1
    for k, ev in enumerate(listed):
        occ = where.get(ev.line, [])
        j = bisect_right(occ, pos)
        if j < len(occ):
            first[k] = pos = occ[j]
    pos = len(lines)
    for k in range(n - 1, -1, -1):
        occ = where.get(listed[k].line, [])
        j = bisect_left(occ, pos) - 1
        if j >= 0:
            last[k] = pos = occ[j]
    return [None if f is None and g is None else f if f == g else -1
            for f, g in zip(first, last, strict=True)]


def _fields(lines: Sequence[str]) -> dict[str, str] | None:
    """The top-level fields of one event's lines (its first line excluded), or None when they
    cannot be read as `zpool_do_events_nvprint` prints them (see the module's words)."""
    end = len(lines)
    while end and (DROPPED.match(lines[end - 1]) or not lines[end - 1]):
        end -= 1
    if end == len(lines) or lines[end] != "":
        return None  # nvprint's fields end with an empty line
    fields = EventFields()
    for line in lines[:end]:
        if HEADER.match(line):
            return None  # an event's first line inside an event: forged or cut
        if not fields.feed(line):
            return None
    if fields.repeated or not fields.complete:
        return None
    return fields.read()


def _event(ev: Listed, fields: dict[str, str] | None, line_no: int) -> ZpoolEvent | None:
    """The event when its fields agree with its listed line, else None (damaged)."""
    if fields is None or fields.get("class") != ev.cls:
        return None
    at = event_time(fields.get("time", ""))
    if at is None:
        return None
    parts = fields["time"].split()
    if int(parts[1], 16) != ev.nsec:
        return None
    # the listed line is ctime(tv[0]) in the host's zone: same seconds, minutes apart by a
    # multiple of a quarter hour (every UTC offset in use)
    try:
        utc = datetime.fromtimestamp(int(at), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return ZpoolEvent(ev.cls, ev.local, at, fields, line_no)  # left out by the reader
    if utc.second != ev.local.second or (utc.minute - ev.local.minute) % 15:
        return None
    return ZpoolEvent(ev.cls, ev.local, at, fields, line_no)


@parser(SOURCE)
def parse_zpool_events_checked(verbose: str, short: str) -> ZpoolEvents:
    """`zpool events -v` (`verbose`) split at the events `zpool events -H` (`short`, read
    before it) lists. Events whose fields cannot be told apart from host text are counted in
    `damaged`, events in one listing only in `unconfirmed`; neither is returned."""
    listed, dropped = parse_short(short)
    lines = verbose.split("\n")
    pos = _positions(lines, listed)
    found = [k for k, p in enumerate(pos) if p is not None]
    events: list[ZpoolEvent] = []
    skipped: list[Skipped] = []
    damaged = 0
    unconfirmed = len(listed) - len(found)
    wanted = {ev.line for ev in listed}
    head_end = next((i for i, line in enumerate(lines) if line in wanted), len(lines))
    unconfirmed += sum(1 for line in lines[:head_end] if HEADER.match(line))
    for i, k in enumerate(found):
        p = pos[k]
        nxt = pos[found[i + 1]] if i + 1 < len(found) else len(lines)
        if p == -1 or nxt == -1 or p is None or nxt is None:
            damaged += 1
            continue
        body = lines[p + 1:nxt]
        if i + 1 == len(found):
            stray = sum(1 for line in body if HEADER.match(line))
            if stray:
                unconfirmed += stray
                damaged += 1
                continue
        if listed[k].bad:
            skipped.append(Skipped(p + 1, listed[k].line, listed[k].bad))
            continue
        ev = _event(listed[k], _fields(body), p + 1)
        if ev is None:
            damaged += 1
        else:
            events.append(ev)
    return ZpoolEvents(tuple(events), dropped, damaged=damaged, unconfirmed=unconfirmed,
                       verified=True, skipped=tuple(skipped))
