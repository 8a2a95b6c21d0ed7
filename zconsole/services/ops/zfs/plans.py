"""Operation plans for the disk wizards: attach, detach, replace, replace-to-grow, dedup off.

Each builder is pure: it takes what was read from the host (a `HostReading`, the pool's
`zpool get` properties, slow-disk findings, a `DedupReport`) and returns a `model.plan.Plan`:
redundancy sentences first (`preview`), plan-time checks from `services.guards`, then steps
with the exact argv, runtime pre-checks, post-checks that prove each step happened, waits
(resilvers are Wait steps, never `-w`, so progress shows) and typed confirmations.

Rules every plan keeps:
* new disks are named `/dev/disk/by-id/<model_serial>` (by-path only without a by-id link;
  never sdX). Predicates name the new disk by the link name, which is what zpool prints;
* `-f` appears in an argv only when the caller passes `force=True`, which the UI does only
  after the operator confirmed every failing CONFIRM check a second time;
* a blocked plan (any failing BLOCK check) still carries its steps so the operator sees what
  would run, but `Plan.blocked` is True and nothing may run it;
* the typed confirmation is the serial of the disk that will be overwritten (attach,
  replace), the pool name (detach), or the dataset name (destroying the old copy of a
  rewritten dataset).

`read_inputs(host, pool)` gathers the inputs in one call for the CLI and the wizards' workers.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Confirmation,
    Plan,
    Predicate,
    Step,
    Wait,
    predicate,
)
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.zfs import guards
from zconsole.services.read.collect import collect, pool_properties
from zconsole.services.read.dedup import DedupReport, followers, roots
from zconsole.services.read.identity import DiskIndex

IDENTIFY_COUNT_MIB = 2000
REWRITE_SNAPSHOT = "zconsole-rewrite"
NEW_SUFFIX = ".nodedup"
OLD_SUFFIX = ".dedup-old"

# Check names added here (beside those of services.guards).
DISK_COUNT = "disk-count"
DUPLICATE = "duplicate-disk"
GROWTH = "growth"
AUTOEXPAND = "autoexpand"
NO_DEDUP = "no-dedup"
DEDUP_EXISTING = "existing-blocks"
REWRITE_SPACE = "rewrite-space"
REWRITE_CHILDREN = "rewrite-children"
REWRITE_CLONES = "rewrite-clones"
REWRITE_SNAPSHOTS = "rewrite-snapshots"
REWRITE_WRITERS = "rewrite-writers"


@dataclass(frozen=True)
class PlanInputs:
    """What a plan builder reads: one snapshot, the pool's properties, and the slow-disk
    findings when the console has samples (None: slowness not checked)."""

    reading: HostReading
    props: Mapping[str, str]
    findings: Sequence[Finding] | None = None


def read_inputs(host: Host, pool: str, *, findings: Sequence[Finding] | None = None,
                timeout: float = 30.0) -> PlanInputs:
    """Collect the host and `zpool get all POOL` (blocking: call from a worker)."""
    snap = collect(host, timeout=timeout)
    part = pool_properties(host, pool, timeout=timeout)
    props = {p.property: p.value for p in part.value or ()}
    return PlanInputs(snap, props, findings)


# ------------------------------------------------------------------------------- helpers


def _id(plan_id: str | None) -> str:
    return plan_id or uuid.uuid4().hex


def _when(reading: HostReading | None, now: float | None) -> float:
    if now is not None:
        return now
    if reading is not None and reading.taken_at:
        return reading.taken_at
    return time.time()


def _blocked(kind: str, title: str, host: str, pool: str, detail: str, *,
             plan_id: str | None, created: float, name: str = guards.POOL_READ) -> Plan:
    return Plan(id=_id(plan_id), kind=kind, title=title, host=host, pool=pool,
                created_at=created,
                checks=(Check(name, False, CheckLevel.BLOCK, detail),))


def _pool_status(reading: HostReading, pool: str) -> Pool | None:
    entry = reading.pool(pool)
    return entry.status if entry is not None else None


def _pool_missing(reading: HostReading, pool: str) -> str:
    if not reading.pool_status.ok:
        return (f"zpool status could not be read ({reading.pool_status.error}): nothing is "
                "changed without knowing the pool's state.")
    return f"There is no imported pool named {pool} on {reading.host}."


def _disk(reading: HostReading, ref: str) -> Disk | None:
    inv = reading.disks.value if reading.disks.ok else None
    if inv is None:
        return None
    return DiskIndex(inv.devices).find(ref)


def _index(reading: HostReading) -> DiskIndex | None:
    inv = reading.disks.value if reading.disks.ok else None
    return DiskIndex(inv.devices) if inv is not None else None


def _new_name(reading: HostReading, ref: str) -> tuple[guards.DiskName, Disk | None]:
    dev = _disk(reading, ref)
    if dev is not None:
        return guards.disk_name(dev), dev
    # Unknown disk: keep the operator's words; the checks already block the plan.
    path = ref if ref.startswith("/") else guards.BY_ID + ref
    return guards.DiskName(path, path.rsplit("/", 1)[-1], False, "as given"), None


def _serial_confirmation(dn: guards.DiskName, dev: Disk | None, action: str) -> Confirmation:
    serial = dev.serial if dev is not None and dev.serial else None
    what = guards.describe_disk(dev) if dev is not None else dn.path
    if serial:
        return Confirmation(f"{action} overwrites everything on {what}. Type its serial "
                            f"number to go on:", serial)
    return Confirmation(f"{action} overwrites everything on {what}. Type its name "
                        f"({dn.zpool_name}) to go on:", dn.zpool_name)


def _force_args(checks: Sequence[Check], force: bool) -> tuple[str, ...]:
    return ("-f",) if force and any(c.needs_force for c in checks) else ()


def _slot(dev: Disk | None) -> str:
    """Where the disk sits, from its by-path name: 'ATA port 3 (pci-0000:00:17.0-ata-3)'."""
    if dev is None or not dev.by_path:
        return "slot unknown"
    path = dev.by_path[0]
    tail = path.rsplit("-", 2)
    if len(tail) == 3 and tail[1] in ("ata", "sas", "usb") and tail[2].isdigit():
        return f"{tail[1].upper()} port {tail[2]} ({path})"
    return path


def _leaf_disk(reading: HostReading, leaf: Vdev) -> Disk | None:
    index = _index(reading)
    return index.leaf_disk(leaf) if index is not None else None


def _resilver_wait(pool: str, activity: str, text: str, until: tuple[Predicate, ...]) -> Wait:
    return Wait(pool=pool, activity=activity, description=text, until=until)


# ---------------------------------------------------------------------------------- attach


def build_attach(reading: HostReading, pool: str, target: str, disk: str, *,
                 props: Mapping[str, str] | None = None, force: bool = False,
                 plan_id: str | None = None, now: float | None = None) -> Plan:
    """Attach `disk` to `target` (a top-level disk: it becomes a 2-way mirror; or a mirror or
    one of its members: the mirror gets one more copy)."""
    created = _when(reading, now)
    title = f"Attach {disk} to {target} in {pool}"
    status = _pool_status(reading, pool)
    if status is None:
        return _blocked("attach", title, reading.host, pool, _pool_missing(reading, pool),
                        plan_id=plan_id, created=created)
    checks: list[Check] = guards.check_attach_target(status, target)
    leaf = guards.attach_leaf(status, target)
    if leaf is None:
        return Plan(id=_id(plan_id), kind="attach", title=title, host=reading.host,
                    pool=pool, created_at=created, checks=tuple(checks))
    checks += guards.check_new_disk(reading, pool, leaf.name, disk, props=props)
    checks += guards.check_scrub(status)
    dn, dev = _new_name(reading, disk)
    found = guards.top_level(status, leaf.name)
    top = found[1] if found else leaf
    title = (f"Attach {dn.zpool_name} to {top.name} in {pool}"
             + (f" (next to {leaf.name})" if top is not leaf else ""))
    preview = guards.redundancy_preview(status, leaf.name, "attach", new=dn.zpool_name)
    argv = ("zpool", "attach", *_force_args(checks, force), pool, leaf.name, dn.path)
    new_present = predicate("vdev_present", f"{dn.zpool_name} is in {pool}", pool=pool,
                            name=dn.zpool_name)
    new_online = predicate("vdev_state", f"{dn.zpool_name} is ONLINE", pool=pool,
                           name=dn.zpool_name, state="ONLINE")
    steps = (
        Step(
            id="attach",
            title=f"Attach {dn.zpool_name} to {leaf.name}",
            explanation=(f"zpool writes a new GPT on {guards.who(dev) if dev else disk} (partition 1 "
                         "for data, an 8 MiB partition 9) and starts a resilver that copies "
                         f"{top.name}'s data onto it. Everything on that disk is lost."),
            command=Command(argv, f"attach {dn.zpool_name} to {leaf.name}", writes=True),
            prechecks=(
                predicate("vdev_present", f"{leaf.name} is still in {pool}", pool=pool,
                          name=leaf.name),
                predicate("vdev_absent", f"{dn.zpool_name} is not in {pool} yet", pool=pool,
                          name=dn.zpool_name),
            ),
            postchecks=(new_present,),
            confirmation=_serial_confirmation(dn, dev, "Attaching"),
        ),
        Step(
            id="resilver",
            title=f"Resilver {dn.zpool_name}",
            explanation=("ZFS copies every allocated block of the vdev onto the new disk. "
                         "The pool stays in use; leaving the screen only stops watching."),
            wait=_resilver_wait(pool, "resilver", f"resilver of {dn.zpool_name} in {pool}",
                                (new_online,)),
            postchecks=(new_online,),
        ),
    )
    params = (("target", leaf.name), ("disk", dn.path),
              ("serial", dev.serial or "" if dev else ""), ("force", "yes" if force else "no"))
    return Plan(id=_id(plan_id), kind="attach", title=title, host=reading.host, pool=pool,
                created_at=created, preview=preview, checks=tuple(checks), steps=steps,
                params=params)


# ---------------------------------------------------------------------------------- detach


def build_detach(reading: HostReading, pool: str, leaf: str, *,
                 plan_id: str | None = None, now: float | None = None) -> Plan:
    """Detach `leaf` from its mirror (or one half of a replacing/spare vdev)."""
    created = _when(reading, now)
    title = f"Detach {leaf} from {pool}"
    status = _pool_status(reading, pool)
    if status is None:
        return _blocked("detach", title, reading.host, pool, _pool_missing(reading, pool),
                        plan_id=plan_id, created=created)
    checks = guards.check_detach(status, leaf)
    parent = guards.parent_of(status, leaf)
    if parent is not None:
        title = f"Detach {leaf} from {parent.name} in {pool}"
    preview = guards.redundancy_preview(status, leaf, "detach")
    prechecks = [predicate("vdev_present", f"{leaf} is still in {pool}", pool=pool, name=leaf)]
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
    return Plan(id=_id(plan_id), kind="detach", title=title, host=reading.host, pool=pool,
                created_at=created, preview=preview, checks=tuple(checks), steps=(step,),
                params=(("leaf", leaf),))


# --------------------------------------------------------------------------------- replace


def _replace_steps(pool: str, old: Vdev, dn: guards.DiskName, dev: Disk | None,
                   argv: tuple[str, ...], suffix: str) -> tuple[Step, Step]:
    new_present = predicate("vdev_present", f"{dn.zpool_name} is in {pool}", pool=pool,
                            name=dn.zpool_name)
    done = (
        predicate("container_absent", f"no replacing vdev is left in {pool}", pool=pool,
                  type="replacing"),
        predicate("vdev_state", f"{dn.zpool_name} is ONLINE", pool=pool, name=dn.zpool_name,
                  state="ONLINE"),
        predicate("vdev_absent", f"{old.name} has left {pool}", pool=pool, name=old.name),
    )
    return (
        Step(
            id=f"replace{suffix}",
            title=f"Replace {old.name} with {dn.zpool_name}",
            explanation=(f"zpool labels {guards.who(dev) if dev else dn.path} and puts it next to "
                         f"{old.name} in a replacing vdev; {old.name} keeps serving reads "
                         "until the new disk holds every block, then ZFS detaches it by "
                         "itself. Everything on the new disk is lost."),
            command=Command(argv, f"replace {old.name} with {dn.zpool_name}", writes=True),
            prechecks=(
                predicate("vdev_present", f"{old.name} is still in {pool}", pool=pool,
                          name=old.name),
                predicate("vdev_absent", f"{dn.zpool_name} is not in {pool} yet", pool=pool,
                          name=dn.zpool_name),
                predicate("container_absent", f"no other replace is running in {pool}",
                          pool=pool, type="replacing"),
            ),
            postchecks=(new_present,),
            confirmation=_serial_confirmation(dn, dev, "Replacing"),
        ),
        Step(
            id=f"resilver{suffix}",
            title=f"Resilver {dn.zpool_name}; {old.name} leaves at the end",
            explanation=("ZFS copies the vdev's data onto the new disk, then removes the "
                         "replacing-N container and the old disk. Leaving the screen only "
                         "stops watching: ZFS carries on."),
            wait=_resilver_wait(pool, "replace",
                                f"replace of {old.name} by {dn.zpool_name} in {pool}", done),
            postchecks=done,
        ),
    )


def _on_site_steps(old: Vdev, old_dev: Disk | None, suffix: str) -> tuple[Step, ...]:
    """The operator pulls the old disk once it has left the pool. The step's command is an
    optional read-only helper ("identify", run only on request): steady reads from the old
    disk so its activity LED shows which one to pull."""
    if old_dev is None:
        return (Step(
            id=f"pull{suffix}",
            title=f"Pull the old disk {old.name}",
            explanation="zconsole could not match it to a block device.",
            operator_action=(f"{old.name} is no longer in the pool. zconsole cannot tell its "
                             "serial or slot: find it by elimination before pulling anything."),
        ),)
    name = guards.disk_name(old_dev)
    serial = old_dev.serial or "unknown"
    slot = _slot(old_dev)
    return (Step(
        id=f"pull{suffix}",
        title=f"Pull the old disk, serial {serial}",
        explanation=(f"{name.zpool_name} has left the pool; pulling it now loses nothing. "
                     f"Identify (on request) reads {IDENTIFY_COUNT_MIB} MiB from it "
                     "(read-only, bypassing the page cache) so its activity LED stays lit "
                     "for a while: the disk to pull is the busy one."),
        command=Command(("dd", f"if={name.path}", "of=/dev/null", "bs=1M",
                         f"count={IDENTIFY_COUNT_MIB}", "iflag=direct"),
                        f"identify: steady reads from {name.zpool_name} so its LED blinks",
                        writes=False),
        operator_action=(f"Pull the disk with serial {serial} ({old_dev.model or 'model unknown'}"
                         f", {slot}). It is no longer part of the pool. Check the serial on "
                         "its label before pulling."),
    ),)


def build_replace(reading: HostReading, pool: str, old: str, new: str, *,
                  props: Mapping[str, str] | None = None,
                  findings: Sequence[Finding] | None = None, force: bool = False,
                  on_site: bool = False, plan_id: str | None = None,
                  now: float | None = None) -> Plan:
    """Replace one (failed) disk: warns loudly when `old` looks healthy."""
    created = _when(reading, now)
    title = f"Replace {old} with {new} in {pool}"
    status = _pool_status(reading, pool)
    if status is None:
        return _blocked("replace", title, reading.host, pool, _pool_missing(reading, pool),
                        plan_id=plan_id, created=created)
    old_v = status.find(old)
    if old_v is None or old_v.children:
        return _blocked("replace", title, reading.host, pool,
                        f"{old} is not a disk of pool {pool}.", plan_id=plan_id,
                        created=created, name=guards.TARGET)
    checks = guards.check_replacement_target(status, old_v.name, findings)
    checks += guards.check_new_disk(reading, pool, old_v.name, new, props=props,
                                    replacing=True)
    checks += guards.check_scrub(status)
    dn, dev = _new_name(reading, new)
    argv = ("zpool", "replace", *_force_args(checks, force), pool, old_v.name, dn.path)
    steps: tuple[Step, ...] = _replace_steps(pool, old_v, dn, dev, argv, "")
    if on_site:
        steps += _on_site_steps(old_v, _leaf_disk(reading, old_v), "")
    preview = guards.redundancy_preview(status, old_v.name, "replace", new=dn.zpool_name)
    return Plan(id=_id(plan_id), kind="replace", title=f"Replace {old_v.name} with "
                f"{dn.zpool_name} in {pool}", host=reading.host, pool=pool,
                created_at=created, preview=preview, checks=tuple(checks), steps=steps,
                params=(("old", old_v.name), ("disk", dn.path),
                        ("force", "yes" if force else "no")))


# ------------------------------------------------------------------------- replace to grow


def build_replace_grow(reading: HostReading, pool: str, vdev: str, new_disks: Sequence[str],
                       *, props: Mapping[str, str] | None = None,
                       findings: Sequence[Finding] | None = None, expand: str = "online-e",
                       on_site: bool = True, force: bool = False,
                       plan_id: str | None = None, now: float | None = None) -> Plan:
    """Grow a vdev: replace each member in turn with a larger disk, waiting for each
    resilver; then claim the space (`expand`: "online-e" runs `zpool online -e` per new disk,
    "autoexpand" sets autoexpand=on before the first replace) and prove the growth.

    `new_disks` pairs with the vdev's members in `zpool status` order.
    """
    if expand not in ("online-e", "autoexpand"):
        raise ValueError(f"expand must be 'online-e' or 'autoexpand', not {expand!r}")
    created = _when(reading, now)
    title = f"Grow {vdev} of {pool} with larger disks"
    status = _pool_status(reading, pool)
    if status is None:
        return _blocked("replace-grow", title, reading.host, pool,
                        _pool_missing(reading, pool), plan_id=plan_id, created=created)
    found = guards.top_level(status, vdev)
    if found is None:
        return _blocked("replace-grow", title, reading.host, pool,
                        f"{vdev} is not in pool {pool}.", plan_id=plan_id, created=created,
                        name=guards.TARGET)
    _, top = found
    title = f"Grow {top.name} of {pool} with larger disks"
    members = guards.leaves_of(top)
    checks: list[Check] = []
    if any(x.type in ("replacing", "spare") for _, x in top.walk()):
        checks.append(Check(guards.TARGET, False, CheckLevel.BLOCK,
                            f"{top.name} already has a replace in progress; wait for it."))
    if len(new_disks) != len(members):
        checks.append(Check(DISK_COUNT, False, CheckLevel.BLOCK,
                            f"{top.name} has {len(members)} members "
                            f"({', '.join(m.name for m in members)}): choose one new disk "
                            f"for each, {len(new_disks)} given."))
    resolved = [_new_name(reading, d) for d in new_disks]
    seen: dict[str, str] = {}
    for ref, (_, dev) in zip(new_disks, resolved, strict=True):
        key = dev.name if dev is not None else ref
        if key in seen:
            checks.append(Check(DUPLICATE, False, CheckLevel.BLOCK,
                                f"{ref} is chosen twice (also as {seen[key]})."))
        seen[key] = ref
    checks += guards.check_scrub(status)

    index = _index(reading)
    _, old_min, _ = guards.smallest_member(reading, pool, top, index)
    new_sizes = [guards.usable_bytes(dev) for _, dev in resolved if dev is not None]
    new_min = min((s for s in new_sizes if s is not None), default=None)
    entry = reading.pool(pool)
    usage = entry.usage if entry is not None else None
    size_before = usage.size if usage is not None else None
    expand_before = usage.expandsize if usage is not None else None
    growth = (new_min - old_min) if new_min is not None and old_min is not None else None
    if growth is None:
        checks.append(Check(GROWTH, False, CheckLevel.WARN,
                            "The growth cannot be computed (sizes unknown)."))
    elif growth <= 0:
        checks.append(Check(GROWTH, False, CheckLevel.WARN,
                            f"The smallest new disk gives {fmt.size(new_min)}, not more "
                            f"than the smallest member ({fmt.size(old_min)}): {top.name} "
                            "will not grow."))
    else:
        checks.append(Check(GROWTH, True, CheckLevel.INFO,
                            f"Each member grows from at least {fmt.size(old_min)} to at "
                            f"least {fmt.size(new_min)}: {top.name} can grow by about "
                            f"{fmt.size(growth)} once EVERY member is replaced."))
    autoexpand_on = (props or {}).get("autoexpand") == "on"
    if expand == "autoexpand":
        checks.append(Check(AUTOEXPAND, True, CheckLevel.INFO,
                            "autoexpand is already on: the pool grows when the last resilver "
                            "ends." if autoexpand_on else
                            "autoexpand is set to on before the first replace (a lasting "
                            "change: later larger disks grow the pool by themselves too)."))
    else:
        checks.append(Check(AUTOEXPAND, True, CheckLevel.INFO,
                            "At the end zconsole runs `zpool online -e` for each new disk to "
                            "claim the space" + (" (autoexpand is on as well)." if autoexpand_on
                                                 else "; autoexpand stays off.")))

    steps: list[Step] = []
    preview: list[str] = [guards.describe_now(top) + "."]
    if expand == "autoexpand" and not autoexpand_on:
        steps.append(Step(
            id="autoexpand",
            title=f"Turn autoexpand on for {pool}",
            explanation=("With autoexpand=on, ZFS claims the new space by itself when the "
                         "last member of the vdev has been replaced by a larger disk."),
            command=Command(("zpool", "set", "autoexpand=on", pool),
                            f"autoexpand=on for {pool}", writes=True),
            postchecks=(predicate("pool_property", f"autoexpand is on for {pool}", pool=pool,
                                  property="autoexpand", value="on"),),
        ))
    new_names: list[str] = []
    for i, (member, (dn, dev)) in enumerate(zip(members, resolved, strict=False), 1):
        member_checks = guards.check_replacement_target(status, member.name, findings,
                                                        purpose="grow")
        member_checks += [c for c in guards.check_new_disk(reading, pool, member.name,
                                                           new_disks[i - 1], props=props,
                                                           replacing=True)]
        checks += [Check(f"{c.name}#{i}", c.passed, c.level, f"Member {i} ({member.name} → "
                         f"{dn.zpool_name}): {c.detail}", c.force_flag) for c in member_checks]
        force_args = _force_args(member_checks, force)
        argv = ("zpool", "replace", *force_args, pool, member.name, dn.path)
        steps.extend(_replace_steps(pool, member, dn, dev, argv, f"-{i}"))
        if on_site:
            steps.extend(_on_site_steps(member, _leaf_disk(reading, member), f"-{i}"))
        preview.extend(guards.redundancy_preview(status, member.name, "replace",
                                                 new=dn.zpool_name)[1:])
        new_names.append(dn.zpool_name)

    if expand == "online-e":
        for i, name in enumerate(new_names, 1):
            steps.append(Step(
                id=f"expand-{i}",
                title=f"Claim the new space of {name}",
                explanation=("`zpool online -e` tells ZFS to use the whole of the larger "
                             "disk; the vdev grows once every member has been expanded."),
                command=Command(("zpool", "online", "-e", pool, name),
                                f"expand {name} to its full size", writes=True),
                prechecks=(predicate("vdev_state", f"{name} is ONLINE", pool=pool, name=name,
                                     state="ONLINE"),),
                postchecks=(predicate("vdev_state", f"{name} is ONLINE", pool=pool,
                                      name=name, state="ONLINE"),),
            ))
    expected = None
    if size_before is not None and growth is not None and growth > 0:
        expected = size_before + growth // 2
        steps.append(Step(
            id="prove-growth",
            title=f"Prove that {pool} grew",
            explanation=(f"SIZE was {fmt.size(size_before)} ({size_before} bytes) with "
                         f"EXPANDSZ {fmt.size(expand_before) if expand_before else '-'} "
                         f"before; it must now be at least {fmt.size(expected)} (half of "
                         "the expected growth, to allow for metaslab rounding)."),
            postchecks=(predicate("pool_size_at_least",
                                  f"{pool} SIZE is at least {expected} bytes (was "
                                  f"{size_before})", pool=pool, bytes=str(expected)),),
        ))
    steps.append(Step(
        id="show-size",
        title=f"Show SIZE and EXPANDSZ of {pool} now",
        explanation="A read-only listing kept in the audit log next to the figures before.",
        command=Command(("zpool", "list", "-v", "-H", "-p", pool),
                        f"SIZE and EXPANDSZ of {pool} after growing", writes=False),
    ))
    params = (("vdev", top.name), ("members", ",".join(m.name for m in members)),
              ("disks", ",".join(dn.path for dn, _ in resolved)), ("expand", expand),
              ("size_before", "" if size_before is None else str(size_before)),
              ("expandsz_before", "" if expand_before is None else str(expand_before)),
              ("size_expected_at_least", "" if expected is None else str(expected)),
              ("force", "yes" if force else "no"))
    return Plan(id=_id(plan_id), kind="replace-grow", title=title, host=reading.host,
                pool=pool, created_at=created, preview=tuple(preview), checks=tuple(checks),
                steps=tuple(steps), params=params)


# ------------------------------------------------------------------------------- dedup off


def _children(reading: HostReading | None, name: str) -> list[str]:
    if reading is None or reading.datasets.value is None:
        return []
    return [d.name for d in reading.datasets.value if d.name.startswith(name + "/")]


def _clones_of(reading: HostReading | None, name: str) -> list[str]:
    if reading is None or reading.datasets.value is None:
        return []
    return [d.name for d in reading.datasets.value
            if d.origin and d.origin.split("@", 1)[0] == name]


def _available(reading: HostReading | None, name: str) -> int | None:
    if reading is None or reading.datasets.value is None:
        return None
    parent = name.rsplit("/", 1)[0] if "/" in name else name
    for d in reading.datasets.value:
        if d.name == parent:
            return d.avail
    return None


def _rewrite_steps(pool: str, ds: str, kind: str | None, i: int) -> list[Step]:
    snap = f"{ds}@{REWRITE_SNAPSHOT}"
    new = ds + NEW_SUFFIX
    old = ds + OLD_SUFFIX
    fs = kind != "volume"
    steps = [
        Step(id=f"rewrite-{i}-readonly", title=f"Stop writes to {ds}",
             explanation=(f"readonly=on makes every later write to {ds} fail, so nothing "
                          "written after the snapshot is lost when the copy takes its place."),
             command=Command(("zfs", "set", "readonly=on", ds), f"stop writes to {ds}",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{ds} is read-only", dataset=ds,
                                   property="readonly", value="on"),)),
        Step(id=f"rewrite-{i}-snapshot", title=f"Snapshot {ds}",
             explanation="The copy is made from this snapshot.",
             command=Command(("zfs", "snapshot", snap), f"snapshot {ds} for the copy",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{snap} exists", dataset=snap,
                                   property="type", value="snapshot"),)),
        Step(id=f"rewrite-{i}-copy", title=f"Copy {ds} to {new} without dedup",
             explanation=("zfs send writes every block again through zfs receive; with "
                          "dedup=off on the receiving side none of them enters the dedup "
                          "table. -p keeps the dataset's own properties; -u leaves the copy "
                          "unmounted until the swap."),
             command=Command(("zfs", "send", "-p", snap),
                             f"rewrite {ds} into {new} without dedup", writes=True,
                             then=(("zfs", "receive", "-u", "-o", "dedup=off", "-o",
                                    "readonly=off", new),)),
             prechecks=(predicate("dataset_property", f"{ds} is read-only", dataset=ds,
                                  property="readonly", value="on"),),
             postchecks=(predicate("dataset_property", f"{new} has dedup=off", dataset=new,
                                   property="dedup", value="off"),)),
        Step(id=f"rewrite-{i}-rename-old", title=f"Rename {ds} to {old}",
             explanation="The old copy steps aside; it is destroyed at the end.",
             command=Command(("zfs", "rename", ds, old), f"move {ds} aside", writes=True),
             postchecks=(predicate("dataset_property", f"{old} exists", dataset=old,
                                   property="readonly", value="on"),)),
    ]
    if fs:
        steps.append(Step(
            id=f"rewrite-{i}-unmount-old", title=f"Unmount {old} for good",
            explanation=("mountpoint=none unmounts the old copy and keeps it from mounting "
                         "again (it fails if a process still has files open there)."),
            command=Command(("zfs", "set", "mountpoint=none", old), f"unmount {old}",
                            writes=True),
            postchecks=(predicate("dataset_property", f"{old} is not mounted", dataset=old,
                                  property="mounted", value="no"),)))
    steps.append(Step(
        id=f"rewrite-{i}-rename-new", title=f"Rename {new} to {ds}",
        explanation=f"The rewritten copy takes the name {ds}.",
        command=Command(("zfs", "rename", new, ds), f"put the copy in place of {ds}",
                        writes=True),
        postchecks=(predicate("dataset_property", f"{ds} is the copy without dedup",
                              dataset=ds, property="dedup", value="off"),)))
    if fs:
        steps.append(Step(
            id=f"rewrite-{i}-mount", title=f"Mount {ds}",
            explanation="The copy is mounted where the old dataset was.",
            command=Command(("zfs", "mount", ds), f"mount {ds}", writes=True),
            postchecks=(predicate("dataset_property", f"{ds} is mounted", dataset=ds,
                                  property="mounted", value="yes"),)))
    steps.append(Step(
        id=f"rewrite-{i}-destroy-old", title=f"Destroy {old} and its snapshots",
        explanation=("This frees the old, deduplicated blocks; the dedup table shrinks as "
                     "ZFS processes the frees (in the background, `zpool get freeing`). "
                     "The old snapshots go with it: that history is gone."),
        command=Command(("zfs", "destroy", "-r", old), f"destroy the old copy of {ds}",
                        writes=True),
        prechecks=(predicate("dataset_property", f"{ds} is the copy without dedup",
                             dataset=ds, property="dedup", value="off"),),
        confirmation=Confirmation(f"Destroying {old} deletes the old copy of {ds} and all its "
                                  f"snapshots. Type the dataset name ({ds}) to go on:", ds)))
    return steps


def build_dedup_off(report: DedupReport, datasets: Sequence[str] | None = None, *,
                    rewrite: Sequence[str] = (), reading: HostReading | None = None,
                    host: str | None = None, plan_id: str | None = None,
                    now: float | None = None) -> Plan:
    """Turn dedup off for `datasets` (default: every dataset where it is set), optionally
    rewriting some of them (send/receive into a copy, swap, destroy the old) so the table
    shrinks, and show the table at the end."""
    pool = report.pool
    created = _when(reading, now)
    host_label = host or (reading.host if reading is not None else "")
    title = f"Turn dedup off on {pool}"
    checks: list[Check] = []
    try:
        chosen = roots(report, datasets)
    except ValueError as e:
        return _blocked("dedup-off", title, host_label, pool, str(e), plan_id=plan_id,
                        created=created, name=NO_DEDUP)
    if not chosen:
        return Plan(id=_id(plan_id), kind="dedup-off", title=title, host=host_label, pool=pool,
                    created_at=created, preview=report.lines(),
                    checks=(Check(NO_DEDUP, False, CheckLevel.BLOCK,
                                  f"No dataset of {pool} has dedup on: nothing to turn off."),))
    checks.append(Check(DEDUP_EXISTING, False, CheckLevel.WARN,
                        "dedup=off affects NEW writes only: every block already written "
                        "deduplicated keeps its table entry until it is freed or rewritten, "
                        "and snapshots keep those blocks alive. The table (and its RAM) "
                        "shrinks only by rewriting the data."))
    steps: list[Step] = []
    for d in chosen:
        follow = followers(report, d.name)
        also = (f" {len(follow)} dataset(s) inheriting from it follow: "
                + ", ".join(f.name for f in follow) + ".") if follow else ""
        post = [predicate("dataset_property", f"{d.name} has dedup=off", dataset=d.name,
                          property="dedup", value="off")]
        post += [predicate("dataset_property", f"{f.name} has dedup=off (inherited)",
                           dataset=f.name, property="dedup", value="off") for f in follow]
        steps.append(Step(
            id=f"dedup-off-{len(steps) + 1}",
            title=f"dedup=off on {d.name}",
            explanation=f"New writes to {d.name} are no longer deduplicated.{also}",
            command=Command(("zfs", "set", "dedup=off", d.name), f"dedup off for {d.name}",
                            writes=True),
            postchecks=tuple(post),
        ))
    for i, name in enumerate(rewrite, 1):
        rd = report.dataset(name)
        if rd is None:
            checks.append(Check(NO_DEDUP, False, CheckLevel.BLOCK,
                                f"{name} does not have dedup on: nothing to rewrite."))
            continue
        kids = _children(reading, name)
        if kids:
            checks.append(Check(REWRITE_CHILDREN, False, CheckLevel.BLOCK,
                                f"{name} has child datasets ({', '.join(kids[:5])}"
                                f"{', ...' if len(kids) > 5 else ''}): renaming it would move "
                                "them too. Rewrite each child instead."))
        clones = _clones_of(reading, name)
        if clones:
            checks.append(Check(REWRITE_CLONES, False, CheckLevel.BLOCK,
                                f"Clones depend on snapshots of {name} ({', '.join(clones)}):"
                                " the old copy could not be destroyed without them."))
        avail = _available(reading, name)
        need = rd.referenced
        if need is None or avail is None:
            checks.append(Check(REWRITE_SPACE, False, CheckLevel.WARN,
                                f"Free space for the copy of {name} could not be checked."))
        elif avail < need:
            checks.append(Check(REWRITE_SPACE, False, CheckLevel.BLOCK,
                                f"The copy of {name} needs about {fmt.size(need)} without "
                                f"dedup; only {fmt.size(avail)} is available."))
        else:
            checks.append(Check(REWRITE_SPACE, True, CheckLevel.INFO,
                                f"The copy of {name} needs about {fmt.size(need)}; "
                                f"{fmt.size(avail)} is available."))
        checks.append(Check(REWRITE_WRITERS, False, CheckLevel.WARN,
                            f"Stop every writer of {name} first ("
                            + ("VMs using /dev/zvol/" + name + ": the device is replaced"
                               if rd.kind == "volume" else "applications, shares")
                            + "): from the first rewrite step it is read-only until the swap."))
        checks.append(Check(REWRITE_SNAPSHOTS, False, CheckLevel.WARN,
                            f"The snapshots of {name} stay with the old copy and are destroyed "
                            "with it; the copy starts with one snapshot, "
                            f"@{REWRITE_SNAPSHOT}."))
        steps.extend(_rewrite_steps(pool, name, rd.kind, i))
    steps.append(Step(
        id="show-ddt",
        title=f"Show the dedup table of {pool} now",
        explanation=(f"Before: {report.entries:,} entries" if report.entries is not None
                     else "Before: unknown") + (
            f", {fmt.size(report.ram_bytes)} in core" if report.ram_bytes is not None
            else "") + ". Freed blocks leave the table as ZFS processes the frees.",
        command=Command(("zpool", "status", "-D", pool), f"the dedup table of {pool}",
                        writes=False),
    ))
    params = (("datasets", ",".join(d.name for d in chosen)), ("rewrite", ",".join(rewrite)),
              ("ddt_entries_before", "" if report.entries is None else str(report.entries)),
              ("ddt_core_bytes_before", "" if report.ram_bytes is None
               else str(report.ram_bytes)))
    return Plan(id=_id(plan_id), kind="dedup-off", title=title, host=host_label, pool=pool,
                created_at=created, preview=report.lines(), checks=tuple(checks),
                steps=tuple(steps), params=params)
