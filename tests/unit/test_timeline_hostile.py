"""Issue 27 item 4, third point: `zpool history` and `zpool events` records that a delegated
user's strings forged, on the real outputs of the OpenZFS 2.1.11 and 2.3.2 guests
(tests/fixtures/parsers/zpool-*/SOURCES.md, "Hostile strings").

Before: the `zfs set` by uid 1000 read as a separate `zpool offline tank vdb` by root, and a
property value read as an `ereport.fs.zfs.io` and a `vdb FAULTED` statechange at a time of
the writer's choosing (and a blank line inside a record lost the whole history). Now the
events are split at the lines `zpool events -H` lists and the history's records end where
`-il` added its suffix to `-i`."""

from __future__ import annotations

import pytest

from tests.paths import PARSERS
from tests.unit.test_services_fakehost import FakeHost
from zconsole.model.timeline import Kind, Source
from zconsole.parsers.zpool_events import parse_zpool_events
from zconsole.parsers.zpool_events_checked import parse_short, parse_zpool_events_checked
from zconsole.parsers.zpool_history import parse_zpool_history
from zconsole.services.read import catalogue as C
from zconsole.services.read.timeline import read_timeline

NOW = 1_795_900_000.0  # 2026-11-28 (the captures' day)
RUNS = ["2.1.11-hostile", "2.3.2-hostile", "2.3.2-hostile2"]
FORGED_AT = 0x69297200  # the `time` the forged events carry (2025-11-28 10:00:00 UTC)


def raw(kind: str, name: str) -> str:
    """A fixture byte for byte (read_text would turn the captured `\\r` into a line break)."""
    return (PARSERS / kind / name).read_bytes().decode()


def host_for(run: str, override: dict[tuple[str, ...], str] | None = None) -> FakeHost:
    commands: dict[tuple[str, ...], object] = {
        C.ZPOOL_EVENTS: raw("zpool-events", f"guest-zfs-{run}-v.txt"),
        C.ZPOOL_EVENTS_SHORT: raw("zpool-events", f"guest-zfs-{run}-H.txt"),
        C.ZPOOL_HISTORY: raw("zpool-history", f"guest-zfs-{run}-il.txt"),
        C.ZPOOL_HISTORY_PLAIN: raw("zpool-history", f"guest-zfs-{run}-i.txt"),
        C.DATE_ZONE: "+0000 UTC\n",
    }
    commands.update(override or {})
    return FakeHost(commands=commands, clock=NOW)  # type: ignore[arg-type]


@pytest.mark.parametrize("run", RUNS)
def test_the_forged_events_are_not_in_the_timeline(run: str) -> None:
    t = read_timeline(host_for(run))
    events = t.source(Source.EVENTS)
    assert events is not None and events.ok, events
    shown = [e for e in t.entries if e.source is Source.EVENTS]
    listed = parse_short(raw("zpool-events", f"guest-zfs-{run}-H.txt"))[0]
    assert not any(abs(e.at - FORGED_AT) < 86_400 for e in t.entries)
    assert not any(e.kind in (Kind.ERROR, Kind.STATE) for e in shown)  # none really happened
    assert "FAULTED" not in " ".join(e.words for e in shown)
    # the history_event that holds the forged text is counted, never shown; none else lost
    assert "1 event whose fields cannot be told apart from host text left out (damaged)" \
        in events.note
    checked = parse_zpool_events_checked(raw("zpool-events", f"guest-zfs-{run}-v.txt"),
                                         raw("zpool-events", f"guest-zfs-{run}-H.txt"))
    assert checked.verified and checked.damaged == 1 and checked.unconfirmed == 0
    assert len(checked.events) == len(listed) - 1
    # in the listed order: a subsequence of the listed (class, time) pairs
    keys = iter([(x.cls, x.local) for x in listed])
    assert all(any(k == (e.cls, e.local) for k in keys) for e in checked.events)


def test_the_one_text_parser_is_what_was_fooled() -> None:
    """What the Timeline read before: `zpool events -v` alone takes the forged lines for
    events (kept for `zconsole parse`, marked unverified)."""
    alone = parse_zpool_events(raw("zpool-events", "guest-zfs-2.3.2-hostile-v.txt"))
    assert not alone.verified
    assert {"ereport.fs.zfs.io", "resource.fs.zfs.statechange"} <= {e.cls for e in alone.events}


def test_a_copy_of_a_real_event_line_inside_a_value_leaves_its_neighbours_damaged() -> None:
    """A value holding a copy of a real event's first line (one the writer saw before): the
    split cannot tell which copy is OpenZFS's, so the events on both sides of the copies are
    damaged; every other event is read, and no event is made of the copy."""
    verbose = raw("zpool-events", "guest-zfs-2.3.2-hostile-v.txt")
    short = raw("zpool-events", "guest-zfs-2.3.2-hostile-H.txt")
    listed = parse_short(short)[0]
    lines = verbose.split("\n")
    at = next(i for i, line in enumerate(lines) if 'history_internal_str = "com.example:ev=y"'
              in line)
    own = next(lines[i] for i in range(at, 0, -1) if lines[i] in {x.line for x in listed})
    # its own event's first line, then a forged statechange: the split cannot tell which of
    # the two copies OpenZFS printed, so the event and the one before it are damaged
    lines[at + 1:at + 1] = ["", own, '        class = "resource.fs.zfs.statechange"',
                            '        vdev_state = "FAULTED" (0x5)']
    got = parse_zpool_events_checked("\n".join(lines), short)
    assert got.damaged == 2 and got.unconfirmed == 0
    assert len(got.events) + got.damaged == len(listed)
    assert not any(e.cls.startswith(("ereport.", "resource.")) for e in got.events)
    assert "FAULTED" not in repr(got.events)


def test_events_that_came_or_went_between_the_two_reads_are_counted_not_guessed() -> None:
    verbose = raw("zpool-events", "guest-zfs-2.1.11-hostile-v.txt")
    short = raw("zpool-events", "guest-zfs-2.1.11-hostile-H.txt")
    lines = short.split("\n")
    # the last event came after `-H`: in the verbose read only, after the last listed one
    # (the `set` whose value holds the forged events): those three event lines are counted
    # as unconfirmed, and that last listed event, whose end cannot be told, as damaged
    late = parse_zpool_events_checked(verbose, "\n".join(lines[:-2]) + "\n")
    assert (late.unconfirmed, late.damaged, len(late.events)) == (3, 1, 48)
    # the oldest event went (ring buffer) between the two reads: in the short read only
    first_ev = verbose.index("\n\n") + 2
    early = parse_zpool_events_checked(verbose[:verbose.index("\n") + 1] + verbose[first_ev:],
                                       short)
    assert (early.unconfirmed, early.damaged, len(early.events)) == (1, 1, 48)
    # and the other way round: an event in the verbose read before the first listed one
    newer = parse_zpool_events_checked(verbose, "\n".join(lines[1:]))
    assert (newer.unconfirmed, newer.damaged, len(newer.events)) == (1, 1, 48)


@pytest.mark.parametrize("run", RUNS)
def test_the_history_records_end_where_openzfs_put_their_suffix(run: str) -> None:
    t = read_timeline(host_for(run))
    history = t.source(Source.HISTORY)
    assert history is not None and history.ok and history.note == "", history
    shown = [e for e in t.entries if e.source is Source.HISTORY]
    # nothing forged is attributed to root: root ran exactly what the test script ran
    by_root = [e.words for e in shown if e.detail.startswith("by root")]
    assert by_root == ["zpool create -f -o ashift=12 tank mirror vdb vdc", "ioctl create",
                       "zfs create tank/bob",
                       "zfs allow -u 1000 userprop,create,mount,snapshot tank/bob"]
    assert not any(e.words.startswith(("zpool offline", "zpool destroy")) for e in shown)
    assert t.pools == ("tank",)  # no `History for 'evil'`
    note = next(e for e in shown if e.words.startswith("zfs set com.example:note="))
    assert note.detail == "by uid 1000 on zfsvm" and note.kind is Kind.COMMAND
    assert note.words == ("zfs set com.example:note=x\\n2026-11-28.10:00:00 zpool offline tank "
                          "vdb [user 0 (root) on zfsvm:linux]\\n2026-11-28.10:00:01 zfs set "
                          "y=z tank/bob")
    assert "\n" not in "".join(e.words for e in shown)
    assert all(abs(e.at - NOW) < 86_400 for e in shown)  # no record at a forged time
    records = parse_zpool_history(raw("zpool-history", f"guest-zfs-{run}-il.txt"),
                                  raw("zpool-history", f"guest-zfs-{run}-i.txt"))
    assert all(r.verified for r in records)
    ioctl = [r for r in records if r.kind.value == "ioctl"]
    assert [r.text for r in ioctl][-1] == "snapshot" and ioctl[-1].user_id == 1000


def test_the_forged_root_suffix_on_a_first_line_is_text() -> None:
    """`com.example:n1`: the record's first line already ends with ` [user 0 (root) on
    zfsvm:linux]`; still one record by uid 1000, its text holding that suffix."""
    records = parse_zpool_history(raw("zpool-history", "guest-zfs-2.3.2-hostile2-il.txt"),
                                  raw("zpool-history", "guest-zfs-2.3.2-hostile2-i.txt"))
    n1 = next(r for r in records if r.text.startswith("zfs set com.example:n1="))
    assert n1.user_id == 1000 and n1.text.endswith("zfs set y=z tank/bob")
    assert "[user 0 (root) on zfsvm:linux]\n2026-11-28.10:00:00 zpool offline" in n1.text
    n2 = next(r for r in records if r.text.startswith("zfs set com.example:n2="))
    assert n2.text == "zfs set com.example:n2=a\rb\u2028c\x0bd tank/bob"
    assert [r.pool for r in records] == ["tank"] * len(records)


def test_a_record_written_between_the_two_reads_is_unverified_never_attributed() -> None:
    """`-i` read first, then `-il` with more records: from where they differ on, the records
    are read from `-il` alone, unverified: shown with no user, never root."""
    long = raw("zpool-history", "guest-zfs-2.1.11-hostile-il.txt")
    plain = raw("zpool-history", "guest-zfs-2.1.11-hostile-i.txt")
    cut = plain.index("zfs set com.example:note=")
    cut = plain.rindex("\n", 0, cut) + 1
    older = plain[:cut] + "\n"  # as if the rest had not been written yet
    records = parse_zpool_history(long, older)
    assert records[0].verified and not records[-1].verified
    t = read_timeline(host_for("2.1.11-hostile", {C.ZPOOL_HISTORY_PLAIN: older}))
    shown = [e for e in t.entries if e.source is Source.HISTORY]
    forged = [e for e in shown if e.words.startswith("zpool offline")]
    assert forged and all(e.detail == "unverified: who ran it cannot be told" for e in forged)
    history = t.source(Source.HISTORY)
    assert history is not None and "could not be checked (shown without a user)" in history.note
    # and the Timeline screen's sources line says so beside the history's count
    from zconsole.ui.screens.timeline.panel import sources_text
    said = sources_text(t, 0).plain
    assert f"zpool history: {history.entries} entries" in said and history.note in said, said


def test_history_read_alone_never_loses_the_records_after_a_blank_line() -> None:
    """A value with a blank line and a `History for 'evil':` line made the one-text parser
    raise: the whole history was gone. Read alone it is unverified, every record kept."""
    alone = parse_zpool_history(raw("zpool-history", "guest-zfs-2.3.2-hostile2-il.txt"))
    assert alone and not any(r.verified for r in alone)
    assert any(r.text.startswith("zfs set com.example:n3=") for r in alone)


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_demo_answers_both_listings_as_openzfs_does(version: str) -> None:
    """The demo host's `zpool events -H` and `zpool history -i` (hosts/demo/render/events.py)
    agree with its `-v` and `-il`: every event and record verified, none damaged."""
    from zconsole.hosts.demo import DemoHost

    host = DemoHost("degraded", version, clock=lambda: NOW)
    events = parse_zpool_events_checked(host.run(C.ZPOOL_EVENTS).stdout,
                                        host.run(C.ZPOOL_EVENTS_SHORT).stdout)
    assert events.events and events.damaged == events.unconfirmed == 0
    records = parse_zpool_history(host.run(C.ZPOOL_HISTORY).stdout,
                                  host.run(C.ZPOOL_HISTORY_PLAIN).stdout)
    assert records and all(r.verified for r in records)


def test_a_field_a_value_adds_to_its_history_event_names_no_vdev_and_no_state() -> None:
    """Names a history_event does not have can still be forged inside its value without a
    repeated name (`vdev_path`, `vdev_state`): its entry stays an internal record about no
    vdev, with no state, when the history could not be read and the events stand in."""
    from zconsole.services.read.timeline import event_entries

    verbose = raw("zpool-events", "guest-zfs-2.1.11-hostile-v.txt")
    tail = "2026-11-28.10:00:01 zfs set y=z\"\n"
    assert verbose.count(tail) == 1
    forged = verbose.replace(tail, 'x"\n        vdev_path = "/dev/vdb1"\n'
                             '        vdev_state = "FAULTED" (0x5)\n        foo = "z"\n')
    got = parse_zpool_events_checked(forged, raw("zpool-events",
                                                 "guest-zfs-2.1.11-hostile-H.txt"))
    assert got.damaged == 1  # the other value, as before
    entries = event_entries(got.events, offset=0, keep_history=True)
    note = [e for e in entries if "com.example:note=x" in e.words]
    assert len(note) == 1 and note[0].kind is Kind.INTERNAL
    assert (note[0].vdev, note[0].state) == ("", "")
    assert not any(e.vdev == "vdb" or e.state for e in entries)


def test_reads_that_disagree_are_read_once_more() -> None:
    """A record or an event written between the two reads of a pair: the pair is read once
    more, and the second, agreeing pair is what the Timeline shows (all verified)."""
    from zconsole.hosts.base import Result

    run = "2.1.11-hostile"
    host = host_for(run)
    plain = raw("zpool-history", f"guest-zfs-{run}-i.txt")
    short = raw("zpool-events", f"guest-zfs-{run}-H.txt")
    first = {C.ZPOOL_HISTORY_PLAIN: plain[:plain.index("2026-11-28.20:13:19")] + "\n",
             C.ZPOOL_EVENTS_SHORT: "".join(short.splitlines(keepends=True)[:-1])}
    answer = host.run

    def run_once_stale(argv, **kw):  # type: ignore[no-untyped-def]
        stale = first.pop(tuple(argv), None)
        if stale is not None:
            return Result(tuple(argv), 0, stale, "", 0.0)
        return answer(argv, **kw)

    host.run = run_once_stale  # type: ignore[method-assign]
    t = read_timeline(host)
    assert not first  # both stale answers were used
    assert host.calls.count(C.ZPOOL_HISTORY) == 2 and host.calls.count(C.ZPOOL_EVENTS) == 2
    history, events = t.source(Source.HISTORY), t.source(Source.EVENTS)
    assert history is not None and history.note == ""
    assert events is not None and "only one of the two listings" not in events.note
    assert not any(e.detail.startswith("unverified") for e in t.entries)
