"""The replace plan of a failed disk (`stage=replace`, or a free bay): the new disk takes the
failed one's place, then the steps afterwards.

`zpool replace POOL OLD NEW` and the resilver; or `zpool replace POOL OLD` alone when the new
disk took the old one's path (a by-path or by-vdev pool: the same bay gives the same name);
or (`spare=keep`) the hot spare stays as the member (`zpool detach POOL OLD`) and the new disk
becomes the spare (`zpool add POOL spare NEW`). Afterwards a returning spare is checked to be
AVAIL again, then the steps of `replace_failed_after.py` (a scrub by default; `zpool clear`
only of the new disk, never of the pool; what is still wrong). The entry is `replace_failed.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Predicate, Step, predicate
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import HostReading
from zconsole.services.health import replace as health
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import (
    Draft,
    force_args,
    leaf_disk,
    new_name,
    resilver_wait,
    serial_confirmation,
    still_fit,
    still_in,
    yes_no,
)
from zconsole.services.ops.zfs.new_disk import BY_PATH, DiskName, check_new_disk, who
from zconsole.services.ops.zfs.new_disk_smart import SmartLook, with_smart
from zconsole.services.ops.zfs.replace import on_site_steps, replace_steps
from zconsole.services.ops.zfs.replace_failed_after import CLEARS, after_steps
from zconsole.services.ops.zfs.replace_failed_bay import BY_VDEV, Site, link_name


def same_path(old_v: Vdev, dev: Disk | None, site: Site | None = None) -> str | None:
    """The name the new disk shares with the old leaf, said as "by-path NAME" or "by-vdev
    NAME" (the same bay of a pool named by path or by vdev_id.conf), else None."""
    if dev is None or not old_v.path:
        return None
    if old_v.path.startswith(BY_PATH):
        link = link_name(old_v.path, BY_PATH)
        return f"by-path {link}" if link in dev.by_path else None
    if old_v.path.startswith(BY_VDEV) and site is not None:
        link = link_name(old_v.path, BY_VDEV)
        return f"by-vdev {link}" if site.by_vdev.get(link) == dev.name else None
    return None


def _candidate(
    status: Pool, old: str, findings: Sequence[Finding] | None
) -> health.Candidate | None:
    return next((c for c in health.candidates(status, findings or ()) if c.name == old), None)


# ------------------------------------------------------------------------------- steps


def _same_path_steps(
    pool: str,
    old: str,
    dn: DiskName,
    dev: Disk | None,
    argv: tuple[str, ...],
    fit: Predicate | None,
) -> tuple[Step, Step]:
    done = (
        predicate(
            "container_absent", f"no replacing vdev is left in {pool}", pool=pool, type="replacing"
        ),
        predicate("vdev_state", f"{old} is ONLINE", pool=pool, name=old, state="ONLINE"),
    )
    return (
        Step(
            id="replace",
            title=f"Replace {old} by the new disk at the same path",
            explanation=(
                f"The new disk took the old one's path ({dn.path}): zpool finds "
                f"it there, so the command names only {old}. Everything on the new "
                "disk is lost."
            ),
            command=Command(argv, f"replace {old} with the disk now at its path", writes=True),
            prechecks=(
                still_in(pool, old),
                predicate(
                    "container_absent",
                    f"no other replace is running in {pool}",
                    pool=pool,
                    type="replacing",
                ),
                *((fit,) if fit is not None else ()),
            ),
            postchecks=(predicate("vdev_present", f"{old} is in {pool}", pool=pool, name=old),),
            confirmation=serial_confirmation(dn, dev, "Replacing"),
        ),
        Step(
            id="resilver",
            title=f"Resilver the new disk at {old}",
            explanation="ZFS copies the vdev's data onto the new disk. Leaving the screen "
            "only stops watching: ZFS carries on.",
            wait=resilver_wait(pool, "replace", f"replace of {old} in {pool}", done),
            postchecks=done,
        ),
    )


def _keep_spare_steps(
    pool: str, old: str, spare: str, dn: DiskName, dev: Disk | None, fit: Predicate | None
) -> tuple[Step, Step]:
    return (
        Step(
            id="detach-failed",
            title=f"Detach {old}: {spare} becomes a permanent member",
            explanation=(
                f"The hot spare {spare} already holds a full copy; detaching the "
                f"failed {old} makes it a permanent member of the vdev (it leaves "
                "the spares list)."
            ),
            command=Command(
                ("zpool", "detach", pool, old), f"detach {old} from {pool}", writes=True
            ),
            prechecks=(
                still_in(pool, old),
                predicate(
                    "vdev_state",
                    f"{spare} (the spare) is ONLINE",
                    pool=pool,
                    name=spare,
                    state="ONLINE",
                ),
            ),
            postchecks=(
                predicate("vdev_absent", f"{old} is no longer in {pool}", pool=pool, name=old),
            ),
            confirmation=Confirmation(
                f"Detaching {old} keeps {spare} for good. Type the pool name to go on:", pool
            ),
        ),
        Step(
            id="add-spare",
            title=f"Add {dn.zpool_name} as the new hot spare",
            explanation="The new disk waits as the pool's hot spare (AVAIL).",
            command=Command(
                ("zpool", "add", pool, "spare", dn.path),
                f"add {dn.zpool_name} as a spare of {pool}",
                writes=True,
            ),
            prechecks=(
                predicate(
                    "vdev_absent",
                    f"{dn.zpool_name} is not in {pool} yet",
                    pool=pool,
                    name=dn.zpool_name,
                ),
                *((fit,) if fit is not None else ()),
            ),
            postchecks=(
                predicate(
                    "vdev_state",
                    f"{dn.zpool_name} is an AVAIL spare",
                    pool=pool,
                    name=dn.zpool_name,
                    state="AVAIL",
                ),
            ),
            confirmation=serial_confirmation(dn, dev, "Adding it as a spare"),
        ),
    )


def _locate_off_step(dn: DiskName) -> Step:
    """`ledctl locate_off=NEW`: the bay plan lit the slot's LED to find the old disk."""
    return Step(
        id="locate-off",
        title="Put out the bay's locate LED",
        explanation="The slot's locate LED was lit to find the old disk; the new disk "
        "sits in the same slot.",
        command=Command(("ledctl", f"locate_off={dn.path}"), "locate LED off", writes=False),
    )


def _spare_back_step(pool: str, old: str, sp: str) -> Step:
    """No command: checks that the hot spare went back to AVAIL by itself."""
    return Step(
        id="spare-back",
        title=f"The hot spare {sp} is AVAIL again",
        explanation=(
            f"Once {old} is replaced, ZFS detaches the spare {sp} from the "
            "vdev by itself and puts it back in the spares list (zpoolconcepts(7), Hot "
            f"Spares). If it did not, `zpool detach {pool} {sp}` returns it."
        ),
        postchecks=(
            predicate(
                "vdev_state",
                f"{sp} is an AVAIL spare again",
                pool=pool,
                name=sp,
                state="AVAIL",
            ),
        ),
    )


# ----------------------------------------------------------------- the replace plan


def _member_steps(
    pool: str,
    old_v: Vdev,
    dn: DiskName,
    dev: Disk | None,
    checks: list[Check],
    *,
    spare_member: str | None,
    shared: str | None,
    disk_checks: list[Check],
    fit: Predicate | None,
    force: bool,
    smart: SmartLook | None = None,
) -> list[Step]:
    """The steps that put the new disk in (the spare kept, the same path, or by its name);
    appends the check that says which way to `checks`."""
    old = old_v.name
    if spare_member is not None:
        # after the detach the spare is the member the new disk's size is measured against
        fit_spare = with_smart(
            still_fit(pool, spare_member, dn, dev, disk_checks, force, replacing=True), smart)
        checks.append(
            Check(
                "spare",
                True,
                CheckLevel.INFO,
                f"The hot spare {spare_member} stays as the member; the new "
                "disk becomes the spare.",
            )
        )
        return list(_keep_spare_steps(pool, old, spare_member, dn, dev, fit_spare))
    if shared is not None:
        argv = ("zpool", "replace", *force_args(checks, force), pool, old)
        steps = list(_same_path_steps(pool, old, dn, dev, argv, fit))
        checks.append(
            Check(
                "same-path",
                True,
                CheckLevel.INFO,
                f"The new disk is at the old disk's path ({shared}): "
                f"`zpool replace {pool} {old}` without a new name.",
            )
        )
        return steps
    argv = ("zpool", "replace", *force_args(checks, force), pool, old, dn.path)
    steps = list(replace_steps(pool, old_v, dn, dev, argv, "", fit))
    if old_v.path and old_v.path.startswith((BY_PATH, BY_VDEV)):
        checks.append(
            Check(
                "same-path",
                True,
                CheckLevel.INFO,
                f"{old} is named by its path, but the new disk is not at it: "
                f"the command names the new disk ({dn.via}).",
            )
        )
    return steps


def _spare_preview(
    preview: Sequence[str], cand: health.Candidate, old: str, new: str, keep: bool
) -> tuple[str, ...]:
    """The preview's second line when a hot spare stands in for the failed disk."""
    top = cand.top.name
    return (
        preview[0],
        (
            f"The hot spare {cand.under_spare} holds {old}'s copy now. "
            + (
                f"Afterwards it stays in {top} for good and {new} waits as the spare."
                if keep
                else f"{top} keeps its copies during the resilver; then {new} takes "
                f"{old}'s place and {cand.under_spare} goes back to the spares (AVAIL): the "
                "same number of copies as before the failure."
            )
        ),
    )


def _replace_title(
    pool: str, old: str, dn: DiskName, dev: Disk | None, bay: str, kept: str | None
) -> str:
    """The plan's title: by the bay, or the spare kept in place of the failed disk."""
    if kept is not None:
        return (
            f"Keep the spare {kept} in place of {old}; {dn.zpool_name} "
            f"becomes the spare of {pool}"
        )
    name = who(dev) if dev is not None else dn.zpool_name
    return (
        f"Replace {old} with {dn.zpool_name} in {pool}"
        if bay == "free"
        else f"Same bay: replace {old} in {pool} (step 2 of 2: the new disk {name})"
    )


def replace_plan(
    draft: Draft,
    reading: HostReading,
    status: Pool,
    old_v: Vdev,
    new: str,
    *,
    bay: str,
    props: Mapping[str, str] | None,
    findings: Sequence[Finding] | None,
    force: bool,
    site: Site,
    spare: str,
    after: str,
    smart: SmartLook | None = None,
) -> Plan:
    """The new disk in (free bay, or step 2 of 2 of the same bay), then spare, clear, scrub.
    `smart`: the new disk's SMART as read for this plan (`new_disk_smart`)."""
    pool, old = draft.pool, old_v.name
    cand = _candidate(status, old, findings)
    checks = guards.check_replacement_target(status, old, findings)
    disk_checks = check_new_disk(reading, pool, old, new, props=props, replacing=True,
                                 smart=smart)
    checks += disk_checks
    checks += guards.check_scrub(status)
    dn, dev = new_name(reading, new)
    fit = with_smart(still_fit(pool, old, dn, dev, disk_checks, force, replacing=True), smart)
    steps: list[Step] = []
    if bay == "same" and site.ledctl and dev is not None:
        steps.append(_locate_off_step(dn))
    kept = cand.under_spare if spare == "keep" and cand is not None else None
    shared = None if kept is not None else same_path(old_v, dev, site)
    steps += _member_steps(
        pool,
        old_v,
        dn,
        dev,
        checks,
        spare_member=kept,
        shared=shared,
        disk_checks=disk_checks,
        fit=fit,
        force=force,
        smart=smart,
    )
    if cand is not None and cand.under_spare and kept is None:
        steps.append(_spare_back_step(pool, old, cand.under_spare))
    if bay == "free" and not health.is_gone(old_v):
        steps += on_site_steps(old_v, leaf_disk(reading, old_v), "")
    # the device this plan put in: zpool names it by the path the command gave
    member = None if kept is not None else (
        shared.split(" ", 1)[1] if shared is not None else dn.zpool_name)
    if member is None and after in CLEARS:
        checks.append(guards.passed("clear",
                                    f"No zpool clear: the spare {kept} stays as the member, and "
                                    "zconsole clears only a device the plan itself put in."))
    steps += after_steps(pool, status, old, after, member)
    preview = guards.redundancy_preview(status, old, "replace", new=dn.zpool_name)
    if cand is not None and cand.under_spare:
        preview = _spare_preview(preview, cand, old, dn.zpool_name, kept is not None)
    return draft.plan(
        title=_replace_title(pool, old, dn, dev, bay, kept),
        preview=preview,
        checks=checks,
        steps=steps,
        params=(
            ("stage", "replace"),
            ("old", old),
            ("bay", bay),
            ("disk", dn.path),
            ("spare", spare),
            ("after", after),
            ("force", yes_no(force)),
        ),
    )
