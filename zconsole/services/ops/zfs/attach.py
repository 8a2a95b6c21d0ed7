"""Attach: a new disk beside a top-level disk (it becomes a 2-way mirror) or a mirror (one
more copy). One `zpool attach`, then a Wait step for the resilver.

Registered as "attach" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.AttachFlow` (answers: `target` = "pool<TAB>leaf", `disk`).
"""

from __future__ import annotations

from collections.abc import Mapping

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.plan import Check, Plan, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import (
    Draft,
    force_args,
    in_and_not_yet,
    new_name,
    read_inputs,
    resilver_wait,
    serial_confirmation,
    split_ref,
    still_fit,
    yes_no,
)
from zconsole.services.ops.zfs.new_disk import check_new_disk, who


def build_attach(reading: HostReading, pool: str, target: str, disk: str, *,
                 props: Mapping[str, str] | None = None, force: bool = False,
                 plan_id: str | None = None, now: float | None = None) -> Plan:
    """Attach `disk` to `target` (a top-level disk: it becomes a 2-way mirror; or a mirror or
    one of its members: the mirror gets one more copy)."""
    draft = Draft.on_pool("attach", f"Attach {disk} to {target} in {pool}", reading, pool,
                          plan_id=plan_id, now=now)
    status = draft.status
    if status is None:
        return draft.pool_unread()
    checks: list[Check] = guards.check_attach_target(status, target)
    leaf = guards.attach_leaf(status, target)
    if leaf is None:
        return draft.plan(checks=checks)
    disk_checks = check_new_disk(reading, pool, leaf.name, disk, props=props)
    checks += disk_checks
    checks += guards.check_scrub(status)
    dn, dev = new_name(reading, disk)
    found = guards.top_level(status, leaf.name)
    top = found[1] if found else leaf
    title = (f"Attach {dn.zpool_name} to {top.name} in {pool}"
             + (f" (next to {leaf.name})" if top is not leaf else ""))
    preview = guards.redundancy_preview(status, leaf.name, "attach", new=dn.zpool_name)
    argv = ("zpool", "attach", *force_args(checks, force), pool, leaf.name, dn.path)
    new_present = predicate("vdev_present", f"{dn.zpool_name} is in {pool}", pool=pool,
                            name=dn.zpool_name)
    new_online = predicate("vdev_state", f"{dn.zpool_name} is ONLINE", pool=pool,
                           name=dn.zpool_name, state="ONLINE")
    steps = (
        Step(
            id="attach",
            title=f"Attach {dn.zpool_name} to {leaf.name}",
            explanation=(f"zpool writes a new GPT on {who(dev) if dev else disk} (partition 1 "
                         "for data, an 8 MiB partition 9) and starts a resilver that copies "
                         f"{top.name}'s data onto it. Everything on that disk is lost."),
            command=Command(argv, f"attach {dn.zpool_name} to {leaf.name}", writes=True),
            prechecks=(*in_and_not_yet(pool, leaf.name, dn.zpool_name),
                       still_fit(pool, leaf.name, dn, dev, disk_checks, force,
                                 replacing=False)),
            postchecks=(new_present,),
            confirmation=serial_confirmation(dn, dev, "Attaching"),
        ),
        Step(
            id="resilver",
            title=f"Resilver {dn.zpool_name}",
            explanation=("ZFS copies every allocated block of the vdev onto the new disk. "
                         "The pool stays in use; leaving the screen only stops watching."),
            wait=resilver_wait(pool, "resilver", f"resilver of {dn.zpool_name} in {pool}",
                               (new_online,)),
            postchecks=(new_online,),
        ),
    )
    params = (("target", leaf.name), ("disk", dn.path),
              ("serial", dev.serial or "" if dev else ""), ("force", yes_no(force)))
    return draft.plan(title=title, preview=preview, checks=checks, steps=steps, params=params)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan attach POOL TARGET DISK [--force]`."""
    inputs = read_inputs(host, req.pool)
    return build_attach(inputs.reading, req.pool, req.args[0], req.args[1],
                        props=inputs.props, force=req.force)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    pool, target = split_ref(answers["target"])
    inputs = read_inputs(host, pool)
    return build_attach(inputs.reading, pool, target, answers["disk"], props=inputs.props,
                        force=force)
