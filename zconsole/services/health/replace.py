"""Which disk should be replaced, and what the operator can do about a sick pool.

Pure judgement over one `zpool status` tree (and the slow-disk findings): no host, no Textual.
The Pools screen shows `advice()` under a DEGRADED/FAULTED pool; the replace wizard lists
`candidates()` (worst first) with the reason each one is there.

* `candidates(pool, findings)`: the leaves worth replacing, each with why: FAULTED, UNAVAIL,
  REMOVED, DEGRADED or OFFLINE, with read/write/checksum errors, or reported slow by the
  slow-disk finding. A leaf inside a `replacing` vdev is skipped (a replace already runs); a
  failed disk under a `spare` vdev is a candidate (the hot spare covers for it) and the spare
  beside it is not.
* `vdev_margin(top)`: how many more disks a top-level vdev can lose now (-1: none readable).
* `advice(pool, candidates, key)`: one line: "press r to replace X (FAULTED …)", "a replace
  is under way", or why nothing can be done (a vdev with no redundancy left).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from zconsole.model.finding import Finding
from zconsole.model.pool import Pool, Section, Vdev

SLOW_KIND = "slow-disk"
GOOD_STATES = frozenset({"ONLINE"})
# worst first: a disk ZFS stopped using, then one it cannot see, then one with errors
_RANK = {"FAULTED": 0, "UNAVAIL": 1, "REMOVED": 1, "OFFLINE": 2, "DEGRADED": 3}
REPLACEABLE_SECTIONS = (Section.DATA, Section.LOGS, Section.SPECIAL, Section.DEDUP)


class Candidate(NamedTuple):
    """A leaf worth replacing, and why. A NamedTuple: the Pools screen imports this module
    for its first frame, and a frozen dataclass costs ~1 ms to make on Python 3.10."""

    pool: str
    leaf: Vdev
    top: Vdev  # its top-level vdev
    why: str  # "FAULTED (too many errors); 3 read / 117 write / 0 checksum errors"
    rank: int  # lower is worse
    under_spare: str | None = None  # the hot spare covering for it (INUSE), if any
    gone: bool = False  # the disk is not there any more (UNAVAIL/REMOVED/not present)

    @property
    def name(self) -> str:
        return self.leaf.name


def good(v: Vdev) -> bool:
    return v.state in GOOD_STATES and not v.resilvering


def _errors(v: Vdev) -> tuple[int, int, int]:
    return (v.read_errors or 0, v.write_errors or 0, v.checksum_errors or 0)


def _slow(findings: Sequence[Finding], pool: str, leaf: str) -> Finding | None:
    return next(
        (
            f
            for f in findings
            if f.kind == SLOW_KIND and f.subject == leaf and f.pool in (None, pool)
        ),
        None,
    )


def is_gone(v: Vdev) -> bool:
    """ZFS cannot reach the disk: it was pulled, died or was never found at import."""
    return v.state in ("UNAVAIL", "REMOVED") or (v.note or "").startswith("was /dev")


def candidates(pool: Pool, findings: Sequence[Finding] = ()) -> list[Candidate]:
    """Leaves worth replacing, worst first (tree order among equals)."""
    spares = {s.name for s in pool.spares}
    out: list[tuple[int, int, Candidate]] = []
    order = 0
    for section in REPLACEABLE_SECTIONS:
        for top in pool.section(section):
            for parents, leaf in _leaves(top):
                order += 1
                if any(p.type == "replacing" for p in parents):
                    continue  # a replace already runs here
                spare_box = next((p for p in parents if p.type == "spare"), None)
                if spare_box is not None and leaf.name in spares:
                    continue  # the hot spare standing in, not a failed disk
                reasons: list[str] = []
                rank = 9
                if leaf.state != "ONLINE":
                    rank = _RANK.get(leaf.state, 4)
                    reasons.append(leaf.state + (f" ({leaf.note})" if leaf.note else ""))
                errs = _errors(leaf)
                if any(errs):
                    rank = min(rank, 5)
                    reasons.append(f"{errs[0]} read / {errs[1]} write / {errs[2]} checksum errors")
                slow = _slow(findings, pool.name, leaf.name)
                if slow is not None:
                    rank = min(rank, 6)
                    reasons.append(slow.message)
                if not reasons:
                    continue
                covering = None
                if spare_box is not None:
                    covering = next(
                        (c.name for c in spare_box.children if c is not leaf and c.name in spares),
                        None,
                    )
                    if covering:
                        reasons.append(f"hot spare {covering} is standing in")
                out.append(
                    (
                        rank,
                        order,
                        Candidate(
                            pool.name, leaf, top, "; ".join(reasons), rank, covering, is_gone(leaf)
                        ),
                    )
                )
    out.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in out]


def _leaves(v: Vdev, parents: tuple[Vdev, ...] = ()) -> list[tuple[tuple[Vdev, ...], Vdev]]:
    """(the vdevs above, leaf) for every leaf under `v`, in tree order."""
    if v.is_leaf:
        return [(parents, v)]
    return [x for c in v.children for x in _leaves(c, (*parents, v))]


def _members(top: Vdev) -> list[Vdev]:
    """The redundancy units of a top-level vdev: its children (a replacing/spare child
    counts as one copy, good when any of its leaves is), or itself for a single disk."""
    return list(top.children) if top.children else [top]


def _unit_good(v: Vdev) -> bool:
    if v.type in ("replacing", "spare"):
        return any(_unit_good(c) for c in v.children)
    return good(v)


def vdev_margin(top: Vdev) -> int:
    """How many more members `top` can lose now: a mirror its good copies minus one, a raidz
    its parity minus the members already bad; -1 when nothing readable is left."""
    members = _members(top)
    ok = sum(1 for m in members if _unit_good(m))
    if top.type.startswith(("raidz", "draid")):
        parity = top.parity or 1
        bad = len(members) - ok
        return parity - bad if bad <= parity else -1
    return ok - 1


def advice(pool: Pool, found: Sequence[Candidate], *, key: str | None = "r") -> str | None:
    """The one thing to do about a pool that is not ONLINE (DEGRADED, FAULTED, UNAVAIL...),
    in one short line; None for an ONLINE one (a slow or erroring disk of an ONLINE pool has
    its own finding above the table). `key` is the replace wizard's key (None: the console
    is read-only)."""
    if pool.state == "ONLINE":
        return None
    lost = [
        top
        for section in REPLACEABLE_SECTIONS
        for top in pool.section(section)
        if vdev_margin(top) < 0
    ]
    if lost:
        names = ", ".join(t.name for t in lost)
        return (
            f"Nothing can be replaced in {names}: no good copy of its data is left, so "
            "a new disk has nothing to copy from. Reconnect the missing disks (then "
            "zpool online or zpool clear), or restore from backup."
        )
    if any(v.type == "replacing" for _, _, v in pool.walk()):
        return "A replace is under way: wait for its resilver to finish."
    if not found:
        return f"{pool.name} is {pool.state}, but zconsole finds no single disk to replace."
    first = found[0]
    why = first.why.split("; ", 1)[0]
    if why.endswith(")") and " (" in why:  # "FAULTED (too many errors)": no nested brackets
        head, _, note = why.partition(" (")
        why = f"{head}, {note[:-1]}"
    more = f"; then {len(found) - 1} more" if len(found) > 1 else ""
    left = (
        f"; {first.top.name} has no redundancy left"
        if vdev_margin(first.top) == 0 and first.top.children
        else ""
    )
    lead = f"Press {key} to replace" if key else "Replace (read-only here, so not offered)"
    return f"{lead} {first.name} ({why}{more}){left}."


def _counts(v: Vdev) -> str:
    r, w, c = _errors(v)
    return f"{r} read / {w} write / {c} checksum errors"


def evidence(v: Vdev) -> str:
    """A device's state, note and error counters, as the operator weighs a `zpool clear`."""
    note = f" ({v.note})" if v.note else ""
    return f"{v.state}{note}, {_counts(v)}"


def leftovers(pool: Pool) -> list[str]:
    """What is still wrong in the pool: its state when not ONLINE, every leaf that is not
    ONLINE (spares AVAIL/INUSE are fine) or counts errors, with its evidence, and the data
    errors line; empty for a healthy pool. Nothing here is cleared by a replace plan."""
    out: list[str] = []
    if pool.state != "ONLINE":
        out.append(f"{pool.name} is {pool.state}")
    spares = {s.name for s in pool.spares}
    for _, _, v in pool.walk():
        if not v.is_leaf or (v.name in spares and v.state in ("AVAIL", "INUSE", "ONLINE")
                             and not any(_errors(v))):
            continue
        if v.state != "ONLINE" or any(_errors(v)):
            out.append(f"{v.name}: {evidence(v)}")
    if pool.errors and not pool.errors.lower().startswith("no known data errors"):
        out.append(f"errors: {pool.errors}")
    return out
