"""Which disk to replace, and the Pools screen's one line of what to do
(services.health.replace), on real captured pool states of both versions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.replay import ReplayHost
from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool
from zconsole.services.health.replace import advice, candidates, vdev_margin
from zconsole.services.read.collect import collect

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "capture"
VERSIONS = {"2.1": "2.1.11", "2.3": "2.3.2"}


def tank(flavour: str, state: str) -> Pool:
    r = collect(ReplayHost(str(ROOT / f"zfs-{VERSIONS[flavour]}" / state)))
    entry = r.pool("tank")
    assert entry is not None and entry.status is not None
    return entry.status


@pytest.mark.parametrize("flavour", VERSIONS)
@pytest.mark.parametrize("state", ["degraded-offline", "removed"])
def test_the_missing_member_is_the_one_to_replace(flavour: str, state: str) -> None:
    pool = tank(flavour, state)
    [c] = candidates(pool)
    assert c.name == "vdc" and c.why.startswith(("OFFLINE", "REMOVED"))
    line = advice(pool, [c])
    assert line is not None and line.startswith("Press r to replace vdc")
    assert "mirror-0 has no redundancy left" in line


@pytest.mark.parametrize("flavour", VERSIONS)
def test_a_spare_in_use_covers_the_failed_disk_and_is_not_a_candidate(flavour: str) -> None:
    pool = tank(flavour, "spare-in-use")
    [c] = candidates(pool)
    assert (c.name, c.under_spare) == ("vdc", "vdd")
    assert "hot spare vdd is standing in" in c.why


@pytest.mark.parametrize("flavour", VERSIONS)
@pytest.mark.parametrize("state", ["healthy", "replacing-mid-resilver"])
def test_nothing_to_do_on_a_healthy_pool_or_during_a_replace(flavour: str, state: str) -> None:
    pool = tank(flavour, state)
    assert candidates(pool) == []
    assert advice(pool, []) is None


def test_demo_degraded_worst_first_and_the_slow_disk_with_its_reason() -> None:
    entry = collect(DemoHost("degraded", "2.3", clock=lambda: 1.7e9)).pool("tank")
    assert entry is not None and entry.status is not None
    pool = entry.status
    slow = Finding(
        "slow-disk",
        Severity.WARNING,
        "ata-ST4000VN008-2DR166_ZGY8E5F6",
        "answers 10.8x slower than its mirror peer",
        pool="tank",
    )
    found = candidates(pool, [slow])
    assert [c.name for c in found] == [
        "ata-ST4000VN008-2DR166_ZGY8C3D4",
        "15712766684991486900",
        "ata-ST4000VN008-2DR166_ZGY8E5F6",
    ]
    assert found[0].why.startswith("FAULTED (too many errors); 3 read / 117 write")
    assert found[1].gone and not found[0].gone
    assert "answers 10.8x slower" in found[2].why
    assert "read-only here" in (advice(pool, found, key=None) or "")


def test_a_mirror_with_no_good_copy_left_says_nothing_can_be_done() -> None:
    pool = tank("2.3", "degraded-offline")
    top = pool.vdevs[0]
    dead = dataclasses.replace(
        top,
        state="UNAVAIL",
        children=tuple(dataclasses.replace(c, state="UNAVAIL") for c in top.children),
    )
    broken = dataclasses.replace(pool, state="UNAVAIL", vdevs=(dead, *pool.vdevs[1:]))
    assert vdev_margin(dead) < 0
    line = advice(broken, candidates(broken))
    assert line is not None and line.startswith("Nothing can be replaced in mirror-0")
    assert "restore from backup" in line
