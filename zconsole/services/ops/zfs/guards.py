"""Guards for disk operations: what must hold before zconsole attaches, detaches or replaces.

Pure functions over what `services.read.collect` read (the pool tree from `zpool status`);
nothing here touches the host. The checks on the new disk itself (clean, large enough, stable
name, sector size) are in `new_disk.py`.

Every guard returns `model.plan.Check`s: a failing BLOCK stops the plan, a failing CONFIRM
needs a second explicit confirmation and a force flag (`-f`), a failing WARN is shown loudly
and acknowledged, INFO is a fact worth reading. Each check's `detail` is the sentence the
operator reads, with the figures behind it, whether it passed or not.

The rules come from OpenZFS itself (spa_vdev_attach / spa_vdev_detach, zpool_vdev_os.c) and
the facts in zfs-linux-facts.md ("Disk operations", "Device identity"):

* attach: to a top-level disk or a mirror (a log mirror too), never to cache, spares, a raidz
  member or a vdev with a replace in progress;
* detach: only members of mirror, replacing and spare vdevs; never the last good copy
  ("cannot detach DEV: no valid replicas");
* replace: a healthy-looking disk chosen as "the failed one" is a loud warning;
* a running scrub is cancelled by attach/replace.

`redundancy_preview` says, before anything runs, how many copies the vdev has now, during
and after the operation.
"""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel
from zconsole.model.pool import Pool, ScanFunction, ScanState, Section, Vdev
from zconsole.services.ops.zfs.copies import (
    MIRROR_LIKE,
    Holding,
    _members,
    _unit_of,
    _without,
    complete,
    good,
    heals,
    holding,
    is_raidz,
)

SLOW_KIND = "slow-disk"

# Stable check names (tests and the UI key on them); the new disk's are in new_disk.py.
TARGET = "target"
DETACH_TARGET = "detach-target"
LAST_REPLICA = "last-replica"
REDUNDANCY_AFTER = "redundancy-after"
CANCELS_RESILVER = "cancels-resilver"
HEALTHY_TARGET = "healthy-target"
SCRUB = "scrub-running"
RESILVER = "resilver-running"
POOL_READ = "pool-read"


def check(name: str, passed: bool, level: CheckLevel, detail: str,
          force_flag: str | None = None) -> Check:
    return Check(name=name, passed=passed, level=level, detail=detail, force_flag=force_flag)


def passed(name: str, detail: str) -> Check:
    """A check that holds: a fact the operator sees (INFO), never one that stops the plan."""
    return Check(name=name, passed=True, level=CheckLevel.INFO, detail=detail)


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _copies(n: int) -> str:
    return _plural(n, "copy", "copies")


def _names(vdevs: Sequence[Vdev]) -> str:
    return ", ".join(v.name for v in vdevs)


# ----------------------------------------------------------------------------- the pool tree


def top_level(pool: Pool, name: str) -> tuple[Section, Vdev] | None:
    """The top-level vdev holding `name` (a leaf, a container or the top-level vdev itself)."""
    for section in (Section.DATA, Section.LOGS, Section.SPECIAL, Section.DEDUP, Section.CACHE,
                    Section.SPARES):
        for top in pool.section(section):
            for _, v in top.walk():
                if v.name == name or (v.path is not None and v.path == name):
                    return section, top
    return None


def parent_of(pool: Pool, name: str) -> Vdev | None:
    """The container directly above `name` (None for a top-level vdev)."""
    for _, _, v in pool.walk():
        if any(c.name == name or (c.path is not None and c.path == name) for c in v.children):
            return v
    return None


def leaves_of(v: Vdev) -> list[Vdev]:
    return [x for _, x in v.walk() if not x.children and x.type not in ("root",)]


def describe_now(top: Vdev) -> str:
    """One sentence: the redundancy `top` has right now."""
    if is_raidz(top):
        left = holding(top, "attach").now
        bad = [c for c in top.children if not complete(top, c)]
        text = (f"{top.name} ({_plural(len(top.children), 'disk')}, parity {top.parity or 1}) "
                f"can lose {_plural(max(left, 0), 'more disk')} now")
        if bad:
            text += " (" + ", ".join(f"{c.name} is {_state(c)}" for c in bad) + ")"
        return text
    if top.type not in MIRROR_LIKE:
        return f"{top.name} is a single disk: 1 copy, no redundancy"
    ok = [m for m in top.children if good(m)]
    text = (f"{top.name} has {_copies(len(ok))} now "
            f"({_names(ok) or 'no member ONLINE and complete'})")
    bad = [m for m in top.children if not good(m)]
    if bad:
        text += "; " + ", ".join(f"{m.name} is {_state(m)}" for m in bad)
    return text


def _state(v: Vdev) -> str:
    """'resilvering' for an ONLINE member being resilvered, 'being replaced' for a container,
    else its state."""
    if v.type in ("replacing", "spare"):
        return "being replaced" if v.type == "replacing" else "covered by a spare, resilvering"
    return "resilvering" if v.resilvering and v.state == "ONLINE" else v.state


def redundancy_preview(pool: Pool, vdev_name: str, operation: str, *,
                       new: str | None = None) -> tuple[str, ...]:
    """What redundancy the vdev of `vdev_name` has now, during and after `operation`, in
    sentences, now first, counted by `holding`.

    `operation` is attach (vdev_name: the disk or mirror to attach to; `new`: the new disk),
    detach, replace (`new`: the new disk) or offline: ("mirror-1 has 2 copies now (vdc,
    vdd).", "mirror-1 keeps 1 copy (vdc) until vdd is back online.")
    """
    if operation not in ("attach", "detach", "replace", "offline"):
        raise ValueError(f"unknown operation {operation!r}")
    found = top_level(pool, vdev_name)
    if found is None:
        return (f"{vdev_name} is not in pool {pool.name}: no redundancy to describe.",)
    section, top = found
    where = "" if section is Section.DATA else f" ({section.value} vdev)"
    newname = new or "the new disk"
    name = None if vdev_name == top.name and operation == "attach" else vdev_name
    held = holding(top, operation, name)
    after = (_raidz_after if is_raidz(top) else _mirror_after)(pool, top, vdev_name,
                                                               operation, newname, held)
    return (describe_now(top) + where + ".", after)


def _losses(n: int) -> str:
    return _plural(max(n, 0), "more disk")


def _raidz_after(pool: Pool, top: Vdev, vdev_name: str, operation: str, newname: str,
                 held: Holding) -> str:
    """During and after `operation` on a raidz/dRAID vdev or one of its members."""
    target = pool.find(vdev_name)
    if operation == "attach":
        return (f"Attaching {newname} to {top.name} starts a raidz expansion: it adds no copy "
                f"and no parity. {top.name} can lose {_losses(held.during)} during the "
                f"expansion and {_losses(held.after)} after.")
    if operation == "replace" and target is not None and good(target):
        return (f"{top.name} can still lose {_losses(held.during)} during the resilver "
                f"({vdev_name} stays until {newname} is complete), and {_losses(held.after)} "
                "after.")
    if operation == "replace":
        return (f"{top.name} can lose {_losses(held.during)} until the resilver ends; "
                f"{_losses(held.after)} after.")
    if operation == "offline":
        return f"{top.name} can lose {_losses(held.during)} while {vdev_name} is offline."
    return f"{operation} is not possible on a raidz member."


def _finishing(top: Vdev, held: Holding) -> str:
    """', once vdc's resilver ends too' when `after` counts resilvers already running."""
    healing = [m.name for m in (top.children if top.type in MIRROR_LIKE else ())
               if heals(m) and not good(m)]
    if not healing:
        return ""
    return (f" (once the resilver of {', '.join(healing)} ends too)")


def _mirror_after(pool: Pool, top: Vdev, vdev_name: str, operation: str, newname: str,
                  held: Holding) -> str:
    """During and after `operation` on a mirror (or a single-disk vdev) or one of its members."""
    ok = [m for m in _members(top) if good(m)]
    target = pool.find(vdev_name)
    if operation == "attach":
        if top.type not in MIRROR_LIKE:
            return (f"{top.name} keeps 1 copy until {newname} is resilvered; it becomes a "
                    f"2-way mirror with {_copies(held.after)} after.")
        return (f"{top.name} keeps {_copies(held.during)} ({_names(ok) or 'none'}) while "
                f"{newname} is resilvered; {_copies(held.after)} after"
                f"{_finishing(top, held)}.")
    if operation == "detach":
        return _detach_after(top, vdev_name, target, held, ok)
    unit = _unit_of(top, vdev_name)
    others = [m for m in ok if m is not unit]
    if operation == "replace":
        if unit is not None and good(unit):
            return (f"{top.name} keeps {_copies(held.during)} during the resilver "
                    f"({vdev_name} stays until {newname} is complete); "
                    f"{_copies(held.after)} after, with {newname} instead of {vdev_name}"
                    f"{_finishing(top, held)}.")
        return (f"{top.name} keeps {_copies(held.during)} ({_names(others) or 'none'}) "
                f"until the resilver ends; {_copies(held.after)} after"
                f"{_finishing(top, held)}.")
    return (f"{top.name} keeps {_copies(held.during)} ({_names(others) or 'none'}) until "
            f"{vdev_name} is back online.")


def _detach_after(top: Vdev, vdev_name: str, target: Vdev | None, held: Holding,
                  ok: list[Vdev]) -> str:
    if target is None:
        return f"{vdev_name} is not in {top.name}."
    if not good(target):
        return (f"Detaching {vdev_name} ({_state(target)}) removes no good copy: {top.name} "
                f"keeps {_copies(held.after)} ({_names(ok) or 'none'}) after.")
    rest = [m for m in ok if m.name != vdev_name and m is not target]
    if held.after < 1:
        return (f"Detaching {vdev_name} would leave {top.name} without any valid "
                "copy: ZFS refuses (no valid replicas).")
    if held.after == 1:
        return (f"After detaching {vdev_name}, {top.name} keeps 1 copy "
                f"({_names(rest) or 'the other half of its container'}): NO redundancy, "
                "one more failure loses data.")
    return (f"After detaching {vdev_name}, {top.name} keeps "
            f"{_copies(held.after)} ({_names(rest)}).")


# ---------------------------------------------------------------------------- attach target


def check_attach_target(pool: Pool, target: str) -> list[Check]:
    """Where a new disk can be attached: a top-level disk or a mirror (not raidz members,
    logs' mirrors are fine, cache/spares not)."""
    v = pool.find(target)
    if v is None:
        return [check(TARGET, False, CheckLevel.BLOCK, f"{target} is not in pool {pool.name}.")]
    found = top_level(pool, target)
    assert found is not None
    section, top = found
    if section in (Section.CACHE, Section.SPARES):
        return [check(TARGET, False, CheckLevel.BLOCK,
                      f"{target} is a {'cache device' if section is Section.CACHE else 'hot spare'}"
                      ": nothing can be attached to it.")]
    if is_raidz(top):
        return [check(TARGET, False, CheckLevel.BLOCK,
                      f"{target} is in {top.name}: attaching to a raidz vdev starts a raidz "
                      "expansion (OpenZFS 2.3+), which this wizard does not do; a raidz "
                      "member cannot become a mirror ('can only attach to mirrors and "
                      "top-level disks').")]
    parent = parent_of(pool, target)
    if parent is not None and parent.type in ("replacing", "spare"):
        return [check(TARGET, False, CheckLevel.BLOCK,
                      f"{target} is inside {parent.name}: wait until that replace ends "
                      "('already in replacing/spare config').")]
    if any(x.type in ("replacing", "spare") for x in top.children):
        return [check(TARGET, False, CheckLevel.BLOCK,
                      f"{top.name} has a replace in progress; attach after it ends.")]
    return [passed(TARGET,
                   f"{target} is {'a mirror' if top.type == 'mirror' else 'a top-level disk'}"
                   f"{'' if section is Section.DATA else ' (' + section.value + ')'}: a "
                   "new disk can be attached to it.")]


def attach_leaf(pool: Pool, target: str) -> Vdev | None:
    """`zpool attach` takes a leaf: for a mirror, its first good member."""
    v = pool.find(target)
    if v is None:
        return None
    if not v.children:
        return v
    ok = [c for c in v.children if not c.children and good(c)]
    return ok[0] if ok else next((c for c in v.children if not c.children), None)


# ----------------------------------------------------------------------------------- detach


def check_detach(pool: Pool, leaf: str) -> list[Check]:
    """Refuse detaching the last good copy before ZFS does; warn when one copy is left."""
    v = pool.find(leaf)
    if v is None:
        return [check(DETACH_TARGET, False, CheckLevel.BLOCK,
                      f"{leaf} is not in pool {pool.name} (ZFS: 'no such device in pool').")]
    parent = parent_of(pool, leaf)
    if v.children or parent is None or parent.type not in MIRROR_LIKE:
        where = ("a top-level vdev" if parent is None else f"in {parent.name}")
        return [check(DETACH_TARGET, False, CheckLevel.BLOCK,
                      f"{leaf} is {where}: only a member of a mirror, or one half of a "
                      "replacing/spare vdev, can be detached (ZFS: 'only applicable to "
                      "mirror and replacing vdevs').")]
    checks = [passed(DETACH_TARGET, f"{leaf} is a member of {parent.name}.")]
    found = top_level(pool, leaf)
    assert found is not None
    _, top = found
    others = [c for c in parent.children if c is not v]
    others_good = [c for c in others if good(c)]
    if good(v) and not others_good:
        bad = ", ".join(f"{c.name} is {'resilvering' if c.resilvering else c.state}"
                        for c in others) or "no other member"
        checks.append(check(LAST_REPLICA, False, CheckLevel.BLOCK,
                            f"{leaf} holds the only good copy in {parent.name} ({bad}). "
                            f"Detaching it would lose data; ZFS refuses with 'cannot detach "
                            f"{leaf}: no valid replicas'. Wait for the resilver to finish, or "
                            "replace the failed member first."))
        return checks
    checks.append(passed(LAST_REPLICA,
                         f"{parent.name} keeps a good copy without {leaf} "
                         f"({_names(others_good) or 'none needed: ' + leaf + ' is not good'})."))
    if v.resilvering and v.state == "ONLINE":
        checks.append(check(CANCELS_RESILVER, False, CheckLevel.WARN,
                            f"{leaf} is still being resilvered: detaching it cancels that "
                            "attach/replace, and what was copied so far is thrown away."))
    held = holding(top, "detach", leaf)
    if is_raidz(top):
        checks.append(check(REDUNDANCY_AFTER, held.after >= 1,
                            CheckLevel.INFO if held.after >= 1 else CheckLevel.WARN,
                            f"{top.name} can lose {_losses(held.after)} after the detach."))
    elif good(v) and held.after <= 1:
        unit = _unit_of(top, leaf)
        rest = [m.name for m in _members(top) if good(m) and m is not unit]
        if unit is not None and unit is not v and _without(unit, leaf, good):
            rest.append(unit.name)
        checks.append(check(REDUNDANCY_AFTER, False, CheckLevel.WARN,
                            f"After the detach {top.name} has a single copy "
                            f"({', '.join(rest) or 'none'}): no redundancy, one more disk "
                            "failure loses data."))
    else:
        checks.append(passed(REDUNDANCY_AFTER,
                             f"{top.name} keeps {_copies(held.after)} after the detach."))
    return checks


# -------------------------------------------------------------------------- replace target


def _slow(findings: Sequence[Finding], pool: str, leaf: str) -> Finding | None:
    for f in findings:
        if f.kind == SLOW_KIND and f.subject == leaf and f.pool in (None, pool):
            return f
    return None


def check_replacement_target(pool: Pool, leaf: str, findings: Sequence[Finding] | None,
                             *, purpose: str = "failed") -> list[Check]:
    """Is the disk chosen for replacement really failing?

    purpose "failed": WARN loudly when the disk is ONLINE, has no errors and is not slow.
    purpose "grow": replacing healthy disks is the point; say how each one is doing (INFO),
    and WARN when it is NOT healthy (redundancy is already down during the resilver).
    `findings` None means zconsole has no latency samples (slowness not checked).
    """
    v = pool.find(leaf)
    if v is None or v.children:
        return [check(HEALTHY_TARGET, False, CheckLevel.BLOCK,
                      f"{leaf} is not a disk of pool {pool.name}.")]
    errors = (v.read_errors or 0, v.write_errors or 0, v.checksum_errors or 0)
    slow = _slow(findings or (), pool.name, v.name)
    problems: list[str] = []
    if v.state != "ONLINE":
        problems.append(f"it is {v.state}" + (f" ({v.note})" if v.note else ""))
    if any(errors):
        problems.append(f"{errors[0]} read / {errors[1]} write / {errors[2]} checksum errors")
    if slow is not None:
        problems.append(slow.message)
    slowness = ("not reported slow" if findings is not None else
                "slowness not checked (no latency samples yet)")
    if purpose == "grow":
        if problems:
            return [check(HEALTHY_TARGET, False, CheckLevel.WARN,
                          f"{leaf} is not healthy: {'; '.join(problems)}. Its vdev has less "
                          "redundancy than usual while it is replaced.")]
        return [passed(HEALTHY_TARGET,
                       f"{leaf} is healthy (ONLINE, no errors, {slowness}): it is replaced "
                       "only to grow the vdev.")]
    if problems:
        return [passed(HEALTHY_TARGET, f"{leaf} is failing: {'; '.join(problems)}.")]
    return [check(HEALTHY_TARGET, False, CheckLevel.WARN,
                  f"CAREFUL: {leaf} looks HEALTHY: ONLINE, 0 read / 0 write / 0 checksum "
                  f"errors, {slowness}. Is this really the failed disk? Compare its serial "
                  "with the one you mean to replace before going on.")]


# ------------------------------------------------------------------------------------ scans


def check_scrub(pool: Pool) -> list[Check]:
    """Attach/replace cancel a running scrub; a running resilver restarts or waits."""
    scan = pool.scan
    if scan is not None and scan.state in (ScanState.IN_PROGRESS, ScanState.PAUSED):
        pct = f" ({scan.percent_done:.0f} % done)" if scan.percent_done is not None else ""
        if scan.function is ScanFunction.SCRUB:
            return [check(SCRUB, False, CheckLevel.WARN,
                          f"A scrub of {pool.name} is running{pct}: attaching or replacing "
                          "a disk cancels it; start it again afterwards (`zpool scrub "
                          f"{pool.name}`).")]
        if scan.function is ScanFunction.RESILVER:
            return [check(RESILVER, False, CheckLevel.WARN,
                          f"A resilver of {pool.name} is already running{pct}: the new disk "
                          "is resilvered after it (or it restarts to include the new disk), "
                          "so everything takes longer.")]
    return [passed(SCRUB,
                   f"No scrub or resilver is running on {pool.name}.")]
