"""`zpool history -il` -> `HistoryRecord`s: every command run on each pool, by whom, from
which host, and ZFS's internal records.

Format (cmd/zpool/zpool_main.c `print_history_records`, the same in OpenZFS 2.1 and 2.3):

    History for 'tank':
    2026-11-25.03:00:01 zpool create tank mirror vdb vdc [user 0 (root) on zfsvm:linux]
    2026-11-25.03:00:01 [txg:5] create pool version 5000; software version zfs-2.3.2-...; uts ... [on zfsvm]
    2026-11-25.03:00:02 [txg:8] set tank (54) compression=lz4 [user 0 (root) on zfsvm]
    2026-11-25.03:00:02 ioctl snapshot
        input:
            snaps:
                tank@a
     [user 0 (root) on zfsvm:linux]
    (a blank line ends the pool)

* The time is `strftime("%F.%T")` in the host's local time zone, with no zone: the caller
  gives the host's UTC offset to make epoch seconds of it (`HistoryRecord.local`).
  A record of a channel program may carry ` (Nms)` after it.
* `-l` adds ` [user UID (NAME) on HOST:ZONE]` at the end (the user part only when the
  record has one; the name only when the host knows the uid); for an `ioctl` record the
  suffix is on a line of its own after the dumped input/output nvlists.
* `-i` adds the internal records: `[txg:N] NAME DATASET (ID) TEXT` and, from pools older
  than the current format, `[internal NAME txg:N] TEXT`.
* A command line is what was typed, verbatim (host text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from zconsole.parsers.errors import ParseError, parser

SOURCE = "zpool history"

_POOL = re.compile(r"History for '(.*)':$")
_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\.([0-9]{2}):([0-9]{2}):([0-9]{2})"
                   r"(?: \(([0-9]+)ms\))?(?: (.*))?$", re.ASCII)
_LONG = re.compile(r" \[(?:user ([0-9]+) ?(?:\(([^()]*)\) ?)?)?(?:on ([^\]]*))?\]")
_TXG = re.compile(r"\[txg:([0-9]+)\] (.*)$", re.ASCII | re.DOTALL)
_LEGACY = re.compile(r"\[internal (\S+) txg:([0-9]+)\] ?(.*)$", re.ASCII | re.DOTALL)
_DSID = re.compile(r"(\S+) (\S+) \(([0-9]+)\)(?: (.*))?$", re.DOTALL)


class RecordKind(str, Enum):
    COMMAND = "command"  # a zpool/zfs command as typed
    INTERNAL = "internal"  # [txg:N] or [internal ...]
    IOCTL = "ioctl"  # a logged ioctl (snapshot, channel programs) with its nvlists
    UNRECOGNIZED = "unrecognized"


@dataclass(frozen=True)
class HistoryRecord:
    """One record. `local` is the host's local time, naive. `text` is the command line
    (COMMAND), the internal record's text after its operation and dataset (INTERNAL), the
    ioctl's name (IOCTL). `op` is the internal operation (`set`, `create`, `scan setup`...)
    and `dataset` its dataset where the record names one."""

    pool: str
    local: datetime
    kind: RecordKind
    text: str
    op: str = ""
    dataset: str = ""
    txg: int | None = None
    user_id: int | None = None
    user: str = ""
    host: str = ""
    zone: str = ""
    elapsed_ms: int | None = None
    line_no: int = 0


def _local(m: re.Match[str], line_no: int, line: str) -> datetime:
    try:
        return datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5)), int(m.group(6)))
    except ValueError as e:
        raise ParseError(SOURCE, f"not a date: {e}", line_no, line) from None


def _record(pool: str, local: datetime, elapsed: str | None, lines: list[str],
            line_no: int) -> HistoryRecord:
    body = "\n".join(lines)
    user_id: int | None = None
    user = host = zone = ""
    cut = body.rfind(" [")  # user and host names hold no "[": the suffix is the last one
    m = _LONG.fullmatch(body, cut) if cut >= 0 else None
    if m and (m.group(1) or m.group(3) is not None):
        body = body[:cut]
        user_id = int(m.group(1)) if m.group(1) else None
        user = m.group(2) or ""
        where = m.group(3) or ""
        host, _, zone = where.partition(":")
    kw: dict[str, Any] = dict(user_id=user_id, user=user, host=host, zone=zone,
              elapsed_ms=int(elapsed) if elapsed else None, line_no=line_no)
    if body.startswith("ioctl "):
        name = body[len("ioctl "):].split("\n", 1)[0]
        return HistoryRecord(pool, local, RecordKind.IOCTL, name, op=name, **kw)
    if body.startswith("unrecognized record:"):
        return HistoryRecord(pool, local, RecordKind.UNRECOGNIZED, body, **kw)
    t = _TXG.match(body)
    if t:
        rest = t.group(2)
        d = _DSID.match(rest)
        if d:
            return HistoryRecord(pool, local, RecordKind.INTERNAL, d.group(4) or "",
                                 op=d.group(1), dataset=d.group(2), txg=int(t.group(1)),
                                 **kw)
        op, text = _split_op(rest)
        return HistoryRecord(pool, local, RecordKind.INTERNAL, text, op=op,
                             txg=int(t.group(1)), **kw)
    g = _LEGACY.match(body)
    if g:
        return HistoryRecord(pool, local, RecordKind.INTERNAL, g.group(3), op=g.group(1),
                             txg=int(g.group(2)), **kw)
    return HistoryRecord(pool, local, RecordKind.COMMAND, body, **kw)


# Internal operations whose name is two words (zfs_history_event_names and spa_history_log
# callers): the text follows them.
_TWO_WORD_OPS = ("scan setup", "scan done", "scan aborted", "scan cancelled", "vdev attach",
                 "vdev detach", "vdev remove", "vdev online", "vdev offline", "vdev add",
                 "vdev clear", "vdev set", "pool split")


def _split_op(rest: str) -> tuple[str, str]:
    for op in _TWO_WORD_OPS:
        if rest == op or rest.startswith(op + " "):
            return op, rest[len(op):].strip()
    op, _, text = rest.partition(" ")
    return op, text


@parser(SOURCE)
def parse_zpool_history(text: str) -> tuple[HistoryRecord, ...]:
    """Parse `zpool history -il` (or without -i / -l) of one or several pools, in order."""
    out: list[HistoryRecord] = []
    pool: str | None = None
    head: tuple[datetime, str | None, int] | None = None
    lines: list[str] = []

    def flush() -> None:
        nonlocal head, lines
        if head is not None and pool is not None:
            out.append(_record(pool, head[0], head[1], lines, head[2]))
        head, lines = None, []

    for line_no, line in enumerate(text.splitlines(), 1):
        p = _POOL.match(line)
        if p:
            flush()
            pool = p.group(1)
            continue
        if pool is None:
            if not line.strip():
                continue
            raise ParseError(SOURCE, "expected `History for 'POOL':`", line_no, line)
        m = _TIME.match(line)
        if m:
            flush()
            head = (_local(m, line_no, line), m.group(7), line_no)
            lines = [m.group(8) or ""]
            continue
        if not line.strip():
            flush()
            continue
        if head is None:
            raise ParseError(SOURCE, "expected a record's date", line_no, line)
        lines.append(line)
    flush()
    return tuple(out)
