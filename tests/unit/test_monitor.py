"""Issue 28 §2: the headless monitor (services/monitor). Driven without Textual for a few
steps, its subscribers see the verdict `zconsole check --json` reports for the same demo
scenario; a host that raises or does not answer is UNKNOWN there, never OK and never its last
known state; the loops run on threads of their own and stop."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.fakes import StatusFails
from zconsole.cli.main import main
from zconsole.hosts.demo import SCENARIOS, DemoHost
from zconsole.hosts.silent import SilentHost
from zconsole.model.finding import Severity
from zconsole.model.reading import HostReading
from zconsole.services.health.severity import HostVerdict
from zconsole.services.monitor.loop import Monitor
from zconsole.services.monitor.member import Member

T = 1795302010.0
STEPS = 5  # `check`'s default --sample: five one-second readings


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's mutes; the demo's mutes live in tmp_path."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


Seen = list[tuple[str, "HostReading | None", HostVerdict]]


def watched(*members: Member, **kw: object) -> tuple[Monitor, Seen]:
    mon = Monitor(members, **kw)  # type: ignore[arg-type]
    seen: Seen = []
    mon.subscribe(lambda name, reading, verdict: seen.append((name, reading, verdict)))
    return mon, seen


def frozen(name: str, host: object, timeout: float = 20.0) -> Member:
    m = Member.of(name, host, timeout=timeout)  # type: ignore[arg-type]
    m.session.use_clocks(lambda: T, lambda: T)
    return m


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_subscribers_see_the_verdict_check_reports(
        scenario: str, capsys: pytest.CaptureFixture[str]) -> None:
    mon, seen = watched(frozen(f"demo-{scenario}", DemoHost(scenario, clock=lambda: T)))
    for _ in range(STEPS):
        mon.step()
    assert len(seen) == STEPS and {name for name, _r, _v in seen} == {f"demo-{scenario}"}
    _name, reading, verdict = seen[-1]
    assert reading is mon.members[0].session.last.reading  # type: ignore[union-attr]
    rc = main(["check", "--demo", scenario, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert (verdict.level.value, verdict.level.exit_code) == (doc["status"], rc)
    if verdict.problems:  # the highest finding, named alike (its figures are the sample's)
        top = verdict.problems[0]
        assert (doc["findings"][0]["kind"], doc["findings"][0]["subject"]) == (top.kind,
                                                                               top.subject)


def test_the_scenarios_give_every_level_a_readable_host_can_have() -> None:
    got = {}
    for scenario in ("healthy", "showcase", "degraded"):
        mon, seen = watched(frozen(scenario, DemoHost(scenario, clock=lambda: T)))
        mon.sample(STEPS, mon.members[0])
        got[scenario] = seen[-1][2].level
    assert got == {"healthy": Severity.OK, "showcase": Severity.WARNING,  # its slow disk
                   "degraded": Severity.CRITICAL}


def test_a_host_that_raises_is_unknown_never_its_last_known_state(
        monkeypatch: pytest.MonkeyPatch) -> None:
    m = frozen("nas1", DemoHost("healthy", clock=lambda: T))
    mon, seen = watched(m)
    mon.step()
    assert seen[-1][2].level is Severity.OK  # it answered
    boom = RuntimeError("the session broke")

    def refresh(**_: object) -> None:
        raise boom

    monkeypatch.setattr(m.session, "refresh", refresh)
    mon.step()
    name, reading, verdict = seen[-1]
    assert verdict.level is Severity.UNKNOWN and reading is not None  # the old reading kept
    assert verdict.findings[0].kind == "no-answer"
    assert "refresh failed: RuntimeError: the session broke" in verdict.findings[0].message
    assert mon.verdict(m).level is Severity.UNKNOWN  # and held so until a refresh answers


def test_a_host_that_never_answered_is_unknown() -> None:
    silent = SilentHost("x", clock=lambda: T)
    silent.wake()  # every wait ends at once: each read is a timeout
    unreadable = frozen("b", StatusFails(DemoHost("healthy", clock=lambda: T)))
    mon, seen = watched(frozen("a", silent, timeout=0.01), unreadable)
    fresh = Member.of("c", DemoHost("healthy"))
    assert fresh.verdict_at().level is Severity.UNKNOWN  # no reading yet
    mon.step()
    assert [(n, v.level) for n, _r, v in seen] == [("a", Severity.UNKNOWN),
                                                   ("b", Severity.UNKNOWN)]
    assert all(v.findings and v.findings[0].severity is Severity.UNKNOWN for _n, _r, v in seen)


def test_a_status_older_than_the_limit_is_unknown() -> None:
    m = frozen("a", DemoHost("healthy", clock=lambda: T))
    mon, _seen = watched(m, stale_after=25.0)
    mon.step()
    assert mon.verdict(m, T + 20).level is Severity.OK
    old = mon.verdict(m, T + 90)
    assert old.level is Severity.UNKNOWN and old.findings[0].kind.startswith("pool-")
    assert "1 min" in old.findings[0].message
    assert "2 min" in mon.verdict(m, T + 150).findings[0].message  # never a frozen age
    assert mon.verdict(m, T + 20).level is Severity.OK  # judged again from the same reading


def test_a_subscriber_that_raises_stops_nothing_and_one_can_leave() -> None:
    m = frozen("a", DemoHost("healthy", clock=lambda: T))
    mon, seen = watched(m)

    def bad(*_: object) -> None:
        raise ValueError("oops")

    leave = mon.subscribe(bad)
    mon.step()
    leave()
    mon.step()
    assert len(seen) == 2 and mon.subscriber_errors == ["a: ValueError: oops"]


def test_mutes_and_thresholds_are_the_monitors() -> None:
    from zconsole.model.advice import Mute
    from zconsole.services.health.severity import Thresholds

    m = frozen("a", DemoHost("healthy", clock=lambda: T))
    mon, _seen = watched(m, thresholds=Thresholds(40, 45))  # tank is 46 % full
    mon.step()
    assert mon.verdict(m).level is Severity.CRITICAL
    slow = frozen("s", DemoHost("showcase", clock=lambda: T))
    mon, _seen = watched(slow)  # the scale's own thresholds
    mon.sample(STEPS, slow)
    assert mon.verdict(slow).level is Severity.WARNING
    [finding] = [f for f in mon.verdict(slow).findings if f.kind == "slow-disk"]
    v = mon.advise(slow, (), (Mute("slow-disk", finding.subject, "known, replacing", T),))
    assert v.level is Severity.OK and [f.kind for f, _m in v.muted] == ["slow-disk"]


def test_the_loops_run_on_their_own_threads_until_stopped() -> None:
    a = Member.of("a", DemoHost("healthy"))
    b = Member.of("b", DemoHost("degraded"))
    mon, seen = watched(a, b)
    both = threading.Event()

    def saw(name: str, *_: object) -> None:
        if {n for n, _r, _v in seen} == {"a", "b"} and len(seen) >= 4:
            both.set()

    mon.subscribe(saw)
    mon.start(interval=0.01)
    try:
        assert both.wait(120), seen
    finally:
        mon.stop(timeout=120)
    assert not mon._threads  # every loop ended
    assert {n: v.level for n, _r, v in seen} == {"a": Severity.OK, "b": Severity.CRITICAL}


def test_check_on_a_host_whose_refresh_raises_is_unknown_not_a_traceback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import io

    from zconsole.cli.commands.check import run_check
    from zconsole.services.session import HostSession

    def refresh(self: HostSession, **_: object) -> None:
        raise RuntimeError("the library broke")

    monkeypatch.setattr(HostSession, "refresh", refresh)
    out = io.StringIO()
    args = argparse.Namespace(timeout=1.0, sample=5.0, capacity_warn=80, capacity_crit=90,
                              advice=False, no_advice=True, scrub_weeks=None, json=False,
                              prometheus=None)
    assert run_check(DemoHost("healthy"), args, out) == 3
    head = out.getvalue().splitlines()[0]
    assert head.startswith("UNKNOWN: ") and "RuntimeError: the library broke" in head
    assert head.endswith("| up=0")
