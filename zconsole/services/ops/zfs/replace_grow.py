"""Replace to grow: each member of a vdev in turn by a larger disk, waiting for each resilver
(on site: pulling each old disk), then claiming the space and proving the pool grew.

Registered as "replace-grow" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.GrowFlow` (answers: `vdev` = "pool<TAB>vdev", `new:MEMBER` = the new disk
for each member, `expand`, `site`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel, Plan, Step, predicate
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs import new_disk_smart as nds
from zconsole.services.ops.zfs.common import (
    Draft,
    disk_index,
    force_args,
    leaf_disk,
    new_name,
    read_inputs,
    split_ref,
    still_fit,
    yes_no,
)
from zconsole.services.ops.zfs.new_disk import (
    DiskName,
    check_new_disk,
    smallest_member,
    usable_bytes,
)
from zconsole.services.ops.zfs.replace import on_site_steps, replace_steps

EXPAND_CHOICES = ("online-e", "autoexpand")

# Check names added here (beside those of guards and new_disk).
DISK_COUNT = "disk-count"
DUPLICATE = "duplicate-disk"
GROWTH = "growth"
AUTOEXPAND = "autoexpand"


@dataclass(frozen=True)
class _Sizes:
    """The figures the growth is judged and proven by (bytes; None: unknown)."""

    old_min: int | None  # the smallest member now
    new_min: int | None  # the smallest new disk, as a leaf
    before: int | None  # the pool's SIZE now
    expand_before: int | None  # its EXPANDSZ now

    @property
    def growth(self) -> int | None:
        if self.new_min is None or self.old_min is None:
            return None
        return self.new_min - self.old_min

    @property
    def expected(self) -> int | None:
        """What SIZE must reach: half the expected growth, for metaslab rounding."""
        growth = self.growth
        if self.before is None or growth is None or growth <= 0:
            return None
        return self.before + growth // 2


def build_replace_grow(reading: HostReading, pool: str, vdev: str, new_disks: Sequence[str],
                       *, props: Mapping[str, str] | None = None,
                       findings: Sequence[Finding] | None = None, expand: str = "online-e",
                       on_site: bool = True, force: bool = False,
                       plan_id: str | None = None, now: float | None = None,
                       smart: Mapping[str, nds.SmartLook | None] | None = None) -> Plan:
    """Grow a vdev: replace each member in turn with a larger disk, waiting for each
    resilver; then claim the space (`expand`: "online-e" runs `zpool online -e` per new disk,
    "autoexpand" sets autoexpand=on before the first replace) and prove the growth.

    `new_disks` pairs with the vdev's members in `zpool status` order; `smart` holds each
    new disk's SMART as read for this plan (`new_disk_smart.looks`), by its name there.
    """
    if expand not in EXPAND_CHOICES:
        raise ValueError(f"expand must be 'online-e' or 'autoexpand', not {expand!r}")
    draft = Draft.on_pool("replace-grow", f"Grow {vdev} of {pool} with larger disks",
                          reading, pool, plan_id=plan_id, now=now)
    status = draft.status
    if status is None:
        return draft.pool_unread()
    found = guards.top_level(status, vdev)
    if found is None:
        return draft.blocked(f"{vdev} is not in pool {pool}.", name=guards.TARGET)
    _, top = found
    members = guards.leaves_of(top)
    resolved = [new_name(reading, d) for d in new_disks]
    sizes = _sizes(reading, pool, top, resolved)
    autoexpand_on = (props or {}).get("autoexpand") == "on"
    checks = _vdev_checks(status, top, members, new_disks, resolved)
    checks += [_growth_check(top, sizes), _autoexpand_check(expand, autoexpand_on)]
    steps: list[Step] = []
    preview: list[str] = [guards.describe_now(top) + "."]
    if expand == "autoexpand" and not autoexpand_on:
        steps.append(_autoexpand_step(pool))
    new_names: list[str] = []
    for i, (member, (dn, dev)) in enumerate(zip(members, resolved, strict=False), 1):
        member_checks = guards.check_replacement_target(status, member.name, findings,
                                                        purpose="grow")
        look = (smart or {}).get(new_disks[i - 1])
        disk_checks = check_new_disk(reading, pool, member.name, new_disks[i - 1],
                                     props=props, replacing=True, smart=look)
        member_checks += disk_checks
        checks += [Check(f"{c.name}#{i}", c.passed, c.level, f"Member {i} ({member.name} → "
                         f"{dn.zpool_name}): {c.detail}", c.force_flag) for c in member_checks]
        argv = ("zpool", "replace", *force_args(member_checks, force), pool, member.name,
                dn.path)
        fit = nds.with_smart(still_fit(pool, member.name, dn, dev, disk_checks, force,
                                       replacing=True), look)
        steps.extend(replace_steps(pool, member, dn, dev, argv, f"-{i}", fit))
        if on_site:
            steps.extend(on_site_steps(member, leaf_disk(reading, member), f"-{i}"))
        preview.extend(guards.redundancy_preview(status, member.name, "replace",
                                                 new=dn.zpool_name)[1:])
        new_names.append(dn.zpool_name)
    if expand == "online-e":
        steps.extend(_online_e_steps(pool, new_names))
    steps.extend(_proof_steps(pool, sizes))
    params = (("vdev", top.name), ("members", ",".join(m.name for m in members)),
              ("disks", ",".join(dn.path for dn, _ in resolved)), ("expand", expand),
              ("size_before", _num(sizes.before)),
              ("expandsz_before", _num(sizes.expand_before)),
              ("size_expected_at_least", _num(sizes.expected)),
              ("force", yes_no(force)))
    return draft.plan(title=f"Grow {top.name} of {pool} with larger disks", preview=preview,
                      checks=checks, steps=steps, params=params)


def _num(n: int | None) -> str:
    return "" if n is None else str(n)


def _sizes(reading: HostReading, pool: str, top: Vdev,
           resolved: Sequence[tuple[DiskName, Disk | None]]) -> _Sizes:
    _, old_min, _ = smallest_member(reading, pool, top, disk_index(reading))
    new_sizes = [usable_bytes(dev) for _, dev in resolved if dev is not None]
    new_min = min((s for s in new_sizes if s is not None), default=None)
    entry = reading.pool(pool)
    usage = entry.usage if entry is not None else None
    return _Sizes(old_min, new_min, usage.size if usage is not None else None,
                  usage.expandsize if usage is not None else None)


# --- checks


def _vdev_checks(status: Pool, top: Vdev, members: Sequence[Vdev], new_disks: Sequence[str],
                 resolved: Sequence[tuple[DiskName, Disk | None]]) -> list[Check]:
    """No replace running, one new disk per member, no disk chosen twice, no scrub."""
    checks: list[Check] = []
    if any(x.type in ("replacing", "spare") for _, x in top.walk()):
        checks.append(Check(guards.TARGET, False, CheckLevel.BLOCK,
                            f"{top.name} already has a replace in progress; wait for it."))
    if len(new_disks) != len(members):
        checks.append(Check(DISK_COUNT, False, CheckLevel.BLOCK,
                            f"{top.name} has {len(members)} members "
                            f"({', '.join(m.name for m in members)}): choose one new disk "
                            f"for each, {len(new_disks)} given."))
    seen: dict[str, str] = {}
    for ref, (_, dev) in zip(new_disks, resolved, strict=True):
        key = dev.name if dev is not None else ref
        if key in seen:
            checks.append(Check(DUPLICATE, False, CheckLevel.BLOCK,
                                f"{ref} is chosen twice (also as {seen[key]})."))
        seen[key] = ref
    return checks + guards.check_scrub(status)


def _growth_check(top: Vdev, sizes: _Sizes) -> Check:
    growth, old_min, new_min = sizes.growth, sizes.old_min, sizes.new_min
    if growth is None:
        return Check(GROWTH, False, CheckLevel.WARN,
                     "The growth cannot be computed (sizes unknown).")
    if growth <= 0:
        return Check(GROWTH, False, CheckLevel.WARN,
                     f"The smallest new disk gives {fmt.size(new_min)}, not more "
                     f"than the smallest member ({fmt.size(old_min)}): {top.name} "
                     "will not grow.")
    return guards.passed(GROWTH,
                         f"Each member grows from at least {fmt.size(old_min)} to at "
                         f"least {fmt.size(new_min)}: {top.name} can grow by about "
                         f"{fmt.size(growth)} once EVERY member is replaced.")


def _autoexpand_check(expand: str, autoexpand_on: bool) -> Check:
    if expand == "autoexpand":
        return guards.passed(AUTOEXPAND,
                             "autoexpand is already on: the pool grows when the last resilver "
                             "ends." if autoexpand_on else
                             "autoexpand is set to on before the first replace (a lasting "
                             "change: later larger disks grow the pool by themselves too).")
    return guards.passed(AUTOEXPAND,
                         "At the end zconsole runs `zpool online -e` for each new disk to "
                         "claim the space" + (" (autoexpand is on as well)." if autoexpand_on
                                      else "; autoexpand stays off."))


# --- steps


def _autoexpand_step(pool: str) -> Step:
    return Step(
        id="autoexpand",
        title=f"Turn autoexpand on for {pool}",
        explanation=("With autoexpand=on, ZFS claims the new space by itself when the "
                     "last member of the vdev has been replaced by a larger disk."),
        command=Command(("zpool", "set", "autoexpand=on", pool),
                        f"autoexpand=on for {pool}", writes=True),
        postchecks=(predicate("pool_property", f"autoexpand is on for {pool}", pool=pool,
                              property="autoexpand", value="on"),),
    )


def _online_e_steps(pool: str, new_names: Sequence[str]) -> list[Step]:
    return [Step(
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
    ) for i, name in enumerate(new_names, 1)]


def _proof_steps(pool: str, sizes: _Sizes) -> list[Step]:
    """Prove the growth (when one is expected), then list SIZE and EXPANDSZ for the log."""
    steps: list[Step] = []
    expected, before = sizes.expected, sizes.before
    if expected is not None and before is not None:
        steps.append(Step(
            id="prove-growth",
            title=f"Prove that {pool} grew",
            explanation=(f"SIZE was {fmt.size(before)} ({before} bytes) with "
                         f"EXPANDSZ {fmt.size(sizes.expand_before) if sizes.expand_before else '-'} "
                         f"before; it must now be at least {fmt.size(expected)} (half of "
                         "the expected growth, to allow for metaslab rounding)."),
            postchecks=(predicate("pool_size_at_least",
                                  f"{pool} SIZE is at least {expected} bytes (was "
                                  f"{before})", pool=pool, bytes=str(expected)),),
        ))
    steps.append(Step(
        id="show-size",
        title=f"Show SIZE and EXPANDSZ of {pool} now",
        explanation="A read-only listing kept in the audit log next to the figures before.",
        command=Command(("zpool", "list", "-v", "-H", "-p", pool),
                        f"SIZE and EXPANDSZ of {pool} after growing", writes=False),
    ))
    return steps


# --- entry points


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan replace-grow POOL VDEV DISK... [--expand ...] [--remote] [--force]`."""
    inputs = read_inputs(host, req.pool)
    new = list(req.args[1:])
    return build_replace_grow(inputs.reading, req.pool, req.args[0], new,
                              props=inputs.props, findings=inputs.findings,
                              expand=req.text("expand", "online-e"),
                              on_site=not req.flag("remote"), force=req.force,
                              smart=nds.looks(host, inputs.reading, new))


def members_of(reading: HostReading | None, pool: str, vdev: str) -> list[Vdev]:
    """The leaves of `vdev` in `zpool status` order: the members to replace, one by one."""
    pools = (reading.pool_status.value or ()) if reading is not None else ()
    found = next((p for p in pools if p.name == pool), None)
    top = found.find(vdev) if found is not None else None
    return list(top.leaves()) if top is not None else []


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    """The wizard's `new:MEMBER` answers are paired with the members of the fresh reading
    (a member that left the pool meanwhile has no new disk: the plan then blocks)."""
    pool, vdev = split_ref(answers["vdev"])
    inputs = read_inputs(host, pool)
    members = members_of(inputs.reading, pool, vdev)
    new = [n for n in (answers.get(f"new:{m.name}", "") for m in members) if n]
    return build_replace_grow(
        inputs.reading, pool, vdev, new, props=inputs.props,
        expand=answers.get("expand", "online-e"),
        on_site=answers.get("site", "on-site") == "on-site", force=force,
        smart=nds.looks(host, inputs.reading, new))
