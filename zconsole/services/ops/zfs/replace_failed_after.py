"""The steps after a failed disk is replaced: clear, scrub, and what is still wrong.

`zpool clear POOL` without a device clears every device's counters and, per zpool-clear(8)
and `vdev_clear()`, reopens every FAULTED device: a disk ZFS took out of service for its
errors comes back ONLINE. A replace plan therefore never runs it. The choices (`after`):

* `scrub` (the default): a scrub, watched to its end; no counter is touched;
* `clear-scrub`: `zpool clear POOL NEW` (only the device the plan itself put in), then scrub;
* `clear-others-scrub`: as `clear-scrub`, then one `zpool clear POOL DEV` per other device
  with errors or FAULTED, each its own step with its evidence (state, counters), a pre-check
  that it is still in the state the operator saw, and the device's name typed to go on:
  bringing a faulted disk back is its own decision, never a default;
* `none`: stop after the resilver.

Every replace-failed plan ends with `report` (no command): what is still wrong in the pool
after the run (`pool_leftovers`, read afresh), so the result page says it.
"""

from __future__ import annotations

from zconsole.model.command import Command
from zconsole.model.plan import Confirmation, Predicate, Step, predicate
from zconsole.model.pool import Pool, Vdev
from zconsole.services.health import replace as health
from zconsole.services.ops.engine.predicates import Evaluator, predicate_kind
from zconsole.services.ops.zfs.common import resilver_wait
from zconsole.services.ops.zfs.predicates import find as find_vdev
from zconsole.services.ops.zfs.predicates import need_pool

AFTER_CHOICES = ("scrub", "clear-scrub", "clear-others-scrub", "none")
CLEARS = ("clear-scrub", "clear-others-scrub")


def others_to_clear(status: Pool, old: str) -> list[Vdev]:
    """The leaves besides the replaced one that `zpool clear` would change: FAULTED or
    DEGRADED by ZFS, or counting errors (spares AVAIL/INUSE without errors are fine)."""
    return [
        v
        for _, _, v in status.walk()
        if v.is_leaf
        and v.name != old
        and (v.state in ("FAULTED", "DEGRADED") or any(
            (v.read_errors, v.write_errors, v.checksum_errors)))
    ]


def _clear_new(pool: str, member: str) -> Step:
    return Step(
        id="clear",
        title=f"Clear the error counters of {member} (the new disk) only",
        explanation=(
            f"`zpool clear {pool} {member}` resets only {member}'s read/write/checksum "
            "counters, so a new error on it stands out. No other device is touched: "
            f"a bare `zpool clear {pool}` would also bring every FAULTED device back "
            "into service (zpool-clear(8))."
        ),
        command=Command(
            ("zpool", "clear", pool, member), f"clear the error counters of {member}", writes=True
        ),
        prechecks=(predicate("vdev_present", f"{member} is in {pool}", pool=pool, name=member),),
    )


def _clear_other(pool: str, v: Vdev) -> Step:
    """Bring another device back: its evidence, its state re-checked, its name typed."""
    back = v.state in ("FAULTED", "DEGRADED")
    return Step(
        id=f"clear-other-{v.name}",
        title=f"Clear {v.name} ({v.state}): not part of the replace",
        explanation=(
            f"{v.name} is {health.evidence(v)}. `zpool clear {pool} {v.name}` resets its "
            "counters"
            + (
                "; ZFS reopens it and puts it back in service (zpool-clear(8): the "
                "device is marked repaired), and it is resilvered from the good copies. "
                "Do this only when the cause was outside the disk (cable, backplane, "
                "controller) and is fixed; otherwise replace it (r)."
                if back
                else "; the evidence of its errors is gone afterwards."
            )
        ),
        command=Command(
            ("zpool", "clear", pool, v.name), f"clear {v.name} ({v.state})", writes=True
        ),
        prechecks=(
            predicate(
                "vdev_state",
                f"{v.name} is still {v.state}, as shown",
                pool=pool,
                name=v.name,
                state=v.state,
            ),
            errors_predicate(pool, v),
        ),
        confirmation=Confirmation(
            f"Clearing puts {v.name} ({health.evidence(v)}) back in service. "
            "Type its name to go on:"
            if back
            else f"Clearing erases {v.name}'s error counters ({health.evidence(v)}). "
            "Type its name to go on:",
            v.name,
        ),
    )


def errors_predicate(pool: str, v: Vdev) -> Predicate:
    """The device still counts exactly the errors the operator weighed (no new ones since
    the preview: then the evidence changed and the operator decides again)."""
    r, w, c = (v.read_errors or 0, v.write_errors or 0, v.checksum_errors or 0)
    return predicate(
        "vdev_errors",
        f"{v.name} still counts {r} read / {w} write / {c} checksum errors, as shown",
        pool=pool,
        name=v.name,
        counts=f"{r}/{w}/{c}",
    )


def _scrub(pool: str) -> Step:
    done = (predicate("no_scan", f"no scrub runs in {pool}", pool=pool),)
    return Step(
        id="scrub",
        title=f"Scrub {pool} to verify every block",
        explanation="ZFS reads and checks every block of the pool; errors it finds are "
        "repaired from the good copies and counted.",
        command=Command(("zpool", "scrub", pool), f"scrub {pool}", writes=True),
        prechecks=(predicate("no_scan", f"no scrub or resilver runs in {pool}", pool=pool),),
        wait=resilver_wait(pool, "scrub", f"scrub of {pool}", done),
    )


def report_step(pool: str, cleared_others: bool = False) -> Step:
    """No command: reads the pool afresh and says what is still wrong in it."""
    return Step(
        id="report",
        title=f"What is still wrong in {pool}",
        explanation=(
            "zconsole reads the pool again and lists every device that is not ONLINE or "
            "counts errors"
            + (": the devices cleared above are read again too." if cleared_others
               else ": this plan cleared none of them.")
        ),
        postchecks=(leftovers_predicate(pool),),
    )


def leftovers_predicate(pool: str) -> Predicate:
    return predicate("pool_leftovers", f"what is still wrong in {pool}", pool=pool)


def after_steps(
    pool: str, status: Pool, old: str, after: str, member: str | None = None
) -> tuple[Step, ...]:
    """The steps after the resilver; `member` is the device the plan put in (None: no
    device to clear, e.g. the spare kept as the member)."""
    if after not in AFTER_CHOICES:
        raise ValueError(f"after must be one of {', '.join(AFTER_CHOICES)}")
    steps: list[Step] = []
    if after in CLEARS and member is not None:
        steps.append(_clear_new(pool, member))
    if after == "clear-others-scrub":
        steps += [_clear_other(pool, v) for v in others_to_clear(status, old)]
    if after != "none":
        steps.append(_scrub(pool))
    steps.append(report_step(pool, cleared_others=after == "clear-others-scrub"
                             and bool(others_to_clear(status, old))))
    return tuple(steps)


@predicate_kind("vdev_errors")
def _vdev_errors(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    name = p.param("pool")
    found = need_pool(ev, name)
    v = find_vdev(ev, found, p.param("name"))
    if v is None:
        return False, f"{p.param('name')} is not in {name}"
    r, w, c = (v.read_errors or 0, v.write_errors or 0, v.checksum_errors or 0)
    said = f"{v.name} counts {r} read / {w} write / {c} checksum errors"
    return f"{r}/{w}/{c}" == p.param("counts"), said


@predicate_kind("pool_leftovers")
def _leftovers(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    """A report, not a gate: it holds whenever the pool can be read."""
    name = p.param("pool")
    found = need_pool(ev, name)
    wrong = health.leftovers(found)
    if not wrong:
        return True, f"{name} is ONLINE with no device errors"
    return True, f"still wrong in {name}: " + "; ".join(wrong)
