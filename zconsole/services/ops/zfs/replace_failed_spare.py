"""Put the hot spare in now (`bay=spare`): the first answer when a pool has an AVAIL spare and
a failed member no spare has taken (zed did not, or its retire agent is not running).

`zpool replace POOL OLD SPARE` (zpool-replace(8); zpoolconcepts(7), Hot Spares): a `spare-N`
vdev holds OLD and SPARE, the spare shows INUSE and is resilvered from the good copies; OLD
stays in the pool under spare-N until it is replaced for good. Then (a later plan, `r` again
when the new disk is there) `zpool replace POOL OLD NEW`: when that resilver ends, ZFS detaches
the spare by itself and it is AVAIL again (checked by the replace plan's `spare-back` step; if
it were not, `zpool detach POOL SPARE` returns it). Nothing else in the pool is touched: no
clear, no scrub, no other device.
"""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.model.command import Command
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel, Plan, Step, predicate
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import HostReading
from zconsole.services.health import replace as health
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import Draft, new_name, resilver_wait, still_in
from zconsole.services.ops.zfs.replace_failed_after import report_step

SPARE_IN = "spare-in"


def _short(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def avail_spares(status: Pool) -> list[Vdev]:
    return [s for s in status.spares if s.state == "AVAIL"]


def spare_can_stand_in(status: Pool, old: str) -> bool:
    """The failed disk is a data member no spare covers, and an AVAIL spare exists."""
    if not avail_spares(status):
        return False
    cand = next((c for c in health.candidates(status) if c.name == old), None)
    if cand is None or cand.under_spare is not None:
        return False
    return any(t is cand.top for t in status.section(Section.DATA))


def find_spare(reading: HostReading, status: Pool, given: str) -> Vdev | None:
    """The pool's spare the operator named (its zpool name, path or kernel name)."""
    dn, _ = new_name(reading, given)
    names = {_short(given), dn.zpool_name}
    return next((s for s in status.spares if s.name in names), None)


def _checks(status: Pool, old: str, spare: Vdev | None, given: str,
            findings: Sequence[Finding] | None) -> list[Check]:
    checks = guards.check_replacement_target(status, old, findings)
    if spare is None:
        checks.append(Check(SPARE_IN, False, CheckLevel.BLOCK,
                            f"{given} is not a hot spare of {status.name}."))
    elif spare.state != "AVAIL":
        checks.append(Check(SPARE_IN, False, CheckLevel.BLOCK,
                            f"The hot spare {spare.name} is {spare.state}, not AVAIL."))
    elif not spare_can_stand_in(status, old):
        checks.append(Check(SPARE_IN, False, CheckLevel.BLOCK,
                            f"{old} is not a failed data member without a spare: a hot "
                            "spare stands in for a failed disk of a data vdev only."))
    else:
        checks.append(guards.passed(SPARE_IN,
                                    f"The hot spare {spare.name} is AVAIL and stands in for {old} "
                                    "until the new disk replaces it for good."))
    return checks + guards.check_scrub(status)


def spare_in_plan(draft: Draft, reading: HostReading, status: Pool, old_v: Vdev, given: str,
                  findings: Sequence[Finding] | None) -> Plan:
    pool, old = draft.pool, old_v.name
    spare = find_spare(reading, status, given)
    checks = _checks(status, old, spare, given, findings)
    name = spare.name if spare is not None else _short(given)
    # the spare as zpool prints it (zpool-replace(8) resolves it, as for any new device)
    path = name
    done = (
        predicate("vdev_state", f"{name} is ONLINE in {old}'s place", pool=pool, name=name,
                  state="ONLINE"),
        predicate("container_present", f"a spare vdev holds {old} and {name}", pool=pool,
                  type="spare"),
    )
    steps = (
        Step(
            id=SPARE_IN,
            title=f"Put the hot spare {name} in for {old}",
            explanation=(
                f"zpool puts {name} beside {old} in a spare vdev and resilvers it from the "
                f"good copies; {old} stays in the pool (under the spare vdev) until the new "
                "disk replaces it for good, then ZFS returns the spare to AVAIL by itself "
                "(zpoolconcepts(7), Hot Spares). No other device is touched."
            ),
            command=Command(("zpool", "replace", pool, old, path),
                            f"put the spare {name} in for {old}", writes=True),
            prechecks=(
                still_in(pool, old),
                predicate("vdev_state", f"{name} is an AVAIL spare", pool=pool, name=name,
                          state="AVAIL"),
                predicate("container_absent", f"no replace is running in {pool}", pool=pool,
                          type="replacing"),
            ),
            postchecks=(predicate("vdev_present", f"{name} is in {pool}", pool=pool,
                                  name=name),),
        ),
        Step(
            id="resilver",
            title=f"Resilver the hot spare {name}",
            explanation="ZFS copies the vdev's data onto the spare. Leaving the screen only "
            "stops watching: ZFS carries on.",
            wait=resilver_wait(pool, "resilver", f"resilver of the spare {name} in {pool}",
                               done),
            postchecks=done,
        ),
        report_step(pool),
    )
    preview = guards.redundancy_preview(status, old, "replace", new=name)
    return draft.plan(
        title=f"Put the hot spare {name} in for {old} in {pool} (the new disk later)",
        preview=(*preview, f"Next, when the new disk is there: r on {old} replaces it for "
                           f"good and {name} goes back to the spares (AVAIL)."),
        checks=checks,
        steps=steps,
        params=(("stage", SPARE_IN), ("old", old), ("bay", "spare"), ("disk", name),
                ("spare", "return"), ("after", "none")),
    )
