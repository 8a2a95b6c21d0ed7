"""A fleet member's row (services/fleet.py): the worst of the console's findings, pools,
capacity, scans, and how old its reading is; a host that stops answering says since when,
never its last ONLINE."""

from __future__ import annotations

from zconsole.hosts.demo import DemoHost
from zconsole.hosts.silent import SilentHost
from zconsole.model.finding import Severity
from zconsole.services.fleet import Member, fleet_row

T0 = 1795302010.0


def refreshed(m: Member, at: float) -> Member:
    m.asked_at = m.asked_at or at
    m.session.use_clocks(lambda: at, lambda: at)  # the console's clocks, frozen at `at`
    m.session.begin(at)
    m.session.done(m.session.refresh())
    return m


def test_rows_of_answering_hosts() -> None:
    clock = lambda: T0  # noqa: E731
    ok = refreshed(Member.of("a", DemoHost("resilvering", clock=clock), ("prod",)), T0)
    bad = refreshed(Member.of("b", DemoHost("degraded", clock=clock)), T0)
    r = fleet_row(ok, T0 + 12, 25)
    assert (r.state, r.answering, r.pools, r.capacity, r.age, r.tags) == (
        Severity.OK, True, 1, 46, "12 s ago", ("prod",))
    assert r.scans and r.scans[0].startswith("tank: resilver ")
    r = fleet_row(bad, T0 + 1, 25)
    # two mirrors down to one disk each: the one scale's CRITICAL, named first
    assert r.state is Severity.CRITICAL and r.problem.startswith("tank: no redundancy left")


def test_a_host_that_stops_answering_is_unknown_since_its_last_answer() -> None:
    m = refreshed(Member.of("a", DemoHost("healthy", clock=lambda: T0)), T0)
    assert fleet_row(m, T0 + 20, 25).state is Severity.OK
    r = fleet_row(m, T0 + 90, 25)  # no good zpool status for longer than the limit
    assert r.state is Severity.UNKNOWN and not r.answering
    assert r.age == "no answer for 1 min" and r.pools is None


def test_a_host_that_never_answered() -> None:
    host = SilentHost("x", clock=lambda: T0)
    m = Member.of("x", host)
    m.asked_at = T0
    m.session.begin(T0)  # its first refresh is still waiting
    assert fleet_row(m, T0 + 1, 25).age == "reading…"
    r = fleet_row(m, T0 + 40, 25)
    assert (r.state, r.answering, r.age) == (Severity.UNKNOWN, False, "no answer for 40 s")
    host.wake()
    m2 = refreshed(Member.of("y", SilentHost("y", clock=lambda: T0), timeout=0.01), T0)
    m2.session.host.wake()  # type: ignore[attr-defined]
    r = fleet_row(m2, T0 + 40, 25)
    assert (r.state, r.answering, r.age) == (Severity.UNKNOWN, False, "no answer for 40 s")


def test_a_host_that_answers_with_an_error_is_unknown_but_answering() -> None:
    from tests.fakes import StatusFails

    m = refreshed(Member.of("a", StatusFails(DemoHost("healthy", clock=lambda: T0))), T0)
    r = fleet_row(m, T0 + 5, 25)
    assert (r.state, r.answering, r.age) == (Severity.UNKNOWN, True, "5 s ago")
    assert r.problem.startswith("zpool status: ") and r.pools is None
