"""Issue 31: the monitor's readings and verdicts as Prometheus families (services/monitor/
metrics.py, prometheus_client): the names, one gauge per state, the counters, the escaping,
a host that cannot be read, and `promtool check metrics` over every demo scenario."""

from __future__ import annotations

import re
import subprocess

from tests.unit._prometheus import tool
from zconsole.hosts.demo import SCENARIOS, DemoHost
from zconsole.model.finding import Severity
from zconsole.services.monitor.loop import Monitor
from zconsole.services.monitor.member import Member
from zconsole.services.monitor.metrics import Seen, exposition, seen_of_member, seen_of_report
from zconsole.services.monitor.report import judge

T = 1795302010.0


def sampled(scenario: str, n: int = 5) -> Member:
    m = Member.of(f"demo-{scenario}", DemoHost(scenario, clock=lambda: T))
    m.session.use_clocks(lambda: T, lambda: T)
    for _ in range(n):
        m.session.begin(T)
        m.session.done(m.session.refresh())
    return m


def seen(scenario: str) -> Seen:
    last = sampled(scenario).session.last
    assert last is not None
    return seen_of_report(judge(last.reading, slow=last.findings,
                                estimates=last.scan_estimates))


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """(name, labels) -> value of every sample of the exposition text."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.fullmatch(r'(\w+)(?:\{(.*)\})? (\S+)', line)
        assert m, line
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        key = (m.group(1), labels)
        assert key not in out, key  # every series once
        out[key] = float(m.group(3))
    return out


def one(s: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str,
        **labels: str) -> dict[frozenset[tuple[str, str]], float]:
    want = set(labels.items())
    return {k[1]: v for k, v in s.items() if k[0] == name and want <= k[1]}


def test_degraded_pool_states_errors_and_severity() -> None:
    s = samples(exposition([seen("degraded")]))
    host = "demo: degraded"
    states = one(s, "zconsole_pool_state", host=host, pool="tank")
    assert {dict(k)["state"]: v for k, v in states.items()}["degraded"] == 1.0
    assert sum(states.values()) == 1.0  # one state at 1, every other at 0
    assert len(states) == 7
    sev = {dict(k)["severity"]: v for k, v in
           one(s, "zconsole_pool_severity", host=host, pool="tank").items()}
    assert sev == {"ok": 0.0, "warning": 0.0, "critical": 1.0, "unknown": 0.0}
    assert one(s, "zconsole_host_severity", host=host, severity="critical") != {}
    # the FAULTED member: its leaf state and its error counters (`_total`, counters)
    faulted = {dict(k)["vdev"] for k, v in one(s, "zconsole_leaf_state", host=host,
                                                 state="faulted").items() if v == 1.0}
    assert faulted
    errs = [v for k, v in one(s, "zconsole_leaf_read_errors_total", host=host).items()
            if dict(k)["vdev"] in faulted] + \
        [v for k, v in one(s, "zconsole_leaf_write_errors_total", host=host).items()
         if dict(k)["vdev"] in faulted]
    assert max(errs) > 0
    # the finding of each problem, its severity as a label
    kinds = {(dict(k)["kind"], dict(k)["severity"]) for k in one(s, "zconsole_finding",
                                                                  host=host)}
    assert any(sv == "critical" for _k, sv in kinds)
    assert {sv for _k, sv in kinds} <= {s.value for s in Severity}
    assert one(s, "zconsole_up", host=host) == {frozenset({("host", host)}): 1.0}


def test_showcase_slow_disk_scrub_end_scan_and_arc() -> None:
    v = seen("showcase")
    s = samples(exposition([v]))
    [slow] = [f for f in v.findings if f.kind == "slow-disk"]
    assert one(s, "zconsole_slow_disk_factor", vdev=slow.subject) == {
        frozenset({("host", v.host), ("pool", "tank"), ("vdev", slow.subject)}): slow.factor}
    assert one(s, "zconsole_pool_last_scrub_end_timestamp_seconds", pool="tank")
    [progress] = one(s, "zconsole_pool_scan_progress_ratio", pool="fast",
                     kind="resilver").values()
    assert 0 < progress < 1
    assert 0 < min(one(s, "zconsole_pool_capacity_ratio").values()) < 1
    assert one(s, "zconsole_arc_size_bytes") and one(s, "zconsole_arc_target_bytes")


def test_counters_are_typed_counters_and_gauges_never_end_in_total() -> None:
    text = exposition([seen("degraded")])
    types = dict(re.findall(r"^# TYPE (\w+) (\w+)$", text, re.M))
    assert types["zconsole_leaf_checksum_errors_total"] == "counter"
    assert types["zconsole_vdev_read_errors_total"] == "counter"
    assert all(t == "gauge" for n, t in types.items() if not n.endswith("_total"))
    assert all(n.startswith("zconsole_") for n in types)
    # every family has its HELP
    assert set(re.findall(r"^# HELP (\w+) ", text, re.M)) == set(types)


def test_hostile_names_are_visible_and_escaped_by_the_library() -> None:
    text = exposition([seen("hostile")])
    assert "\x1b" not in text and "\x07" not in text
    s = samples(text)
    pools = {dict(k)["pool"] for k in one(s, "zconsole_pool_state")}
    assert "tank\\\\x1b]0;owned\\\\x07" in pools  # `\x1b` shown as text, its `\` escaped
    # a quote or a backslash in host text is escaped, never ends the label; a newline is
    # made visible first (`\x0a`, whose backslash the library escapes)
    weird = Seen('a"b\nc\\', None, Severity.UNKNOWN, ())
    assert 'zconsole_up{host="a\\"b\\\\x0ac\\\\"} 0.0' in exposition([weird]).splitlines()


def test_a_host_not_read_is_up_0_unknown_and_says_no_pool() -> None:
    m = Member.of("nas9", DemoHost("degraded", clock=lambda: T))
    mon = Monitor([m], stale_after=60)
    s = samples(exposition([seen_of_member(mon, m)]))  # never read yet
    assert one(s, "zconsole_up") == {frozenset({("host", "nas9")}): 0.0}
    assert one(s, "zconsole_host_severity", severity="unknown") != {}
    assert list(one(s, "zconsole_host_severity", severity="unknown").values()) == [1.0]
    assert not one(s, "zconsole_pool_state")
    assert {dict(k)["kind"] for k in one(s, "zconsole_finding")} == {"no-answer"}
    # read once, then a refresh that fails: the last pools are not said as present
    clock = [T]
    m.session.use_clocks(lambda: clock[0], lambda: clock[0])
    mon.refresh(m)
    s = samples(exposition([seen_of_member(mon, m)]))
    assert list(one(s, "zconsole_up").values()) == [1.0] and one(s, "zconsole_pool_state")
    assert list(one(s, "zconsole_reading_age_seconds").values()) == [0.0]
    mon.record_failure(m, "TimeoutError: zpool status")
    s = samples(exposition([seen_of_member(mon, m)]))
    assert list(one(s, "zconsole_up").values()) == [0.0] and not one(s, "zconsole_pool_state")
    # a good reading grown too old (the monitor's stale_after): not read either
    mon.refresh(m)
    clock[0] = T + 61
    s = samples(exposition([seen_of_member(mon, m)]))
    assert list(one(s, "zconsole_up").values()) == [0.0] and not one(s, "zconsole_pool_state")
    assert list(one(s, "zconsole_reading_age_seconds").values()) == [61.0]
    assert list(one(s, "zconsole_host_severity", severity="unknown").values()) == [1.0]


def test_several_hosts_share_each_family_once() -> None:
    text = exposition([seen("healthy"), seen("degraded")])
    names = re.findall(r"^# TYPE (\w+) ", text, re.M)
    assert len(names) == len(set(names))
    ups = one(samples(text), "zconsole_up")
    assert sorted(dict(k)["host"] for k in ups) == ["demo: degraded", "demo: healthy"]


def test_promtool_check_metrics_passes_every_scenario() -> None:
    """Debian 12's promtool, from the package as the rule tests take it (it was skipped
    wherever the machine had no promtool of its own: CI always)."""
    scenarios = sorted(s for s in SCENARIOS if not s.startswith(("big", "snap")))
    text = exposition([seen(s) for s in scenarios])
    p = subprocess.run([tool("promtool"), "check", "metrics"], input=text, text=True,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
