"""Attach: a new disk beside a top-level disk (it becomes a 2-way mirror) or a mirror (one
more copy). One `zpool attach`, then a Wait step for the resilver.

On OpenZFS 2.3 the target may also be a raidz vdev (`zpool attach POOL raidz1-0 NEW`): a
raidz expansion (`build_expand`), watched through zpool's `expand:` progress; refused with
the reason on older versions, when an expansion already runs, or when the pool's
raidz_expansion feature is not enabled.

Registered as "attach" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.AttachFlow` (answers: `target` = "pool<TAB>leaf", `disk`).
"""

from __future__ import annotations

from collections.abc import Mapping

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.plan import Check, CheckLevel, Plan, Step, predicate
from zconsole.model.pool import Pool, ScanState, Vdev
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import (
    Draft,
    disk_index,
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
from zconsole.services.ops.zfs.new_disk import DiskName, check_new_disk, smallest_member, who


def _attach_plan(draft: Draft, status: Pool, target: str, dn: DiskName, dev: Disk | None,
                 checks: list[Check], disk_checks: list[Check], force: bool, *, expand: bool,
                 title: str, step_title: str, explanation: str, label: str) -> Plan:
    """The plan both kinds of attach end with: `zpool attach POOL TARGET NEW` (`dn` is not in
    yet, still fits, and is in afterwards), then the Wait step for what zpool starts, a
    resilver, or with `expand` a raidz expansion, until the new disk is ONLINE."""
    pool = draft.pool
    argv = ("zpool", "attach", *force_args(checks, force), pool, target, dn.path)
    attach = Step(
        id="attach",
        title=step_title,
        explanation=explanation,
        command=Command(argv, label, writes=True),
        prechecks=(*in_and_not_yet(pool, target, dn.zpool_name),
                   still_fit(pool, target, dn, dev, disk_checks, force, replacing=False)),
        postchecks=(predicate("vdev_present", f"{dn.zpool_name} is in {pool}", pool=pool,
                              name=dn.zpool_name),),
        confirmation=serial_confirmation(dn, dev, "Expanding" if expand else "Attaching"),
    )
    new_online = predicate("vdev_state", f"{dn.zpool_name} is ONLINE", pool=pool,
                           name=dn.zpool_name, state="ONLINE")
    if expand:
        watch_id, kind, watching = "expand", "raidz_expand", f"expansion of {target} in {pool}"
        watch_title = f"Expansion of {target}"
        about = ("ZFS copies every block of the vdev into the wider layout (zpool status: "
                 "expand:). Leaving the screen only stops watching.")
    else:
        watch_id, kind, watching = "resilver", "resilver", f"resilver of {dn.zpool_name} in {pool}"
        watch_title = f"Resilver {dn.zpool_name}"
        about = ("ZFS copies every allocated block of the vdev onto the new disk. The pool "
                 "stays in use; leaving the screen only stops watching.")
    watch = Step(id=watch_id, title=watch_title, explanation=about,
                 wait=resilver_wait(pool, kind, watching, (new_online,)),
                 postchecks=(new_online,))
    return draft.plan(
        title=title, checks=checks, steps=(attach, watch),
        preview=guards.redundancy_preview(status, target, "attach", new=dn.zpool_name),
        params=(("target", target), ("disk", dn.path),
                ("serial", dev.serial or "" if dev else ""), ("force", yes_no(force))))


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
    wide = status.find(target)
    if wide is not None and wide.type == "raidz":
        return build_expand(draft, reading, status, wide, disk, props=props, force=force)
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
    return _attach_plan(
        draft, status, leaf.name, dn, dev, checks, disk_checks, force, expand=False,
        title=(f"Attach {dn.zpool_name} to {top.name} in {pool}"
               + (f" (next to {leaf.name})" if top is not leaf else "")),
        step_title=f"Attach {dn.zpool_name} to {leaf.name}",
        explanation=(f"zpool writes a new GPT on {who(dev) if dev else disk} (partition 1 for "
                     "data, an 8 MiB partition 9) and starts a resilver that copies "
                     f"{top.name}'s data onto it. Everything on that disk is lost."),
        label=f"attach {dn.zpool_name} to {leaf.name}")


EXPAND = "raidz-expand"  # check names
EXPAND_FEATURE = "feature@raidz_expansion"


def _expand_blocks(pool: str, reading: HostReading, status: Pool, top: Vdev,
                   props: Mapping[str, str] | None) -> list[Check]:
    """What stops a raidz expansion: OpenZFS before 2.3, the pool feature not enabled, or
    another expansion still running."""
    checks: list[Check] = []
    version = reading.zfs.version
    shown = ".".join(str(x) for x in version) if version else "unknown"
    if version is None or version < (2, 3, 0):
        checks.append(Check(EXPAND, False, CheckLevel.BLOCK,
                            f"OpenZFS {shown} cannot widen a raidz vdev: raidz expansion "
                            f"(zpool attach {pool} {top.name} NEW) came with OpenZFS 2.3."))
    feature = (props or {}).get(EXPAND_FEATURE)
    if feature is not None and feature not in ("enabled", "active"):
        checks.append(Check(EXPAND, False, CheckLevel.BLOCK,
                            f"The pool's raidz_expansion feature is {feature}: `zpool upgrade "
                            f"{pool}` enables it (older OpenZFS can then no longer import "
                            f"{pool})."))
    running = status.expand
    if running is not None and running.state in (ScanState.IN_PROGRESS, ScanState.PAUSED):
        pct = (f" ({running.percent_done:.0f} %)" if running.percent_done is not None
               else "")
        checks.append(Check(EXPAND, False, CheckLevel.BLOCK,
                            f"One expansion at a time: {running.vdev or 'a raidz vdev'} of "
                            f"{pool} is still being expanded{pct}; attach the next disk when "
                            "it has finished."))
    return checks


def build_expand(draft: Draft, reading: HostReading, status: Pool, top: Vdev, disk: str, *,
                 props: Mapping[str, str] | None, force: bool) -> Plan:
    """Widen a raidz vdev by one disk (OpenZFS 2.3): `zpool attach POOL raidzP-N NEW`."""
    pool = draft.pool
    checks = _expand_blocks(pool, reading, status, top, props)
    disk_checks = check_new_disk(reading, pool, top.name, disk, props=props)
    checks += disk_checks
    checks += guards.check_scrub(status)
    n = len(top.children)
    parity = top.parity or 1
    index = disk_index(reading)
    _, smallest, _ = smallest_member(reading, pool, top, index)
    gain = f"about {fmt.size(smallest)}" if smallest else "one member's size"
    checks += [
        guards.passed("expand-data",
                      f"Data written before the expansion keeps its old data-to-parity ratio "
                      f"({n - parity} data + {parity} parity) until it is rewritten (copied or "
                      f"sent/received again); new writes use {n + 1 - parity} + {parity}. The "
                      "space reported for old data stays as it was."),
        guards.passed("expand-capacity",
                      f"{top.name} gains {gain} of raw capacity (one more member; the smallest "
                      "member counts) once the expansion ends; zpool list shows it."),
        guards.passed("expand-one",
                      f"One expansion at a time: {top.name} keeps its parity ({parity}) "
                      "throughout, and the pool stays in use; a scrub or resilver pauses the "
                      "expansion."),
    ]
    dn, dev = new_name(reading, disk)
    return _attach_plan(
        draft, status, top.name, dn, dev, checks, disk_checks, force, expand=True,
        title=f"Expand {top.name} with {dn.zpool_name} in {pool}",
        step_title=f"Attach {dn.zpool_name} to {top.name} (raidz expansion)",
        explanation=(f"zpool labels {who(dev) if dev else disk} and adds it to {top.name}; ZFS "
                     f"then reflows the vdev's data across {n + 1} disks. Everything on the "
                     "new disk is lost."),
        label=f"expand {top.name} with {dn.zpool_name}")


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
