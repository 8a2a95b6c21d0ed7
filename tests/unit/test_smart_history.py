"""Issue 30 §1 and §5: what a SMART poll saw happen reaches the Timeline once (a counter that
grew, a self-test result in the drive's own log), and the counter tracks survive a restart
(services/smart_history.py: a JSON file per host in the state directory, read as hostile
input: a damaged file is ignored with a note, never a crash)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.demo import DemoHost
from zconsole.model.finding import Severity
from zconsole.model.smart import CounterTrack, SelfTest, SmartReading
from zconsole.model.timeline import Kind, Source
from zconsole.services.read.smart import INTERVAL_S, DiskSmart
from zconsole.services.session import HostSession
from zconsole.services.smart_history import (
    DiskHistory,
    History,
    dump_history,
    history_path,
    parse_history,
)
from zconsole.services.smart_timeline import poll_entries

T0 = 1_795_302_010.0


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


def session(clock: Clock, host: DemoHost | None = None) -> HostSession:
    host = host or DemoHost("showcase", clock=clock)
    s = HostSession(host, clock=clock, mono=clock)
    s.begin()
    s.done(s.refresh())
    return s


def sdb_entries(s: HostSession) -> list[str]:
    return [e.words for e in s.smart.entries if e.words.startswith("sdb: ")]


def test_the_dying_disk_s_growing_pending_sectors_reach_the_timeline_once() -> None:
    """The showcase's sdb gains a pending sector every 10 min of demo time: the first poll
    is the baseline (no entry); a poll 30 min later says 48 → 51, once, on sdb's pool."""
    clock = Clock(T0)
    s = session(clock)
    s.poll_smart()
    assert s.smart.entries == ()
    clock.t += INTERVAL_S
    s.poll_smart()
    [entry] = [e for e in s.smart.entries if e.words.startswith("sdb: ")]
    assert entry.words.startswith("sdb: pending sectors 48 → 51 (ata-HGST_")
    assert entry.kind is Kind.ERROR and entry.source is Source.OBSERVED
    assert entry.at == clock.t and entry.pool
    clock.t += 60
    s.poll_smart()  # nothing due, nothing grew: nothing said again
    assert len(sdb_entries(s)) == 1


def test_the_tracks_survive_a_restart_and_growth_while_closed_is_said() -> None:
    """A second session (a restart of the console, or the next `check`) starts from the
    first one's tracks: "up from 48 when first seen 2 h 0 min ago", and the Timeline says
    what grew while no console ran."""
    clock = Clock(T0)
    first = session(clock)
    first.poll_smart()
    assert isinstance(first.host, DemoHost)
    path = history_path("demo: showcase", simulated=True)
    assert path.is_file() and oct(path.stat().st_mode & 0o777) == "0o600"
    clock.t += 2 * 3600  # closed for two hours: 12 more pending sectors
    again = session(clock, first.host)  # the same machine, a new console
    again.poll_smart()
    counters = next(f for f in again.smart.findings
                    if f.kind == "smart-counters" and f.subject == "sdb")
    assert "60 pending sectors, up from 48 when first seen 2 h 0 min ago" in counters.message
    assert sdb_entries(again) == [sdb_entries(again)[0]]
    assert sdb_entries(again)[0].startswith("sdb: pending sectors 48 → 60")
    doc = json.loads(path.read_text())
    [sdb] = [d for k, d in doc["disks"].items() if "PN2334PBJ4K7XT" in k]
    assert sdb["tracks"]["ata-197"]["first"] == 48 and sdb["tracks"]["ata-197"]["last"] == 60


@pytest.mark.parametrize("text", [
    "not json at all", "[]", '{"format": 2, "disks": {}}', '{"format": 1, "disks": []}',
    "\xff\xfe", '{"format": 1, "disks": {"x": ' * 5000])
def test_a_damaged_history_is_ignored_with_a_note_and_kept_aside(text: str) -> None:
    clock = Clock(T0)
    path = history_path("demo: showcase", simulated=True)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    s = session(clock)
    s.poll_smart()  # no crash
    note = next(f for f in s.smart.findings if f.kind == "smart-history")
    assert note.severity is Severity.INFO and "ignored" in note.message
    assert path.with_name(path.name + ".damaged").is_file()
    assert parse_history(path.read_text())  # a good history written in its place
    counters = next(f for f in s.smart.findings
                    if f.kind == "smart-counters" and f.subject == "sdb")
    assert "up from" not in counters.message


def test_hostile_entries_are_left_out_the_rest_kept() -> None:
    good = {"first": 8, "first_seen": T0, "last": 48, "grew_at": T0 + 60}
    doc = {"format": 1, "disks": {
        "M|S1": {"tracks": {"ata-197": good,
                            "ata-5": {**good, "first": -1},
                            "ata-187": {**good, "last": 1 << 200},
                            "ata-188": {**good, "first_seen": 1e300},
                            "ata-199": {**good, "grew_at": "yesterday"},
                            "../../etc": good, "ata-9": {**good, "first": True}},
                 "tests": [["short", 10, "Completed without error"], ["short", -3, "x"],
                           "garbage", ["x" * 50, 1, "y"]]},
        "": {"tracks": {"ata-197": good}}, "M|S2": "not a disk"}}
    got = parse_history(json.dumps(doc))
    assert set(got) == {"M|S1"}
    assert set(got["M|S1"].tracks) == {"ata-197"}
    assert got["M|S1"].tests == (("short", 10, "Completed without error"),)
    assert parse_history(dump_history(got)) == got


def test_an_unwritable_history_is_said_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    h = History(blocker / "smart" / "h.json")
    assert h.load() == {}
    track = CounterTrack("ata-197", 1, T0, 1)
    assert h.save({"M|S": DiskHistory({"ata-197": track})}) is False
    assert h.note.startswith("SMART history not kept")


def _state(reading: SmartReading, at: float,
           tracks: dict[str, CounterTrack] | None = None) -> DiskSmart:
    return DiskSmart("sdb", "ata-X_S1", reading=reading, read_at=at, tried_at=at,
                     tracks=tracks or {})


def test_a_self_test_result_in_the_drive_s_log_is_said_once() -> None:
    """Another helper's self-test plan starts the test; its result is seen in the drive's
    own log at a later poll: one entry (a failure is an ERROR), never the old log again."""
    old = SelfTest("short", "Completed without error", True, hours=100)
    before = SmartReading("/dev/sdb", model="M", serial="S1", self_tests=(old,))
    new = SelfTest("extended", "Completed: read failure", False, hours=130, lba=4096)
    after = SmartReading("/dev/sdb", model="M", serial="S1", self_tests=(new, old))
    places = {"sdb": ("tank", "sdb")}
    first = poll_entries({}, [_state(before, T0)], ["sdb"], {}, places, T0)
    assert first == []  # a disk never seen: its log is the baseline
    [entry] = poll_entries({"sdb": _state(before, T0)}, [_state(after, T0 + 60)], ["sdb"],
                           {}, places, T0 + 60)
    assert entry.words == ("sdb: extended self-test: Completed: read failure at 130 power-on "
                           "hours, first bad LBA 4,096 (ata-X_S1)")
    assert entry.kind is Kind.ERROR and entry.pool == "tank" and entry.vdev == "sdb"
    assert poll_entries({"sdb": _state(after, T0 + 60)}, [_state(after, T0 + 120)], ["sdb"],
                        {}, places, T0 + 120) == []
    # after a restart: the kept log is the baseline, a new passed test is an OTHER entry
    passed = SelfTest("short", "Completed without error", True, hours=131)
    later = SmartReading("/dev/sdb", model="M", serial="S1", self_tests=(passed, new, old))
    known = {"M|S1": DiskHistory({}, (("extended", 130, "Completed: read failure"),
                                      ("short", 100, "Completed without error")))}
    [entry] = poll_entries({}, [_state(later, T0 + 999)], ["sdb"], known, places, T0 + 999)
    assert entry.kind is Kind.OTHER and "short self-test: Completed without error" in entry.words


def test_a_log_whose_ring_turned_says_only_what_it_grew_by() -> None:
    """The newest entry seen is gone from the log (21 entries, the oldest fall off; or its
    hours moved): as many new entries as the log grew by, the newest."""
    def log(*hours: int) -> SmartReading:
        return SmartReading("/dev/sdb", model="M", serial="S1", self_tests=tuple(
            SelfTest("short", "Completed without error", True, hours=h) for h in hours))

    seen = {"sdb": _state(log(10, 9), T0)}
    same_length = poll_entries(seen, [_state(log(12, 11), T0 + 1)], ["sdb"], {}, {}, T0 + 1)
    assert same_length == []
    [grew] = poll_entries(seen, [_state(log(13, 12, 11), T0 + 1)], ["sdb"], {}, {}, T0 + 1)
    assert "at 13 power-on hours" in grew.words


def test_a_disk_that_was_not_read_in_this_poll_says_nothing() -> None:
    r = SmartReading("/dev/sdb", model="M", serial="S1")
    grown = {"ata-197": CounterTrack("ata-197", 8, T0, 48, T0)}
    was = {"ata-197": CounterTrack("ata-197", 8, T0, 8)}
    assert poll_entries({"sdb": _state(r, T0, was)}, [_state(r, T0, grown)], [], {}, {},
                        T0) == []
