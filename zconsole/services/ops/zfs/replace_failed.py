"""Replace a failed disk on site, from the degraded pool to a clean scrub.

Two ways in, the operator's answer to "where does the new disk go?" (`bay`):

* `free`: a free bay, or the new disk is already plugged in: `zpool replace POOL OLD NEW`,
  the resilver, then (the old disk still in) pull it;
* `same`: no free bay, the failed disk must come out first. This is two plans, because the
  new disk's name is not known before it is in the machine (and every command is shown
  exactly before it runs):
  1. the bay plan (`stage=bay`): `zpool offline POOL OLD` (unless ZFS already lost it), show
     the disk (`ledctl locate=` when ledmon is installed, else the activity blink on request,
     else by elimination: the serials that stay), then watch the disks until the old one is
     gone and a new one is in that passes every guard (`bay.py`, wait activity `disk-swap`);
  2. the replace plan (`stage=replace`): the disk that appeared, by its stable name, or
     `zpool replace POOL OLD` alone when the new disk took the old one's path (a by-path
     pool: the same bay gives the same name).

Afterwards (both ways): a hot spare that stood in goes back to AVAIL by itself once the
failed disk is replaced, and a step checks that it did; or (`spare=keep`) the spare stays
as the permanent member (`zpool detach POOL OLD`) and the new disk becomes the spare
(`zpool add POOL spare NEW`). Then `zpool clear` when error counters remain (`after=
clear-scrub`) and a scrub, watched to its end.

Registered as "replace-failed" (`zconsole plan replace-failed`, the Pools key `r`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zconsole.hosts.base import Host, HostError
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding, Severity
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
from zconsole.services.health import replace as health
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import bay as baymod
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import (
    Draft,
    disk_index,
    force_args,
    leaf_disk,
    new_name,
    read_inputs,
    resilver_wait,
    serial_confirmation,
    split_ref,
    still_fit,
    yes_no,
)
from zconsole.services.ops.zfs.new_disk import BY_PATH, DiskName, check_new_disk, who
from zconsole.services.ops.zfs.replace import _slot, on_site_steps, replace_steps
from zconsole.services.read import enclosure

KIND = "replace-failed"
BAYS = ("free", "same")
SPARE_CHOICES = ("return", "keep")
AFTER_CHOICES = ("scrub", "clear-scrub", "none")
IN_BAY = "@bay"  # the wizard's "disk" answer: the disk that appeared in the bay
SAME_BAY = "same-bay"  # check names
LOCATE = "locate"


@dataclass(frozen=True)
class Site:
    """What the host knows about finding disks: enclosure slots by kernel name, ledctl, and
    where the pool's vdev_id.conf names (/dev/disk/by-vdev/NAME) point now (NAME -> kernel
    name)."""

    ledctl: bool = False
    slots: Mapping[str, str] = field(default_factory=dict)
    by_vdev: Mapping[str, str] = field(default_factory=dict)


BY_VDEV = "/dev/disk/by-vdev/"


def _link_name(path: str, prefix: str) -> str:
    link = path[len(prefix) :]
    base, _, num = link.rpartition("-part")
    return base if base and num.isdigit() else link


def read_site(host: Host, pool: Pool | None = None) -> Site:
    by_vdev: dict[str, str] = {}
    for _, _, v in pool.walk() if pool is not None else ():
        if v.is_leaf and v.path and v.path.startswith(BY_VDEV):
            name = _link_name(v.path, BY_VDEV)
            try:
                real = host.realpath(BY_VDEV + name)
            except HostError:
                continue
            if real.startswith("/dev/") and real != BY_VDEV + name:
                by_vdev[name] = real.rsplit("/", 1)[-1]
    return Site(enclosure.has_ledctl(host), enclosure.read_slots(host), by_vdev)


def _where(dev: Disk | None, site: Site) -> str:
    if dev is None:
        return "slot unknown"
    slot = site.slots.get(dev.name)
    return f"{slot}, {_slot(dev)}" if slot else _slot(dev)


def _member_disks(reading: HostReading, status: Pool, old: str) -> list[tuple[str, Disk]]:
    index = disk_index(reading)
    out: list[tuple[str, Disk]] = []
    if index is None:
        return out
    for _, _, v in status.walk():
        if v.is_leaf and v.name != old:
            d = index.leaf_disk(v)
            if d is not None:
                out.append((v.name, d))
    return out


def _candidate(
    status: Pool, old: str, findings: Sequence[Finding] | None
) -> health.Candidate | None:
    return next((c for c in health.candidates(status, findings or ()) if c.name == old), None)


def locate_method(dev: Disk | None, site: Site, gone: bool) -> str:
    """ledctl, blink (steady reads, on request) or elimination."""
    if dev is None or gone:
        return "elimination"
    return "ledctl" if site.ledctl else "blink"


# ------------------------------------------------------------------------- the bay plan


def old_serial_hint(leaf: Vdev) -> str | None:
    """The serial a lost disk's by-id name carried (`was /dev/disk/by-id/ata-MODEL_SERIAL-
    part1` -> SERIAL): what its label should read. None when the name has none."""
    text = (leaf.note or "").removeprefix("was ") or leaf.path or ""
    if "/by-id/" not in text:
        return None
    link = text.rsplit("/", 1)[-1]
    base, _, num = link.rpartition("-part")
    link = base if base and num.isdigit() else link
    if link.startswith(("wwn-", "nvme-eui.")) or "_" not in link:
        return None
    return link.rsplit("_", 1)[-1] or None


def _bay_plan(
    draft: Draft,
    reading: HostReading,
    status: Pool,
    old_v: Vdev,
    findings: Sequence[Finding] | None,
    site: Site,
    spare: str,
    after: str,
) -> Plan:
    pool = draft.pool
    old = old_v.name
    checks = guards.check_replacement_target(status, old, findings)
    dev = leaf_disk(reading, old_v)
    gone = health.is_gone(old_v) or dev is None
    found = guards.top_level(status, old)
    top = found[1] if found is not None else None
    if not gone and guards.good(old_v) and top is not None and health.vdev_margin(top) < 1:
        checks.append(
            Check(
                SAME_BAY,
                False,
                CheckLevel.BLOCK,
                f"{old} holds the last good copy in {top.name}: taking it out "
                "would lose data (ZFS refuses the offline with 'no valid "
                "replicas'). Use a free bay, or replace the failed member first.",
            )
        )
    else:
        checks.append(
            Check(
                SAME_BAY,
                True,
                CheckLevel.INFO,
                f"{old} can leave its bay: "
                + ("ZFS lost it already." if gone else "the vdev keeps its data without it."),
            )
        )
    method = locate_method(dev, site, gone)
    base = baymod.baseline(
        reading, pool, old, None if gone else dev, _member_disks(reading, status, old)
    )
    serial = (dev.serial if dev is not None else None) or "unknown"
    checks.append(
        Check(
            LOCATE,
            method != "elimination",
            CheckLevel.INFO,
            {
                "ledctl": f"The disk is shown by its locate LED: ledctl locate= (ledmon) on "
                f"{dev.name if dev else old}.",
                "blink": "ledmon's ledctl is not installed: the disk is shown by its activity LED "
                "(i: steady reads from it, read-only), and by its serial.",
                "elimination": "The disk cannot be lit (ZFS no longer reaches it, or it has no "
                "block device): find it by elimination, by the serials that stay.",
            }[method],
        )
    )
    steps: list[Step] = []
    path = dev.by_id[0] if dev is not None and dev.by_id else (dev.name if dev else old)
    dev_path = ("/dev/disk/by-id/" + path) if dev is not None and dev.by_id else f"/dev/{path}"
    if not gone and old_v.state != "OFFLINE":
        steps.append(
            Step(
                id="offline",
                title=f"Take {old} offline",
                explanation=(
                    f"ZFS stops using {old}, so pulling it is an expected absence, not "
                    "a failure. It can be brought back with zpool online."
                ),
                command=Command(
                    ("zpool", "offline", pool, old), f"offline {old} in {pool}", writes=True
                ),
                prechecks=(
                    predicate("vdev_present", f"{old} is still in {pool}", pool=pool, name=old),
                ),
                postchecks=(
                    predicate(
                        "vdev_state", f"{old} is OFFLINE", pool=pool, name=old, state="OFFLINE"
                    ),
                ),
                confirmation=Confirmation(
                    f"Taking {old} offline leaves its vdev with less redundancy until the new "
                    f"disk is resilvered. Type the serial of the disk you will pull to go on:",
                    dev.serial if dev is not None and dev.serial else old,
                ),
            )
        )
    if method == "ledctl":
        steps.append(
            Step(
                id="locate",
                title=f"Light the locate LED of serial {serial}",
                explanation="ledmon's ledctl lights the slot's locate LED (it stays lit until "
                "zconsole puts it out after the swap).",
                command=Command(
                    ("ledctl", f"locate={dev_path}"), f"locate LED on {path}", writes=False
                ),
            )
        )
    stays = ", ".join(base.stays) or "none"
    find = {
        "ledctl": "Its locate LED is lit.",
        "blink": "Press i to make its activity LED blink (steady reads, read-only).",
        "elimination": f"Find it by elimination: these serials stay in the machine: {stays}. "
        "The disk to pull is the one whose serial is not in this list.",
    }[method]
    if dev is not None:
        what = (
            f"the disk with serial {serial} ({dev.model or 'model unknown'}, {_where(dev, site)})"
        )
    else:
        was = old_serial_hint(old_v)
        what = "the missing disk" + (
            f" (its old name ends in serial {was})" if was else f" ({old_v.note or old})"
        )
    steps.append(
        Step(
            id="find",
            title=f"Find {what}",
            explanation=f"Method: {method}. {find}",
            command=(
                Command(
                    ("dd", f"if={dev_path}", "of=/dev/null", "bs=1M", "count=2000", "iflag=direct"),
                    f"identify: steady reads from {path}",
                    writes=False,
                )
                if method == "blink"
                else None
            ),
            operator_action=(
                f"Find {what}. {find} Check the serial on its label, then press "
                "o and pull it: zconsole watches the disks."
            ),
        )
    )
    steps.append(
        Step(
            id="swap",
            title="Pull the old disk, insert the new one in the same bay",
            explanation=(
                "zconsole reads the disks again every few seconds and says what it "
                "sees; a new disk is checked by every guard of the replace before "
                "anything is written. Leaving only stops watching: the plan is saved "
                "and resumes here."
            ),
            wait=Wait(
                pool=pool,
                activity=baymod.ACTIVITY,
                description=f"swap of {old} in {pool}",
                until=(baymod.bay_predicate(base),),
            ),
        )
    )
    now_, *during = guards.redundancy_preview(status, old, "replace" if gone else "offline")
    preview = [now_, *(f"While the bay is empty: {d}" for d in during)]
    title = f"Same bay: swap {old} in {pool} (step 1 of 2: the bay)"
    return draft.plan(
        title=title,
        preview=preview,
        checks=checks,
        steps=steps,
        params=(
            ("stage", "bay"),
            ("old", old),
            ("bay", "same"),
            ("locate", method),
            ("spare", spare),
            ("after", after),
            *sorted(base.params().items()),
        ),
    )


# --------------------------------------------------------------------- the replace plan


def same_path(old_v: Vdev, dev: Disk | None, site: Site | None = None) -> str | None:
    """The name the new disk shares with the old leaf, said as "by-path NAME" or "by-vdev
    NAME" (the same bay of a pool named by path or by vdev_id.conf), else None."""
    if dev is None or not old_v.path:
        return None
    if old_v.path.startswith(BY_PATH):
        link = _link_name(old_v.path, BY_PATH)
        return f"by-path {link}" if link in dev.by_path else None
    if old_v.path.startswith(BY_VDEV) and site is not None:
        link = _link_name(old_v.path, BY_VDEV)
        return f"by-vdev {link}" if site.by_vdev.get(link) == dev.name else None
    return None


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
                predicate("vdev_present", f"{old} is still in {pool}", pool=pool, name=old),
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
                predicate("vdev_present", f"{old} is still in {pool}", pool=pool, name=old),
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


def after_steps(pool: str, status: Pool, old: str, after: str) -> tuple[Step, ...]:
    steps: list[Step] = []
    others = [
        v
        for _, _, v in status.walk()
        if v.is_leaf and v.name != old and any((v.read_errors, v.write_errors, v.checksum_errors))
    ]
    if after == "clear-scrub":
        counted = ", ".join(v.name for v in others) or "none besides the replaced disk"
        steps.append(
            Step(
                id="clear",
                title=f"Clear the error counters of {pool}",
                explanation=(
                    f"Counters left from the failure ({counted}) are reset, so a new "
                    "error stands out. Nothing about the data changes."
                ),
                command=Command(
                    ("zpool", "clear", pool), f"clear the error counters of {pool}", writes=True
                ),
            )
        )
    if after in ("scrub", "clear-scrub"):
        done = (predicate("no_scan", f"no scrub runs in {pool}", pool=pool),)
        steps.append(
            Step(
                id="scrub",
                title=f"Scrub {pool} to verify every block",
                explanation="ZFS reads and checks every block of the pool; errors it finds are "
                "repaired from the good copies and counted.",
                command=Command(("zpool", "scrub", pool), f"scrub {pool}", writes=True),
                prechecks=(
                    predicate("no_scan", f"no scrub or resilver runs in {pool}", pool=pool),
                ),
                wait=resilver_wait(pool, "scrub", f"scrub of {pool}", done),
            )
        )
    return tuple(steps)


def _replace_plan(
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
) -> Plan:
    pool, old = draft.pool, old_v.name
    cand = _candidate(status, old, findings)
    checks = guards.check_replacement_target(status, old, findings)
    disk_checks = check_new_disk(reading, pool, old, new, props=props, replacing=True)
    checks += disk_checks
    checks += guards.check_scrub(status)
    dn, dev = new_name(reading, new)
    fit = still_fit(pool, old, dn, dev, disk_checks, force, replacing=True)
    shared = same_path(old_v, dev, site)
    steps: list[Step] = []
    if bay == "same" and site.ledctl and dev is not None:
        steps.append(
            Step(
                id="locate-off",
                title="Put out the bay's locate LED",
                explanation="The slot's locate LED was lit to find the old disk; the new disk "
                "sits in the same slot.",
                command=Command(
                    ("ledctl", f"locate_off={dn.path}"), "locate LED off", writes=False
                ),
            )
        )
    keep = spare == "keep" and cand is not None and cand.under_spare is not None
    if keep:
        assert cand is not None and cand.under_spare is not None
        # after the detach the spare is the member the new disk's size is measured against
        fit_spare = still_fit(pool, cand.under_spare, dn, dev, disk_checks, force, replacing=True)
        steps += _keep_spare_steps(pool, old, cand.under_spare, dn, dev, fit_spare)
        checks.append(
            Check(
                "spare",
                True,
                CheckLevel.INFO,
                f"The hot spare {cand.under_spare} stays as the member; the new "
                "disk becomes the spare.",
            )
        )
    elif shared is not None:
        argv = ("zpool", "replace", *force_args(checks, force), pool, old)
        steps += _same_path_steps(pool, old, dn, dev, argv, fit)
        checks.append(
            Check(
                "same-path",
                True,
                CheckLevel.INFO,
                f"The new disk is at the old disk's path ({shared}): "
                f"`zpool replace {pool} {old}` without a new name.",
            )
        )
    else:
        argv = ("zpool", "replace", *force_args(checks, force), pool, old, dn.path)
        steps += replace_steps(pool, old_v, dn, dev, argv, "", fit)
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
    if cand is not None and cand.under_spare and not keep:
        sp = cand.under_spare
        steps.append(
            Step(
                id="spare-back",
                title=f"The hot spare {sp} is AVAIL again",
                explanation=(
                    f"Once {old} is replaced, ZFS detaches the spare {sp} from the "
                    "vdev by itself and puts it back in the spares list."
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
        )
    if bay == "free" and not health.is_gone(old_v):
        steps += on_site_steps(old_v, leaf_disk(reading, old_v), "")
    steps += after_steps(pool, status, old, after)
    preview = guards.redundancy_preview(status, old, "replace", new=dn.zpool_name)
    if cand is not None and cand.under_spare:
        top = cand.top.name
        preview = (
            preview[0],
            (
                f"The hot spare {cand.under_spare} holds {old}'s copy now. "
                + (
                    f"Afterwards it stays in {top} for good and {dn.zpool_name} waits as the spare."
                    if keep
                    else f"{top} keeps its copies during the resilver; then {dn.zpool_name} takes "
                    f"{old}'s place and {cand.under_spare} goes back to the spares (AVAIL): the "
                    "same number of copies as before the failure."
                )
            ),
        )
    name = who(dev) if dev is not None else dn.zpool_name
    title = (
        f"Replace {old} with {dn.zpool_name} in {pool}"
        if bay == "free"
        else f"Same bay: replace {old} in {pool} (step 2 of 2: the new disk {name})"
    )
    if keep and cand is not None:
        title = (
            f"Keep the spare {cand.under_spare} in place of {old}; {dn.zpool_name} "
            f"becomes the spare of {pool}"
        )
    return draft.plan(
        title=title,
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


# ---------------------------------------------------------------------------- builders


def build_replace_failed(
    reading: HostReading,
    pool: str,
    old: str,
    *,
    bay: str = "free",
    new: str | None = None,
    props: Mapping[str, str] | None = None,
    findings: Sequence[Finding] | None = None,
    force: bool = False,
    site: Site | None = None,
    spare: str = "return",
    after: str = "scrub",
    plan_id: str | None = None,
    now: float | None = None,
) -> Plan:
    """The bay plan (same bay, no new disk yet) or the replace plan (a new disk)."""
    if bay not in BAYS:
        raise ValueError(f"bay must be one of {', '.join(BAYS)}")
    draft = Draft.on_pool(KIND, f"Replace {old} in {pool}", reading, pool, plan_id=plan_id, now=now)
    status = draft.status
    if status is None:
        return draft.pool_unread()
    old_v = status.find(old)
    if old_v is None or old_v.children:
        return draft.blocked(f"{old} is not a disk of pool {pool}.", name=guards.TARGET)
    site = site or Site()
    if new is None:
        if bay == "free":
            return draft.blocked("A free bay needs the new disk's name.", name="disk-found")
        return _bay_plan(draft, reading, status, old_v, findings, site, spare, after)
    return _replace_plan(
        draft,
        reading,
        status,
        old_v,
        new,
        bay=bay,
        props=props,
        findings=findings,
        force=force,
        site=site,
        spare=spare,
        after=after,
    )


def disk_in_bay(
    reading: HostReading, base: baymod.Baseline, props: Mapping[str, str] | None = None
) -> str | None:
    """The new disk the bay plan saw arrive (kernel name), when it is there and fits."""
    sight = baymod.look_at_bay(reading, base, props)
    return sight.new.name if sight.new is not None and not sight.refusal else None


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    """The wizard's answers: old ("pool<TAB>leaf"), bay, disk (a disk, IN_BAY after the
    swap, absent for the bay plan), spare, after; baseline (the bay plan's, for IN_BAY)."""
    pool, old = split_ref(answers["old"])
    slow = answers.get("slow")
    findings = (
        [Finding("slow-disk", Severity.WARNING, old, slow, pool=pool)] if slow else None
    )
    inputs = read_inputs(host, pool, findings=findings)
    entry = inputs.reading.pool(pool)
    site = read_site(host, entry.status if entry is not None else None)
    new = answers.get("disk") or None
    if new == IN_BAY:
        fields = dict(x.split("=", 1) for x in answers.get("baseline", "").split("\n") if "=" in x)
        fields.setdefault("pool", pool)
        fields.setdefault("old", old)
        new = disk_in_bay(inputs.reading, baymod.Baseline.from_params(fields), inputs.props)
        if new is None:
            draft = Draft.on_pool(
                KIND, f"Replace {old} in {pool}", inputs.reading, pool, plan_id=None, now=None
            )
            return draft.blocked(
                "No new disk that fits is in the bay now: insert it, then start the replace again.",
                name="disk-found",
            )
    return build_replace_failed(
        inputs.reading,
        pool,
        old,
        bay=answers.get("bay", "free"),
        new=new,
        props=inputs.props,
        findings=inputs.findings,
        force=force,
        site=site,
        spare=answers.get("spare", "return"),
        after=answers.get("after", "scrub"),
    )


def baseline_answer(plan: Plan) -> str:
    """The bay plan's baseline as the wizard carries it to the replace plan."""
    keys = ("pool", "old", "old_serial", "old_disk", "stays", "members")
    return "\n".join(f"{k}={v}" for k, v in plan.params if k in keys)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan replace-failed POOL OLD [NEW] [--bay same] [--keep-spare]
    [--after scrub|clear-scrub|none] [--force]`."""
    inputs = read_inputs(host, req.pool)
    entry = inputs.reading.pool(req.pool)
    site = read_site(host, entry.status if entry is not None else None)
    return build_replace_failed(
        inputs.reading,
        req.pool,
        req.args[0],
        bay=req.text("bay", "free"),
        new=req.args[1] if len(req.args) > 1 else None,
        props=inputs.props,
        findings=inputs.findings,
        force=req.force,
        site=site,
        spare="keep" if req.flag("keep_spare") else "return",
        after=req.text("after", "scrub"),
    )
