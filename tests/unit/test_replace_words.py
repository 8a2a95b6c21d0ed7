"""What the disk being replaced does during `zpool replace`, worded by its state (issue 26,
item 8): an UNAVAIL, FAULTED, REMOVED or OFFLINE disk serves nothing; only an ONLINE or
DEGRADED one keeps serving reads until the new disk holds every block (zpool-replace(8))."""

from __future__ import annotations

import dataclasses

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.model.pool import Vdev
from zconsole.services.ops.zfs.replace import build_replace, old_disk_role
from zconsole.services.read.collect import collect

T0 = 1795302000.0
UNAVAIL = "15712766684991486900"  # degraded: mirror-2's missing disk, named by its guid
FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"


def replace_text(scenario: str, old: str, new: str) -> str:
    plan = build_replace(collect(DemoHost(scenario, "2.3", clock=lambda: T0)), "tank", old, new)
    [step] = [s for s in plan.steps if s.id == "replace"]
    return step.explanation


@pytest.mark.parametrize(("old", "state"), [(UNAVAIL, "UNAVAIL"), (FAULTED, "FAULTED")])
def test_a_lost_disk_serves_nothing(old: str, state: str) -> None:
    text = replace_text("degraded", old, "sdh")
    assert f"{old} is {state} and serves nothing: the new disk is rebuilt from the vdev's " \
           "other members" in text
    assert "keeps serving" not in text


def test_an_online_disk_keeps_serving_until_the_new_one_is_complete() -> None:
    text = replace_text("showcase", A0, "sdh")
    assert f"{A0} (ONLINE) keeps serving reads until the new disk holds every block" in text


@pytest.mark.parametrize("state", ["REMOVED", "OFFLINE", "DEGRADED"])
def test_every_state(state: str) -> None:
    v = dataclasses.replace(Vdev("sdx", "disk", "ONLINE"), state=state)
    assert ("keeps serving" in old_disk_role(v)) is (state == "DEGRADED")
