"""What ZFS holds in a top-level vdev: whole copies (mirrors) or the disks it can still lose
(raidz, dRAID), now, during an operation and after it. One count behind every redundancy
line of the disk plans (`guards.redundancy_preview`, the detach check, the wizards' labels).

Pure functions over the `zpool status` tree; re-exported by `guards`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zconsole.model.pool import Vdev

MIRROR_LIKE = ("mirror", "replacing", "spare")


def good(v: Vdev) -> bool:
    """A member that holds a complete, readable copy: ONLINE and not being resilvered.
    A replacing/spare container counts when any of its halves does."""
    if v.type in ("replacing", "spare"):
        return any(good(c) for c in v.children)
    if v.children:
        return v.state in ("ONLINE", "DEGRADED")
    return v.state == "ONLINE" and not v.resilvering


def is_raidz(v: Vdev) -> bool:
    return v.type in ("raidz", "draid")


def _members(top: Vdev) -> list[Vdev]:
    """The copies of a mirror-like top-level vdev (a lone disk is its own single copy)."""
    if top.type in MIRROR_LIKE:
        return list(top.children)
    return [top]


def heals(v: Vdev) -> bool:
    """A member that will hold a complete copy once the running resilvers end: ONLINE or
    DEGRADED (being resilvered or not); a replacing/spare container when any half does (it
    collapses into that half). UNAVAIL, FAULTED, REMOVED and OFFLINE members hold nothing."""
    if v.type in ("replacing", "spare"):
        return any(heals(c) for c in v.children)
    return v.state in ("ONLINE", "DEGRADED")


@dataclass(frozen=True)
class Holding:
    """What ZFS holds in one top-level vdev, now, while an operation runs and after it.

    For a mirror (or a lone disk, or a top-level replacing/spare vdev) the numbers are whole
    copies: members holding every block (a replacing or spare container is one copy, made of
    whichever half is complete). For raidz and dRAID they are the members the vdev can still
    lose (parity minus the members that hold nothing complete; negative: data is missing)."""

    top: str
    raidz: bool
    now: int
    during: int
    after: int


def _unit_of(top: Vdev, name: str) -> Vdev | None:
    """The member of `top` (a direct child, or `top` itself) that holds `name`."""
    if top.name == name or top.path == name:
        return top
    for child in top.children:
        if any(v.name == name or (v.path is not None and v.path == name)
               for _, v in child.walk()):
            return child
    return None


def _without(unit: Vdev, name: str, holds: Callable[[Vdev], bool]) -> bool:
    """Does `unit` still hold a copy (`holds`: `good` or `heals`) once leaf `name` is taken
    out of it?"""
    if unit.name == name or unit.path == name:
        return False
    if unit.type in ("replacing", "spare"):
        return any(_without(c, name, holds) for c in unit.children)
    return holds(unit)


def complete(top: Vdev, unit: Vdev) -> bool:
    """Does `unit` (a member of `top`) hold all its data now? `good`, except that in dRAID
    every member shows "(resilvering)" while a rebuild writes the distributed spare's space
    on it: there a member disk's own data is complete when it is ONLINE or DEGRADED."""
    if top.type == "draid" and not unit.children:
        return heals(unit)
    return good(unit)


def holding(top: Vdev, operation: str, name: str | None = None) -> Holding:
    """How many copies (mirrors) or further losses (raidz/dRAID) `top` has now, during and
    after `operation` on `name`: "attach" (one more disk beside it; on raidz an expansion,
    which adds no redundancy), "detach" of a member, "replace" of a member by a new disk
    (the new disk is complete only after its resilver; the old one stays meanwhile) and
    "offline" of a member (after: back online). Resilvers already running are counted as
    finished "after"; members that are UNAVAIL, FAULTED, REMOVED or OFFLINE never count."""
    if operation not in ("attach", "detach", "replace", "offline"):
        raise ValueError(f"unknown operation {operation!r}")
    raidz = is_raidz(top)
    units = list(top.children) if raidz or top.type in MIRROR_LIKE else [top]
    unit = _unit_of(top, name) if name is not None else None
    now = sum(1 for u in units if complete(top, u))
    healed = sum(1 for u in units if heals(u))
    rest = healed - (1 if unit is not None and heals(unit) else 0)
    if operation == "attach":
        during, after = now, healed + (0 if raidz else 1)
    elif operation == "detach":  # instant: what stays readable right away
        kept = sum(1 for u in units if u is not unit and good(u))
        during = after = kept + (1 if unit is not None and name is not None
                                 and _without(unit, name, good) else 0)
    elif operation == "replace":
        during, after = now, rest + 1
    else:
        during, after = now - (1 if unit is not None and good(unit) else 0), healed
    if raidz:
        parity, total = top.parity or 1, len(units)
        return Holding(top.name, True, parity - (total - now), parity - (total - during),
                       parity - (total - after))
    return Holding(top.name, False, now, during, after)
