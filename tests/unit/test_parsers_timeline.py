"""`zpool events -v` and `zpool history -il` on real outputs from the QEMU guests (OpenZFS
2.1.11 and 2.3.2) after a scripted incident (tools/capture_timeline_fixtures.py: a mirror,
vdc unplugged mid-write, `zpool replace tank vdc vdd`, vdb corrupted, a scrub, a clear), and
the timeline made of them."""

from __future__ import annotations

import pytest

from tests.paths import PARSERS, parser_text
from zconsole.model.timeline import Kind, Source
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_events import describe, parse_zpool_events
from zconsole.parsers.zpool_history import RecordKind, parse_zpool_history
from zconsole.services.read.timeline import (
    event_entries,
    history_entries,
    merge,
    offset_from_events,
)

VERSIONS = sorted(p.name.split("-")[2] for p in (PARSERS / "zpool-events").glob(
    "guest-zfs-*-incident.txt"))


def events_of(ver: str):  # type: ignore[no-untyped-def]
    return parse_zpool_events(parser_text("zpool-events", f"guest-zfs-{ver}-incident.txt"))


def history_of(ver: str):  # type: ignore[no-untyped-def]
    return parse_zpool_history(parser_text("zpool-history", f"guest-zfs-{ver}-incident.txt"))


def test_both_versions_were_captured() -> None:
    assert VERSIONS == ["2.1.11", "2.3.2"]


@pytest.mark.parametrize("ver", VERSIONS)
def test_events_of_the_incident_in_words(ver: str) -> None:
    got = events_of(ver)
    words = [describe(e)[2] for e in got.events]
    assert all(e.at is not None for e in got.events)
    assert [e.at for e in got.events] == sorted(e.at for e in got.events)  # type: ignore[type-var]
    assert "vdc REMOVED (was ONLINE)" in words
    removed = words.index("vdc REMOVED (was ONLINE)")
    attached = words.index("vdd attached")
    started = words.index("resilver started")
    finished = words.index("resilver finished")
    scrub = words.index("scrub started")
    assert removed < attached < finished and started < finished < scrub
    assert words.index("scrub finished") > scrub
    if ver == "2.1.11":  # the 8 MiB zeroed on vdb held no block of 2.1's layout: no ereport
        assert not any(e.cls.startswith("ereport.") for e in got.events)
        return
    checksum = words.index("checksum error on vdb")
    assert scrub < checksum < words.index("scrub finished")
    kinds = {describe(e)[0] for e in got.events}
    assert {Kind.STATE, Kind.CONFIG, Kind.SCAN, Kind.INTERNAL} <= kinds
    # the header is the host's local time (UTC in the guest), `time` the same instant
    assert offset_from_events(got.events) == 0
    state = next(e for e in got.events if e.cls == "resource.fs.zfs.statechange")
    assert state.get("vdev_state") == "REMOVED" and state.get("vdev_path") == "/dev/vdc1"
    checks = [e for e in got.events if e.cls == "ereport.fs.zfs.checksum"]
    assert checks and all(e.get("vdev_path") == "/dev/vdb1" and e.get("pool") == "tank"
                          for e in checks)


def test_checksum_errors_found_by_a_scrub_on_2_1() -> None:
    """2.1.11, the same incident with 64 MiB zeroed at 8 MiB of vdb1 (the data written):
    the scrub's checksum ereports name vdb in words, with the pool, the vdev path and the
    scrub around them; their timeline entries are ERROR on vdb."""
    got = parse_zpool_events(parser_text("zpool-events", "guest-zfs-2.1.11-checksum.txt"))
    words = [describe(e)[2] for e in got.events]
    checks = [e for e in got.events if e.cls == "ereport.fs.zfs.checksum"]
    assert len(checks) == 20
    assert all(e.get("vdev_path") == "/dev/vdb1" and e.get("pool") == "tank" for e in checks)
    scrub = words.index("scrub started")
    first = words.index("checksum error on vdb")
    assert scrub < first < words.index("scrub finished")
    entries = event_entries(got.events, offset=0, keep_history=False, pools=())
    errors = [e for e in entries if e.kind is Kind.ERROR]
    assert len(errors) == 20 and {(e.pool, e.vdev) for e in errors} == {("tank", "vdb")}
    history = parse_zpool_history(parser_text("zpool-history",
                                              "guest-zfs-2.1.11-checksum.txt"))
    assert any(r.kind is RecordKind.COMMAND and r.text == "zpool scrub -w tank"
               for r in history)


@pytest.mark.parametrize("ver", VERSIONS)
def test_history_of_the_incident(ver: str) -> None:
    records = history_of(ver)
    assert {r.pool for r in records} == {"tank"}
    commands = [r.text for r in records if r.kind is RecordKind.COMMAND]
    assert commands == ["zpool create -o ashift=12 -O compression=off tank mirror vdb vdc",
                        "zpool replace tank vdc vdd", "zpool scrub -w tank", "zpool clear tank"]
    for r in records:
        if r.kind is RecordKind.COMMAND:
            assert (r.user_id, r.user, r.host, r.zone) == (0, "root", "zfsvm", "linux")
        elif r.kind is RecordKind.INTERNAL:
            assert r.host == "zfsvm" and r.user_id is None and r.txg is not None
    ops = [r.op for r in records if r.kind is RecordKind.INTERNAL]
    assert ops[0] == "create" and "scan setup" in ops and "scan done" in ops
    attach = next(r for r in records if r.op == "vdev attach")
    assert attach.text == "replace vdev=/dev/vdd1 for vdev=/dev/vdc1"
    setting = next(r for r in records if r.dataset == "tank")
    assert (setting.op, setting.text) == ("set", "compression=2")
    times = [r.local for r in records]
    assert times == sorted(times)


def test_an_ioctl_record_with_its_elapsed_time_2_3() -> None:
    ioctl = [r for r in history_of("2.3.2") if r.kind is RecordKind.IOCTL]
    assert [(r.text, r.elapsed_ms, r.user) for r in ioctl] == [("scrub", 977, "root")]


@pytest.mark.parametrize("ver", VERSIONS)
def test_the_merged_incident_is_in_order_with_zfs_own_times(ver: str) -> None:
    got = events_of(ver)
    entries = merge(event_entries(got.events, offset=0, keep_history=False),
                    history_entries(history_of(ver), offset=0))
    seq = [(e.source, e.words) for e in entries]
    order = [seq.index((Source.HISTORY, "zpool create -o ashift=12 -O compression=off tank "
                                        "mirror vdb vdc")),
             seq.index((Source.EVENTS, "vdc REMOVED (was ONLINE)")),
             seq.index((Source.EVENTS, "vdd attached")),
             seq.index((Source.EVENTS, "resilver finished")),
             seq.index((Source.EVENTS, "scrub finished"))]
    assert order == sorted(order)
    # the history has whole seconds: the clear typed after the scrub ended is dated within
    # the scrub's last second or later, never before it
    done = entries[order[-1]]
    clear = next(e for e in entries if e.words == "zpool clear tank")
    assert clear.at >= int(done.at)
    replace = next(e for e in entries if e.words == "zpool replace tank vdc vdd")
    # -il read alone (these captures have no `zpool history -i`): who ran it is not checked
    # (test_timeline_hostile.py reads both, as the Timeline does)
    assert replace.vdev == "vdd" and replace.detail == "unverified: who ran it cannot be told"
    assert not any(e.detail == "sysevent.fs.zfs.history_event" for e in entries)


@pytest.mark.parametrize("text", ["garbage\n", "History for 'tank':\nnot a record\n",
                                  "History for 'tank':\n2026-13-40.25:00:00 zpool x\n"])
def test_history_that_is_not_history_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_history(text)


@pytest.mark.parametrize("text", ["garbage\n", "Foo 12 2026 00:00:00.000000000 a.b\n",
                                  "Nov 26 2026 02:10:40.608000000 x\n   bad\n"])
def test_events_that_are_not_events_are_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_events(text)


def test_empty_outputs() -> None:
    assert parse_zpool_events("TIME                           CLASS\n").events == ()
    assert parse_zpool_history("") == ()
