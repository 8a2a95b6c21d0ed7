"""The Timeline's reads, merge and summary line (services/read/timeline.py,
services/health/timeline.py) on the demo host and on hand-made models."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path

from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog
from zconsole.model.pool import Pool, ScanFunction, ScanInfo, ScanState, Vdev
from zconsole.model.smart import SelfTest, SmartReading
from zconsole.model.timeline import Entry, Kind, Source, self_test_ref
from zconsole.parsers.zpool_events import ZpoolEvent, describe, vdev_short
from zconsole.services.health.timeline import summary
from zconsole.services.read.progress import ScanEstimate
from zconsole.services.read.smart import DiskSmart
from zconsole.services.read.timeline import (
    StateWatch,
    audit_entries,
    filter_entries,
    fold_self_tests,
    merge,
    offset_from_events,
    parse_offset,
    parse_since,
    read_timeline,
)
from zconsole.services.smart_timeline import poll_entries

NOW = 1795302010.0  # 2026-11-21 23:00:10 UTC (tests/ui/conftest.py's frozen clock)


def frozen() -> float:
    return NOW


def entry(at: float, source: Source, words: str = "", *, kind: Kind = Kind.STATE,
          vdev: str = "", state: str = "", seq: int = 0, pool: str = "tank") -> Entry:
    return Entry(at, kind, pool, vdev, words, source, state=state, seq=seq)


def test_merge_orders_by_time_then_history_before_events_then_each_sources_order() -> None:
    a = entry(10.0, Source.HISTORY, "zpool replace", seq=0)
    b = entry(10.0, Source.EVENTS, "vdev attached", seq=5)
    c = entry(10.0, Source.EVENTS, "resilver started", seq=6)
    d = entry(5.0, Source.OBSERVED, "seen")
    e = entry(12.0, Source.AUDIT, "zconsole")
    assert merge([a, e], [c, b], [d]) == (d, a, b, c, e)


def test_parse_offset_and_offset_from_an_events_header() -> None:
    assert parse_offset("+0100 CET\n") == (3600, "CET")
    assert parse_offset("-0530") == (-19800, "")
    assert parse_offset("CET") is None
    ev = ZpoolEvent("sysevent.fs.zfs.config_sync", datetime(2026, 11, 22, 0, 0, 10),
                    NOW + 0.5)
    assert offset_from_events([ev]) == 3600


def test_since_is_the_hosts_wall_clock_today_or_yesterday() -> None:
    assert parse_since("22:00", NOW, 0) == NOW - 3600 - 10
    assert parse_since("23:30", NOW, 0) == NOW + 1790 - 86400  # still to come: yesterday
    assert parse_since("23:00", NOW, 3600) == NOW - 10 - 3600  # 00:00:10 at UTC+1
    assert parse_since("2026-11-20 23:00:10", NOW, 0) == NOW - 86400
    assert parse_since("soon", NOW, 0) is None
    assert parse_since("25:00", NOW, 0) is None


def test_filters_keep_a_pool_a_vdev_a_kind_and_what_came_since() -> None:
    rows = [entry(1, Source.EVENTS, vdev="sdb"), entry(2, Source.EVENTS, vdev="sdc"),
            entry(3, Source.HISTORY, kind=Kind.COMMAND, pool="big"),
            entry(4, Source.EVENTS, kind=Kind.CONFIG, pool="")]
    assert [e.at for e in filter_entries(rows, pool="big")] == [3, 4]
    assert [e.at for e in filter_entries(rows, vdev="sdc")] == [2]
    assert [e.at for e in filter_entries(rows, kind=Kind.COMMAND)] == [3]
    assert [e.at for e in filter_entries(rows, since=2.5)] == [3, 4]


def test_events_classes_read_as_words() -> None:
    def ev(cls: str, **fields: str) -> ZpoolEvent:
        return ZpoolEvent(cls, datetime(2026, 1, 1), 1.0, fields)

    assert describe(ev("ereport.fs.zfs.checksum", vdev_path="/dev/sdb1"))[2] == \
        "checksum error on sdb"
    assert describe(ev("resource.fs.zfs.statechange", vdev_path="/dev/sdb1",
                       vdev_state="FAULTED", vdev_laststate="ONLINE")) == (
        Kind.STATE, "sdb", "sdb FAULTED (was ONLINE)", "FAULTED")
    assert describe(ev("ereport.fs.zfs.io", vdev_path="/dev/disk/by-id/ata-X-part1",
                       zio_type="0x2", zio_err="0x5"))[2] == "write I/O error on ata-X (EIO)"
    assert describe(ev("sysevent.fs.zfs.resilver_start"))[:3:2] == (Kind.SCAN,
                                                                     "resilver started")
    assert describe(ev("sysevent.fs.zfs.scrub_finish"))[2] == "scrub finished"
    assert describe(ev("sysevent.fs.zfs.config_sync"))[0] is Kind.CONFIG
    assert describe(ev("sysevent.fs.zfs.vdev_attach", vdev_path="/dev/vdd1"))[2] == \
        "vdd attached"
    assert describe(ev("sysevent.fs.zfs.history_event", history_internal_name="set",
                       history_dsname="tank", history_internal_str="atime=off"))[2] == \
        "set tank atime=off"
    assert describe(ev("sysevent.fs.zfs.new_thing"))[2] == "new thing"
    assert vdev_short("/dev/nvme0n1p1") == "nvme0n1" and vdev_short("/tmp/f1") == "f1"


def test_demo_degraded_timeline_has_the_failure_and_says_how_far_events_reach() -> None:
    host = DemoHost("degraded", clock=frozen)
    t = read_timeline(host)
    assert t.utc_offset == 0 and t.tz_name == "UTC"
    events = t.source(Source.EVENTS)
    assert events is not None and events.ok and events.entries > 0
    assert events.oldest is not None and events.oldest >= host.machine.boot_time
    assert "lost at reboot" in events.note
    history = t.source(Source.HISTORY)
    assert history is not None and history.ok and history.oldest is not None
    assert history.oldest < host.machine.boot_time  # the history outlives reboots
    words = [e.words for e in t.entries]
    fault = words.index("ata-ST4000VN008-2DR166_ZGY8C3D4 FAULTED (was ONLINE)")
    errors = [i for i, w in enumerate(words) if w.startswith("write I/O error on "
                                                            "ata-ST4000VN008-2DR166_ZGY8C3D4")]
    assert errors and max(errors) < fault
    assert t.entries[fault].at == NOW - 47 * 60
    assert [e.at for e in t.entries] == sorted(e.at for e in t.entries)
    # the internal history records are not repeated as history_event events
    assert not any(e.detail == "sysevent.fs.zfs.history_event" for e in t.entries)


def test_a_replace_and_its_resilver_appear_in_order() -> None:
    clock = [NOW]
    host = DemoHost("degraded", clock=lambda: clock[0])
    old = "ata-ST4000VN008-2DR166_ZGY8C3D4"
    host.run(["zpool", "replace", "tank", old, "ata-ST4000VN008-2DR166_ZGY8Q5R6"])
    clock[0] += 60
    host.run(["zpool", "wait", "-t", "resilver", "tank"])
    t = read_timeline(host)
    seq = [(e.source, e.words) for e in t.entries if e.at >= NOW]
    command = seq.index((Source.HISTORY, f"zpool replace tank {old} "
                                         "ata-ST4000VN008-2DR166_ZGY8Q5R6"))
    started = seq.index((Source.EVENTS, "resilver started"))
    finished = seq.index((Source.EVENTS, "resilver finished"))
    assert command < started < finished
    cmd = next(e for e in t.entries if e.source is Source.HISTORY and e.at >= NOW
               and e.kind is Kind.COMMAND)
    assert cmd.vdev == "ata-ST4000VN008-2DR166_ZGY8Q5R6" and cmd.detail.startswith("by root")


def test_a_source_that_fails_says_so_and_the_others_are_still_read() -> None:
    host = DemoHost("degraded", clock=frozen, root=False)  # zpool events needs root
    t = read_timeline(host)
    events = t.source(Source.EVENTS)
    assert events is not None and events.error is not None and "Permission denied" in \
        events.error
    history = t.source(Source.HISTORY)
    assert history is not None and history.ok and history.entries > 0
    assert t.entries


def test_state_watch_records_changes_between_readings() -> None:
    def pool(state: str, leaf: str) -> Pool:
        return Pool("tank", state, vdevs=(Vdev("mirror-1", "mirror", state, children=(
            Vdev("sdb", "disk", leaf), Vdev("sdc", "disk", "ONLINE"))),))

    w = StateWatch()
    w.observe([pool("ONLINE", "ONLINE")], 100.0)
    assert w.entries == ()  # a healthy first reading is no news
    w.observe([pool("DEGRADED", "FAULTED")], 105.0)
    got = {(e.vdev, e.words) for e in w.entries}
    assert got == {("", "tank DEGRADED (first seen; was ONLINE)"),
                   ("mirror-1", "mirror-1 DEGRADED (first seen; was ONLINE)"),
                   ("sdb", "sdb FAULTED (first seen; was ONLINE)")}
    assert all(e.at == 105.0 and e.source is Source.OBSERVED for e in w.entries)
    w.observe([pool("DEGRADED", "FAULTED")], 110.0)
    assert len(w.entries) == 3  # nothing changed


def test_summary_line_of_a_degraded_pool_with_a_resilver() -> None:
    sdb = Vdev("sdb", "disk", "FAULTED", read_errors=0, write_errors=117)
    sdm = Vdev("sdm", "disk", "ONLINE", resilvering=True)
    pool = Pool("tank", "DEGRADED", vdevs=(
        Vdev("mirror-1", "mirror", "DEGRADED", children=(
            Vdev("replacing-0", "replacing", "DEGRADED", children=(sdb, sdm)),
            Vdev("sdc", "disk", "ONLINE"))),),
        scan=ScanInfo(ScanFunction.RESILVER, ScanState.IN_PROGRESS, percent_done=62.4,
                      eta_seconds=3600))
    began = NOW - 47 * 60
    entries = [entry(began - 600, Source.EVENTS, vdev="sdb", state="ONLINE"),
               entry(began, Source.EVENTS, vdev="sdb", state="FAULTED"),
               entry(began + 60, Source.OBSERVED, vdev="sdb", state="FAULTED")]
    estimates = {"tank": (ScanEstimate("tank", "resilver", 62.4, 1.5, 25 * 60, 5, 300.0),)}
    assert summary([pool], entries, estimates, NOW, 0) == [
        "✖ CRITICAL tank DEGRADED since 22:13 (47 min): sdb FAULTED after 117 write errors; "
        "resilver of sdm 62 %, done in about 25 min"]
    # no pace of its own yet: zpool's estimate; no event: zconsole's first sight, said so
    only_seen = [entry(began, Source.OBSERVED, vdev="sdb", state="FAULTED")]
    assert summary([pool], only_seen, {}, NOW, 3600) == [
        "✖ CRITICAL tank DEGRADED first seen by zconsole at 2026-11-21 23:13 (47 min): sdb FAULTED "
        "after 117 write errors; resilver of sdm 62 %, done in about 1 h 0 min"]
    assert summary([pool], [], {}, NOW, 0)[0].startswith(
        "✖ CRITICAL tank DEGRADED (since before the oldest event): sdb FAULTED")
    healthy = Pool("tank", "ONLINE", vdevs=(Vdev("sdb", "disk", "ONLINE"),))
    assert summary([healthy], [], {}, NOW, 0) == ["tank ONLINE"]
    assert summary([], [], {}, NOW, 0) == []


def test_the_audit_log_brings_zconsoles_own_commands_on_this_host(tmp_path: Path) -> None:
    host = DemoHost("degraded", clock=frozen)
    log = AuditLog(tmp_path / "audit.jsonl")
    base = {"host": host.label, "plan_id": "p1", "kind": "replace", "pool": "tank",
            "operator": "alice"}
    log.append({**base, "ts": NOW - 30, "event": "plan-start", "title": "Replace a disk"})
    log.append({**base, "ts": NOW - 20, "event": "command-intent", "writes": True,
                "command": "zpool replace tank sdb sdm"})
    log.append({**base, "ts": NOW - 10, "event": "command", "writes": True, "exit_code": 0,
                "command": "zpool replace tank sdb sdm"})
    log.append({**base, "ts": NOW - 5, "event": "command", "writes": False, "exit_code": 0,
                "command": "zpool status -p"})
    log.append({**base, "host": "another", "ts": NOW - 4, "event": "command", "writes": True,
                "exit_code": 1, "command": "zpool clear tank"})
    t = read_timeline(host, audit=log)
    mine = [(e.at, e.words, e.vdev, e.detail) for e in t.entries if e.source is Source.AUDIT]
    assert mine == [(NOW - 30, "zconsole plan started: Replace a disk", "", "by alice"),
                    (NOW - 10, "zpool replace tank sdb sdm", "sdm", "by alice")]
    audit = t.source(Source.AUDIT)
    assert audit is not None and audit.ok and audit.entries == 2


# --- the host's zone rules: history times right across daylight-saving changes ----------------

BERLIN_WINTER_NOW = 1795302010.0  # 2026-11-21 23:00:10 UTC: Berlin is at +0100 (CET)


def test_zone_key_comes_from_localtime_or_etc_timezone_and_refuses_anything_else() -> None:
    from zconsole.services.read.timeline import zone_key

    assert zone_key("/usr/share/zoneinfo/Europe/Berlin", None) == "Europe/Berlin"
    assert zone_key("/usr/share/zoneinfo/posix/America/New_York", None) == "America/New_York"
    assert zone_key("/etc/localtime", "Europe/Paris\n") == "Europe/Paris"  # not a link
    assert zone_key("/usr/share/zoneinfo/UTC", None) == "UTC"
    for hostile in ("../../etc/passwd", "Europe/Berlin\x1b[2J", "a b", "", "/x/y"):
        assert zone_key(None, hostile) is None, hostile
    assert zone_key("/usr/share/zoneinfo/../../../etc/shadow", None) is None


def test_zone_rules_are_kept_only_when_they_give_the_hosts_offset_of_now() -> None:
    from zconsole.services.read.timeline import zone_rules

    rules = zone_rules("Europe/Berlin", 3600, BERLIN_WINTER_NOW)
    assert rules is not None and str(rules) == "Europe/Berlin"
    assert zone_rules("Europe/Berlin", 0, BERLIN_WINTER_NOW) is None  # date +%z disagrees
    assert zone_rules("Nowhere/Atlantis", 3600, BERLIN_WINTER_NOW) is None
    assert zone_rules(None, 3600, BERLIN_WINTER_NOW) is None


def test_a_summer_history_record_read_in_winter_keeps_its_summer_offset() -> None:
    """`zpool history` prints wall-clock times: a record of 2026-07-01 12:00 in Berlin is
    10:00 UTC (CEST, +0200), though the host is at +0100 when the timeline is read; with
    only today's offset it was taken for 11:00 UTC, an hour off."""
    from zconsole.parsers.zpool_history import HistoryRecord, RecordKind
    from zconsole.services.read.timeline import history_entries, zone_rules

    rules = zone_rules("Europe/Berlin", 3600, BERLIN_WINTER_NOW)
    assert rules is not None
    summer = HistoryRecord("tank", datetime(2026, 7, 1, 12, 0, 0), RecordKind.COMMAND,
                           "zpool scrub tank")
    winter = HistoryRecord("tank", datetime(2026, 11, 21, 12, 0, 0), RecordKind.COMMAND,
                           "zpool scrub tank")
    utc_summer = datetime(2026, 7, 1, 10, 0, 0, tzinfo=timezone.utc).timestamp()
    [s, w] = history_entries([summer, winter], offset=rules)
    assert s.at == utc_summer
    assert w.at == datetime(2026, 11, 21, 11, 0, 0, tzinfo=timezone.utc).timestamp()
    [s_fixed] = history_entries([summer], offset=3600)
    assert s_fixed.at == utc_summer + 3600  # what today's offset alone gets wrong
    # and shown back on the host's clock as it was then
    from zconsole.services.health.timeline import clock_time
    assert clock_time(s.at, rules, seconds=True) == "12:00:00"
    # a since typed in winter for a summer day is read with the summer offset too
    assert parse_since("2026-07-01 12:00", BERLIN_WINTER_NOW, rules) == utc_summer


def test_read_timeline_uses_the_hosts_zone_rules_when_it_names_its_zone() -> None:
    from zconsole.hosts.base import Result

    class BerlinHost(DemoHost):
        def realpath(self, path: str) -> str:
            if path == "/etc/localtime":
                return "/usr/share/zoneinfo/Europe/Berlin"
            return super().realpath(path)

        def run(self, argv, *, timeout=30.0, check=True, stdin=None):  # type: ignore[no-untyped-def]
            if list(argv) == ["date", "+%z %Z"]:
                return Result(tuple(argv), 0, "+0100 CET\n", "", 0.0)
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)

    t = read_timeline(BerlinHost("degraded", clock=frozen))
    assert t.utc_offset == 3600 and t.tz_name == "CET"
    assert t.rules is not None and str(t.rules) == "Europe/Berlin" and t.zone is t.rules
    plain = read_timeline(DemoHost("degraded", clock=frozen))
    assert plain.rules is None and plain.zone == plain.utc_offset


def short_of(verbose: str) -> str:
    """`zpool events -H` of a `zpool events -v` output without hostile strings: its events'
    first lines, the tab that -H prints after the time (zpool_do_events_short)."""
    return "".join(f"{line[:30]}\t{line[31:]}\n" for line in verbose.split("\n")
                   if line[:3].isalpha() and line[30:31] == " " and line[31:32].isalpha())


def test_an_event_time_out_of_range_is_unreadable_never_a_crash() -> None:
    """Issue 27 item 3: `time = 0x7fffffffffffffff 0x0` (forged or damaged) made
    datetime.fromtimestamp raise from the read, when `date +%z` failed and the offset came
    from the events, and from the screen that drew it. It is counted, left out, never drawn."""
    from tests.unit.test_services_fakehost import FakeHost, fixture
    from zconsole.services.health.timeline import clock_time
    from zconsole.services.read import catalogue as C

    text = fixture("zpool-events/guest-zfs-2.3.2-incident.txt")
    first = text.index("time = 0x")
    end = text.index("\n", first)
    nsec = text[first:end].split()[-1]  # the listed line's nanoseconds, as the kernel's
    forged = text[:first] + f"time = 0x7fffffffffffffff {nsec} " + text[end:]
    host = FakeHost(commands={C.ZPOOL_EVENTS: forged, C.ZPOOL_EVENTS_SHORT: short_of(text),
                              C.ZPOOL_HISTORY: (1, "", "no pools available\n"),
                              C.DATE_ZONE: (1, "", "date: cannot read the zone\n")},
                    clock=NOW)
    whole = read_timeline(FakeHost(commands={**host.commands, C.ZPOOL_EVENTS: text},
                                   clock=NOW))
    t = read_timeline(host)
    events = t.source(Source.EVENTS)
    assert events is not None and events.ok
    assert "1 event with a time out of range left out (unreadable)" in events.note
    assert events.entries == whole.source(Source.EVENTS).entries - 1  # type: ignore[union-attr]
    assert t.utc_offset == whole.utc_offset == 0  # from the readable events' headers
    assert all(1e9 < e.at < 4e9 for e in t.entries)
    assert clock_time(9.2e18, 0) == "(time out of range)"
    assert clock_time(-1e20, 3600, now=NOW) == "(time out of range)"


def _self_test_records(*results: dict[str, object]) -> list[dict[str, object]]:
    """A self-test plan's audit records as the runner writes them: its start, then one
    wait-end per result (the watch's `ended()` as `result`)."""
    out: list[dict[str, object]] = [
        {"ts": NOW, "event": "plan-start", "host": "h", "plan_id": "p1", "pool": "tank",
         "operator": "ann", "title": "Short self-test of sdb"}]
    for i, result in enumerate(results):
        out.append({"ts": NOW + 60 + i, "event": "wait-end", "host": "h", "plan_id": "p1",
                    "pool": "tank", "operator": "ann", "activity": "self-test",
                    "detail": "short self-test FAILED: Completed: read failure at LBA 4,096",
                    "result": result})
    return out


def test_a_self_test_in_the_audit_and_the_drive_log_is_one_entry() -> None:
    """The audit's wait-end and the SMART poll's entry of the same result (same disk, test,
    hour and status) fold into one, at the audit's time, with the drive log's words and the
    audit's plan and operator; what only one source holds stays as it is."""
    failed = {"model": "M", "serial": "S1", "test": "short", "hours": 130,
              "status": "Completed: read failure", "lba": 4096}
    audit = audit_entries(_self_test_records(failed), "h")
    assert audit[1].detail == "plan: Short self-test of sdb, by ann" and audit[1].ref
    seen = Entry(NOW + 300, Kind.ERROR, "tank", "sdb",
                 "sdb: short self-test: Completed: read failure at 130 power-on hours, "
                 "first bad LBA 4,096 (ata-X_S1)", Source.OBSERVED, "smartctl self-test log",
                 ref=self_test_ref("M", "S1", "short", 130, "Completed: read failure"))
    other = dataclasses.replace(seen, words="sdb: short self-test: … at 131 …",
                                ref=self_test_ref("M", "S1", "short", 131,
                                                  "Completed: read failure"))
    folded = fold_self_tests(merge(audit, [seen, other]))
    assert [e.words for e in folded] == [
        "zconsole plan started: Short self-test of sdb", seen.words, other.words]
    one = folded[1]
    assert (one.at, one.source, one.kind, one.pool, one.vdev) == (
        NOW + 60, Source.AUDIT, Kind.ERROR, "tank", "sdb")
    assert one.detail == ("zconsole watched it to its end; plan: Short self-test of sdb, "
                          "by ann")
    assert folded[2] is other  # not zconsole's test: the drive's log alone
    # nothing observed: the audit's entry as it was
    assert fold_self_tests(audit) == tuple(audit)
    # two results with one ref (a drive that stamps each test with one hour): in pairs
    twice = audit_entries(_self_test_records(failed, failed), "h")
    again = dataclasses.replace(seen, at=NOW + 400, seq=1)
    assert [e.source for e in fold_self_tests(merge(twice, [seen, again]))] == [
        Source.AUDIT] * 3
    assert len(fold_self_tests(merge(twice, [seen]))) == 3  # the second keeps its own words


def test_a_self_test_of_a_disk_with_no_serial_is_one_entry() -> None:
    """A disk that reports no serial (a USB bridge, some virtual disks): the audit's result
    and the poll's entry are told by the disk's kernel name, which both hold, and fold into
    one entry; another disk's result with the same test, hour and status stays apart."""
    failed = {"model": "M", "serial": "", "disk": "sdb", "test": "short", "hours": 130,
              "status": "Completed: read failure", "lba": 4096}
    audit = audit_entries(_self_test_records(failed), "h")
    assert audit[1].ref == self_test_ref("M", "", "short", 130, "Completed: read failure",
                                         "sdb") != ""
    before = SmartReading("/dev/sdb", model="M", serial="", self_tests=())
    after = SmartReading("/dev/sdb", model="M", serial="", self_tests=(
        SelfTest("short", "Completed: read failure", False, hours=130, lba=4096),))
    places = {"sdb": ("tank", "sdb"), "sdc": ("tank", "sdc")}

    def state(disk: str, reading: SmartReading, at: float) -> DiskSmart:
        return DiskSmart(disk, None, reading=reading, read_at=at, tried_at=at)

    seen = poll_entries({"sdb": state("sdb", before, NOW), "sdc": state("sdc", before, NOW)},
                        [state("sdb", after, NOW + 300), state("sdc", after, NOW + 300)],
                        ["sdb", "sdc"], {}, places, NOW + 300)
    assert [e.vdev for e in seen] == ["sdb", "sdc"]
    folded = fold_self_tests(merge(audit, seen))
    assert [(e.source, e.vdev) for e in folded] == [
        (Source.AUDIT, ""), (Source.AUDIT, "sdb"), (Source.OBSERVED, "sdc")]
    assert folded[1].detail.startswith("zconsole watched it to its end")
    # a record written before the kernel name was kept: shown, never folded
    old = {k: v for k, v in failed.items() if k != "disk"}
    [_, end] = audit_entries(_self_test_records(old), "h")
    assert end.ref == ""


def test_a_wait_end_result_that_cannot_be_read_folds_nothing() -> None:
    """The audit log is a file: a `result` of the wrong shape, or a disk with no serial,
    gives no ref (the entry is shown, never folded, never a crash)."""
    bad: list[object] = [
        "S1", {"model": "M", "serial": 1, "test": "short", "hours": 1, "status": "x"},
        {"model": "M", "serial": "S1", "test": "short", "hours": True, "status": "x"},
        {"model": "M", "serial": "S1", "test": "short", "hours": "1", "status": "x"},
        {"model": "M", "serial": "", "test": "short", "hours": 1, "status": "x"}]
    for result in bad:
        records = _self_test_records({})
        records[1]["result"] = result
        [_, end] = audit_entries(records, "h")
        assert end.ref == "" and end.words.startswith("zconsole watched to its end: ")
