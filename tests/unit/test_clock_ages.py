"""Ages on one clock (issue 27, item 6): every age the console tells counts on its own
monotonic clock from the moment an answer arrived, never as the host's time less the
console's. A host whose clock is an hour behind is read as fresh as any other, a host whose
clock stopped says a read that just failed was tried seconds ago, and how far the host's
clock is off is said beside the age. Every clock here is a fake one moved by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tests.fakes import DelegatingHost, StatusFails
from zconsole.hosts import ssh
from zconsole.hosts.base import Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.ssh import SshHost
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.fleet import Member, fleet_row
from zconsole.services.session import HostSession

WALL = 1795302010.0  # the console's wall clock (2026-11-21 23:00:10 UTC)
MONO = 5000.0  # the console's monotonic clock at the same moment
HOUR = 3600.0
STOPPED = WALL - (6 * 86400 + 17 * 3600)  # a host clock stuck 6 d 17 h ago


class Clocks:
    """The console's wall and monotonic clocks, moved together by hand."""

    def __init__(self) -> None:
        self.elapsed = 0.0

    def wall(self) -> float:
        return WALL + self.elapsed

    def mono(self) -> float:
        return MONO + self.elapsed


def behind(clocks: Clocks) -> DemoHost:
    """A demo host whose clock runs an hour behind the console's."""
    return DemoHost("healthy", clock=lambda: clocks.wall() - HOUR)


def session(host: Any, clocks: Clocks) -> HostSession:
    return HostSession(host, clock=clocks.wall, mono=clocks.mono)


def test_a_host_an_hour_behind_is_fresh_right_after_a_refresh() -> None:
    clocks = Clocks()
    s = session(behind(clocks), clocks)
    s.begin()
    s.done(s.refresh())
    reading = s.reading
    assert reading is not None and reading.pool_status.ok
    assert reading.age(clocks.mono()) == 0.0  # was 3600: console time less host time
    assert fmt.age(reading.age(clocks.mono())) == "0 s ago"
    assert reading.pool_status.age(clocks.mono()) == 0.0
    assert reading.taken_at == pytest.approx(WALL - HOUR)  # the host's clock: a fact, kept
    assert reading.clock_offset == pytest.approx(-HOUR)
    assert fmt.clock_offset(reading.clock_offset) == "host clock 1 h 0 min behind"
    clocks.elapsed = 12.0
    assert fmt.age(reading.age(clocks.mono())) == "12 s ago"
    assert reading.host_time(clocks.mono()) == pytest.approx(WALL - HOUR + 12)


def test_a_read_that_just_failed_on_a_stopped_clock_was_tried_just_now() -> None:
    clocks = Clocks()
    s = session(StatusFails(DemoHost("healthy", clock=lambda: STOPPED)), clocks)
    s.begin()
    s.done(s.refresh())
    reading = s.reading
    assert reading is not None
    [(name, part)] = [(n, p) for n, p in reading.failures if n == "pool status"]
    assert fmt.age(part.age(clocks.mono())) == "0 s ago"  # was "6 d 17 h ago"
    clocks.elapsed = 3.0
    assert fmt.age(part.age(clocks.mono())) == "3 s ago"
    assert fmt.clock_offset(reading.clock_offset) == "host clock 6 d 17 h behind"


def test_the_health_word_is_never_older_than_the_limit_on_the_consoles_clock() -> None:
    """The guard that turns an old ONLINE into ? UNKNOWN counts on the console's clock from
    the status answer: an hour-behind host is not stale at once, a stopped one goes stale
    when the console's time says so, however its own clock stands."""
    for host_clock in ("behind", "stopped"):
        clocks = Clocks()
        host = behind(clocks) if host_clock == "behind" else DemoHost(
            "healthy", clock=lambda: STOPPED)
        s = session(host, clocks)
        s.begin()
        s.done(s.refresh())
        reading = s.reading
        assert reading is not None
        limit = 25.0
        shown = s.aged(reading, clocks.mono(), limit)
        assert shown.pool_status.ok and shown.pools[0].health == "ONLINE"
        assert s.status_age(clocks.mono()) == 0.0
        clocks.elapsed = 26.0
        assert s.status_stale(clocks.mono(), limit)
        shown = s.aged(reading, clocks.mono(), limit)
        assert not shown.pool_status.ok and shown.pools[0].health == "UNKNOWN"
        assert shown.pool_status.error == "no answer for 26 s"
        # a health word is shown only while its answer is within the limit of the age said
        assert shown.pool_status.age(clocks.mono()) == reading.pool_status.age(clocks.mono())


def test_the_status_age_is_its_answer_not_the_end_of_the_refresh() -> None:
    """A refresh whose other reads take long: the status answer's own arrival dates the
    health word, never the refresh's end (which would make it look younger)."""
    clocks = Clocks()

    class SlowArc(DelegatingHost):
        def read_text(self, path: str) -> str:
            if path.endswith("arcstats"):
                clocks.elapsed += 7.0  # the ARC read takes 7 s of the console's time
            return super().read_text(path)

    s = session(SlowArc(behind(clocks)), clocks)
    s.begin()
    s.done(s.refresh())
    assert s.reading is not None
    status_seen = s.reading.pool_status.seen
    assert status_seen is not None and s.status_seen_at == status_seen
    assert (s.status_age(clocks.mono()) or 0.0) >= 7.0


def test_the_fleet_row_ages_on_the_consoles_clock() -> None:
    clocks = Clocks()
    m = Member.of("a", behind(clocks), clock=clocks.wall, mono=clocks.mono)
    m.asked_at = clocks.mono()
    m.session.begin()
    m.session.done(m.session.refresh())
    assert fleet_row(m, clocks.mono(), 25).age == "0 s ago"  # was "1 h 0 min ago"
    clocks.elapsed = 12.0
    assert fleet_row(m, clocks.mono(), 25).age == "12 s ago"
    failed = Member.of("b", StatusFails(DemoHost("healthy", clock=lambda: STOPPED)),
                       clock=clocks.wall, mono=clocks.mono)
    failed.session.begin()
    failed.session.done(failed.session.refresh())
    assert fleet_row(failed, clocks.mono(), 25).age == "0 s ago"  # was "6 d 17 h ago"


def test_a_part_no_console_stamped_has_no_age_from_the_hosts_clock() -> None:
    part: Part[str] = Part(None, STOPPED, "x", "failed", "CommandFailed")
    assert part.age(MONO) == 0.0  # never MONO - STOPPED
    assert Part(None, STOPPED, "x", "failed", "E", seen=MONO - 4).age(MONO) == 4.0


def test_the_offset_is_said_past_a_few_seconds_only() -> None:
    assert fmt.clock_offset(None) == ""
    assert fmt.clock_offset(fmt.CLOCK_OFF_AFTER) == ""
    assert fmt.clock_offset(-fmt.CLOCK_OFF_AFTER) == ""
    assert fmt.clock_offset(6.2) == "host clock 6 s ahead"
    assert fmt.clock_offset(-3 * 60 - 1) == "host clock 3 min behind"


def test_the_demo_host_reads_on_its_own_clock() -> None:
    """The demo's clock is its own (a `zpool wait` moves it ahead): its times are its own,
    the ages the console's, and the offset says how far ahead it went."""
    clocks = Clocks()
    host = DemoHost("healthy", clock=clocks.wall)
    s = session(host, clocks)
    s.begin()
    s.done(s.refresh())
    assert s.reading is not None and fmt.clock_offset(s.reading.clock_offset) == ""
    host._fast_forward(host.now() + 2 * HOUR)  # what `zpool wait` does to the simulation
    s.begin()
    s.done(s.refresh())
    reading = s.reading
    assert reading is not None
    assert reading.age(clocks.mono()) == 0.0
    assert reading.taken_at == pytest.approx(WALL + 2 * HOUR)
    assert fmt.clock_offset(reading.clock_offset) == "host clock 2 h 0 min ahead"


class FakeDate:
    """`date +%s` answering `out` after `rtt` seconds of a fake console clock."""

    def __init__(self, out: str, rtt: float) -> None:
        self.out, self.rtt, self.t = out, rtt, WALL

    def time(self) -> float:
        return self.t

    def run(self, argv: Sequence[str], **_: Any) -> Result:
        assert list(argv) == ["date", "+%s"]
        self.t += self.rtt
        return Result(tuple(argv), 0, self.out + "\n", "", self.rtt)


@pytest.mark.parametrize(("out", "expected"), [
    (str(int(WALL - HOUR + 1)), -HOUR + 1 + 0.5 - 1.0),  # the round trip's middle: +1 s
    ("inf", 0.0), ("nan", 0.0), ("-5", 0.0), ("1e20", 0.0), ("17953\n02010", 0.0),
    ("", 0.0),
])
def test_ssh_measures_the_offset_from_the_middle_of_the_round_trip(
        monkeypatch: pytest.MonkeyPatch, out: str, expected: float) -> None:
    fake = FakeDate(out, 2.0)
    host = SshHost("nas1")
    monkeypatch.setattr(host, "run", fake.run)
    monkeypatch.setattr(ssh.time, "time", fake.time)
    assert host.clock_offset() == pytest.approx(expected)
