"""What a SMART poll saw happen, for the Timeline (issue 30): a counter that grew since the
last reading ("sdb: pending sectors 48 → 51 (ata-HGST_…)"), and a self-test result that
appeared in the drive's own log ("sdb: short self-test: Completed without error at 31,208
power-on hours"), each once.

Pure: from the watch's states before and after one poll (`services/read/smart.DiskSmart`)
and what earlier runs saw of each disk (`services/smart_history.DiskHistory`). A counter is
compared with its last value, this run's or, on a disk's first reading here, the last run's
(so growth while the console was closed is said at the next start). A self-test is new when
it stands in the log before the newest entry seen before (a drive adds tests at the head of
its log; see `_new_tests`); the very first reading of a disk zconsole never saw sets the
baseline and says nothing (a log of 21 old tests is not news). The entries are `Source.OBSERVED` (zconsole saw it) and dated
by the console's clock at the poll: a drive's log dates a test only in power-on hours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from zconsole.model.hosttext import visible
from zconsole.model.smart import COUNTER_WORDS, CounterTrack, SelfTest, SmartReading
from zconsole.model.timeline import Entry, Kind, Source, self_test_ref
from zconsole.services.smart_history import DiskHistory, SeenTest, identity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart


def seen_tests(reading: SmartReading) -> tuple[SeenTest, ...]:
    """The finished entries of the drive's self-test log, as remembered (newest first)."""
    return tuple((t.kind, t.hours, t.status) for t in reading.self_tests if not t.running)


def _who(s: DiskSmart) -> str:
    return f" ({visible(s.by_id)})" if s.by_id else ""


def counter_words(key: str) -> str:
    return COUNTER_WORDS.get(key, key)


def _grown(s: DiskSmart, before: Mapping[str, CounterTrack]) -> list[tuple[str, int, int]]:
    out = []
    for key, t in s.tracks.items():
        prev = before.get(key)
        if prev is not None and t.last > prev.last:
            out.append((key, prev.last, t.last))
    return out


def _test_words(t: SelfTest) -> str:
    at = f" at {t.hours:,} power-on hours" if t.hours is not None else ""
    lba = f", first bad LBA {t.lba:,}" if t.lba is not None else ""
    return f"{t.kind} self-test: {visible(t.status)}{at}{lba}"


def _new_tests(reading: SmartReading, known: Sequence[SeenTest]) -> list[SelfTest]:
    """The log's finished entries newer than those seen before, newest first. A drive adds a
    test at the head of its log (ATA: a ring of 21, the oldest falling off): the new ones
    are those before the newest entry seen; when that entry is no longer found (the ring
    turned, or a log whose hours moved), as many as the log grew by."""
    done = [t for t in reading.self_tests if not t.running]
    if not known:
        return done
    keys = [(t.kind, t.hours, t.status) for t in done]
    if known[0] in keys:
        return done[:keys.index(known[0])]
    return done[:max(0, len(done) - len(known))]


def poll_entries(before: Mapping[str, DiskSmart], after: Iterable[DiskSmart],
                 read: Iterable[str], known: Mapping[str, DiskHistory],
                 places: Mapping[str, tuple[str, str]], at: float, seq: int = 0
                 ) -> list[Entry]:
    """The Timeline entries of one poll: for each disk `read` in it, the counters that grew
    and the self-tests that appeared. `known`: earlier runs' history by identity; `places`:
    a disk's (pool, leaf name) when it serves a pool."""
    asked = set(read)
    out: list[Entry] = []
    for s in after:
        r = s.reading
        if s.disk not in asked or r is None or s.read_at != s.tried_at:
            continue
        old = before.get(s.disk)
        ident = identity(r)
        same = (old is not None and old.reading is not None
                and old.reading.serial == r.serial)
        earlier = known.get(ident) if ident is not None else None
        tracks = old.tracks if same and old is not None else (
            earlier.tracks if earlier is not None else {})
        pool, leaf = places.get(s.disk, ("", ""))
        for key, was, now in _grown(s, tracks):
            out.append(Entry(at, Kind.ERROR, pool, leaf, f"{visible(s.disk)}: "
                             f"{counter_words(key)} {was:,} → {now:,}{_who(s)}",
                             Source.OBSERVED, f"smartctl {key}", seq=seq + len(out)))
        if same and old is not None and old.reading is not None:
            baseline: Sequence[SeenTest] | None = seen_tests(old.reading)
        else:
            baseline = earlier.tests if earlier is not None else None
        if baseline is None:
            continue  # a disk never seen: its log is the baseline
        for t in reversed(_new_tests(r, baseline)):  # oldest first
            out.append(Entry(at, Kind.ERROR if t.passed is False else Kind.OTHER, pool, leaf,
                             f"{visible(s.disk)}: {_test_words(t)}{_who(s)}",
                             Source.OBSERVED, "smartctl self-test log", seq=seq + len(out),
                             ref=self_test_ref(r.model or "", r.serial or "", t.kind, t.hours,
                                               t.status, s.disk)))
    return out


def history_of(states: Iterable[DiskSmart]) -> dict[str, DiskHistory]:
    """What to keep of each disk that was read (by identity): its tracks and its log."""
    out: dict[str, DiskHistory] = {}
    for s in states:
        ident = identity(s.reading)
        if ident is not None and s.reading is not None:
            out[ident] = DiskHistory(dict(s.tracks), seen_tests(s.reading))
    return out
