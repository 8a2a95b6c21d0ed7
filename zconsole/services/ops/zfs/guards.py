"""Guards for disk operations: what must hold before zconsole attaches, detaches or replaces.

Pure functions over what `services.snapshot.collect` read (the pool tree from `zpool status`,
leaf sizes from `zpool list -v`, disk identities and roles from `services.identity`) plus,
where needed, pool properties from `zpool get`. Nothing here touches the host.

Every guard returns `model.plan.Check`s: a failing BLOCK stops the plan, a failing CONFIRM
needs a second explicit confirmation and a force flag (`-f`), a failing WARN is shown loudly
and acknowledged, INFO is a fact worth reading. Each check's `detail` is the sentence the
operator reads, with the figures behind it, whether it passed or not.

The rules come from OpenZFS itself (spa_vdev_attach / spa_vdev_detach, zpool_vdev_os.c) and
the facts in zfs-linux-facts.md ("Disk operations", "Device identity"):

* size: zpool puts a whole disk's data in partition 1, which starts at 1 MiB, and keeps an
  8 MiB partition 9 at the end: the leaf is the disk minus 10 MiB (a 1 GiB virtio disk gives
  a 1063256064-byte leaf). A new disk must give at least as much as the smallest member of
  the vdev (ZFS's exact limit is the vdev's allocatable size, slightly less; zconsole asks for
  the member size, which is never wrong);
* clean: mounted, swap, md/dm holders and members of an imported pool can never be used
  (even `-f` does not override them); a ZFS label of an exported pool or a filesystem nobody
  mounts is overridden with `-f` only after a second, explicit confirmation;
* names: the new vdev is named by `/dev/disk/by-id/...` (model and serial), by-path when the
  disk has no by-id link, never by a kernel name (sdX changes across boots);
* sectors: ZFS refuses a disk whose logical sector is larger than 2^ashift of the vdev
  ("new device has a different optimal sector size"); a 512e disk (4096-byte physical,
  512-byte logical) is accepted by an ashift=9 vdev but every small write becomes a
  read-modify-write inside the disk, so that is a loud warning;
* detach: only members of mirror, replacing and spare vdevs; never the last good copy
  ("cannot detach DEV: no valid replicas");
* a running scrub is cancelled by attach/replace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel
from zconsole.model.pool import Pool, ScanFunction, ScanState, Section, Vdev
from zconsole.model.reading import DiskInventory, DiskState, HostReading
from zconsole.services import fmt
from zconsole.services.read.identity import DiskIndex

MiB = 1 << 20
# Whole-disk layout written by zpool: partition 1 from 1 MiB, partition 9 (8 MiB) at the end,
# plus alignment; the leaf is exactly 10 MiB smaller than the disk (1 GiB -> 1063256064).
WHOLE_DISK_RESERVE = 10 * MiB
BY_ID = "/dev/disk/by-id/"
BY_PATH = "/dev/disk/by-path/"
MIRROR_LIKE = ("mirror", "replacing", "spare")
SLOW_KIND = "slow-disk"

# Stable check names (tests and the UI key on them).
SIZE = "size"
IN_POOL = "in-pool"
IN_USE = "in-use"
FOREIGN_LABEL = "foreign-label"
OLD_DATA = "old-data"
PARTITIONS = "partitions"
NAMING = "stable-name"
SECTOR = "sector-size"
FOUND = "disk-found"
TARGET = "target"
DETACH_TARGET = "detach-target"
LAST_REPLICA = "last-replica"
REDUNDANCY_AFTER = "redundancy-after"
CANCELS_RESILVER = "cancels-resilver"
HEALTHY_TARGET = "healthy-target"
SCRUB = "scrub-running"
RESILVER = "resilver-running"
POOL_READ = "pool-read"


def _check(name: str, passed: bool, level: CheckLevel, detail: str,
           force_flag: str | None = None) -> Check:
    return Check(name=name, passed=passed, level=level, detail=detail, force_flag=force_flag)


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _copies(n: int) -> str:
    return _plural(n, "copy", "copies")


def _names(vdevs: Sequence[Vdev]) -> str:
    return ", ".join(v.name for v in vdevs)


# ----------------------------------------------------------------------------- the pool tree


def good(v: Vdev) -> bool:
    """A member that holds a complete, readable copy: ONLINE and not being resilvered.
    A replacing/spare container counts when any of its halves does."""
    if v.type in ("replacing", "spare"):
        return any(good(c) for c in v.children)
    if v.children:
        return v.state in ("ONLINE", "DEGRADED")
    return v.state == "ONLINE" and not v.resilvering


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


def is_raidz(v: Vdev) -> bool:
    return v.type in ("raidz", "draid")


def _members(top: Vdev) -> list[Vdev]:
    """The copies of a mirror-like top-level vdev (a lone disk is its own single copy)."""
    if top.type in MIRROR_LIKE:
        return list(top.children)
    return [top]


def _raidz_margin(top: Vdev) -> tuple[int, int]:
    """(parity, failures it can still take) for a raidz/draid vdev."""
    parity = top.parity or 1
    bad = sum(1 for c in top.children if not good(c))
    return parity, parity - bad


def describe_now(top: Vdev) -> str:
    """One sentence: the redundancy `top` has right now."""
    if is_raidz(top):
        parity, left = _raidz_margin(top)
        bad = [c for c in top.children if not good(c)]
        text = (f"{top.name} ({_plural(len(top.children), 'disk')}, parity {parity}) can lose "
                f"{_plural(max(left, 0), 'more disk')} now")
        if bad:
            text += " (" + ", ".join(f"{c.name} is {c.state}" for c in bad) + ")"
        return text
    members = _members(top)
    ok = [m for m in members if good(m)]
    if top.type not in MIRROR_LIKE:
        return f"{top.name} is a single disk: 1 copy, no redundancy"
    text = f"{top.name} has {_copies(len(ok))} now ({_names(ok) or 'none readable'})"
    bad = [m for m in members if not good(m)]
    if bad:
        text += "; " + ", ".join(
            f"{m.name} is {'resilvering' if m.resilvering and m.state == 'ONLINE' else m.state}"
            for m in bad)
    return text


def redundancy_preview(pool: Pool, vdev_name: str, operation: str, *,
                       new: str | None = None) -> tuple[str, ...]:
    """What redundancy the vdev of `vdev_name` has now, during and after `operation`.

    `operation` is attach (vdev_name: the disk or mirror to attach to; `new`: the new disk),
    detach, replace (`new`: the new disk) or offline. Sentences, now first:
    ("mirror-1 has 2 copies now (vdc, vdd).", "mirror-1 keeps 1 copy (vdc) until vdd is
    back online.")
    """
    found = top_level(pool, vdev_name)
    if found is None:
        return (f"{vdev_name} is not in pool {pool.name}: no redundancy to describe.",)
    section, top = found
    where = "" if section is Section.DATA else f" ({section.value} vdev)"
    out = [describe_now(top) + where + "."]
    newname = new or "the new disk"
    if is_raidz(top):
        parity, left = _raidz_margin(top)
        target = pool.find(vdev_name)
        if operation == "attach":
            out.append(f"Attaching to {top.name} starts a raidz expansion, not a mirror; "
                       "its redundancy stays the same.")
        elif operation == "replace" and target is not None and good(target):
            out.append(f"{top.name} can still lose {_plural(left, 'more disk')} during the "
                       f"resilver ({vdev_name} stays until {newname} is complete), and after.")
        elif operation == "replace":
            still_bad = sum(1 for c in top.children if not good(c) and c.name != vdev_name)
            out.append(f"{top.name} can lose {_plural(max(left, 0), 'more disk')} until the "
                       f"resilver ends; {_plural(parity - still_bad, 'disk')} after.")
        elif operation == "offline":
            out.append(f"{top.name} can lose {_plural(max(left - 1, 0), 'more disk')} while "
                       f"{vdev_name} is offline.")
        else:
            out.append(f"{operation} is not possible on a raidz member.")
        return tuple(out)

    members = _members(top)
    ok = [m for m in members if good(m)]
    target = pool.find(vdev_name)
    target_good = target is not None and (good(target) if target is not top else bool(ok))
    single = top.type not in MIRROR_LIKE
    if operation == "attach":
        if single:
            out.append(f"{top.name} keeps 1 copy until {newname} is resilvered; it becomes a "
                       "2-way mirror with 2 copies after.")
        else:
            out.append(f"{top.name} keeps {_copies(len(ok))} ({_names(ok)}) while {newname} "
                       f"is resilvered; {_copies(len(ok) + 1)} after.")
    elif operation == "detach":
        if target is None:
            out.append(f"{vdev_name} is not in {top.name}.")
        elif not target_good:
            state = "resilvering" if target.resilvering else target.state
            out.append(f"Detaching {vdev_name} ({state}) removes no good copy: {top.name} "
                       f"keeps {_copies(len(ok))} ({_names(ok) or 'none'}) after.")
        else:
            rest = [m for m in ok if m.name != vdev_name and m is not target]
            if not rest:
                out.append(f"Detaching {vdev_name} would leave {top.name} without any valid "
                           "copy: ZFS refuses (no valid replicas).")
            elif len(rest) == 1:
                out.append(f"After detaching {vdev_name}, {top.name} keeps 1 copy "
                           f"({rest[0].name}): NO redundancy, one more failure loses data.")
            else:
                out.append(f"After detaching {vdev_name}, {top.name} keeps "
                           f"{_copies(len(rest))} ({_names(rest)}).")
    elif operation == "replace":
        if target is not None and target_good:
            n = len(ok)
            out.append(f"{top.name} keeps {_copies(n)} during the resilver ({vdev_name} stays "
                       f"until {newname} is complete); {_copies(n)} after, with {newname} "
                       f"instead of {vdev_name}.")
        else:
            others = [m for m in ok if m is not target]
            out.append(f"{top.name} keeps {_copies(len(others))} ({_names(others) or 'none'}) "
                       f"until the resilver ends; {_copies(len(others) + 1)} after.")
    elif operation == "offline":
        rest = [m for m in ok if m is not target]
        out.append(f"{top.name} keeps {_copies(len(rest))} ({_names(rest) or 'none'}) until "
                   f"{vdev_name} is back online.")
    else:
        raise ValueError(f"unknown operation {operation!r}")
    return tuple(out)


# -------------------------------------------------------------------------------- new disks


@dataclass(frozen=True)
class DiskName:
    """How a plan names a disk: the path used in argv and the name zpool will print."""

    path: str  # /dev/disk/by-id/ata-... (or by-path)
    zpool_name: str  # what `zpool status` prints for a whole-disk vdev: the link's name
    stable: bool  # by-id or by-path (never a kernel name)
    via: str  # "by-id", "by-path" or "kernel name"


def disk_name(disk: Disk) -> DiskName:
    """The name a plan uses for `disk`: by-id first, by-path, never sdX for real."""
    if disk.by_id:
        link = disk.by_id[0]
        return DiskName(BY_ID + link, link, True, "by-id")
    if disk.by_path:
        link = disk.by_path[0]
        return DiskName(BY_PATH + link, link, True, "by-path")
    return DiskName("/dev/" + disk.name, disk.name, False, "kernel name")


def who(disk: Disk) -> str:
    """How plans and checks name a disk: its stable name, with today's kernel name beside it
    ('ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE (sdh now)'): a saved plan read after a reboot must not
    point at whatever disk is called sdh then."""
    dn = disk_name(disk)
    return dn.zpool_name if dn.zpool_name == disk.name else f"{dn.zpool_name} ({disk.name} now)"


def describe_disk(disk: Disk) -> str:
    """'ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE (sdh now; WDC WD80EFZX-68UW8N0, serial VK1ABCDE,
    7.3 TiB)'."""
    bits = [b for b in (disk.model, f"serial {disk.serial}" if disk.serial else None,
                        fmt.size(disk.size_bytes) if disk.size_bytes else None) if b]
    dn = disk_name(disk)
    now = [] if dn.zpool_name == disk.name else [f"{disk.name} now"]
    inside = "; ".join(x for x in (", ".join(now), ", ".join(bits)) if x)
    return f"{dn.zpool_name} ({inside})" if inside else dn.zpool_name


def usable_bytes(disk: Disk) -> int | None:
    """What a disk gives ZFS as a leaf: a whole disk loses the 10 MiB reserve; a partition
    is used as it is."""
    if disk.size_bytes is None:
        return None
    if disk.kind == "part":
        return disk.size_bytes
    return max(0, disk.size_bytes - WHOLE_DISK_RESERVE)


def member_size(reading: HostReading, pool: str, leaf: Vdev,
                index: DiskIndex | None) -> tuple[int | None, str]:
    """(bytes, where the figure came from) for one member leaf."""
    entry = reading.pool(pool)
    if entry is not None and entry.usage is not None:
        for row in entry.usage.vdevs:
            if row.name == leaf.name and row.size is not None:
                return row.size, "zpool list -v"
    if index is not None:
        for ref in (leaf.path, leaf.name):
            if not ref:
                continue
            dev = index.find(ref)
            if dev is None:
                continue
            if dev.kind == "part":
                return dev.size_bytes, "partition size"
            return usable_bytes(dev), "disk size minus the 10 MiB whole-disk reserve"
    return None, "unknown"


def smallest_member(reading: HostReading, pool: str, top: Vdev,
                    index: DiskIndex | None) -> tuple[Vdev | None, int | None, str]:
    best: tuple[Vdev | None, int | None, str] = (None, None, "unknown")
    for leaf in leaves_of(top):
        size, src = member_size(reading, pool, leaf, index)
        if size is None:
            continue
        if best[1] is None or size < best[1]:
            best = (leaf, size, src)
    return best


def _exp(n: int) -> int:
    return max(0, n.bit_length() - 1)


def vdev_ashift(reading: HostReading, pool: str, top: Vdev,
                props: Mapping[str, str] | None = None,
                index: DiskIndex | None = None) -> tuple[int | None, str]:
    """(ashift, how zconsole knows it) for a top-level vdev.

    The pool property `ashift` when it is set (non-zero); otherwise what `zpool create` picks
    for these members: the largest physical sector of the member disks (at least 2^9).
    """
    if props:
        raw = props.get("ashift", "").strip()
        if raw.isdigit() and int(raw) > 0:
            return int(raw), f"pool property ashift={raw}"
    if index is None:
        return None, "unknown (no disk identities)"
    shifts: list[int] = []
    for leaf in leaves_of(top):
        d = index.leaf_disk(leaf)
        if d is not None and d.physical_sector:
            shifts.append(_exp(d.physical_sector))
    if not shifts:
        return None, "unknown (member sector sizes not read)"
    return max(9, max(shifts)), "inferred from the members' physical sector size"


def _inventory(reading: HostReading) -> DiskInventory | None:
    return reading.disks.value if reading.disks.ok else None


def _usage_analysis(disk: Disk, inv: DiskInventory, imported: set[str]
                    ) -> tuple[list[str], list[str], list[str], list[str]]:
    """(never usable, foreign ZFS labels, old data, bare partitions) reasons."""
    never: list[str] = []
    labels: list[str] = []
    data: list[str] = []
    bare: list[str] = []
    devs = [disk] + [p for n in disk.partitions if (p := inv.device(n)) is not None]
    for dev in devs:
        label = "the disk" if dev is disk else dev.name
        for mp in dev.mountpoints:
            never.append(f"{label} is active swap" if mp == "[SWAP]"
                         else f"{label} is mounted at {mp}")
        for h in dev.holders:
            holder = inv.device(h)
            kind = holder.kind if holder is not None else ""
            never.append(f"{label} is " + {"md": f"an md RAID member ({h})",
                                           "dm": f"under device-mapper ({h})"}.get(
                kind, f"held by {h}"))
        fs = dev.fs_type
        if dev.mountpoints or dev.holders:
            continue
        if fs == "zfs_member":
            name = dev.fs_label
            if name and name in imported:
                labels.append(f"{label} holds a stale ZFS label of pool {name} (imported here, "
                              "but this disk is not in its tree)")
            elif name:
                labels.append(f"{label} holds a ZFS label of pool {name}, which is not "
                              "imported here (exported, destroyed or from another machine): "
                              f"after this, {name} can never be imported from this disk")
            else:
                labels.append(f"{label} holds a ZFS label")
        elif fs == "swap":
            data.append(f"{label} holds a swap signature (not active)")
        elif fs:
            what = {"linux_raid_member": "an md RAID member signature",
                    "LVM2_member": "an LVM physical volume",
                    "crypto_LUKS": "a LUKS header"}.get(fs, f"a {fs} filesystem")
            if dev.fs_label and fs != "zfs_member":
                what += f" labelled '{dev.fs_label}'"
            data.append(f"{label} holds {what}, not mounted: its data will be destroyed")
        elif dev is not disk:
            bare.append(dev.name)
    return never, labels, data, bare


def check_new_disk(reading: HostReading, pool: str, target: str, disk: str, *,
                   props: Mapping[str, str] | None = None,
                   replacing: bool = False) -> list[Check]:
    """Checks for `disk` (kernel name, by-id/by-path name or /dev path) joining `pool` next
    to `target` (the leaf or mirror it is attached to, or the leaf it replaces).

    `props` are the pool's `zpool get` values (for `ashift`).
    """
    checks: list[Check] = []
    inv = _inventory(reading)
    if inv is None:
        why = reading.disks.error or "not read"
        return [_check(FOUND, False, CheckLevel.BLOCK,
                       f"Disk identities could not be read ({why}): zconsole cannot tell "
                       f"whether {disk} is clean, so it does not offer it.")]
    index = DiskIndex(inv.devices)
    dev = index.find(disk)
    if dev is None:
        return [_check(FOUND, False, CheckLevel.BLOCK,
                       f"{disk} is not a block device on {reading.host}.")]
    if dev.kind not in ("disk", "part"):
        return [_check(FOUND, False, CheckLevel.BLOCK,
                       f"{dev.name} is a {dev.kind} device, not a disk or a partition.")]
    whole = index.whole(dev.name) or dev
    entry = reading.pool(pool)
    status = entry.status if entry is not None else None
    if status is None:
        why = reading.pool_status.error or f"pool {pool} is not imported"
        return [_check(POOL_READ, False, CheckLevel.BLOCK,
                       f"zpool status of {pool} could not be read ({why}): nothing is "
                       "changed without knowing the pool's state.")]
    found = top_level(status, target)
    if found is None:
        return [_check(TARGET, False, CheckLevel.BLOCK, f"{target} is not in pool {pool}.")]
    _, top = found
    name = describe_disk(dev)
    me = who(dev)

    # --- in a pool, or busy: never
    imported = {p.name for p in reading.pools}
    role = inv.role(whole.name)
    in_pool = role is not None and role.state is DiskState.IN_POOL
    if role is not None and in_pool:
        where = "; ".join(role.reasons)
        checks.append(_check(IN_POOL, False, CheckLevel.BLOCK,
                             f"{name} is already in use by ZFS: {where}."))
    else:
        checks.append(_check(IN_POOL, True, CheckLevel.INFO,
                             f"{me} is not part of any imported pool."))
    never, labels, data, bare = _usage_analysis(dev if dev.kind == "part" else whole, inv,
                                                imported)
    if in_pool:
        labels, data, bare = [], [], []  # its own pool's label and partitions, not foreign
    if never:
        checks.append(_check(IN_USE, False, CheckLevel.BLOCK,
                             f"{name} is in use: {'; '.join(never)}. ZFS refuses busy disks "
                             "even with -f; free it first."))
    else:
        checks.append(_check(IN_USE, True, CheckLevel.INFO,
                             f"{me} is not mounted, not swap, not under md or "
                             "device-mapper."))
    if labels:
        checks.append(_check(FOREIGN_LABEL, False, CheckLevel.CONFIRM,
                             f"{'; '.join(labels)}. zpool needs -f to overwrite it; confirm "
                             "twice only if that pool is really gone.", force_flag="-f"))
    if data:
        checks.append(_check(OLD_DATA, False, CheckLevel.CONFIRM,
                             f"{'; '.join(data)}. zpool needs -f to overwrite it; confirm "
                             "twice only if nobody needs it.", force_flag="-f"))
    if not labels and not data and not never and not in_pool:
        if bare:
            checks.append(_check(PARTITIONS, False, CheckLevel.WARN,
                                 f"{me} has partitions without any filesystem "
                                 f"({', '.join(bare)}); zpool replaces the partition table."))
        else:
            checks.append(_check(PARTITIONS, True, CheckLevel.INFO,
                                 f"{me} is clean: no partitions, no filesystem or pool "
                                 "signature."))

    # --- size
    new_size = usable_bytes(dev)
    small_leaf, small, source = smallest_member(reading, pool, top, index)
    if new_size is None:
        checks.append(_check(SIZE, False, CheckLevel.BLOCK,
                             f"The size of {me} is unknown: zconsole cannot check it "
                             "against the members."))
    elif small is None or small_leaf is None:
        checks.append(_check(SIZE, False, CheckLevel.WARN,
                             f"{me} gives {fmt.size(new_size)}; the members' sizes of "
                             f"{top.name} could not be read, so ZFS itself will judge "
                             "('device is too small')."))
    else:
        how = ("after ZFS's 10 MiB whole-disk reserve (partition 1 starts at 1 MiB, "
               "partition 9 takes 8 MiB)" if dev.kind == "disk" else "(a partition, used as is)")
        figures = (f"{me} gives {fmt.size(new_size)} ({new_size} bytes) {how}; the "
                   f"smallest member of {top.name}, {small_leaf.name}, has "
                   f"{fmt.size(small)} ({small} bytes, {source})")
        if new_size < small:
            checks.append(_check(SIZE, False, CheckLevel.BLOCK,
                                 f"Too small: {figures}. ZFS would refuse with 'device is "
                                 "too small'."))
        else:
            extra = ""
            if new_size - small > small // 10 and not replacing:
                extra = (f" The extra {fmt.size(new_size - small)} stays unused until every "
                         f"member of {top.name} is that large.")
            checks.append(_check(SIZE, True, CheckLevel.INFO, f"Large enough: {figures}."
                                 + extra))

    # --- names
    dn = disk_name(dev)
    if dn.via == "by-id":
        checks.append(_check(NAMING, True, CheckLevel.INFO,
                             f"{me} will be named {dn.path} (model and serial: stable "
                             "across reboots and controller changes)."))
    elif dn.stable:
        checks.append(_check(NAMING, False, CheckLevel.WARN,
                             f"{me} has no /dev/disk/by-id link; it will be named "
                             f"{dn.path}, which changes if the disk moves to another port."))
    else:
        checks.append(_check(NAMING, False, CheckLevel.BLOCK,
                             f"{me} has neither a /dev/disk/by-id nor a by-path link; "
                             "zconsole never puts a kernel name (sdX) in a pool: it can "
                             "change at the next boot."))

    # --- sector size
    ashift, how_known = vdev_ashift(reading, pool, top, props, index)
    sector_src = whole if dev.kind == "part" else dev
    logical, physical = sector_src.logical_sector, sector_src.physical_sector
    if ashift is None or logical is None:
        checks.append(_check(SECTOR, False, CheckLevel.WARN,
                             f"Sector sizes could not be compared (ashift {how_known}; "
                             f"{me} logical sector {logical or 'unknown'}): ZFS will "
                             "refuse if they do not fit."))
    elif _exp(logical) > ashift:
        checks.append(_check(
            SECTOR, False, CheckLevel.BLOCK,
            f"{me} has {logical}-byte logical sectors (ashift {_exp(logical)}) but "
            f"{top.name} was created with ashift {ashift} ({2 ** ashift}-byte blocks; "
            f"{how_known}). zpool would refuse: \"new device has a different optimal sector "
            "size; use the option '-o ashift=N' to override the optimal size\". That "
            "override only lowers what ZFS would pick; it cannot make a disk with "
            f"{logical}-byte sectors take {2 ** ashift}-byte writes. Use a disk with "
            f"{2 ** ashift}-byte logical sectors (512n or 512e)."))
    elif physical is not None and _exp(physical) > ashift:
        checks.append(_check(
            SECTOR, False, CheckLevel.WARN,
            f"{me} has {physical}-byte physical sectors but {top.name} writes "
            f"{2 ** ashift}-byte blocks (ashift {ashift}, {how_known}): ZFS accepts it "
            f"(logical {logical} bytes), but small writes become read-modify-write inside "
            f"the disk and `zpool status` will note 'block size: {2 ** ashift}B configured, "
            f"{physical}B native'."))
    else:
        checks.append(_check(SECTOR, True, CheckLevel.INFO,
                             f"Sectors fit: {me} {logical}/{physical or logical} bytes "
                             f"(logical/physical), {top.name} ashift {ashift} ({how_known})."))
    return checks


# ---------------------------------------------------------------------------- attach target


def check_attach_target(pool: Pool, target: str) -> list[Check]:
    """Where a new disk can be attached: a top-level disk or a mirror (not raidz members,
    logs' mirrors are fine, cache/spares not)."""
    v = pool.find(target)
    if v is None:
        return [_check(TARGET, False, CheckLevel.BLOCK, f"{target} is not in pool {pool.name}.")]
    found = top_level(pool, target)
    assert found is not None
    section, top = found
    if section in (Section.CACHE, Section.SPARES):
        return [_check(TARGET, False, CheckLevel.BLOCK,
                       f"{target} is a {'cache device' if section is Section.CACHE else 'hot spare'}"
                       ": nothing can be attached to it.")]
    if is_raidz(top):
        return [_check(TARGET, False, CheckLevel.BLOCK,
                       f"{target} is in {top.name}: attaching to a raidz vdev starts a raidz "
                       "expansion (OpenZFS 2.3+), which this wizard does not do; a raidz "
                       "member cannot become a mirror ('can only attach to mirrors and "
                       "top-level disks').")]
    parent = parent_of(pool, target)
    if parent is not None and parent.type in ("replacing", "spare"):
        return [_check(TARGET, False, CheckLevel.BLOCK,
                       f"{target} is inside {parent.name}: wait until that replace ends "
                       "('already in replacing/spare config').")]
    if any(x.type in ("replacing", "spare") for x in top.children):
        return [_check(TARGET, False, CheckLevel.BLOCK,
                       f"{top.name} has a replace in progress; attach after it ends.")]
    return [_check(TARGET, True, CheckLevel.INFO,
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
        return [_check(DETACH_TARGET, False, CheckLevel.BLOCK,
                       f"{leaf} is not in pool {pool.name} (ZFS: 'no such device in pool').")]
    parent = parent_of(pool, leaf)
    if v.children or parent is None or parent.type not in MIRROR_LIKE:
        where = ("a top-level vdev" if parent is None else f"in {parent.name}")
        return [_check(DETACH_TARGET, False, CheckLevel.BLOCK,
                       f"{leaf} is {where}: only a member of a mirror, or one half of a "
                       "replacing/spare vdev, can be detached (ZFS: 'only applicable to "
                       "mirror and replacing vdevs').")]
    checks = [_check(DETACH_TARGET, True, CheckLevel.INFO,
                     f"{leaf} is a member of {parent.name}.")]
    found = top_level(pool, leaf)
    assert found is not None
    _, top = found
    others = [c for c in parent.children if c is not v]
    others_good = [c for c in others if good(c)]
    if good(v) and not others_good:
        bad = ", ".join(f"{c.name} is {'resilvering' if c.resilvering else c.state}"
                        for c in others) or "no other member"
        checks.append(_check(LAST_REPLICA, False, CheckLevel.BLOCK,
                             f"{leaf} holds the only good copy in {parent.name} ({bad}). "
                             f"Detaching it would lose data; ZFS refuses with 'cannot detach "
                             f"{leaf}: no valid replicas'. Wait for the resilver to finish, or "
                             "replace the failed member first."))
        return checks
    checks.append(_check(LAST_REPLICA, True, CheckLevel.INFO,
                         f"{parent.name} keeps a good copy without {leaf} "
                         f"({_names(others_good) or 'none needed: ' + leaf + ' is not good'})."))
    if v.resilvering and v.state == "ONLINE":
        checks.append(_check(CANCELS_RESILVER, False, CheckLevel.WARN,
                             f"{leaf} is still being resilvered: detaching it cancels that "
                             "attach/replace, and what was copied so far is thrown away."))
    remaining = [m for m in _members(top) if good(m) and m is not v
                 and not (m is parent and len(others_good) == 0)]
    if top.type in MIRROR_LIKE and good(v) and len(remaining) <= 1:
        left = remaining[0].name if remaining else "none"
        checks.append(_check(REDUNDANCY_AFTER, False, CheckLevel.WARN,
                             f"After the detach {top.name} has a single copy ({left}): no "
                             "redundancy, one more disk failure loses data."))
    else:
        checks.append(_check(REDUNDANCY_AFTER, True, CheckLevel.INFO,
                             f"{top.name} keeps {_copies(len(remaining))} after the detach."))
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
        return [_check(HEALTHY_TARGET, False, CheckLevel.BLOCK,
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
            return [_check(HEALTHY_TARGET, False, CheckLevel.WARN,
                           f"{leaf} is not healthy: {'; '.join(problems)}. Its vdev has less "
                           "redundancy than usual while it is replaced.")]
        return [_check(HEALTHY_TARGET, True, CheckLevel.INFO,
                       f"{leaf} is healthy (ONLINE, no errors, {slowness}): it is replaced "
                       "only to grow the vdev.")]
    if problems:
        return [_check(HEALTHY_TARGET, True, CheckLevel.INFO,
                       f"{leaf} is failing: {'; '.join(problems)}.")]
    return [_check(HEALTHY_TARGET, False, CheckLevel.WARN,
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
            return [_check(SCRUB, False, CheckLevel.WARN,
                           f"A scrub of {pool.name} is running{pct}: attaching or replacing "
                           "a disk cancels it; start it again afterwards (`zpool scrub "
                           f"{pool.name}`).")]
        if scan.function is ScanFunction.RESILVER:
            return [_check(RESILVER, False, CheckLevel.WARN,
                           f"A resilver of {pool.name} is already running{pct}: the new disk "
                           "is resilvered after it (or it restarts to include the new disk), "
                           "so everything takes longer.")]
    return [_check(SCRUB, True, CheckLevel.INFO,
                   f"No scrub or resilver is running on {pool.name}.")]
