"""The advisor's commands as plans ("advice"): `zfs set` of one property, `zpool scrub`, or
`zpool remove` of a cache or log device, each run through the engine like every other
operation (preview, typed confirmation, re-checked right before it runs, audit log).

The plan is always built from a fresh reading judged again (`plan_for`): advice the host no
longer earns is a blocked plan saying so, never a command run on what the screen showed a
while ago. The command comes from the advice's `AdviceAction` (data), never from its text.

Registered as "advice" in `services.ops.registry` (`zconsole plan advice POOL KIND
[SUBJECT]`); the Advice screen's `x` opens it as a wizard (`ui.wizards.fixit.open_advice`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence

from zconsole.hosts.base import Host
from zconsole.model.advice import REMOVE, SCRUB, SET, Advice, AdviceAction
from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, predicate
from zconsole.model.pool import Section
from zconsole.services.health.advice import advise
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.read.advice import read_advice
from zconsole.services.read.collect import collect

KIND = "advice"
NOT_ADVISED = "advised"  # the check that blocks a plan the host no longer earns
# an advice's role -> the pool section (`zpool status`'s logs, cache, spares) that holds it
SECTIONS = {"log": Section.LOGS.value, "cache": Section.CACHE.value,
            "spare": Section.SPARES.value}


def _step(advice: Advice, a: AdviceAction) -> Step:
    argv = a.argv
    if a.verb == SET:
        return Step(
            id="set", title=f"Set {a.prop}={a.value} on {a.target}",
            explanation=advice.cost,
            command=Command(argv, f"set {a.prop} of {a.target}", writes=True),
            prechecks=(predicate("dataset_property", f"{a.prop} of {a.target} is still "
                                 f"{a.before}", dataset=a.target, property=a.prop,
                                 value=a.before),),
            postchecks=(predicate("dataset_property", f"{a.prop} of {a.target} is now "
                                  f"{a.value}", dataset=a.target, property=a.prop,
                                  value=a.after),),
            confirmation=Confirmation(f"This changes {a.prop} of {a.target} and every "
                                      "dataset that inherits it. Type the dataset name to go "
                                      "on:", a.target))
    if a.verb == SCRUB:
        return Step(
            id="scrub", title=f"Start a scrub of {a.target}",
            explanation=advice.cost,
            command=Command(argv, f"scrub {a.target}", writes=True),
            prechecks=(predicate("no_scan", f"no scrub or resilver runs in {a.target}",
                                 pool=a.target),),
            confirmation=Confirmation(f"The scrub reads all of {a.target} and slows other "
                                      "I/O until it ends. Type the pool name to go on:",
                                      a.target))
    if a.verb == REMOVE:
        return Step(
            id="remove", title=f"Remove the {a.role} device {a.device} from {a.target}",
            explanation=advice.cost,
            command=Command(argv, f"remove {a.role} device {a.device} from {a.target}",
                            writes=True),
            # the role too, right before the run: `zpool remove` removes whatever the device
            # is by then (a log removed and re-added as a spare meanwhile would go as a spare)
            prechecks=(predicate("vdev_present", f"{a.device} is in {a.target} as its "
                                 f"{a.role} device", pool=a.target, name=a.device,
                                 section=SECTIONS.get(a.role, a.role)),),
            postchecks=(predicate("vdev_absent", f"{a.device} is no longer in {a.target}",
                                  pool=a.target, name=a.device),),
            confirmation=Confirmation(f"{a.device} leaves {a.target} as its {a.role} device. "
                                      "Type the device name to go on:", a.device))
    raise ValueError(f"unknown advice action {a.verb!r}")


def undo_words(a: AdviceAction) -> str:
    """How the change is taken back, by hand (the advice's cost says what it cannot undo)."""
    if a.verb == SET:
        back = f"zfs set {a.prop}={a.before} {a.target}" if a.was_local else \
            f"zfs inherit {a.prop} {a.target} (it was the default)"
        return f"To take it back: {back}; blocks written meanwhile keep the new setting."
    if a.verb == SCRUB:
        return f"To stop it: zpool scrub -s {a.target} (or pause it: zpool scrub -p)."
    return f"To take it back: zpool add {a.target} {a.role} {a.device}."


def build_advice(advice: Advice, host: str, *, now: float, plan_id: str | None = None
                 ) -> Plan:
    """The plan that runs `advice`'s command (ValueError when it has none)."""
    a = advice.action
    if a is None:
        raise ValueError(f"{advice.kind} on {advice.subject}: no command to run")
    return Plan(
        id=plan_id or uuid.uuid4().hex, kind=KIND, title=f"Advice: {advice.message}",
        host=host, pool=a.pool, created_at=now,
        preview=(f"Why: {advice.why}", f"Cost: {advice.cost}", undo_words(a)),
        steps=(_step(advice, a),),
        params=(("advice", advice.kind), ("subject", advice.subject),
                ("command", advice.command or "")))


def blocked(kind: str, pool: str, subject: str | None, host: str, now: float,
            why: str) -> Plan:
    return Plan(id=uuid.uuid4().hex, kind=KIND, title=f"Advice: {kind} on {subject or pool}",
                host=host, pool=pool, created_at=now,
                checks=(Check(NOT_ADVISED, False, CheckLevel.BLOCK, why),),
                params=(("advice", kind), ("subject", subject or "")))


def choose(found: Sequence[Advice], kind: str, pool: str, subject: str | None
           ) -> Advice | str:
    """The one advice of `kind` on `pool` (and `subject`) that has a command, or why not."""
    same = [a for a in found if a.kind == kind and pool in (a.pool, a.action and a.action.pool)
            and (subject is None or a.subject == subject)]
    if not same:
        return (f"zconsole does not advise {kind} on {subject or pool} now: the host, read "
                "again, no longer earns it (or never did). Nothing to run.")
    runnable = [a for a in same if a.action is not None]
    if not runnable:
        return (f"{kind} on {same[0].subject} has no safe command to run: "
                f"{same[0].cost}")
    if len(runnable) > 1:
        return (f"{kind} is advised on several subjects in {pool} "
                f"({', '.join(a.subject for a in runnable)}): name one.")
    return runnable[0]


def plan_for(host: Host, kind: str, pool: str, subject: str | None = None, *,
             now: float | None = None) -> Plan:
    """Read the host afresh, judge it again, and build the plan of the advice `kind` on
    `pool` (`subject`: which one, when several); blocked when it is no longer advised.
    Blocking: call from a worker."""
    reading = collect(host)
    when = time.time() if now is None else now
    found = choose(advise(read_advice(host, reading)), kind, pool, subject)
    if isinstance(found, str):
        return blocked(kind, pool, subject, str(reading.host), when, found)
    return build_advice(found, str(reading.host), now=when)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan advice POOL KIND [SUBJECT]`."""
    return plan_for(host, req.args[0], req.pool, req.args[1] if len(req.args) > 1 else None)
