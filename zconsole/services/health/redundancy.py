"""How much redundancy a top-level vdev has left: pure, over one `zpool status` tree.

A top-level vdev is a set of members (its children; a single disk is its own one member).
A member is a *copy* when it can serve its share of the data now:
- a disk ONLINE (and DEGRADED too, unless `strict`: ZFS still reads from a disk it marked
  DEGRADED for its error counts) that is not being resilvered (a disk back from OFFLINE, or
  the new disk of a replace, holds only part of the data until its resilver ends);
- in a dRAID, zpool marks every disk `(resilvering)` while anything in it resilvers (the
  distributed spare's slices live on all of them), so the mark says nothing about one
  disk: its disks are copies, and its distributed spare (`draid1-0-0`) is one unless a
  sequential rebuild of this dRAID is still running (the scan line names the vdev); the
  new disk of a `replacing` is never one while it resilvers;
- a `replacing` or `spare` member is a copy when any of its disks is (the old disk until
  the new one has resilvered; the hot spare once it has).
`margin(top)`: how many more members it can lose without losing data: a mirror its copies
minus one, a raidz-P or dRAID-P its parity minus the members that are not copies. 0 means
no redundancy left (one more failure loses the pool), below 0 data is already missing.
"""

from __future__ import annotations

from zconsole.model.pool import Pool, ScanState, Section, Vdev

COPY_STATES = frozenset({"ONLINE", "DEGRADED"})
STRICT_STATES = frozenset({"ONLINE"})
#: the sections whose top-level vdevs hold the pool's data: losing one loses the pool
DATA_SECTIONS = (Section.DATA, Section.SPECIAL, Section.DEDUP)


def is_copy(v: Vdev, *, in_draid: bool = False, rebuilding: bool = False,
            strict: bool = False, new: bool = False) -> bool:
    """Whether member `v` (a disk, or a replacing/spare vdev) serves its data now.
    `rebuilding`: a sequential rebuild of its dRAID runs; `new`: the disk a replacing
    vdev is writing."""
    if v.type in ("replacing", "spare"):
        last = len(v.children) - 1
        return any(is_copy(c, in_draid=in_draid, rebuilding=rebuilding, strict=strict,
                           new=v.type == "replacing" and i == last)
                   for i, c in enumerate(v.children))
    if v.children:  # a nested container zpool does not make: judge its disks as one member
        return all(is_copy(c, in_draid=in_draid, rebuilding=rebuilding, strict=strict)
                   for c in v.children)
    if v.state not in (STRICT_STATES if strict else COPY_STATES):
        return False
    if v.resilvering:
        if not in_draid or new:
            return False
        return not (v.is_distributed_spare and rebuilding)
    return True


def members(top: Vdev) -> tuple[Vdev, ...]:
    return top.children if top.children else (top,)


def redundant_by_design(top: Vdev) -> bool:
    """A mirror, raidz or dRAID (a single disk, or a single disk being replaced, never had
    a second copy to lose)."""
    return top.type in ("mirror",) or top.type.startswith(("raidz", "draid"))


def rebuilding(pool: Pool, top: Vdev) -> bool:
    """A sequential rebuild of `top` runs (`scan: resilver (draid1:4d:11c:1s-0) in ...`)."""
    return any(s.rebuild_vdev == top.name and s.state is ScanState.IN_PROGRESS
               for s in pool.scans or ((pool.scan,) if pool.scan else ()))


def margin(top: Vdev, *, strict: bool = False, rebuild: bool = False) -> int:
    """How many more members `top` can lose now (see the module doc); negative when data
    is already missing. `rebuild`: a sequential rebuild of it runs (`rebuilding`)."""
    in_draid = top.type.startswith("draid")
    ms = members(top)
    copies = sum(1 for m in ms if is_copy(m, in_draid=in_draid, rebuilding=rebuild,
                                          strict=strict))
    if top.type.startswith(("raidz", "draid")):
        return (top.parity or 1) - (len(ms) - copies)
    return copies - 1


def lost_redundancy(pool: Pool) -> list[Vdev]:
    """The top-level data vdevs (data, special, dedup) built with redundancy that have none
    left because a member failed: margin 0 or below while the vdev is not ONLINE. (A vdev
    ONLINE with margin 0 is gaining a copy, e.g. a mirror resilvering an attach, not losing
    one.) In tree order."""
    return [top for section in DATA_SECTIONS for top in pool.section(section)
            if redundant_by_design(top) and top.state != "ONLINE"
            and margin(top, rebuild=rebuilding(pool, top)) <= 0]
