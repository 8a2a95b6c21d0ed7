"""What a wizard offers to choose from, read from the latest HostReading.

Pure (no Textual, no host): the wizard screen shows these as lists, best candidates first, and
the plan builders (`services/ops/zfs/`) re-check everything against a fresh reading before a plan
exists. A candidate that cannot be used is still listed, disabled, with the reason: an operator
looking for "the new 4 TB disk" must see why it is not offered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import CheckLevel
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskInventory, DiskState, HostReading
from zconsole.services import fmt
from zconsole.services.health import replace as replace_health
from zconsole.services.ops.zfs.common import ref
from zconsole.services.ops.zfs.new_disk import MEDIA, check_new_disk
from zconsole.services.ops.zfs.replace_grow import members_of
from zconsole.services.read.identity import DiskIndex

# `zpool create`/`attach` on a whole disk: partition 1 starts at 1 MiB, partition 9 is 8 MiB.
WHOLE_DISK_RESERVE = 10 * 1024 * 1024
ATTACHABLE_SECTIONS = (Section.DATA, Section.LOGS, Section.SPECIAL, Section.DEDUP)


@dataclass(frozen=True)
class Selection:
    """What the Pools screen's cursor points at: a pool row, a top-level vdev or a leaf.
    `path` runs from the top-level vdev to the row (empty for the pool row)."""

    pool: str
    section: Section = Section.DATA
    path: tuple[str, ...] = ()

    @property
    def name(self) -> str | None:
        return self.path[-1] if self.path else None

    @staticmethod
    def from_row_key(key: str) -> Selection | None:
        """Parse a Pools table row key: `pool`, `pool:section` or `pool:section:a/b/c`."""
        parts = key.split(":", 2)
        if not parts[0]:
            return None
        if len(parts) == 1:
            return Selection(parts[0])
        try:
            section = Section(parts[1])
        except ValueError:
            return None
        path = tuple(parts[2].split("/")) if len(parts) == 3 and parts[2] else ()
        return Selection(parts[0], section, path)


@dataclass(frozen=True)
class Choice:
    """One line of a choice list. `value` is what the plan builder receives (a vdev name as
    zpool prints it, a kernel disk name resolved to by-id by the builder, a dataset)."""

    value: str
    label: str
    detail: str = ""
    enabled: bool = True


# --- helpers -------------------------------------------------------------------------------

def _pools(reading: HostReading | None) -> tuple[Pool, ...]:
    if reading is None:
        return ()
    return reading.pool_status.value or ()


def _inventory(reading: HostReading | None) -> DiskInventory | None:
    return reading.disks.value if reading is not None else None


def _index(reading: HostReading | None) -> DiskIndex | None:
    inv = _inventory(reading)
    return DiskIndex(inv.devices) if inv is not None else None


def find_pool(reading: HostReading | None, name: str) -> Pool | None:
    for p in _pools(reading):
        if p.name == name:
            return p
    return None


def disk_identity(d: Disk) -> str:
    """`sdk · 4.0 TB · WDC WD80EFZX · serial VK1ABCDE · by-id ata-…` in one line."""
    bits = [d.name, fmt.size_as_sold(d.size_bytes)]
    if d.model:
        bits.append(d.model)
    if d.serial:
        bits.append(f"serial {d.serial}")
    return " · ".join(bits)


def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of a guard's explanation, for a one-glance list (the plan preview
    shows it whole)."""
    cut = text.find(". ")
    out = text if cut < 0 else text[:cut + 1]
    return out if len(out) <= limit else out[:limit - 1] + "…"


def leaf_disk(reading: HostReading | None, leaf: Vdev) -> Disk | None:
    index = _index(reading)
    return index.leaf_disk(leaf) if index is not None else None


def member_size(reading: HostReading | None, leaf: Vdev) -> int | None:
    d = leaf_disk(reading, leaf)
    return d.size_bytes if d is not None else None


def _tops(pool: Pool) -> Iterator[tuple[Section, Vdev]]:
    for section in ATTACHABLE_SECTIONS:
        for top in pool.section(section):
            yield section, top


def leaf_label(reading: HostReading | None, leaf: Vdev) -> str:
    d = leaf_disk(reading, leaf)
    if d is None:
        return f"{leaf.name} ({leaf.state})"
    serial = f", serial {d.serial}" if d.serial else ""
    return f"{leaf.name} ({leaf.state}; {d.name}, {fmt.size_as_sold(d.size_bytes)}{serial})"


# --- attach --------------------------------------------------------------------------------

def attach_targets(reading: HostReading | None, selection: Selection | None = None
                   ) -> list[Choice]:
    """Where a disk can be attached: a single-disk top-level vdev (becomes a mirror) or a
    mirror (gets one more copy). The value is the existing leaf `zpool attach` names."""
    out: list[Choice] = []
    for pool in _pools(reading):
        if selection is not None and pool.name != selection.pool:
            continue
        for section, top in _tops(pool):
            where = "" if section is Section.DATA else f" ({section.value})"
            if top.type == "mirror":
                online = [c for c in top.children if c.state == "ONLINE" and not c.children]
                if not online:
                    out.append(Choice("", f"{pool.name} {top.name}{where}",
                                      "no ONLINE member to attach to", enabled=False))
                    continue
                n = len(top.children)
                out.append(Choice(
                    ref(pool.name, online[0].name),
                    f"{pool.name} {top.name}{where}: {n} copies → {n + 1}",
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
    for _, top in _tops(pool):
        names = {v.name for _, v in top.walk()}
        if leaf_name in names:
            sizes = [s for s in (member_size(reading, lf) for lf in top.leaves()) if s]
            return min(sizes) if sizes else None
    return None


def new_disk_choices(reading: HostReading | None, *, at_least: int | None,
                     exclude: Sequence[str] = (), pool: str | None = None,
                     target: str | None = None, replacing: bool = False,
                     near: int | None = None) -> list[Choice]:
    """Whole disks that could become a new member, best first: the ones the guards pass
    (closest in size first, so a 4 TB slot does not eat the 8 TB disk), then the ones that
    need a second confirmation (old data, a label of an exported pool), then the ones that
    cannot be used, disabled with the guard's own sentence.

    With `pool` and `target` the verdict is `services.ops.zfs.new_disk.check_new_disk`'s, the same the
    plan will show; `at_least` additionally disables disks that would not grow anything.
    Among equals, the disk closest in size to `near` (or `at_least`) comes first."""
    inv = _inventory(reading)
    if inv is None or reading is None:
        return []
    ranked: list[tuple[tuple[int, int], Choice]] = []
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
        if pool is not None and target is not None:
            checks = check_new_disk(reading, pool, target, d.name, replacing=replacing)
            blocking = [c for c in checks if c.blocking]
            if blocking:
                ranked.append(((3, -size), Choice(d.name, ident,
                                                  "✖ " + first_sentence(blocking[0].detail),
                                                  enabled=False)))
                continue
            force = [c for c in checks if c.needs_force]
            warn = [c for c in checks if not c.passed and c.level is CheckLevel.WARN]
            if force:
                ranked.append(((2, waste), Choice(
                    d.name, ident,
                    "▲ needs a second confirmation: " + first_sentence(force[0].detail))))
                continue
            detail = f"✔ clean · {where}"
            media = [c.detail.split(":", 1)[0] for c in warn if c.name == MEDIA]
            if media:
                detail += f" · ▲ {media[0]}"
            if len(warn) > len(media):
                more = len(warn) - len(media)
                detail += (f" · ▲ {more} {'more ' if media else ''}"
                           f"warning{'s' if more > 1 else ''}")
            ranked.append(((0 if not warn else 1, waste), Choice(d.name, ident, detail)))
            continue
        reasons = "; ".join(role.reasons) if role is not None and role.reasons else ""
        if state is DiskState.IN_USE:
            ranked.append(((4, 0), Choice(d.name, ident, f"in use: {reasons or 'busy'}",
                                          enabled=False)))
        elif state is DiskState.HAS_DATA:
            ranked.append(((1, waste), Choice(
                d.name, ident, f"has data ({reasons or 'partitions or a signature'}): "
                f"needs a second confirmation · {where}")))
        else:
            ranked.append(((0, waste), Choice(d.name, ident, f"clean · {where}")))
    ranked.sort(key=lambda rc: rc[0])
    return [c for _, c in ranked]


# --- detach --------------------------------------------------------------------------------

def detach_members(reading: HostReading | None, selection: Selection | None = None
                   ) -> list[Choice]:
    """Leaves of mirrors (and of replacing/spare containers: the old half of a finished
    replace). The guards decide whether detaching leaves a valid replica; a lone copy is
    listed here anyway so the refusal is explained, not hidden."""
    out: list[Choice] = []
    for pool in _pools(reading):
        if selection is not None and pool.name != selection.pool:
            continue
        for _, _, v in pool.walk():
            if v.type not in ("mirror", "replacing", "spare") or not v.children:
                continue
            for c in v.children:
                if c.children:
                    continue
                others = [o for o in v.children if o is not c]
                good = [o for o in others if o.state == "ONLINE" and not o.resilvering]
                note = (f"{len(good)} other ONLINE cop{'y' if len(good) == 1 else 'ies'} "
                        f"in {v.name}" if good else f"the only good copy in {v.name}")
                out.append(Choice(ref(pool.name, c.name),
                                  f"{pool.name} {v.name}: {leaf_label(reading, c)}", note))
    return out


def selected_detach_member(reading: HostReading | None, selection: Selection | None
                           ) -> str | None:
    if selection is None or len(selection.path) < 2:
        return None
    pool = find_pool(reading, selection.pool)
    if pool is None:
        return None
    leaf = pool.find(selection.path[-1])
    parent = pool.parent_of(selection.path[-1])
    if leaf is None or leaf.children or parent is None or parent.type not in (
            "mirror", "replacing", "spare"):
        return None
    return ref(pool.name, leaf.name)


# --- replace to grow -----------------------------------------------------------------------

def grow_vdevs(reading: HostReading | None, selection: Selection | None = None
               ) -> list[Choice]:
    """Data vdevs whose members can each be replaced by a larger disk."""
    out: list[Choice] = []
    for pool in _pools(reading):
        if selection is not None and pool.name != selection.pool:
            continue
        for top in pool.vdevs:
            members = list(top.leaves())
            sizes = [s for s in (member_size(reading, m) for m in members) if s]
            size = f"members {fmt.size_as_sold(min(sizes))}" if sizes else "member size unknown"
            busy = [m.name for m in members if m.state != "ONLINE"]
            detail = f"{len(members)} member{'s' if len(members) != 1 else ''}, {size}"
            if busy:
                detail += f"; not ONLINE: {', '.join(busy)} (replace that first)"
            out.append(Choice(ref(pool.name, top.name), f"{pool.name} {top.name}", detail,
                              enabled=not busy and top.type != "replacing"))
    return out


def selected_grow_vdev(reading: HostReading | None, selection: Selection | None
                       ) -> str | None:
    if selection is None or not selection.path or selection.section is not Section.DATA:
        return None
    pool = find_pool(reading, selection.pool)
    if pool is None or pool.find(selection.path[0]) is None:
        return None
    return ref(pool.name, selection.path[0])


def grow_members(reading: HostReading | None, pool_name: str, vdev: str) -> list[Vdev]:
    """The members the grow wizard asks a new disk for (the plan pairs them the same way)."""
    return members_of(reading, pool_name, vdev)


# --- dedup off -----------------------------------------------------------------------------

DEDUP_OFF_VALUES = ("off", "-", "")


def dedup_datasets(reading: HostReading | None, pool: str | None = None) -> list[Choice]:
    """Filesystems and volumes with dedup set (locally: inherited ones follow their parent)."""
    if reading is None or reading.datasets.value is None:
        return []
    out: list[Choice] = []
    for ds in reading.datasets.value:
        if ds.is_snapshot or ds.type not in ("filesystem", "volume"):
            continue
        if pool is not None and ds.pool != pool:
            continue
        value = (ds.dedup or ds.props.get("dedup") or "").strip()
        if value in DEDUP_OFF_VALUES:
            continue
        out.append(Choice(ds.name, f"{ds.name}  dedup={value}",
                          f"{ds.type}, {fmt.size(ds.used, short=True)} used"))
    return out


# --- replace a failed disk -----------------------------------------------------------------

def failed_disks(reading: HostReading | None, selection: Selection | None = None,
                 findings: Sequence[Finding] = ()) -> list[Choice]:
    """The disks worth replacing, worst first, each with why (services.health.replace);
    then the healthy ones, which the plan warns about loudly."""
    out: list[Choice] = []
    healthy: list[Choice] = []
    for pool in _pools(reading):
        if selection is not None and pool.name != selection.pool:
            continue
        found = replace_health.candidates(pool, findings)
        for c in found:
            out.append(Choice(ref(pool.name, c.name),
                              f"{pool.name} {c.top.name}: {leaf_label(reading, c.leaf)}",
                              "✖ " + c.why))
        named = {c.name for c in found}
        for section in replace_health.REPLACEABLE_SECTIONS:
            for top in pool.section(section):
                for leaf in top.leaves():
                    if leaf.name in named or leaf.state != "ONLINE":
                        continue
                    healthy.append(Choice(
                        ref(pool.name, leaf.name),
                        f"{pool.name} {top.name}: {leaf_label(reading, leaf)}",
                        "▲ looks healthy: the plan warns loudly before anything runs"))
    return out + healthy


def selected_failed_disk(reading: HostReading | None, selection: Selection | None
                         ) -> str | None:
    """The Pools cursor's leaf, when it is one worth replacing (a healthy one is asked)."""
    if selection is None or not selection.path:
        return None
    pool = find_pool(reading, selection.pool)
    if pool is None:
        return None
    name = selection.path[-1]
    if any(c.name == name for c in replace_health.candidates(pool)):
        return ref(pool.name, name)
    return None


def bay_choices(reading: HostReading | None, pool_name: str, old: str,
                base: Sequence[Choice]) -> list[Choice]:
    """Free bay / same bay, the same bay with what the vdev has left while it is empty."""
    pool = find_pool(reading, pool_name)
    out = list(base)
    if pool is None:
        return out
    leaf = pool.find(old)
    found = next((c for c in replace_health.candidates(pool) if c.name == old), None)
    top = found.top if found is not None else None
    if top is None:
        top = next((t for s in replace_health.REPLACEABLE_SECTIONS for t in pool.section(s)
                    if any(v.name == old for _, v in t.walk())), None)
    if leaf is None or top is None:
        return out
    margin = replace_health.vdev_margin(top)
    gone = replace_health.is_gone(leaf)
    healthy = replace_health.good(leaf)
    left = margin - 1 if healthy else margin
    if left < 0:
        note = (f"✖ not possible: {old} holds the last good copy in {top.name}")
        out[1] = Choice(out[1].value, out[1].label, note, enabled=False)
        return out
    words = ("no redundancy: one more failure while the bay is empty loses data"
             if left == 0 else f"{top.name} can lose {left} more disk(s) while it is empty")
    first = "ZFS lost it already: nothing to offline" if gone else f"zpool offline {old}"
    out[1] = Choice(out[1].value, out[1].label, f"{first}; {words}")
    return out


def spare_in_choices(reading: HostReading | None, pool_name: str, old: str) -> list[Choice]:
    """The first answer to "where does the new disk go?" when an AVAIL hot spare can stand
    in for `old` now (no spare has taken it): `zpool replace POOL OLD SPARE`."""
    from zconsole.services.ops.zfs.replace_failed_spare import avail_spares, spare_can_stand_in

    pool = find_pool(reading, pool_name)
    if pool is None or not spare_can_stand_in(pool, old):
        return []
    names = ", ".join(s.name for s in avail_spares(pool))
    return [Choice("spare", f"Put the hot spare in now ({names})",
                   f"zpool replace {pool_name} {old} SPARE: the vdev has its copies back after "
                   "the spare's resilver; the new disk later (r again), then the spare goes "
                   "back to AVAIL by itself")]


def avail_spare_choices(reading: HostReading | None, pool_name: str) -> list[Choice]:
    from zconsole.services.ops.zfs.replace_failed_spare import avail_spares

    pool = find_pool(reading, pool_name)
    return [Choice(s.name, s.name, "AVAIL hot spare") for s in avail_spares(pool)] \
        if pool is not None else []


def spare_standing_in(reading: HostReading | None, pool_name: str, old: str) -> str | None:
    pool = find_pool(reading, pool_name)
    if pool is None:
        return None
    found = next((c for c in replace_health.candidates(pool) if c.name == old), None)
    return found.under_spare if found is not None else None


def after_choices(reading: HostReading | None, pool_name: str, old: str) -> list[Choice]:
    """The scrub first (the default); clearing only ever names devices: the new disk, or,
    as its own choice with each device's evidence, the others `zpool clear` would change
    (a FAULTED one comes back into service: zpool-clear(8))."""
    from zconsole.services.ops.zfs.replace_failed_after import others_to_clear

    pool = find_pool(reading, pool_name)
    others = others_to_clear(pool, old) if pool is not None else []
    out = [Choice("scrub", f"Scrub {pool_name} to verify it, with its progress",
                  "zpool scrub, watched to its end; no error counter is touched"),
           Choice("clear-scrub", "Clear the new disk's error counters, then scrub",
                  f"zpool clear {pool_name} NEW (only the new disk), then zpool scrub")]
    if others:
        said = "; ".join(f"{v.name} {replace_health.evidence(v)}" for v in others)
        out.append(Choice("clear-others-scrub",
                          "Also clear the other devices (a FAULTED one returns to service)",
                          f"one zpool clear {pool_name} DEV each, typed: {said}"))
    out.append(Choice("none", "Nothing: stop after the resilver", "scrub later"))
    return out
