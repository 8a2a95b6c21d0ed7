"""Detach: one member leaves its mirror (or one half of a replacing/spare vdev). One
`zpool detach`, typed confirmation: the pool name.

Registered as "detach" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.DetachFlow` (answer: `member` = "pool<TAB>leaf").
"""

from __future__ import annotations

from collections.abc import Mapping

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.plan import Confirmation, Plan, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import Draft, read_inputs, split_ref, still_in


def build_detach(reading: HostReading, pool: str, leaf: str, *,
                 plan_id: str | None = None, now: float | None = None) -> Plan:
    """Detach `leaf` from its mirror (or one half of a replacing/spare vdev)."""
    draft = Draft.on_pool("detach", f"Detach {leaf} from {pool}", reading, pool,
                          plan_id=plan_id, now=now)
    status = draft.status
    if status is None:
        return draft.pool_unread()
    checks = guards.check_detach(status, leaf)
    parent = guards.parent_of(status, leaf)
    title = None if parent is None else f"Detach {leaf} from {parent.name} in {pool}"
    preview = guards.redundancy_preview(status, leaf, "detach")
    prechecks = [still_in(pool, leaf)]
    if parent is not None:
        keep = [c for c in parent.children if c.name != leaf and guards.good(c)
                and not c.children]
        if keep:
            prechecks.append(predicate("vdev_state", f"{keep[0].name} (the copy that stays) "
                                       "is ONLINE", pool=pool, name=keep[0].name,
                                       state="ONLINE"))
    step = Step(
        id="detach",
        title=f"Detach {leaf}",
        explanation=(f"{leaf} leaves the pool at once; its data is no longer a copy of "
                     f"anything. The disk keeps its partitions (zconsole will show it as "
                     "holding data) until it is reused."),
        command=Command(("zpool", "detach", pool, leaf), f"detach {leaf} from {pool}",
                        writes=True),
        prechecks=tuple(prechecks),
        postchecks=(predicate("vdev_absent", f"{leaf} is no longer in {pool}", pool=pool,
                              name=leaf),),
        confirmation=Confirmation(f"Detaching {leaf} removes a copy from {pool}. Type the "
                                  "pool name to go on:", pool),
    )
    return draft.plan(title=title, preview=preview, checks=checks, steps=(step,),
                      params=(("leaf", leaf),))


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan detach POOL LEAF`."""
    inputs = read_inputs(host, req.pool)
    return build_detach(inputs.reading, req.pool, req.args[0])


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    pool, leaf = split_ref(answers["member"])
    inputs = read_inputs(host, pool)
    return build_detach(inputs.reading, pool, leaf)
