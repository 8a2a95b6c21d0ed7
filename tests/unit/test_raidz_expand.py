"""Raidz expansion in the attach plan (OpenZFS 2.3: `zpool attach POOL raidz1-0 NEW`), on the
real 2.3 captures of a raidz pool: the plan and its operator facts, the refusals (OpenZFS 2.1,
one expansion at a time) and the watch of the `expand:` progress."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from zconsole.hosts.replay import ReplayHost
from zconsole.model.plan import Wait
from zconsole.model.reading import HostReading
from zconsole.services.ops.engine.predicates import Evaluator
from zconsole.services.ops.engine.watch import watch_for
from zconsole.services.ops.zfs.attach import build_attach
from zconsole.services.ops.zfs.common import read_inputs

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "capture" / "zfs-2.3.2"


def inputs(state: str) -> tuple[ReplayHost, HostReading, dict[str, str]]:
    host = ReplayHost(str(ROOT / state))
    got = read_inputs(host, "tank")
    return host, got.reading, dict(got.props)


def test_the_plan_widens_the_raidz_with_the_operator_facts() -> None:
    _, reading, props = inputs("raidz-expand-finished")
    plan = build_attach(reading, "tank", "raidz1-0", "vdf", props=props)
    assert not plan.blocked
    assert plan.argv_list() == [
        ("zpool", "attach", "tank", "raidz1-0", "/dev/disk/by-id/virtio-zfsvm-vdf")
    ]
    wait = plan.steps[1].wait
    assert wait is not None and wait.activity == "raidz_expand"
    facts = {c.name: c.detail for c in plan.checks}
    assert (
        "old data-to-parity ratio (3 data + 1 parity) until it is rewritten" in facts["expand-data"]
    )
    assert "gains about 1014.0 MiB" in facts["expand-capacity"]
    assert facts["expand-one"].startswith("One expansion at a time")
    assert plan.steps[0].confirmation is not None


def test_refused_on_openzfs_2_1_with_the_reason() -> None:
    _, reading, props = inputs("raidz-expand-finished")
    old = dataclasses.replace(reading, zfs=reading.zfs._replace(version=(2, 1, 11)))
    plan = build_attach(old, "tank", "raidz1-0", "vdf", props=props)
    assert plan.blocked
    [why] = [c.detail for c in plan.checks if c.blocking]
    assert why.startswith("OpenZFS 2.1.11 cannot widen a raidz vdev") and "2.3" in why


def test_one_expansion_at_a_time() -> None:
    _, reading, props = inputs("raidz-expand-in-progress")
    plan = build_attach(reading, "tank", "raidz1-0", "vdf", props=props)
    assert plan.blocked
    assert any(
        c.blocking and c.detail.startswith("One expansion at a time: raidz1-0") for c in plan.checks
    )


def test_the_watch_follows_the_expand_line() -> None:
    host, _, _ = inputs("raidz-expand-in-progress")
    wait = Wait("tank", "raidz_expand", "expansion of raidz1-0 in tank")
    look = watch_for(Evaluator(host), wait, clock=lambda: 0.0).look()
    assert look.busy and look.function == "expand"
    assert look.percent is not None and 0 < look.percent < 100
    assert (
        look.done_bytes
        and look.total_bytes
        and look.summary.startswith("expansion of raidz1-0 in progress")
    )
    host, _, _ = inputs("raidz-expand-finished")
    assert not watch_for(Evaluator(host), wait).look().busy


def test_the_attach_wizard_offers_the_raidz_on_2_3_only() -> None:
    from zconsole.ui.wizards import disks as ch

    _, reading, _ = inputs("raidz-expand-finished")
    [raidz] = [c for c in ch.attach_targets(reading) if "raidz1-0" in c.label]
    assert raidz.enabled and raidz.value == "tank\traidz1-0"
    assert "4 disks → 5" in raidz.label
    old = dataclasses.replace(reading, zfs=reading.zfs._replace(version=(2, 1, 11)))
    [raidz] = [c for c in ch.attach_targets(old) if "raidz1-0" in c.label]
    assert not raidz.enabled and "needs OpenZFS 2.3 (this host: 2.1.11)" in raidz.detail
