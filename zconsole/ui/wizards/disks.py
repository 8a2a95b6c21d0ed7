"""The attach, raidz-expansion and new-disk choices of the wizards (split from `choices`):
where a disk can be attached, which disks could join a vdev (the guards' own verdict on each),
and the question asked for the new disk, worded by what it becomes.

Pure (no Textual, no host), like `choices`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from zconsole.model.plan import CheckLevel
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskState, HostReading
from zconsole.services import fmt
from zconsole.services.ops.zfs.common import ref
from zconsole.services.ops.zfs.guards import holding, is_raidz, top_level
from zconsole.services.ops.zfs.new_disk import MEDIA, check_new_disk
from zconsole.ui.wizards.choices import (
    ATTACHABLE_SECTIONS,
    Choice,
    Selection,
    disk_identity,
    find_pool,
    first_sentence,
    leaf_label,
    marked,
    member_size,
    reading_inventory,
    reading_pools,
    top_vdevs,
)


def copies(n: int) -> str:
    return f"{n} cop{'y' if n == 1 else 'ies'}"


# --- attach --------------------------------------------------------------------------------

def attach_targets(reading: HostReading | None, selection: Selection | None = None
                   ) -> list[Choice]:
    """Where a disk can be attached: a single-disk top-level vdev (becomes a mirror) or a
    mirror (gets one more copy). The value is the existing leaf `zpool attach` names."""
    out: list[Choice] = []
    for pool in reading_pools(reading):
        if selection is not None and pool.name != selection.pool:
            continue
        for section, top in top_vdevs(pool):
            where = "" if section is Section.DATA else f" ({section.value})"
            if top.type == "mirror":
                online = [c for c in top.children if c.state == "ONLINE" and not c.children]
                if not online:
                    out.append(Choice("", f"{pool.name} {top.name}{where}",
                                      "no ONLINE member to attach to", enabled=False))
                    continue
                held = holding(top, "attach")
                out.append(Choice(
                    ref(pool.name, online[0].name),
                    f"{pool.name} {top.name}{where}: {copies(held.now)} → {held.after}",
                    "attach beside " + leaf_label(reading, online[0])))
            elif top.is_leaf:
                out.append(Choice(
                    ref(pool.name, top.name),
                    f"{pool.name} {top.name}{where}: single disk → 2-way mirror",
                    leaf_label(reading, top), enabled=top.state == "ONLINE"))
            elif top.type == "raidz" and section is Section.DATA:
                out.append(_expansion_target(reading, pool, top))
            else:
                out.append(Choice("", f"{pool.name} {top.name}{where}",
                                  f"{top.type}: the attach wizard makes or widens mirrors only",
                                  enabled=False))
    return out


def _expansion_target(reading: HostReading | None, pool: Pool, top: Vdev) -> Choice:
    """A raidz vdev widened by one disk (OpenZFS 2.3); refused with the reason before."""
    n = len(top.children)
    label = f"{pool.name} {top.name}: raidz expansion, {n} disks → {n + 1}"
    version = reading.zfs.version if reading is not None else None
    if version is None or version < (2, 3, 0):
        shown = ".".join(str(x) for x in version) if version else "unknown"
        return Choice("", label, f"raidz expansion needs OpenZFS 2.3 (this host: {shown})",
                      enabled=False)
    return Choice(ref(pool.name, top.name), label,
                  "old data keeps its data-to-parity ratio until rewritten; one expansion at "
                  "a time")


def selected_attach_target(reading: HostReading | None, selection: Selection | None
                           ) -> str | None:
    """The target value for the Pools cursor, when it points at something attachable."""
    if selection is None or not selection.path:
        return None
    pool = find_pool(reading, selection.pool)
    if pool is None or selection.section not in ATTACHABLE_SECTIONS:
        return None
    top = pool.find(selection.path[0])
    if top is None:
        return None
    if top.type == "mirror":
        if len(selection.path) >= 2:
            leaf = pool.find(selection.path[1])
            if leaf is not None and leaf.state == "ONLINE" and not leaf.children:
                return ref(pool.name, leaf.name)
        online = [c for c in top.children if c.state == "ONLINE" and not c.children]
        return ref(pool.name, online[0].name) if online else None
    if top.is_leaf and len(selection.path) == 1 and top.state == "ONLINE":
        return ref(pool.name, top.name)
    return None


def smallest_member(reading: HostReading | None, pool_name: str, leaf_name: str
                    ) -> int | None:
    """Size of the smallest whole disk in the leaf's top-level vdev."""
    pool = find_pool(reading, pool_name)
    if pool is None:
        return None
    for _, top in top_vdevs(pool):
        names = {v.name for _, v in top.walk()}
        if leaf_name in names:
            sizes = [s for s in (member_size(reading, lf) for lf in top.leaves()) if s]
            return min(sizes) if sizes else None
    return None


Rank = tuple[int, int]


def _judged(reading: HostReading, name: str, ident: str, where: str, pool: str,
            target: str, replacing: bool, order: tuple[int, int], mark: str
            ) -> tuple[Rank, Choice]:
    """The row of a disk the guards judge (`check_new_disk`: the verdict the plan shows):
    refused with the first blocking reason, needing a second confirmation, or clean with
    its warnings counted (and `mark`, its SMART). `order`: (-size, closeness) ranks the
    rows of one kind."""
    checks = check_new_disk(reading, pool, target, name, replacing=replacing)
    blocking = [c for c in checks if c.blocking]
    if blocking:
        return (3, order[0]), Choice(name, ident, "✖ " + first_sentence(blocking[0].detail),
                                     enabled=False, reason="✖ " + blocking[0].detail)
    force = [c for c in checks if c.needs_force]
    if force:
        ask = "▲ needs a second confirmation: "
        return (2, order[1]), Choice(
            name, ident, marked(ask + first_sentence(force[0].detail), mark),
            reason=marked(ask + force[0].detail, mark))
    warn = [c for c in checks if not c.passed and c.level is CheckLevel.WARN]
    detail = f"✔ clean · {where}"
    media = [c.detail.split(":", 1)[0] for c in warn if c.name == MEDIA]
    if media:
        detail += f" · ▲ {media[0]}"
    if len(warn) > len(media):
        more = len(warn) - len(media)
        detail += f" · ▲ {more} {'more ' if media else ''}warning{'s' if more > 1 else ''}"
    return (0 if not warn and not mark else 1, order[1]), Choice(name, ident,
                                                                 marked(detail, mark))


def new_disk_choices(reading: HostReading | None, *, at_least: int | None,
                     exclude: Sequence[str] = (), pool: str | None = None,
                     target: str | None = None, replacing: bool = False,
                     near: int | None = None,
                     smart: Callable[[str], str] | None = None) -> list[Choice]:
    """Whole disks that could become a new member, best first: the ones the guards pass
    (closest in size first, so a 4 TB slot does not eat the 8 TB disk), then the ones that
    need a second confirmation (old data, a label of an exported pool), then the ones that
    cannot be used, disabled with the guard's own sentence.

    With `pool` and `target` the verdict is `services.ops.zfs.new_disk.check_new_disk`'s, the same the
    plan will show; `at_least` additionally disables disks that would not grow anything.
    Among equals, the disk closest in size to `near` (or `at_least`) comes first.

    `smart` gives a disk's failing SMART as the console last read it ("SMART: 8 pending
    sectors", `smart_words.choice_mark`; "" when fine or not read): a disk that could be
    chosen says it in its row, and comes after the clean ones like a disk with a warning
    (the plan warns or blocks on it again, from a fresh read)."""
    inv = reading_inventory(reading)
    if inv is None or reading is None:
        return []
    ranked: list[tuple[Rank, Choice]] = []
    for d in inv.whole_disks():
        if d.name in exclude:
            continue
        role = inv.role(d.name)
        state = role.state if role is not None else DiskState.FREE
        if state is DiskState.IGNORED:
            continue
        size = d.size_bytes or 0
        ident = disk_identity(d)
        by_id = d.preferred_id
        where = f"by-id {by_id}" if by_id else "no by-id name (by-path will be used)"
        if state is DiskState.IN_POOL:
            in_pool = role.pool if role is not None else "?"
            ranked.append(((4, 0), Choice(d.name, ident, f"in pool {in_pool}", enabled=False)))
            continue
        if at_least is not None and size and size <= at_least:
            ranked.append(((3, -size), Choice(
                d.name, ident, f"not larger than the members ({fmt.size_as_sold(at_least)})",
                enabled=False)))
            continue
        ref = at_least if at_least is not None else near
        waste = abs(size - ref) if ref is not None and size else 0
        mark = smart(d.name) if smart is not None else ""
        if pool is not None and target is not None:
            ranked.append(_judged(reading, d.name, ident, where, pool, target, replacing,
                                  (-size, waste), mark))
            continue
        reasons = "; ".join(role.reasons) if role is not None and role.reasons else ""
        if state is DiskState.IN_USE:
            ranked.append(((4, 0), Choice(d.name, ident, f"in use: {reasons or 'busy'}",
                                          enabled=False)))
        elif state is DiskState.HAS_DATA:
            ranked.append(((1, waste), Choice(d.name, ident, marked(
                f"has data ({reasons or 'partitions or a signature'}): needs a second "
                f"confirmation · {where}", mark))))
        else:
            ranked.append(((1 if mark else 0, waste),
                           Choice(d.name, ident, marked(f"clean · {where}", mark))))
    ranked.sort(key=lambda rc: rc[0])
    return [c for _, c in ranked]


def disk_question(reading: HostReading | None, pool: str, target: str) -> str:
    """The attach wizard's question for the new disk, by what the disk becomes: a mirror's
    next copy, the second half of a new mirror, or (raidz expansion) one more member that
    adds space but no copy and no parity."""
    smallest = smallest_member(reading, pool, target)
    size = f" (members: {fmt.size_as_sold(smallest)})" if smallest else ""
    found = find_pool(reading, pool)
    where = top_level(found, target) if found is not None else None
    if where is None:
        return f"Which disk joins {target} in {pool}{size}?"
    top = where[1]
    if is_raidz(top):
        return (f"Which disk widens {top.name} of {pool} by one member{size}? A raidz "
                "expansion adds space, not a copy: the parity stays "
                f"{top.parity or 1}.")
    if top.is_leaf:
        return (f"Which disk mirrors {top.name} in {pool}{size}? It becomes a 2-way mirror "
                "(2 copies).")
    held = holding(top, "attach")
    return (f"Which disk becomes one more copy in {top.name} of {pool}{size}? "
            f"{copies(held.now)} complete now, {held.after} after.")


def no_disk_reason(options: Sequence[Choice], what: str) -> str | None:
    """When a disk list has rows but none can be chosen: 'No disk can be added to raidz2-0
    of tank: 102 disks are already in a pool (tank 100, fast 2); 1 is refused (sdx: …).'
    None when some disk can be chosen, or the list is empty (the stage's `empty` says it)."""
    if not options or any(c.enabled for c in options):
        return None
    pools = Counter(c.detail.removeprefix("in pool ") for c in options
                    if c.detail.startswith("in pool "))
    rest = [c for c in options if not c.detail.startswith("in pool ")]
    bits = []
    if pools:
        n = sum(pools.values())
        bits.append(f"{n} disk{'s are' if n != 1 else ' is'} already in a pool ("
                    + ", ".join(f"{p} {k}" for p, k in pools.most_common()) + ")")
    if rest:
        first = rest[0]
        bits.append(f"{len(rest)} {'is' if len(rest) == 1 else 'are'} refused ("
                    f"{first.value}: {first.detail.removeprefix('✖ ')}"
                    + (f"; and {len(rest) - 1} more" if len(rest) > 1 else "") + ")")
    return (f"No disk can be added to {what}: " + "; ".join(bits)
            + ". Connect a new disk first; each row below says why it cannot be used.")
