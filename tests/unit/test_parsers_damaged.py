"""Issue 32 §3: parsers of records keep every readable record of a damaged input, and count
and name (line, reason) the ones they leave out; a ParseError only when nothing reads.

Every input is a real output (the fixtures' SOURCES.md) with one record damaged the way the
issue saw it: a date that is no date, a record cut short, a line cut by a pager (`>`). The
older `zpool history -i` internal records (`[internal NAME txg:N] TEXT`, NAME of one or
more words) are made with zpool_main.c's own format string and event names
(`zfs_history_event_names`: `pool create`, `property set`, ...), which the 2.1 and 2.3
guests cannot write any more.
"""

from __future__ import annotations

import pytest

from tests.paths import PARSERS
from tests.unit.test_services_fakehost import FakeHost
from zconsole.model.timeline import Source
from zconsole.parsers.errors import ParseError, Skipped
from zconsole.parsers.journal import parse_journal
from zconsole.parsers.systemd import parse_critical_chain
from zconsole.parsers.zpool_events import parse_zpool_events
from zconsole.parsers.zpool_events_checked import parse_zpool_events_checked
from zconsole.parsers.zpool_history import RecordKind, parse_zpool_history
from zconsole.services.read import catalogue as C
from zconsole.services.read.timeline import read_timeline

HOST = PARSERS.parent / "host"
NOW = 1_795_900_000.0  # 2026-11-28 (the captures' day)


def raw(kind: str, name: str) -> str:
    return (PARSERS / kind / name).read_bytes().decode()


def damage(text: str, nth_line: int, old: str, new: str) -> str:
    """`text` with `old` replaced by `new` in its line `nth_line` (1-based) only."""
    lines = text.split("\n")
    assert old in lines[nth_line - 1], (nth_line, lines[nth_line - 1])
    lines[nth_line - 1] = lines[nth_line - 1].replace(old, new, 1)
    return "\n".join(lines)


# -- zpool history ---------------------------------------------------------------------------

def test_older_internal_records_with_two_word_names_are_internal() -> None:
    """They were read as commands typed by someone: `[internal pool create txg:5] ...`."""
    real = raw("zpool-history", "guest-zfs-2.1.11-incident.txt").split("\n")
    legacy = [
        "2013-04-06.10:00:00 [internal pool create txg:5] pool spa 28; zfs spa 5; zpl 5; "
        "uts box 3.8.0 #1 SMP x86_64",
        "2013-04-06.10:00:05 [internal property set txg:50] compression=lz4 dataset = 21",
        "2013-04-06.10:00:09 [internal snapshot txg:61] dataset = 40",
    ]
    records = parse_zpool_history("\n".join([real[0], *legacy, *real[1:]]))
    old = records[:3]
    assert [(r.kind, r.op, r.txg, r.text) for r in old] == [
        (RecordKind.INTERNAL, "pool create", 5,
         "pool spa 28; zfs spa 5; zpl 5; uts box 3.8.0 #1 SMP x86_64"),
        (RecordKind.INTERNAL, "property set", 50, "compression=lz4 dataset = 21"),
        (RecordKind.INTERNAL, "snapshot", 61, "dataset = 40")]
    assert len(records) == 3 + len(parse_zpool_history("\n".join(real)))


def test_one_record_with_an_impossible_date_is_left_out_the_rest_kept() -> None:
    text = raw("zpool-history", "guest-zfs-2.1.11-incident.txt")
    whole = parse_zpool_history(text)
    skipped: list[Skipped] = []
    got = parse_zpool_history(damage(text, 3, "2026-11-26.", "2026-02-30."), skipped=skipped)
    assert len(got) == len(whole) - 1
    assert [r.text for r in got] == [r.text for k, r in enumerate(whole) if k != 1]
    (bad,) = skipped
    assert bad.line_no == 3 and bad.line.startswith("2026-02-30.02:13:41 [txg:4] set ashift")
    assert bad.reason.startswith("not a date")


def test_an_impossible_date_in_both_reads_leaves_out_that_record_only() -> None:
    """The Timeline's read (`-i` then `-il`): the record's end is known from the suffix, so
    only it is left out; the others stay verified."""
    plain = raw("zpool-history", "guest-zfs-2.1.11-hostile-i.txt")
    long = raw("zpool-history", "guest-zfs-2.1.11-hostile-il.txt")
    whole = parse_zpool_history(long, plain)
    skipped: list[Skipped] = []
    got = parse_zpool_history(damage(long, 3, "2026-11-", "2026-13-"),
                              damage(plain, 3, "2026-11-", "2026-13-"), skipped=skipped)
    assert [s.line_no for s in skipped] == [3]
    assert len(got) == len(whole) - 1 and all(r.verified for r in got)


def test_history_that_reads_nowhere_is_still_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no readable record"):
        parse_zpool_history("History for 'tank':\n2026-02-30.10:00:00 zpool x\n")


def test_the_timeline_counts_the_history_records_left_out() -> None:
    run = "2.1.11-hostile"
    commands: dict[tuple[str, ...], object] = {
        C.ZPOOL_EVENTS: raw("zpool-events", f"guest-zfs-{run}-v.txt"),
        C.ZPOOL_EVENTS_SHORT: raw("zpool-events", f"guest-zfs-{run}-H.txt"),
        C.ZPOOL_HISTORY: damage(raw("zpool-history", f"guest-zfs-{run}-il.txt"), 3, "2026-11-",
                                "2026-13-"),
        C.ZPOOL_HISTORY_PLAIN: damage(raw("zpool-history", f"guest-zfs-{run}-i.txt"), 3,
                                      "2026-11-", "2026-13-"),
        C.DATE_ZONE: "+0000 UTC\n",
    }
    t = read_timeline(FakeHost(commands=commands, clock=NOW))  # type: ignore[arg-type]
    history = t.source(Source.HISTORY)
    assert history is not None and history.ok and history.entries > 0
    assert "1 record could not be read (line 3: not a date" in history.note
    assert history.note.endswith(", left out")
    from zconsole.ui.screens.timeline.panel import sources_text

    said = sources_text(t, 0).plain  # what the Timeline's sources line shows
    assert "1 record could not be read (line 3: not a date" in said


# -- zpool events ----------------------------------------------------------------------------

def _first_header(text: str, after: int = 0) -> int:
    lines = text.split("\n")
    return next(i for i, ln in enumerate(lines, 1) if i > after and ln[:3] == "Nov"
                and ln[3:4] == " ")


def test_an_event_with_an_impossible_date_is_left_out_the_rest_kept() -> None:
    text = raw("zpool-events", "guest-zfs-2.1.11-incident.txt")
    whole = parse_zpool_events(text)
    at = _first_header(text, _first_header(text))  # the second event
    got = parse_zpool_events(damage(text, at, "Nov ", "Feb ").replace(
        "Feb 26 2026", "Feb 30 2026", 1))
    assert len(got.events) == len(whole.events) - 1
    (bad,) = got.skipped
    assert bad.line_no == at and bad.reason.startswith("not a date")


def test_an_event_cut_short_is_left_out_the_rest_kept() -> None:
    """A paste that lost the indentation of one field line (it then is no field)."""
    text = raw("zpool-events", "guest-zfs-2.1.11-incident.txt")
    whole = parse_zpool_events(text)
    lines = text.split("\n")
    at = _first_header(text)
    field = at + 2  # a field line of the first event
    lines[field - 1] = lines[field - 1].strip()
    got = parse_zpool_events("\n".join(lines))
    assert len(got.events) == len(whole.events) - 1
    assert got.events == whole.events[1:]
    (bad,) = got.skipped
    assert bad.line_no == at and f"line {field} is no `name = value`" in bad.reason


def test_the_checked_events_leave_out_an_unreadable_listed_date_only() -> None:
    """The Timeline's read: a listed line whose date is no date still marks where its event
    starts, so its neighbours are read; it is listed in `skipped`, and the note says so."""
    run = "2.1.11-hostile"
    short = raw("zpool-events", f"guest-zfs-{run}-H.txt")
    verbose = raw("zpool-events", f"guest-zfs-{run}-v.txt")
    whole = parse_zpool_events_checked(verbose, short)
    s_at = _first_header(short, _first_header(short))
    v_at = _first_header(verbose, _first_header(verbose))
    old = short.split("\n")[s_at - 1][:11]  # `Nov 26 2026`
    assert verbose.split("\n")[v_at - 1].startswith(old)
    new = "Feb 30" + old[6:]
    got = parse_zpool_events_checked(damage(verbose, v_at, old, new),
                                     damage(short, s_at, old, new))
    assert len(got.events) == len(whole.events) - 1 and got.damaged == whole.damaged
    (bad,) = got.skipped
    assert bad.line_no == v_at and bad.reason.startswith("not a date")
    t = read_timeline(FakeHost(commands={  # type: ignore[arg-type]
        C.ZPOOL_EVENTS: damage(verbose, v_at, old, new),
        C.ZPOOL_EVENTS_SHORT: damage(short, s_at, old, new),
        C.ZPOOL_HISTORY: raw("zpool-history", f"guest-zfs-{run}-il.txt"),
        C.ZPOOL_HISTORY_PLAIN: raw("zpool-history", f"guest-zfs-{run}-i.txt"),
        C.DATE_ZONE: "+0000 UTC\n"}, clock=NOW))
    events = t.source(Source.EVENTS)
    assert events is not None and events.ok
    assert f"1 event could not be read (line {v_at}: not a date" in events.note
    from zconsole.ui.screens.timeline.panel import sources_text

    assert f"1 event could not be read (line {v_at}: not a date" in sources_text(t, 0).plain


# -- journal and systemd-analyze ---------------------------------------------------------------

def test_a_journal_line_that_does_not_read_is_left_out_the_rest_kept() -> None:
    text = (HOST / "clean" / "journal-all.txt").read_text()
    whole = parse_journal(text)
    lines = text.split("\n")
    lines[1] = lines[1].replace("2026-11-23T", "2026-13-23T", 1)  # no month 13
    lines[3] = lines[3][:10]  # cut: a date and nothing else
    skipped: list[Skipped] = []
    got = parse_journal("\n".join(lines), skipped=skipped)
    assert got == whole[:1] + whole[2:3] + whole[4:]
    assert [(s.line_no, s.reason) for s in skipped] == [
        (2, "unreadable timestamp"), (4, "not a short-iso-precise journal line")]


def test_a_critical_chain_line_cut_by_a_pager_is_left_out_the_rest_kept() -> None:
    """`less -S` cuts a line at the terminal's width and ends it with `>`."""
    text = (HOST / "wait-online-hang" / "critical-chain-network-online.txt").read_text()
    whole = parse_critical_chain(text)
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if "networking.service" in ln)
    lines[at] = lines[at][:30] + ">"
    skipped: list[Skipped] = []
    got = parse_critical_chain("\n".join(lines), skipped=skipped)
    assert [u.unit for u in got] == [u.unit for u in whole if u.unit != "networking.service"]
    (bad,) = skipped
    assert bad.line_no == at + 1 and bad.reason.endswith("(cut by a pager)")
    with pytest.raises(ParseError):
        parse_critical_chain(lines[at] + "\n")


def test_the_boot_panel_says_how_many_chain_lines_were_left_out() -> None:
    """The Host screen's boot panel: the verdict stands on the readable units, and its
    evidence says what was left out (a line cut by a pager)."""
    from tests.unit.test_services_fixit import FixtureHost
    from zconsole.services.health.boot import diagnose_boot
    from zconsole.services.read import fixit as read

    class Cut(FixtureHost):
        def _file(self, name: str) -> str:
            text = super()._file(name)
            if name != "critical-chain-network-online.txt":
                return text
            return "\n".join(ln[:30] + ">" if "networking.service" in ln else ln
                             for ln in text.split("\n"))

    reading = read.read_boot(Cut("wait-online-hang"))
    assert reading.chain.value and reading.skipped == (
        "critical chain: 1 line could not be read (line 6: not a `unit @at +took` line "
        "(cut by a pager)), left out",)
    d = diagnose_boot(reading)
    assert d.verdict.kind == "boot-wait-online"
    assert reading.skipped[0] in d.verdict.evidence
