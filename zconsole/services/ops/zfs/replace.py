"""Replace: one (failed) disk by a new one. `zpool replace`, then a Wait step until the
replacing vdev is gone; on site, a step where the operator pulls the old disk (with an optional
read-only "identify" helper that makes its activity LED blink).

Registered as "replace" in `services.ops.registry` (`zconsole plan replace`; no wizard yet).
`replace_steps` and `on_site_steps` are shared with `replace_grow.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, Plan, Predicate, Step, predicate
from zconsole.model.pool import Vdev
from zconsole.model.reading import HostReading
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import (
    Draft,
    force_args,
    in_and_not_yet,
    leaf_disk,
    new_name,
    read_inputs,
    resilver_wait,
    serial_confirmation,
    still_fit,
    yes_no,
)
from zconsole.services.ops.zfs.new_disk import DiskName, check_new_disk, disk_name, who
from zconsole.services.ops.zfs.new_disk_smart import (
    SmartLook,
    add_evidence,
    look_at,
    old_evidence,
    with_smart,
)

IDENTIFY_COUNT_MIB = 2000


def _slot(dev: Disk | None) -> str:
    """Where the disk sits, from its by-path name: 'ATA port 3 (pci-0000:00:17.0-ata-3)'."""
    if dev is None or not dev.by_path:
        return "slot unknown"
    path = dev.by_path[0]
    tail = path.rsplit("-", 2)
    if len(tail) == 3 and tail[1] in ("ata", "sas", "usb") and tail[2].isdigit():
        return f"{tail[1].upper()} port {tail[2]} ({path})"
    return path


SERVING_STATES = ("ONLINE", "DEGRADED")


def old_disk_role(old: Vdev) -> str:
    """What the disk being replaced does during `zpool replace`, by its state: an ONLINE or
    DEGRADED disk keeps serving reads (and takes writes) until the new disk holds every
    block; an UNAVAIL, FAULTED, REMOVED or OFFLINE one serves nothing, so the new disk is
    built from the vdev's other members alone. Either way ZFS detaches it at the end
    (zpool-replace(8): attach, resilver, then detach)."""
    if old.state in SERVING_STATES:
        return (f"{old.name} ({old.state}) keeps serving reads until the new disk holds "
                "every block, then ZFS detaches it by itself.")
    return (f"{old.name} is {old.state} and serves nothing: the new disk is rebuilt from the "
            "vdev's other members (their copies or parity) alone, and ZFS detaches "
            f"{old.name} when the resilver ends.")


def replace_steps(pool: str, old: Vdev, dn: DiskName, dev: Disk | None,
                   argv: tuple[str, ...], suffix: str,
                   fit: Predicate | None = None) -> tuple[Step, Step]:
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
            explanation=(f"zpool labels {who(dev) if dev else dn.path} and puts it next to "
                         f"{old.name} in a replacing vdev; {old_disk_role(old)} Everything on "
                         "the new disk is lost."),
            command=Command(argv, f"replace {old.name} with {dn.zpool_name}", writes=True),
            prechecks=(
                *in_and_not_yet(pool, old.name, dn.zpool_name),
                predicate("container_absent", f"no other replace is running in {pool}",
                          pool=pool, type="replacing"),
                *((fit,) if fit is not None else ()),
            ),
            postchecks=(new_present,),
            confirmation=serial_confirmation(dn, dev, "Replacing"),
        ),
        Step(
            id=f"resilver{suffix}",
            title=f"Resilver {dn.zpool_name}; {old.name} leaves at the end",
            explanation=("ZFS copies the vdev's data onto the new disk, then removes the "
                         "replacing-N container and the old disk. Leaving the screen only "
                         "stops watching: ZFS carries on."),
            wait=resilver_wait(pool, "replace",
                                f"replace of {old.name} by {dn.zpool_name} in {pool}", done),
            postchecks=done,
        ),
    )


def on_site_steps(old: Vdev, old_dev: Disk | None, suffix: str) -> tuple[Step, ...]:
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
    name = disk_name(old_dev)
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
                  now: float | None = None, smart: SmartLook | None = None,
                  evidence: Check | None = None) -> Plan:
    """Replace one (failed) disk: warns loudly when `old` looks healthy. `smart`: the new
    disk's SMART as read for this plan, `evidence`: the old disk's (`new_disk_smart`)."""
    draft = Draft.on_pool("replace", f"Replace {old} with {new} in {pool}", reading, pool,
                          plan_id=plan_id, now=now)
    found = draft.disk(old)
    if isinstance(found, Plan):
        return found
    status, old_v = found
    checks = guards.check_replacement_target(status, old_v.name, findings)
    disk_checks = check_new_disk(reading, pool, old_v.name, new, props=props, replacing=True,
                                 smart=smart)
    checks += disk_checks
    checks += guards.check_scrub(status)
    dn, dev = new_name(reading, new)
    argv = ("zpool", "replace", *force_args(checks, force), pool, old_v.name, dn.path)
    fit = with_smart(still_fit(pool, old_v.name, dn, dev, disk_checks, force, replacing=True),
                     smart)
    steps: tuple[Step, ...] = replace_steps(pool, old_v, dn, dev, argv, "", fit)
    if on_site:
        steps += on_site_steps(old_v, leaf_disk(reading, old_v), "")
    preview = guards.redundancy_preview(status, old_v.name, "replace", new=dn.zpool_name)
    return add_evidence(draft.plan(title=f"Replace {old_v.name} with {dn.zpool_name} in {pool}",
                                   preview=preview, checks=checks, steps=steps,
                                   params=(("old", old_v.name), ("disk", dn.path),
                                           ("force", yes_no(force)))), evidence)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan replace POOL OLD NEW [--force] [--on-site]`."""
    inputs = read_inputs(host, req.pool)
    return build_replace(inputs.reading, req.pool, req.args[0], req.args[1],
                         props=inputs.props, findings=inputs.findings, force=req.force,
                         on_site=req.flag("on_site"),
                         smart=look_at(host, inputs.reading, req.args[1]),
                         evidence=old_evidence(host, inputs.reading, req.pool, req.args[0]))
