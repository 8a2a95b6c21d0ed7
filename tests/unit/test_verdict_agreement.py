"""Issue 28 §1: every face gives the same verdict from the same readings. For every demo
scenario (`zconsole --demo list`), one session samples the host as `check` does (its
readings, then each disk's SMART once); then the Pools screen's to-do level of each pool,
the Fleet row, `check --json` and the Prometheus metrics are made from that one session, and
must agree."""

from __future__ import annotations

import json
import re

import pytest

from zconsole.cli.formats.json_out import as_json
from zconsole.cli.formats.nagios import nagios_text
from zconsole.hosts.demo import SCENARIOS, DemoHost
from zconsole.model.finding import Severity
from zconsole.model.hosttext import json_safe, visible
from zconsole.services.fleet import Member, fleet_row
from zconsole.services.health.severity import pool_level
from zconsole.services.monitor.metrics import exposition, seen_of_report
from zconsole.services.monitor.report import Report, judge

T = 1795302010.0
SAMPLES = 5  # `check`'s default --sample: five one-second readings


def sampled(scenario: str, smart: bool = True) -> Member:
    m = Member.of(f"demo-{scenario}", DemoHost(scenario, clock=lambda: T), ("demo",))
    m.asked_at = T
    m.session.use_clocks(lambda: T, lambda: T)
    for _ in range(SAMPLES):
        m.session.begin(T)
        m.session.done(m.session.refresh())
    if smart:
        m.session.poll_smart()  # as `check --smart` (its default) does
    return m


def metrics(v: Report) -> dict[tuple[str, str], str]:
    """(family, pool) -> the severity whose `*_severity` sample is 1, read out of the
    exposition text of `v` ("" where no pool label)."""
    out: dict[tuple[str, str], str] = {}
    for line in exposition([seen_of_report(v)]).splitlines():
        m = re.match(r'(zconsole_\w+_severity)\{([^}]*)\} (\S+)$', line)
        if m and float(m.group(3)) == 1.0:
            pool = re.search(r'pool="((?:[^"\\]|\\.)*)"', m.group(2))
            sev = re.search(r'severity="(\w+)"', m.group(2))
            assert sev is not None
            key = (m.group(1), pool.group(1) if pool else "")
            assert key not in out, key  # one severity at 1 per host and per pool
            out[key] = sev.group(1)
    return out


def prom_label(s: str) -> str:
    """A label value as the metrics file writes it, read back out of its quotes."""
    return visible(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_pools_fleet_check_and_metrics_agree(scenario: str) -> None:
    m = sampled(scenario)
    last = m.session.last
    assert last is not None
    reading = last.reading
    # check (its JSON and text) and the metrics: one Verdict from the session's readings
    smart = m.session.smart.findings
    v: Report = judge(reading, slow=last.findings, estimates=last.scan_estimates, smart=smart)
    doc = json.loads(json.dumps(as_json(v)))
    prom = metrics(v)
    status = Severity(doc["status"])
    assert doc["exit_code"] == status.exit_code
    assert prom[("zconsole_host_severity", "")] == status.value
    assert nagios_text(v).startswith(f"{status.name}: ")
    # the Fleet row of the same session
    row = fleet_row(m, T, 1e9)
    assert row.state is status, (row.problem, doc["summary"])
    if status is not Severity.OK:
        assert row.problem == v.findings[0].message  # the highest finding, named alike
    # the Pools screen: each pool's to-do level, and the metric of that pool
    levels = {e.name: pool_level(e, slow=last.findings, estimates=last.scan_estimates,
                                 smart=smart) for e in reading.pools}
    for name, level in levels.items():
        shown = prom_label(name)  # host text, escaped in the exposition format
        assert prom[("zconsole_pool_severity", shown)] == level.value, name
        [health] = [x["value"] for x in doc["metrics"] if x["name"] == "zconsole_pool_health"
                    and x["labels"]["pool"] == json_safe(name)]
        assert health == level.exit_code, name
    if reading.pool_status.ok:  # a disk in no pool raises the host alone
        alone = (f.severity for f in smart if f.pool is None)
        assert Severity.worst([*levels.values(), *alone]) is status


def test_the_showcase_smart_findings_are_on_every_face() -> None:
    """Issue 30: the dying disk's counters, the bad cable and the worn NVMe are in `check
    --json`, the Nagios text, the Fleet row's verdict and their pools' levels alike."""
    m = sampled("showcase")
    last = m.session.last
    assert last is not None
    smart = m.session.smart.findings
    assert {f.kind for f in smart} >= {"smart-counters", "smart-crc", "smart-wear"}
    v = judge(last.reading, slow=last.findings, estimates=last.scan_estimates, smart=smart)
    doc = json.loads(json.dumps(as_json(v)))
    said = {(f["kind"], f["subject"]) for f in doc["findings"]}
    text = nagios_text(v)
    verdict = m.verdict_at()
    for f in smart:
        assert (f.kind, f.subject) in said
        assert visible(f.message) in text
        assert f in verdict.findings  # what the Fleet row and the console judge from
        if f.pool is not None:
            entry = next(e for e in last.reading.pools if e.name == f.pool)
            level = pool_level(entry, slow=last.findings, estimates=last.scan_estimates,
                               smart=smart)
            assert level.rank >= f.severity.rank
            assert metrics(v)[("zconsole_pool_severity", prom_label(f.pool))] == level.value


def test_the_scenarios_cover_every_level_a_readable_host_can_have() -> None:
    # the agreement above is not vacuous: the demo shows OK, WARNING and CRITICAL hosts
    seen = {s: fleet_row(sampled(s), T, 1e9).state for s in ("healthy", "showcase", "degraded")}
    assert seen == {"healthy": Severity.OK, "showcase": Severity.WARNING,
                    "degraded": Severity.CRITICAL}


def test_a_muted_slow_disk_is_muted_on_every_face() -> None:
    """The showcase's one slow disk, muted by the operator (Advice screen, `m`): check, the
    metrics, the Fleet row and the Pools to-do level all leave it out, and all say OK; the
    same session without the mute is WARNING on each."""
    from zconsole.model.advice import Mute

    m = sampled("showcase", smart=False)  # the slow disk's SMART is WARNING, muted or not
    last = m.session.last
    assert last is not None
    [slow] = [f for f in last.findings if f.kind == "slow-disk"]
    mutes = (Mute("slow-disk", slow.subject, "an SMR disk, replaced on Friday", T),)
    for muted, want in (((), Severity.WARNING), (mutes, Severity.OK)):
        v = judge(last.reading, slow=last.findings, estimates=last.scan_estimates,
                  mutes=muted)
        assert v.status is want
        assert metrics(v)[("zconsole_host_severity", "")] == want.value
        m.mutes = muted
        assert fleet_row(m, T, 1e9).state is want
        levels = [pool_level(e, slow=last.findings, estimates=last.scan_estimates,
                             mutes=muted) for e in last.reading.pools]
        assert Severity.worst(levels) is want
