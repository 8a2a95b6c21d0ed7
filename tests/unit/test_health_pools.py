"""Pool findings (services.health.pools) on real captured pool states of both versions."""

from __future__ import annotations

import dataclasses

import pytest

from tests.paths import CAPTURES
from zconsole.hosts.replay import ReplayHost
from zconsole.model.finding import Severity
from zconsole.model.reading import HostReading, Part
from zconsole.services.health.pools import judge_pools
from zconsole.services.read.collect import collect

ROOT = CAPTURES
VERSIONS = {"2.1": "2.1.11", "2.3": "2.3.2"}


def reading(flavour: str, state: str) -> HostReading:
    return collect(ReplayHost(str(ROOT / f"zfs-{VERSIONS[flavour]}" / state)))


def kinds(findings: list) -> list[tuple[str, Severity]]:
    return [(f.kind, f.severity) for f in findings]


@pytest.mark.parametrize("flavour", VERSIONS)
def test_a_healthy_pool_has_no_finding(flavour: str) -> None:
    assert judge_pools(reading(flavour, "healthy")) == []


@pytest.mark.parametrize("flavour", VERSIONS)
def test_an_offline_member_degrades_the_pool(flavour: str) -> None:
    found = judge_pools(reading(flavour, "degraded-offline"))
    [state] = [f for f in found if f.kind == "pool-state"]
    assert state.severity is Severity.WARNING
    assert state.message.startswith("tank is DEGRADED: ") and "OFFLINE" in state.message
    assert any("offline" in e.lower() or "replace" in e.lower() for e in state.evidence)


@pytest.mark.parametrize("flavour", VERSIONS)
def test_a_running_resilver_is_an_info_with_its_progress(flavour: str) -> None:
    found = judge_pools(reading(flavour, "resilver-in-progress"))
    scans = [f for f in found if f.kind == "scan"]
    assert scans and scans[0].severity is Severity.INFO
    assert "resilver" in scans[0].message and "%" in scans[0].message


@pytest.mark.parametrize("flavour", VERSIONS)
def test_a_spare_in_use_is_said(flavour: str) -> None:
    found = judge_pools(reading(flavour, "spare-in-use"))
    assert found, "a spare in use must not look like a healthy pool"
    assert Severity.worst(f.severity for f in found) in (Severity.WARNING, Severity.CRITICAL)


def test_failed_status_is_unknown_never_ok() -> None:
    r = reading("2.3", "healthy")
    failed = dataclasses.replace(r, pool_status=Part(None, r.taken_at, "zpool status -j",
                                                     "timed out after 20 s",
                                                     "CommandTimedOut"))
    [f] = judge_pools(failed)
    assert f.kind == "pool-unread" and f.severity is Severity.UNKNOWN
    assert "timed out" in f.message


def test_an_old_status_reading_is_unknown() -> None:
    r = reading("2.3", "healthy")
    seen = r.pool_status.seen  # the console's clock when it answered (its age counts on it)
    assert seen is not None
    assert judge_pools(r, now=seen + 10, max_age=30) == []
    stale = judge_pools(r, now=seen + 95, max_age=30)
    assert [(f.kind, f.severity, f.subject) for f in stale] == [
        ("pool-stale", Severity.UNKNOWN, "tank")]
    assert "1 min" in stale[0].message
