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
  than the current format, `[internal NAME txg:N] TEXT`, where NAME may be several words
  (`[internal pool create txg:5] pool spa 28; zfs spa 28; zpl 5; uts ...`, `[internal
  property set txg:50] compression=lz4 dataset = 21`).
* A record that cannot be read (a date that is no date, `2026-02-30.10:00:00`; a line that
  is no record where a record must start) is left out with its lines and listed in
  `skipped` (parsers.errors.Skipped: its line number, the line, why); the readable records
  are kept. A ParseError only when nothing is readable.
* A command line is what was typed, verbatim (host text), and so is an internal record's
  text (`set tank/bob (76) com.example:note=VALUE`): OpenZFS escapes nothing. Proven on the
  2.1.11 and 2.3.2 guests (tests/fixtures/parsers/zpool-history/SOURCES.md, "Hostile
  strings"): a delegated user's `zfs set 'com.example:note=x<LF>2026-11-28.10:00:00 zpool
  offline tank vdb [user 0 (root) on zfsvm:linux]<LF>…'` prints lines that are, byte for
  byte, a record of root's; its first line may itself end with a forged suffix, a value may
  hold blank lines and `History for 'evil':`. From `-il` alone, where a record ends and who
  ran it cannot be told (every line can look complete).

How this parser tells them (`parse_zpool_history(text, plain)`): `-il` and `-i` print the
same bytes except for the suffix `-l` inserts before the line end of each record's last line
(for an ioctl record: where `-i` prints an empty line). Walking both at once, the first byte
where they differ is where a real suffix starts (a suffix starts with a space, a line end
is not one), and a suffix holds no line break: so each real record's end and its user come
from OpenZFS, whatever the text holds. A record's line breaks stay in its `text`. From
where the two reads stop agreeing (a record written between them) and when `-il` is read
alone, records are `verified=False`: their user is only what the text looks like, and the
Timeline attributes them to no one. Linear time, one pass over each text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from zconsole.parsers.errors import ParseError, Skipped, parser

SOURCE = "zpool history"

_POOL = re.compile(r"History for '(.*)':$")
_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\.([0-9]{2}):([0-9]{2}):([0-9]{2})"
                   r"(?: \(([0-9]+)ms\))?(?: (.*))?$", re.ASCII)
_LONG = re.compile(r" \[(?:user ([0-9]+) ?(?:\(([^()]*)\) ?)?)?(?:on ([^\]]*))?\]")
_TXG = re.compile(r"\[txg:([0-9]+)\] (.*)$", re.ASCII | re.DOTALL)
_LEGACY = "[internal "
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
    and `dataset` its dataset where the record names one. `text` may hold line breaks (a
    command's arguments). `verified`: where the record ends and who ran it were read from
    OpenZFS's own suffix (`-il` against `-i`, see the module's words); an unverified record's
    user and host are only what its text looks like."""

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
    verified: bool = False


def _local(m: re.Match[str], line_no: int, line: str) -> datetime:
    try:
        return datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5)), int(m.group(6)))
    except ValueError as e:
        raise ParseError(SOURCE, f"not a date: {e}", line_no, line) from None


def _suffix(text: str) -> tuple[int | None, str, str, str] | None:
    """` [user UID (NAME) on HOST:ZONE]` -> (uid, name, host, zone); None when it is not one."""
    m = _LONG.fullmatch(text)
    if m is None or not (m.group(1) or m.group(3) is not None or text == " []"):
        return None
    where = m.group(3) or ""
    host, _, zone = where.partition(":")
    return (int(m.group(1)) if m.group(1) else None), m.group(2) or "", host, zone


def _record(pool: str, local: datetime, elapsed: str | None, body: str,
            suffix: tuple[int | None, str, str, str] | None, line_no: int,
            verified: bool) -> HistoryRecord:
    if suffix is None:  # one text: the last ` [` of the record is taken as its suffix
        cut = body.rfind(" [")  # user and host names hold no "["
        found = _suffix(body[cut:]) if cut >= 0 else None
        if found is not None:
            body, suffix = body[:cut], found
    user_id, user, host, zone = suffix if suffix is not None else (None, "", "", "")
    kw: dict[str, Any] = dict(user_id=user_id, user=user, host=host, zone=zone,
              elapsed_ms=int(elapsed) if elapsed else None, line_no=line_no,
              verified=verified)
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
    legacy = _legacy(body)
    if legacy is not None:
        op, txg, text = legacy
        return HistoryRecord(pool, local, RecordKind.INTERNAL, text, op=op, txg=txg, **kw)
    return HistoryRecord(pool, local, RecordKind.COMMAND, body, **kw)


def _legacy(body: str) -> tuple[str, int, str] | None:
    """`[internal NAME txg:N] TEXT` (NAME one or more words) -> (NAME, N, TEXT), else None.
    String operations only: linear in the line."""
    if not body.startswith(_LEGACY):
        return None
    close = body.find("]")
    if close < 0:
        return None
    name, sep, txg = body[len(_LEGACY):close].rpartition(" txg:")
    if not sep or not name.strip() or not (txg.isascii() and txg.isdigit()) or len(txg) > 20:
        return None
    return name.strip(), int(txg), body[close + 1:].removeprefix(" ")


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



def _head(line: str, line_no: int) -> tuple[datetime, str | None, str]:
    """A record's first line -> (local time, elapsed ms, the rest of the line)."""
    m = _TIME.match(line)
    if m is None:
        raise ParseError(SOURCE, "expected a record's date", line_no, line)
    return _local(m, line_no, line), m.group(7), m.group(8) or ""


def _one_text(lines: list[str], pool: str | None, first_no: int,
              out: list[HistoryRecord], skipped: list[Skipped]) -> None:
    """Records of `zpool history -il` read alone, all unverified: a line that starts with a
    date starts a record, every other line (blank ones too) continues the one before, since a
    command may hold line breaks; which of these lines OpenZFS printed cannot be told. A
    record whose date is no date is skipped with its continuation lines."""
    head: tuple[datetime, str | None, int] | None = None
    body: list[str] = []
    skipping = False  # the lines of a skipped record go with it

    def flush() -> None:
        nonlocal head, body
        while body and not body[-1].strip():
            body.pop()
        if head is not None and pool is not None:
            out.append(_record(pool, head[0], head[1], "\n".join(body), None, head[2],
                               False))
        head, body = None, []

    for line_no, line in enumerate(lines, first_no):
        p = _POOL.match(line)
        if p:
            flush()
            pool = p.group(1)
            continue
        if pool is None:
            if line.strip():
                skipped.append(Skipped(line_no, line, "expected `History for 'POOL':`"))
            continue
        if _TIME.match(line):
            flush()
            try:
                local, elapsed, rest = _head(line, line_no)
            except ParseError as e:
                skipped.append(Skipped(line_no, line, _reason(e)))
                skipping = True
                continue
            head, body, skipping = (local, elapsed, line_no), [rest], False
            continue
        if head is None:
            if line.strip() and not skipping:
                skipped.append(Skipped(line_no, line, "expected a record's date"))
            continue
        body.append(line)
    flush()


def _reason(e: ParseError) -> str:
    return str(e).removeprefix(f"{SOURCE}: ").split(" (line ", 1)[0]


def _align(long: str, plain: str) -> tuple[dict[int, tuple[int | None, str, str, str]],
                                           list[int]]:
    """`-il` (`long`) is `-i` (`plain`) with a suffix ` [...]` inserted before the line end
    of each record's last line (OpenZFS prints nothing else differently). The first place
    where they differ is therefore where a suffix starts (a record's text is the same in
    both, a suffix holds no line break): linear, one pass. Returns {index of a plain line
    that ends a record: its suffix} and, for each plain line that both reads agree on, where
    it starts in `long`; they stop where the reads disagree (a record written between them)."""
    ends: dict[int, tuple[int | None, str, str, str]] = {}
    starts: list[int] = []
    i = j = 0
    while i < len(plain):
        k = plain.find("\n", i)
        if k < 0 or not long.startswith(plain[i:k], j):
            break
        at = j + k - i
        if long.startswith("\n", at):
            nl = at
        else:
            nl = long.find("\n", at)
            got = _suffix(long[at:nl]) if nl >= 0 and long.startswith(" [", at) else None
            if got is None:
                break
            ends[len(starts)] = got
        starts.append(j)
        i, j = k + 1, nl + 1
    starts.append(j)  # where the first line not agreed on starts
    return ends, starts


@parser(SOURCE)
def parse_zpool_history(text: str, plain: str | None = None, *,
                        skipped: list[Skipped] | None = None) -> tuple[HistoryRecord, ...]:
    """Parse `zpool history -il` (`text`) of one or several pools, in order. With `plain`,
    the `zpool history -i` read right before it, each record's end and user come from the
    suffixes only `-l` added: verified records, whatever their text holds. Without it, and
    from where the two reads stop agreeing (a record written between them), the records
    are unverified. Records that cannot be read are left out and appended to `skipped`."""
    out: list[HistoryRecord] = []
    bad: list[Skipped] = []
    try:
        _verified(text, plain, out, bad)
    finally:
        if skipped is not None:
            skipped.extend(bad)
    if bad and not out:
        first = bad[0]
        raise ParseError(SOURCE, f"no readable record: {first.reason}", first.line_no,
                         first.line)
    return tuple(out)


def _verified(text: str, plain: str | None, out: list[HistoryRecord],
              skipped: list[Skipped]) -> None:
    if plain is None:
        _one_text(text.split("\n"), None, 1, out, skipped)
        return
    ends, starts = _align(text, plain)
    lines = plain.split("\n")[:len(starts) - 1]
    last_of = sorted(ends)
    e = 0
    pool: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if i not in ends and pool is None:
            p = _POOL.match(line)
            if p is None and line:
                skipped.append(Skipped(i + 1, line, "expected `History for 'POOL':`"))
            pool = p.group(1) if p else None
            i += 1
            continue
        if i not in ends and not line:
            pool = None  # the empty line after a pool's records
            i += 1
            continue
        while e < len(last_of) and last_of[e] < i:
            e += 1
        if pool is None or e == len(last_of):
            break  # a record whose end the reads do not agree on: read below, unverified
        last = last_of[e]
        try:
            local, elapsed, rest = _head(line, i + 1)
        except ParseError as err:  # its end is known: the record alone is left out
            skipped.append(Skipped(i + 1, line, _reason(err)))
            i = last + 1
            continue
        body = "\n".join([rest, *lines[i + 1:last + 1]])
        if rest.startswith("ioctl ") or rest.startswith("unrecognized record:"):
            body = body.removesuffix("\n")  # the empty line `-l` puts the suffix on
        out.append(_record(pool, local, elapsed, body, ends[last], i + 1, True))
        i = last + 1
    _one_text(text[starts[i]:].split("\n"), pool, i + 1, out, skipped)
