"""Replace a failed disk on site, from the degraded pool to a clean scrub.

Two ways in, the operator's answer to "where does the new disk go?" (`bay`):

* `free`: a free bay, or the new disk is already plugged in: `zpool replace POOL OLD NEW`,
  the resilver, then (the old disk still in) pull it;
* `spare` (the first answer when it applies): the pool's AVAIL hot spare goes in now
  (`zpool replace POOL OLD SPARE`, `replace_failed_spare.py`); the new disk later, by this
  plan again: the spare then goes back to AVAIL by itself;
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
(`zpool add POOL spare NEW`). Then a scrub, watched to its end (`after`, default), and what is
still wrong in the pool (`replace_failed_after.py`): `zpool clear` only ever names the new
disk, or (a separate, non-default choice with its evidence) another device; never the pool.

Registered as "replace-failed" (`zconsole plan replace-failed`, the Pools key `r`). This module
is the entry (the builders the registry and the wizard call); the bay plan is in
`replace_failed_bay.py`, the replace plan and the steps afterwards in `replace_failed_new.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding, Severity
from zconsole.model.plan import Check, Plan
from zconsole.model.reading import HostReading
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import bay as baymod
from zconsole.services.ops.zfs import new_disk_smart as nds
from zconsole.services.ops.zfs.common import Draft, read_inputs, split_ref
from zconsole.services.ops.zfs.new_disk_smart import SmartLook
from zconsole.services.ops.zfs.replace_failed_after import AFTER_CHOICES, after_steps
from zconsole.services.ops.zfs.replace_failed_bay import (
    BY_VDEV,
    LOCATE,
    SAME_BAY,
    Site,
    bay_plan,
    locate_method,
    old_serial_hint,
    read_site,
)
from zconsole.services.ops.zfs.replace_failed_new import replace_plan, same_path
from zconsole.services.ops.zfs.replace_failed_spare import find_spare, spare_in_plan

__all__ = [
    "AFTER_CHOICES",
    "BAYS",
    "BY_VDEV",
    "IN_BAY",
    "KIND",
    "LOCATE",
    "SAME_BAY",
    "SPARE_CHOICES",
    "Site",
    "after_steps",
    "baseline_answer",
    "build_replace_failed",
    "disk_in_bay",
    "locate_method",
    "old_serial_hint",
    "plan_cli",
    "plan_wizard",
    "read_site",
    "same_path",
]

KIND = "replace-failed"
BAYS = ("free", "same", "spare")
SPARE_CHOICES = ("return", "keep")
IN_BAY = "@bay"  # the wizard's "disk" answer: the disk that appeared in the bay


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
    smart: SmartLook | None = None,
    evidence: Check | None = None,
) -> Plan:
    """The bay plan (same bay, no new disk yet) or the replace plan (a new disk). `smart`:
    the new disk's SMART as read for this plan; `evidence`: the failing disk's
    (`new_disk_smart`), shown as a NOTE."""
    return nds.add_evidence(_build(reading, pool, old, bay=bay, new=new, props=props,
                                   findings=findings, force=force, site=site, spare=spare,
                                   after=after, plan_id=plan_id, now=now, smart=smart),
                            evidence)


def _build(
    reading: HostReading,
    pool: str,
    old: str,
    *,
    bay: str,
    new: str | None,
    props: Mapping[str, str] | None,
    findings: Sequence[Finding] | None,
    force: bool,
    site: Site | None,
    spare: str,
    after: str,
    plan_id: str | None,
    now: float | None,
    smart: SmartLook | None,
) -> Plan:
    if bay not in BAYS:
        raise ValueError(f"bay must be one of {', '.join(BAYS)}")
    draft = Draft.on_pool(KIND, f"Replace {old} in {pool}", reading, pool, plan_id=plan_id, now=now)
    found = draft.disk(old)
    if isinstance(found, Plan):
        return found
    status, old_v = found
    site = site or Site()
    if bay == "spare" or (new is not None and find_spare(reading, status, new) is not None):
        if new is None:
            return draft.blocked("Name the hot spare that goes in.", name="disk-found")
        return spare_in_plan(draft, reading, status, old_v, new, findings)
    if new is None:
        if bay == "free":
            return draft.blocked("A free bay needs the new disk's name.", name="disk-found")
        return bay_plan(draft, reading, status, old_v, findings, site, spare, after)
    return replace_plan(
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
        smart=smart,
    )


def disk_in_bay(
    reading: HostReading, base: baymod.Baseline, props: Mapping[str, str] | None = None
) -> str | None:
    """The new disk the bay plan saw arrive (kernel name), when it is there and fits."""
    sight = baymod.look_at_bay(reading, base, props)
    return sight.new.name if sight.new is not None and not sight.refusal else None


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    """The wizard's answers: old ("pool<TAB>leaf"), bay, disk (a disk, IN_BAY after the
    swap, absent for the bay plan), spare, after; baseline (the bay plan's, for IN_BAY);
    smart_old and smart_old_failing (the old disk's SMART as the console follows it; without
    them it is read once here)."""
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
    bay = answers.get("bay", "free")
    return build_replace_failed(
        inputs.reading,
        pool,
        old,
        bay=bay,
        new=new,
        props=inputs.props,
        findings=inputs.findings,
        force=force,
        site=site,
        spare=answers.get("spare", "return"),
        after=answers.get("after", "scrub"),
        smart=_new_smart(host, inputs.reading, pool, bay, new),
        evidence=nds.old_evidence(host, inputs.reading, pool, old,
                                  words=answers.get("smart_old") or None,
                                  bad=answers.get("smart_old_failing") == "yes"),
    )


def _new_smart(host: Host, reading: HostReading, pool: str, bay: str, new: str | None
               ) -> nds.SmartLook | None:
    """The new disk's SMART, read once for this plan; not a hot spare's (it is in the pool
    already: its SMART is the console's to follow, and `-n standby` would not read it)."""
    if new is None or bay == "spare":
        return None
    entry = reading.pool(pool)
    if entry is not None and entry.status is not None \
            and find_spare(reading, entry.status, new) is not None:
        return None
    return nds.look_at(host, reading, new)


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
    new = req.args[1] if len(req.args) > 1 else None
    return build_replace_failed(
        inputs.reading,
        req.pool,
        req.args[0],
        bay=req.text("bay", "free"),
        new=new,
        props=inputs.props,
        findings=inputs.findings,
        force=req.force,
        site=site,
        spare="keep" if req.flag("keep_spare") else "return",
        after=req.text("after", "scrub"),
        smart=_new_smart(host, inputs.reading, req.pool, req.text("bay", "free"), new),
        evidence=nds.old_evidence(host, inputs.reading, req.pool, req.args[0]),
    )
