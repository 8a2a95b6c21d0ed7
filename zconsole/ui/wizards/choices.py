"""What a wizard offers to choose from, read from the latest HostReading.

Pure (no Textual, no host): the wizard screen shows these as lists, best candidates first, and
the plan builders (`services/ops/zfs/`) re-check everything against a fresh reading before a plan
exists. A candidate that cannot be used is still listed, disabled, with the reason: an operator
looking for "the new 4 TB disk" must see why it is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.model.reading import DiskInventory, HostReading
from zconsole.services import fmt
from zconsole.services.health import replace as replace_health
from zconsole.services.ops.zfs.common import ref
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
    reason: str = ""  # why it is refused, whole (Enter on the row shows it), when longer

    @property
    def why(self) -> str:
        """The whole reason a refused option is refused: what Enter on it shows."""
        return self.reason or self.detail


# --- helpers -------------------------------------------------------------------------------

def marked(detail: str, mark: str) -> str:
    """A row's detail with its disk's SMART mark after it ("SMART: 8 pending sectors",
    `smart_words.choice_mark`; "" leaves it as it is)."""
    return f"{detail} · ▲ {mark}" if mark else detail


def leaf_disk_name(reading: HostReading | None, pool: str, leaf: str) -> str | None:
    """The kernel name of the whole disk under the leaf `leaf` of `pool` (None: unknown)."""
    inv = reading_inventory(reading)
    if inv is None:
        return None
    return next((r.disk for r in inv.roles if r.pool == pool and r.leaf == leaf), None)


def reading_pools(reading: HostReading | None) -> tuple[Pool, ...]:
    if reading is None:
        return ()
    return reading.pool_status.value or ()


def reading_inventory(reading: HostReading | None) -> DiskInventory | None:
    return reading.disks.value if reading is not None else None


def _index(reading: HostReading | None) -> DiskIndex | None:
    inv = reading_inventory(reading)
    return DiskIndex(inv.devices) if inv is not None else None


def find_pool(reading: HostReading | None, name: str) -> Pool | None:
    for p in reading_pools(reading):
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


def first_sentence(text: str) -> str:
    """The first sentence of a guard's explanation, whole (it wraps), for a one-glance
    list; Enter on the row, and the plan preview, show all of it."""
    cut = text.find(". ")
    return text if cut < 0 else text[:cut + 1]


def leaf_disk(reading: HostReading | None, leaf: Vdev) -> Disk | None:
    index = _index(reading)
    return index.leaf_disk(leaf) if index is not None else None


def member_size(reading: HostReading | None, leaf: Vdev) -> int | None:
    d = leaf_disk(reading, leaf)
    return d.size_bytes if d is not None else None


def top_vdevs(pool: Pool) -> Iterator[tuple[Section, Vdev]]:
    for section in ATTACHABLE_SECTIONS:
        for top in pool.section(section):
            yield section, top


def leaf_label(reading: HostReading | None, leaf: Vdev) -> str:
    d = leaf_disk(reading, leaf)
    if d is None:
        return f"{leaf.name} ({leaf.state})"
    serial = f", serial {d.serial}" if d.serial else ""
    return f"{leaf.name} ({leaf.state}; {d.name}, {fmt.size_as_sold(d.size_bytes)}{serial})"


# --- detach --------------------------------------------------------------------------------

def detach_members(reading: HostReading | None, selection: Selection | None = None
                   ) -> list[Choice]:
    """Leaves of mirrors (and of replacing/spare containers: the old half of a finished
    replace). The guards decide whether detaching leaves a valid replica; a lone copy is
    listed here anyway so the refusal is explained, not hidden."""
    out: list[Choice] = []
    for pool in reading_pools(reading):
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
    for pool in reading_pools(reading):
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
    for pool in reading_pools(reading):
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
    spares = avail_spares(pool)
    names = ", ".join(s.name for s in spares)
    which = spares[0].name if len(spares) == 1 else "SPARE"
    return [Choice("spare", f"Put the hot spare in now ({names})",
                   f"zpool replace {pool_name} {old} {which}: the vdev has its copies back after "
                   "the spare's resilver; the new disk later (r again), then the spare goes "
                   "back to AVAIL by itself")]


def avail_spare_choices(reading: HostReading | None, pool_name: str,
                        smart: Callable[[str], str] | None = None) -> list[Choice]:
    """The pool's AVAIL hot spares; `smart` (by kernel name) marks one whose SMART says it
    is failing, as `disks.new_disk_choices` does."""
    from zconsole.services.ops.zfs.replace_failed_spare import avail_spares

    pool = find_pool(reading, pool_name)
    if pool is None:
        return []
    out = []
    for s in avail_spares(pool):
        disk = leaf_disk_name(reading, pool_name, s.name) if smart is not None else None
        mark = smart(disk) if smart is not None and disk else ""
        out.append(Choice(s.name, s.name, marked("AVAIL hot spare", mark)))
    return out


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
