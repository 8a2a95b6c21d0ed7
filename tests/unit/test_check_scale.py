"""Issue 28 §1: one severity scale (services/health/severity.py), redundancy computed from the
vdev tree (services/health/redundancy.py), and `zconsole check` exiting by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zconsole.cli.main import main
from zconsole.hosts.demo import DemoHost
from zconsole.model.advice import Mute
from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.health.redundancy import lost_redundancy, margin, rebuilding
from zconsole.services.health.severity import RULES, level_of

FIXTURES = Path(__file__).parents[1] / "fixtures" / "parsers" / "zpool-status"


@pytest.fixture(autouse=True)
def _own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's mutes; the demo's mutes live in tmp_path."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZCONSOLE_DEMO_STATE", str(tmp_path / "demo-state"))


def pool_of(name: str) -> Pool:
    [p] = parse_zpool_status((FIXTURES / name).read_text())
    return p


def margins(p: Pool) -> dict[str, int]:
    return {t.name: margin(t, rebuild=rebuilding(p, t)) for t in p.vdevs}


# ----------------------------------------------------------------- redundancy, real trees


def test_a_draid_rebuilding_to_its_distributed_spare_has_no_redundancy_left() -> None:
    # draid1, sdg UNAVAIL, the sequential rebuild to draid1-0-0 still running: zpool marks
    # every disk (resilvering); only the distributed spare is incomplete
    p = pool_of("openzfs-docs-draid-howto-sequential-resilver-to-draid-spare.txt")
    assert margins(p) == {"draid1:4d:11c:1s-0": 0}
    assert [t.name for t in lost_redundancy(p)] == ["draid1:4d:11c:1s-0"]


def test_a_draid_whose_spare_is_rebuilt_has_its_parity_back() -> None:
    # the rebuild is over; a healing resilver onto sdl (replacing sdg) runs
    p = pool_of("openzfs-docs-draid-howto-rebalance-healing-resilver.txt")
    assert margins(p) == {"draid1:4d:11c:1s-0": 1} and lost_redundancy(p) == []


def test_a_mirror_whose_replace_resilvers_beside_a_degraded_disk() -> None:
    # mirror-0: replacing-0 (old OFFLINE, sdh resilvering) and a DEGRADED disk: only the
    # DEGRADED disk holds the data
    p = pool_of("zol-0.8-issue7537-replacing-too-many-errors.excerpt.txt")
    got = margins(p)
    assert got["mirror-0"] == 0 and got["mirror-1"] == 1
    assert [t.name for t in lost_redundancy(p)] == ["mirror-0"]
    assert margin(p.vdevs[0], strict=True) == -1  # not even one ONLINE disk


def test_a_raidz2_replacing_an_offline_disk_keeps_redundancy() -> None:
    p = pool_of("mtlynch-resilver-replacing-no-estimate.txt")
    assert margins(p) == {"raidz2-0": 2} and lost_redundancy(p) == []


RAIDZ2_ONE_UNAVAIL = """\
  pool: tank
 state: DEGRADED
status: One or more devices could not be used because the label is missing or
        invalid.  Sufficient replicas exist for the pool to continue
        functioning in a degraded state.
action: Replace the device using 'zpool replace'.
config:

        NAME        STATE     READ WRITE CKSUM
        tank        DEGRADED     0     0     0
          raidz2-0  DEGRADED     0     0     0
            vdb     ONLINE       0     0     0
            vdc     ONLINE       0     0     0
            vdd     UNAVAIL      0     0     0
            vde     ONLINE       0     0     0
          raidz1-1  DEGRADED     0     0     0
            vdf     ONLINE       0     0     0
            vdg     FAULTED      3    17     0  too many errors
            vdh     ONLINE       0     0     0

errors: No known data errors
"""


def test_raidz_keeps_parity_minus_the_missing_members() -> None:
    [p] = parse_zpool_status(RAIDZ2_ONE_UNAVAIL)
    assert margins(p) == {"raidz2-0": 1, "raidz1-1": 0}
    assert [t.name for t in lost_redundancy(p)] == ["raidz1-1"]


def test_an_attach_resilvering_is_not_a_loss() -> None:
    # the showcase's `fast` pool: a mirror gaining its second copy is ONLINE
    from zconsole.services.read.collect import collect

    r = collect(DemoHost("showcase"))
    fast = next(p for p in r.pool_status.value or () if p.name == "fast")
    assert margin(fast.vdevs[0]) == 0 and lost_redundancy(fast) == []


# ------------------------------------------------------------------------------ the scale


def test_every_rule_has_a_level_and_a_sentence() -> None:
    assert {r.level for r in RULES} == {Severity.CRITICAL, Severity.WARNING,
                                        Severity.UNKNOWN, Severity.INFO}
    assert all(r.when for r in RULES)


def test_advice_and_slow_disks_are_on_the_scale() -> None:
    slow = Finding("slow-disk", Severity.CRITICAL, "sdb", "sdb is 12x slower")
    assert level_of(slow) is Severity.WARNING  # red on the Pools screen, a WARNING here
    advice = Finding("advice-dedup", Severity.WARNING, "tank", "dedup is on")
    assert level_of(advice) is Severity.INFO
    assert level_of(advice, advice_counts=True) is Severity.WARNING


# ------------------------------------------------------------------------- zconsole check


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(["check", *argv])
    return rc, capsys.readouterr().out


def test_degraded_is_critical_naming_both_mirrors(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "degraded")
    assert rc == 2
    head = out.splitlines()[0]
    assert head.startswith("CRITICAL: tank: no redundancy left in mirror-0 ")
    assert " and mirror-2 (" in head and "tank_pool_health=2" in head


def test_showcase_is_a_warning_for_its_slow_disk_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    # its disks' SMART (the dying disk, the bad cable, the worn NVMe) left out
    rc, out = check(capsys, "--demo", "showcase", "--json", "--no-smart")
    doc = json.loads(out)
    assert rc == 1 and doc["status"] == "warning"
    raising = [f for f in doc["findings"] if f["severity"] not in ("ok", "info")]
    assert [f["kind"] for f in raising] == ["slow-disk"]
    # dedup advice is listed, and raises nothing
    assert any(f["kind"] == "advice-dedup" and f["severity"] == "info"
               for f in doc["findings"])


def test_showcase_with_its_slow_disk_muted_is_ok(capsys: pytest.CaptureFixture[str]) -> None:
    from zconsole.hosts.journal import MuteStore

    rc, out = check(capsys, "--demo", "showcase", "--json", "--no-smart")
    [slow] = [f for f in json.loads(out)["findings"] if f["kind"] == "slow-disk"]
    MuteStore.default(simulated=True).mute(
        DemoHost("showcase").label,
        Mute("slow-disk", slow["subject"], "an SMR disk, replaced on Friday", 7.0))
    rc, out = check(capsys, "--demo", "showcase", "--json", "--no-smart")
    doc = json.loads(out)
    assert rc == 0 and doc["status"] == "ok"
    assert [(m["kind"], m["reason"]) for m in doc["muted"]] == [
        ("slow-disk", "an SMR disk, replaced on Friday")]


def test_without_a_sample_the_slow_disk_is_not_seen(capsys: pytest.CaptureFixture[str]) -> None:
    # one reading is one I/O sample: a slow disk needs 4 of the last 5
    rc, _ = check(capsys, "--demo", "showcase", "--sample", "0", "--no-smart")
    assert rc == 0


def test_healthy_is_ok(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _ = check(capsys, "--demo", "healthy")
    assert rc == 0


def test_dedup_advice_raises_nothing_unless_asked(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "dedup", "--json")
    doc = json.loads(out)
    dedup = [f for f in doc["findings"] if f["kind"] == "advice-dedup"]
    assert dedup and all(f["severity"] == "info" for f in dedup) and rc == 0
    rc, out = check(capsys, "--demo", "dedup", "--advice")
    assert rc == 1 and "▲ WARNING" in out and "dedup" in out


def test_the_same_capacity_finding_has_the_same_level_in_check_and_advice(
        capsys: pytest.CaptureFixture[str]) -> None:
    from zconsole.services.health.advice import advise
    from zconsole.services.read.advice import read_advice
    from zconsole.services.read.collect import collect

    host = DemoHost("advice")
    [advice] = [a for a in advise(read_advice(host, collect(host)))
                if a.kind == "advice-capacity"]
    rc, out = check(capsys, "--demo", "advice", "--json", "--sample", "0")
    [found] = [f for f in json.loads(out)["findings"] if f["kind"] == "pool-capacity"]
    assert (found["subject"], found["message"]) == (advice.subject, advice.message)
    assert found["severity"] == advice.severity.value == "warning"


def test_the_docs_show_the_scale_as_its_one_table() -> None:
    """The table lives in docs/monitoring.md (issue 32 moved the detail out of the README),
    and the README links to it by its heading."""
    root = Path(__file__).parents[2]
    page = (root / "docs" / "monitoring.md").read_text(encoding="utf-8")
    rows = [f"| {r.level.symbol} {r.level.name} | `{r.kind}` | {r.when} |" for r in RULES]
    table = "\n".join(["| level | finding | when |", "| --- | --- | --- |", *rows])
    assert table in page
    assert page.count("| level | finding | when |") == 1
    assert "\n## The one severity scale\n" in page
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "(docs/monitoring.md#the-one-severity-scale)" in readme


def test_the_timeline_summary_heads_each_pool_with_its_level() -> None:
    from zconsole.services.health.timeline import summary

    warn = pool_of("mtlynch-resilver-replacing-no-estimate.txt")  # raidz2, 2 left
    crit = pool_of("zol-0.8-issue7537-replacing-too-many-errors.excerpt.txt")
    [w] = summary([warn], [], {}, 1.7e9, 0)
    [c] = summary([crit], [], {}, 1.7e9, 0)
    assert w.startswith("▲ WARNING pool1 DEGRADED") and c.startswith("✖ CRITICAL vz DEGRADED")


def test_a_resilver_that_stopped_is_a_warning_only_after_a_minute_of_samples() -> None:
    from zconsole.services.health.severity import STALL_SPAN_S, stalled_findings
    from zconsole.services.read.progress import ScanEstimate

    def est(pace: float, span: float, paused: bool = False) -> ScanEstimate:
        return ScanEstimate("tank", "resilver", 37.3, pace, None, 12, span, paused=paused)

    [f] = stalled_findings("tank", [est(0.0, STALL_SPAN_S)])
    assert (f.kind, f.severity, f.pool) == ("resilver-stalled", Severity.WARNING, "tank")
    assert level_of(f) is Severity.WARNING
    assert stalled_findings("tank", [est(0.0, 5.0)]) == []  # a few seconds say nothing
    assert stalled_findings("tank", [est(0.4, 300.0)]) == []  # moving
    assert stalled_findings("tank", [est(0.0, 300.0, paused=True)]) == []  # paused on purpose
