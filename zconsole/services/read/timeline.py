"""The timeline of one host: `zpool events -v`, `zpool history -il`, zconsole's own audit
log and what zconsole itself saw change between two refreshes, merged into one list in time
order (`model.timeline.Timeline`).

* Each source is read on its own: one that fails is a `SourceRead` with its error, the others
  are still shown.
* `zpool events` is a ring buffer in the kernel module: empty after a reboot or a module
  reload, its oldest events dropped once full. `SourceRead.oldest` says how far back it
  reaches on this host.
* `zpool history` prints the host's local time without a zone: it is read with the rules
  of the host's zone (its IANA name from /etc/localtime or /etc/timezone, when this
  machine's tz database has it and it gives the offset `date +%z` says), so a record from
  before a daylight-saving change gets the offset it had then; else with the host's offset
  of now (`date +%z`; else from an event, whose header is local time and whose `time` is
  epoch seconds; else the times are taken as UTC and the timeline says so).
* Host strings print unescaped in both (a user's property value can look like a root
  record or a FAULTED event): `zpool events -v` is split at the events `zpool events -H`
  lists, and `zpool history -il` at the suffixes it adds to `zpool history -i`
  (parsers/zpool_events_checked.py, parsers/zpool_history.py). Each pair is read once more
  when its two reads disagree (something was written between them); what still disagrees
  is counted (events) or shown unverified, attributed to no one (history).
* The `history_event` events repeat `zpool history -i`'s internal records: they are left out
  when the history was read.
* `StateWatch` is zconsole's own record across refreshes: a pool or vdev whose state changed
  between two readings ("mirror-1 DEGRADED (first seen; was ONLINE)"). The session keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone, tzinfo

from zconsole.hosts.base import Host, HostError
from zconsole.hosts.journal import AuditLog
from zconsole.model.pool import Pool
from zconsole.model.timeline import (
    Entry,
    Kind,
    Source,
    SourceRead,
    Timeline,
    Zone,
    as_tz,
    readable_epoch,
    self_test_ref,
)
from zconsole.parsers.errors import ParseError, Skipped, skipped_words
from zconsole.parsers.zpool_events import ZpoolEvent, describe, vdev_short
from zconsole.parsers.zpool_events_checked import parse_zpool_events_checked
from zconsole.parsers.zpool_history import HistoryRecord, RecordKind, parse_zpool_history
from zconsole.services.read import catalogue
from zconsole.services.read.statewatch import StateWatch  # noqa: F401 - its old home

TIMEOUT = 20.0
_OFFSET = re.compile(r"([+-])([0-9]{2})([0-9]{2})(?: (\S+))?$", re.ASCII)
BAD_STATES = frozenset({"DEGRADED", "FAULTED", "UNAVAIL", "REMOVED", "OFFLINE", "CANT_OPEN",
                        "SUSPENDED"})
# zpool commands whose device arguments name the vdev an entry is about
_VDEV_COMMANDS = ("replace", "attach", "detach", "online", "offline", "clear", "remove")


def parse_offset(text: str) -> tuple[int, str] | None:
    """`date '+%z %Z'` ("+0100 CET") -> (3600, "CET"); None when it is not that (an offset of
    24 h or more, or of 60 minutes or more, is no zone's: `+6100` made as_tz raise)."""
    m = _OFFSET.match(text.strip())
    if m is None or int(m.group(2)) >= 24 or int(m.group(3)) >= 60:
        return None
    secs = int(m.group(2)) * 3600 + int(m.group(3)) * 60
    return (-secs if m.group(1) == "-" else secs), m.group(4) or ""


def offset_from_events(events: Iterable[ZpoolEvent]) -> int | None:
    """The host's UTC offset as the events show it: each header is local time, each `time`
    the same instant in epoch seconds (rounded to the quarter hour)."""
    for ev in events:
        if ev.at is None or not readable_epoch(ev.at):
            continue
        utc = datetime.fromtimestamp(int(ev.at), timezone.utc).replace(tzinfo=None)
        diff = (ev.local - utc).total_seconds()
        return int(round(diff / 900.0)) * 900
    return None


def local_to_epoch(local: datetime, zone: Zone) -> float:
    """A wall-clock time of the host as epoch seconds: with the zone's rules, a time in
    summer is read with the summer offset even when it is winter now (the first of the
    two readings of an hour that happens twice)."""
    return local.replace(tzinfo=as_tz(zone)).timestamp()


_ZONE_KEY = re.compile(r"[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+){0,3}", re.ASCII)


def zone_key(localtime_target: str | None, etc_timezone: str | None) -> str | None:
    """The host's IANA zone name: where /etc/localtime points (…/zoneinfo/Europe/Berlin),
    else /etc/timezone (Debian); None when neither names one."""
    if localtime_target and "/zoneinfo/" in localtime_target:
        key = localtime_target.split("/zoneinfo/", 1)[1]
        key = key.removeprefix("posix/").removeprefix("right/")
        if _ZONE_KEY.fullmatch(key):
            return key
    text = (etc_timezone or "").strip()
    return text if _ZONE_KEY.fullmatch(text) else None


def zone_rules(key: str | None, offset_now: int | None, now: float) -> tzinfo | None:
    """The rules of zone `key` from this machine's tz database, when it has them and they
    give the host's offset of now (else the host's zone is not what the name says)."""
    if not key:
        return None
    try:
        from zoneinfo import ZoneInfo

        rules = ZoneInfo(key)
    except (KeyError, ValueError, OSError, ImportError):  # unknown key, no tz database here
        return None
    if offset_now is not None:
        got = datetime.fromtimestamp(now, rules).utcoffset()
        if got is None or int(got.total_seconds()) != offset_now:
            return None
    return rules


def read_zone_key(host: Host, timeout: float = TIMEOUT) -> str | None:
    target = text = None
    try:
        target = host.realpath("/etc/localtime")
    except (HostError, OSError):
        pass
    try:
        text = host.read_text("/etc/timezone")
    except (HostError, OSError):
        pass
    return zone_key(target, text)


def _guid_names(pools: Sequence[Pool]) -> dict[int, tuple[str, str]]:
    out: dict[int, tuple[str, str]] = {}
    for p in pools:
        for top in (*p.vdevs, *p.logs, *p.cache, *p.spares):
            for _, v in top.walk():
                if v.guid:
                    try:
                        out[int(v.guid, 0)] = (p.name, v.name)
                    except ValueError:
                        continue
    return out


def event_entries(events: Sequence[ZpoolEvent], *, offset: Zone, keep_history: bool,
                  pools: Sequence[Pool] = ()) -> list[Entry]:
    """The events as entries (history_event ones only when `keep_history`)."""
    names = _guid_names(pools)
    out: list[Entry] = []
    for i, ev in enumerate(events):
        if ev.cls == "sysevent.fs.zfs.history_event" and not keep_history:
            continue
        kind, vdev, words, state = describe(ev)
        guid = ev.number("vdev_guid")
        hit = names.get(guid) if guid is not None and vdev else None
        if hit is not None and hit[0] == ev.get("pool"):
            # zpool status's name for it (a missing disk is named by its guid there)
            if not ev.get("vdev_path") and vdev:
                words = words.replace(vdev, hit[1])
            vdev = hit[1]
        at = ev.at if ev.at is not None else local_to_epoch(ev.local, offset)
        out.append(Entry(at, kind, ev.get("pool"), vdev, words, Source.EVENTS, ev.cls,
                         state=state, seq=i))
    return out


def _command_vdev(text: str) -> str:
    words = text.split()
    if len(words) < 4 or words[0] != "zpool" or words[1] not in _VDEV_COMMANDS:
        return ""
    args = [w for w in words[2:] if not w.startswith("-")]
    if len(args) < 2:
        return ""
    return vdev_short(args[-1] if words[1] in ("replace", "attach") else args[1])


def _who(r: HistoryRecord) -> str:
    user = r.user or (f"uid {r.user_id}" if r.user_id is not None else "")
    if user and r.host:
        return f"{user} on {r.host}"
    return user or (f"on {r.host}" if r.host else "")


def history_entries(records: Sequence[HistoryRecord], *, offset: Zone) -> list[Entry]:
    """The records as entries. A line break inside a record (a command's argument) is shown
    as `\\n`, never as the start of another record; an unverified record (its end and user
    not checked against `-i`, see parsers/zpool_history.py) is attributed to no one."""
    out: list[Entry] = []
    for i, r in enumerate(records):
        at = local_to_epoch(r.local, offset)
        if r.kind is RecordKind.COMMAND:
            kind, words, vdev = Kind.COMMAND, r.text, _command_vdev(r.text)
        elif r.kind is RecordKind.IOCTL:
            kind, words, vdev = Kind.INTERNAL, f"ioctl {r.text}", ""
        else:
            kind = Kind.INTERNAL
            words = " ".join(w for w in (r.op, r.dataset, r.text) if w) or r.kind.value
            vdev = ""
        who = _who(r) if r.verified else ""
        detail = ("unverified: who ran it cannot be told" if not r.verified
                  else "" if not who else who if who.startswith("on ") else f"by {who}")
        if "\n" in words:
            words, vdev = words.replace("\n", "\\n"), ""
        out.append(Entry(at, kind, r.pool, vdev, words, Source.HISTORY, detail, seq=i))
    return out


# the waits whose end only zconsole records: a SMART self-test's result is in no `zpool
# events` or `zpool history` (a resilver's or scrub's end is, so its wait-end is not shown)
_RESULT_ACTIVITIES = frozenset({"self-test"})


def _result_ref(rec: Mapping[str, object]) -> str:
    """The `ref` of the self-test result a wait-end record holds (`result`, written by the
    self-test's watch: services/ops/smart/watch.py); "" when it holds none readable."""
    got = rec.get("result")
    if not isinstance(got, Mapping):
        return ""
    text = [got.get(k) for k in ("model", "serial", "test", "status")]
    hours = got.get("hours")
    if not all(isinstance(t, str) for t in text) or not (
            hours is None or (isinstance(hours, int) and not isinstance(hours, bool))):
        return ""
    model, serial, test, status = (str(t) for t in text)
    disk = got.get("disk")  # the kernel name: records before it was written have none
    return self_test_ref(model, serial, test, hours, status,
                         disk if isinstance(disk, str) else "")


def audit_entries(records: Iterable[Mapping[str, object]], host_label: str) -> list[Entry]:
    """zconsole's own audit log: the commands its wizards ran on this host (results, not
    intents), the plans they started, and the result of a watch only zconsole saw end (a
    SMART self-test's: "the short self-test of sdb: over; short self-test passed ...", with
    its plan's title and the `ref` of the result, `fold_self_tests`)."""
    out: list[Entry] = []
    titles: dict[object, str] = {}  # plan id -> its title, from its plan-start
    for i, rec in enumerate(records):
        if rec.get("host") not in (None, host_label):
            continue
        ts = rec.get("ts")
        if not isinstance(ts, (int, float)) or not readable_epoch(ts):
            continue
        event = rec.get("event")
        pool = str(rec.get("pool") or "")
        who = str(rec.get("operator") or "")
        if event == "command" and rec.get("writes"):
            code = rec.get("exit_code")
            words = str(rec.get("command") or "")
            if code not in (0, None):
                words += f" (failed, exit {code})"
            out.append(Entry(float(ts), Kind.COMMAND, pool, _command_vdev(words), words,
                             Source.AUDIT, f"by {who}" if who else "", seq=i))
        elif event == "wait-end" and rec.get("activity") in _RESULT_ACTIVITIES:
            title = titles.get(rec.get("plan_id"), "")
            detail = ", ".join(w for w in (f"plan: {title}" if title else "",
                                           f"by {who}" if who else "") if w)
            out.append(Entry(float(ts), Kind.COMMAND, pool, "",
                             f"zconsole watched to its end: {rec.get('detail') or ''}",
                             Source.AUDIT, detail, seq=i, ref=_result_ref(rec)))
        elif event == "plan-start":
            titles[rec.get("plan_id")] = str(rec.get("title") or rec.get("kind") or "")
            out.append(Entry(float(ts), Kind.COMMAND, pool, "",
                             f"zconsole plan started: {rec.get('title') or rec.get('kind')}",
                             Source.AUDIT, f"by {who}" if who else "", seq=i))
    return out


_MERGE_ORDER = {Source.HISTORY: 0, Source.EVENTS: 1, Source.AUDIT: 2, Source.OBSERVED: 3}


def merge(*groups: Iterable[Entry]) -> tuple[Entry, ...]:
    """Every entry in time order; at the same time the history first (a command's record
    has whole seconds, the events it caused came within that second), then events, audit
    and observations, each source in its own order."""
    order = _MERGE_ORDER
    everything = [e for g in groups for e in g]
    everything.sort(key=lambda e: (e.at, order[e.source], e.seq))
    return tuple(everything)


def _folded(audit: Entry, seen: Entry) -> Entry:
    """One self-test's result as both sources saw it: the drive's log's words (the disk,
    its place in the pool, the hour, the first bad LBA, its by-id name) and the audit's
    link (zconsole watched it to its end, its plan, the operator), at the audit's time."""
    detail = "; ".join(w for w in ("zconsole watched it to its end", audit.detail) if w)
    return Entry(audit.at, seen.kind, seen.pool or audit.pool, seen.vdev, seen.words,
                 Source.AUDIT, detail, seq=audit.seq, ref=audit.ref)


def fold_self_tests(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """Each self-test result once: a result zconsole watched to its end (the audit log's
    wait-end) and the same result its SMART poll found in the drive's log (an observed
    entry with the same `ref`) become one entry (`_folded`), in the audit's place; a result
    only one of them holds (a test zconsole did not start, a poll that has not seen it yet)
    is kept as it is. Two results with the same ref (a drive that stamps every test with
    one hour) pair in time order."""
    seen: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        if e.ref and e.source is Source.OBSERVED:
            seen.setdefault(e.ref, []).append(i)
    if not seen:
        return tuple(entries)
    out: dict[int, Entry] = {}
    dropped: set[int] = set()
    for i, e in enumerate(entries):
        if e.ref and e.source is Source.AUDIT and seen.get(e.ref):
            j = seen[e.ref].pop(0)
            out[i] = _folded(e, entries[j])
            dropped.add(j)
    return tuple(out.get(i, e) for i, e in enumerate(entries) if i not in dropped)


def _events_note(dropped: int, unreadable: int, damaged: int, unconfirmed: int) -> str:
    note = "a ring buffer in the kernel module, lost at reboot"
    if dropped:
        note += f"; {dropped} events were dropped (buffer full)"
    if unreadable:
        note += (f"; {unreadable} event{'s' if unreadable != 1 else ''} with a time out of "
                 "range left out (unreadable)")
    if damaged:
        note += (f"; {damaged} event{'s' if damaged != 1 else ''} whose fields cannot be "
                 "told apart from host text left out (damaged)")
    if unconfirmed:
        note += (f"; {unconfirmed} event{'s' if unconfirmed != 1 else ''} in only one of "
                 "the two listings left out (changed while read)")
    return note


def _read_events(host: Host, timeout: float
                 ) -> tuple[tuple[ZpoolEvent, ...] | None, str | None, str]:
    """`zpool events -H`, then `zpool events -v` split at the events it listed
    (parsers/zpool_events_checked.py): (events with a readable time, error, note)."""
    try:
        for _ in range(2):  # once more when an event came or went between the two reads
            short = host.run(catalogue.ZPOOL_EVENTS_SHORT, timeout=timeout).stdout
            parsed = parse_zpool_events_checked(
                host.run(catalogue.ZPOOL_EVENTS, timeout=timeout).stdout, short)
            if not parsed.unconfirmed:
                break
    except (HostError, ParseError) as e:
        return None, str(e), _events_note(0, 0, 0, 0)
    # an event whose time no clock can show is unreadable: counted, never drawn
    kept = tuple(e for e in parsed.events if e.at is None or readable_epoch(e.at))
    note = _events_note(parsed.dropped, len(parsed.events) - len(kept), parsed.damaged,
                        parsed.unconfirmed)
    if parsed.skipped:  # events that could not be read at all, each with its line
        note += "; " + skipped_words(parsed.skipped, "event") + ", left out"
    return kept, None, note


def _history_run(host: Host, argv: tuple[str, ...], timeout: float) -> tuple[str | None, str]:
    """(stdout, "") of a `zpool history` read, or (None, the error)."""
    try:
        result = host.run(argv, timeout=timeout, check=False)
    except HostError as e:
        return None, str(e)
    if result.returncode != 0 and "no pools available" not in result.stderr:
        return None, (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[-1]
    return result.stdout, ""


def _read_history(host: Host, timeout: float
                  ) -> tuple[tuple[HistoryRecord, ...] | None, str | None, str]:
    """`zpool history -i`, then `-il`: each record's end and user from the suffixes `-l`
    added (parsers/zpool_history.py). (records, error, note)."""
    for _ in range(2):  # once more when a record was written between the two reads
        plain, _ = _history_run(host, catalogue.ZPOOL_HISTORY_PLAIN, timeout)
        text, error = _history_run(host, catalogue.ZPOOL_HISTORY, timeout)
        if text is None:
            return None, error, ""
        skipped: list[Skipped] = []
        try:
            records = parse_zpool_history(text, plain, skipped=skipped)
        except ParseError as e:
            return None, str(e), ""
        loose = sum(1 for r in records if not r.verified)
        if not loose or plain is None:
            break
    note = (f"{loose} record{'s' if loose != 1 else ''} whose end and user could not be "
            "checked (shown without a user)") if loose else ""
    if skipped:  # records that could not be read at all: left out, counted, first line named
        note = "; ".join(n for n in (note, skipped_words(skipped) + ", left out") if n)
    return records, None, note


def read_timeline(host: Host, *, audit: AuditLog | None = None,
                  observed: Sequence[Entry] = (), pools: Sequence[Pool] = (),
                  timeout: float = TIMEOUT) -> Timeline:
    """Read every source once and merge them."""
    sources: list[SourceRead] = []
    taken_at = host.now()
    # the host's time zone
    offset: int | None = None
    tz_name = ""
    try:
        got = parse_offset(host.run(catalogue.DATE_ZONE, timeout=timeout).stdout)
        if got is not None:
            offset, tz_name = got
    except HostError:
        pass
    events, events_error, note = _read_events(host, timeout)
    if offset is None and events:
        offset = offset_from_events(events)
    records, history_error, history_note = _read_history(host, timeout)
    rules = zone_rules(read_zone_key(host, timeout), offset, taken_at)
    off: Zone = rules if rules is not None else offset
    ev_entries = event_entries(events or (), offset=off, keep_history=records is None,
                               pools=pools)
    sources.append(SourceRead(Source.EVENTS, len(ev_entries), events_error,
                              min((e.at for e in ev_entries), default=None), note))
    hist_entries = history_entries(records or (), offset=off)
    sources.append(SourceRead(Source.HISTORY, len(hist_entries), history_error,
                              min((e.at for e in hist_entries), default=None), history_note))
    au_entries: list[Entry] = []
    if audit is not None:
        try:
            au_entries = audit_entries(audit.records(), str(host.label))
            sources.append(SourceRead(Source.AUDIT, len(au_entries)))
        except (OSError, ValueError) as e:
            sources.append(SourceRead(Source.AUDIT, 0, str(e)))
    sources.append(SourceRead(Source.OBSERVED, len(observed),
                              note="what zconsole saw change during this session"))
    pool_names = tuple(sorted({p.name for p in pools} | {e.pool for e in ev_entries if e.pool}
                              | {e.pool for e in hist_entries}))
    return Timeline(merge(ev_entries, hist_entries, au_entries, observed), tuple(sources),
                    taken_at, offset, tz_name, pool_names, rules)


# --------------------------------------------------------------- what the screen shows

_SINCE = re.compile(r"(?:([0-9]{4})-([0-9]{2})-([0-9]{2})[ T])?([0-9]{1,2}):([0-9]{2})"
                    r"(?::([0-9]{2}))?$", re.ASCII)


def parse_since(text: str, now: float, offset: Zone) -> float | None:
    """An operator's "since" as epoch seconds: `03:00` or `03:00:30` (the host's wall
    clock: today, or yesterday when that is still to come) or `2026-11-21 03:00`; None
    when it is not one of these."""
    m = _SINCE.match(text.strip())
    if m is None:
        return None
    host_now = datetime.fromtimestamp(now, as_tz(offset)).replace(tzinfo=None)
    try:
        if m.group(1):
            day = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        else:
            day = host_now.replace(hour=0, minute=0, second=0, microsecond=0)
        local = day.replace(hour=int(m.group(4)), minute=int(m.group(5)),
                            second=int(m.group(6) or 0))
    except ValueError:
        return None
    if not m.group(1) and local > host_now:
        local -= timedelta(days=1)
    return local_to_epoch(local, offset)


def filter_entries(entries: Sequence[Entry], *, pool: str | None = None,
                   vdev: str | None = None, kind: Kind | None = None,
                   since: float | None = None) -> list[Entry]:
    """The entries the filters keep (None: no filter). A vdev filter keeps the entries about
    that vdev; a pool filter keeps that pool's entries and those about no pool."""
    return [e for e in entries
            if (pool is None or e.pool in (pool, ""))
            and (vdev is None or e.vdev == vdev)
            and (kind is None or e.kind is kind)
            and (since is None or e.at >= since)]
