"""Is this disk fit to join the pool? The checks on a new disk before attach or replace.

Pure functions over what `services.read.collect` read (disk identities and roles from
`services.read.identity`, leaf sizes from `zpool list -v`) plus the pool's `zpool get`
properties; nothing here touches the host. `check_new_disk` runs one check function per
concern, in the order the operator reads them:

* `new_disk_smart.smart_check` (when the plan read the disk's SMART), first: the disk's own
  health. One that says it is failing is never used; failure counters or a failed
  self-test are a loud warning (first, so the wizard shows it above the fold at 80x24);
* `_usage_checks`: in an imported pool or busy (mounted, swap, md/dm holders): never usable,
  even `-f` does not override it; a ZFS label of an exported pool or a filesystem nobody
  mounts is overridden with `-f` only after a second, explicit confirmation;
* `_size_check`: zpool puts a whole disk's data in partition 1, which starts at 1 MiB, and keeps
  an 8 MiB partition 9 at the end: the leaf is the disk minus 10 MiB (a 1 GiB virtio disk gives
  a 1063256064-byte leaf). A new disk must give at least as much as the smallest member of
  the vdev (ZFS's exact limit is the vdev's allocatable size, slightly less; zconsole asks for
  the member size, which is never wrong);
* `_naming_check`: the new vdev is named by `/dev/disk/by-id/...` (model and serial), by-path
  when the disk has no by-id link, never by a kernel name (sdX changes across boots);
* `_sector_check`: ZFS refuses a disk whose logical sector is larger than 2^ashift of the vdev
  ("new device has a different optimal sector size"); a 512e disk (4096-byte physical,
  512-byte logical) is accepted by an ashift=9 vdev but every small write becomes a
  read-modify-write inside the disk, so that is a loud warning.

Check names and levels are those of `guards` (see there for what each level means).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zconsole.model.disk import Disk
from zconsole.model.plan import Check, CheckLevel
from zconsole.model.pool import Vdev
from zconsole.model.reading import DiskInventory, DiskState, HostReading
from zconsole.services import fmt
from zconsole.services.health.advice.layout import MIXED_MEDIA_WHY, mixes_media
from zconsole.services.ops.zfs.guards import (
    POOL_READ,
    TARGET,
    check,
    leaves_of,
    passed,
    top_level,
)
from zconsole.services.ops.zfs.new_disk_smart import SmartLook, smart_check
from zconsole.services.read.identity import (
    SIGNATURES,
    DiskIndex,
    ZfsLabel,
    device_uses,
    zfs_label,
)

MiB = 1 << 20
# Whole-disk layout written by zpool: partition 1 from 1 MiB, partition 9 (8 MiB) at the end,
# plus alignment; the leaf is exactly 10 MiB smaller than the disk (1 GiB -> 1063256064).
WHOLE_DISK_RESERVE = 10 * MiB
BY_ID = "/dev/disk/by-id/"
BY_PATH = "/dev/disk/by-path/"

# Stable check names (tests and the UI key on them).
SIZE = "size"
IN_POOL = "in-pool"
IN_USE = "in-use"
FOREIGN_LABEL = "foreign-label"
OLD_DATA = "old-data"
PARTITIONS = "partitions"
NAMING = "stable-name"
SECTOR = "sector-size"
MEDIA = "media"
FOUND = "disk-found"



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


# A ZFS label the new disk carries, and what overwriting it means.
_LABEL_WORDS = {
    ZfsLabel.STALE: "{dev} holds a stale ZFS label of pool {pool} (imported here, but this "
                    "disk is not in its tree)",
    ZfsLabel.FOREIGN: "{dev} holds a ZFS label of pool {pool}, which is not imported here "
                      "(exported, destroyed or from another machine): after this, {pool} can "
                      "never be imported from this disk",
    ZfsLabel.UNCHECKED: "{dev} holds a ZFS label of pool {pool} (pool membership could not "
                        "be checked)",
    ZfsLabel.NAMELESS: "{dev} holds a ZFS label",
}


def _usage_analysis(disk: Disk, inv: DiskInventory, imported: set[str]
                    ) -> tuple[list[str], list[str], list[str], list[str]]:
    """(never usable, foreign ZFS labels, old data, bare partitions) reasons."""
    never: list[str] = []
    labels: list[str] = []
    data: list[str] = []
    bare: list[str] = []
    for label, dev, busy in device_uses(disk, inv):
        never += busy
        fs = dev.fs_type
        if dev.mountpoints or dev.holders:
            continue
        kind = zfs_label(dev, imported)
        if kind is not None:
            labels.append(_LABEL_WORDS[kind].format(dev=label, pool=dev.fs_label))
        elif fs == "swap":
            data.append(f"{label} holds a swap signature (not active)")
        elif fs:
            what = SIGNATURES.get(fs, f"a {fs} filesystem")
            if dev.fs_label:
                what += f" labelled '{dev.fs_label}'"
            data.append(f"{label} holds {what}, not mounted: its data will be destroyed")
        elif dev is not disk:
            bare.append(dev.name)
    return never, labels, data, bare



@dataclass(frozen=True)
class _Candidate:
    """A disk found on the host, next to the vdev it would join: what every check reads."""

    reading: HostReading
    pool: str
    inv: DiskInventory
    index: DiskIndex
    dev: Disk  # the disk or partition named
    whole: Disk  # the whole disk it is on (itself for a disk)
    top: Vdev  # the top-level vdev it joins
    name: str  # describe_disk(dev): the long form
    me: str  # who(dev): the short form


def check_new_disk(reading: HostReading, pool: str, target: str, disk: str, *,
                   props: Mapping[str, str] | None = None,
                   replacing: bool = False, smart: SmartLook | None = None) -> list[Check]:
    """Checks for `disk` (kernel name, by-id/by-path name or /dev path) joining `pool` next
    to `target` (the leaf or mirror it is attached to, or the leaf it replaces).

    `props` are the pool's `zpool get` values (for `ashift`); `smart` the disk's SMART as
    the plan read it (`new_disk_smart`; None: not read, no SMART check).
    """
    found = _candidate(reading, pool, target, disk)
    if isinstance(found, Check):
        return [found]
    smart_checks = ([smart_check(smart, found.me, found.whole.preferred_id)]
                    if smart is not None else [])
    return [*smart_checks, *_usage_checks(found), _size_check(found, replacing),
            _media_check(found, target if replacing else None), _naming_check(found),
            _sector_check(found, props)]


def _candidate(reading: HostReading, pool: str, target: str, disk: str) -> _Candidate | Check:
    """The disk and its vdev, or the blocking check that says why there is none."""
    inv = _inventory(reading)
    if inv is None:
        why = reading.disks.error or "not read"
        return check(FOUND, False, CheckLevel.BLOCK,
                     f"Disk identities could not be read ({why}): zconsole cannot tell "
                     f"whether {disk} is clean, so it does not offer it.")
    index = DiskIndex(inv.devices)
    dev = index.find(disk)
    if dev is None:
        return check(FOUND, False, CheckLevel.BLOCK,
                     f"{disk} is not a block device on {reading.host}.")
    if dev.kind not in ("disk", "part"):
        return check(FOUND, False, CheckLevel.BLOCK,
                     f"{dev.name} is a {dev.kind} device, not a disk or a partition.")
    whole = index.whole(dev.name) or dev
    entry = reading.pool(pool)
    status = entry.status if entry is not None else None
    if status is None:
        why = reading.pool_status.error or f"pool {pool} is not imported"
        return check(POOL_READ, False, CheckLevel.BLOCK,
                     f"zpool status of {pool} could not be read ({why}): nothing is "
                     "changed without knowing the pool's state.")
    found = top_level(status, target)
    if found is None:
        return check(TARGET, False, CheckLevel.BLOCK, f"{target} is not in pool {pool}.")
    return _Candidate(reading, pool, inv, index, dev, whole, found[1], describe_disk(dev),
                      who(dev))


# --- in a pool, or busy: never


def _usage_checks(c: _Candidate) -> list[Check]:
    checks: list[Check] = []
    imported = {p.name for p in c.reading.pools}
    role = c.inv.role(c.whole.name)
    in_pool = role is not None and role.state is DiskState.IN_POOL
    if role is not None and in_pool:
        where = "; ".join(role.reasons)
        checks.append(check(IN_POOL, False, CheckLevel.BLOCK,
                            f"{c.name} is already in use by ZFS: {where}."))
    else:
        checks.append(passed(IN_POOL, f"{c.me} is not part of any imported pool."))
    never, labels, data, bare = _usage_analysis(c.dev if c.dev.kind == "part" else c.whole,
                                                c.inv, imported)
    if in_pool:
        labels, data, bare = [], [], []  # its own pool's label and partitions, not foreign
    if never:
        checks.append(check(IN_USE, False, CheckLevel.BLOCK,
                            f"{c.name} is in use: {'; '.join(never)}. ZFS refuses busy disks "
                            "even with -f; free it first."))
    else:
        checks.append(passed(IN_USE,
                             f"{c.me} is not mounted, not swap, not under md or "
                             "device-mapper."))
    if labels:
        checks.append(check(FOREIGN_LABEL, False, CheckLevel.CONFIRM,
                            f"{'; '.join(labels)}. zpool needs -f to overwrite it; confirm "
                            "twice only if that pool is really gone.", force_flag="-f"))
    if data:
        checks.append(check(OLD_DATA, False, CheckLevel.CONFIRM,
                            f"{'; '.join(data)}. zpool needs -f to overwrite it; confirm "
                            "twice only if nobody needs it.", force_flag="-f"))
    if not labels and not data and not never and not in_pool:
        if bare:
            checks.append(check(PARTITIONS, False, CheckLevel.WARN,
                                f"{c.me} has partitions without any filesystem "
                                f"({', '.join(bare)}); zpool replaces the partition table."))
        else:
            checks.append(passed(PARTITIONS,
                                 f"{c.me} is clean: no partitions, no filesystem or pool "
                                 "signature."))
    return checks


# --- size


def _size_check(c: _Candidate, replacing: bool) -> Check:
    new_size = usable_bytes(c.dev)
    small_leaf, small, source = smallest_member(c.reading, c.pool, c.top, c.index)
    if new_size is None:
        return check(SIZE, False, CheckLevel.BLOCK,
                     f"The size of {c.me} is unknown: zconsole cannot check it "
                     "against the members.")
    if small is None or small_leaf is None:
        return check(SIZE, False, CheckLevel.WARN,
                     f"{c.me} gives {fmt.size(new_size)}; the members' sizes of "
                     f"{c.top.name} could not be read, so ZFS itself will judge "
                     "('device is too small').")
    how = ("after ZFS's 10 MiB whole-disk reserve (partition 1 starts at 1 MiB, "
           "partition 9 takes 8 MiB)" if c.dev.kind == "disk" else "(a partition, used as is)")
    figures = (f"{c.me} gives {fmt.size(new_size)} ({new_size} bytes) {how}; the "
               f"smallest member of {c.top.name}, {small_leaf.name}, has "
               f"{fmt.size(small)} ({small} bytes, {source})")
    if new_size < small:
        return check(SIZE, False, CheckLevel.BLOCK,
                     f"Too small: {figures}. ZFS would refuse with 'device is too small'.")
    extra = ""
    if new_size - small > small // 10 and not replacing:
        extra = (f" The extra {fmt.size(new_size - small)} stays unused until every "
                 f"member of {c.top.name} is that large.")
    return passed(SIZE, f"Large enough: {figures}." + extra)


# --- media class, rotation rate and size, against the members


def media_class(disk: Disk) -> str | None:
    """HDD, SSD or NVMe from the kernel's queue/rotational flag and the transport (None:
    not known)."""
    if disk.rotational is None:
        return None
    if disk.rotational:
        return "HDD"
    return "NVMe" if disk.transport == "nvme" or disk.name.startswith("nvme") else "SSD"


def media_words(disk: Disk) -> str:
    """'HDD, 7200 rpm, 3.0 TB' / 'NVMe, 1.0 TB' / 'media unknown, 4.0 TB'."""
    bits = [media_class(disk) or "media unknown"]
    if disk.rotational and disk.rotation_rpm:
        bits.append(f"{disk.rotation_rpm} rpm")
    if disk.size_bytes:
        bits.append(fmt.size_as_sold(disk.size_bytes))
    return ", ".join(bits)


def _media_check(c: _Candidate, replaced: str | None) -> Check:
    """The new disk's media class, rotation rate and size beside the members that stay
    (`replaced`: the member leaving, not compared). A vdev mixing spinning disks with
    SSD/NVMe is the advisor's `advice-mixed-media` (its rule and its reason); a slower
    spinning disk sets the pace of every write."""
    new = c.whole
    members = [d for d in (c.index.leaf_disk(leaf) for leaf in leaves_of(c.top)
                           if leaf.name != replaced and leaf.path != replaced) if d is not None]
    if not members:
        return passed(MEDIA,
                      f"{c.me} is {media_words(new)}; the members of {c.top.name} could not be "
                      "matched to disks, so their media are not compared.")
    groups: dict[str, int] = {}
    for d in members:
        groups[media_words(d)] = groups.get(media_words(d), 0) + 1
    theirs = "; ".join(f"{n} × {w}" if n > 1 else w for w, n in groups.items())
    figures = f"{c.me} is {media_words(new)}; the members of {c.top.name}: {theirs}"
    if mixes_media([new.rotational, *(d.rotational for d in members)]):
        kinds = " and ".join(dict.fromkeys(media_class(d) or "unknown" for d in members))
        return check(MEDIA, False, CheckLevel.WARN,
                     f"Mixed media ({media_class(new)} beside {kinds}): {figures}. "
                     f"{MIXED_MEDIA_WHY} The advisor flags such a vdev (advice-mixed-media).")
    rpms = [d.rotation_rpm for d in members if d.rotational and d.rotation_rpm]
    if new.rotational and new.rotation_rpm and rpms and new.rotation_rpm < min(rpms):
        return check(MEDIA, False, CheckLevel.WARN,
                     f"Slower disk ({new.rotation_rpm} rpm beside {min(rpms)} rpm): "
                     f"{figures}. Every write of {c.top.name} waits for its slowest disk.")
    return passed(MEDIA, f"Same kind of disk: {figures}.")


# --- names


def _naming_check(c: _Candidate) -> Check:
    dn = disk_name(c.dev)
    if dn.via == "by-id":
        return passed(NAMING,
                      f"{c.me} will be named {dn.path} (model and serial: stable "
                      "across reboots and controller changes).")
    if dn.stable:
        return check(NAMING, False, CheckLevel.WARN,
                     f"{c.me} has no /dev/disk/by-id link; it will be named "
                     f"{dn.path}, which changes if the disk moves to another port.")
    return check(NAMING, False, CheckLevel.BLOCK,
                 f"{c.me} has neither a /dev/disk/by-id nor a by-path link; "
                 "zconsole never puts a kernel name (sdX) in a pool: it can "
                 "change at the next boot.")


# --- sector size


def _sector_check(c: _Candidate, props: Mapping[str, str] | None) -> Check:
    me, top = c.me, c.top
    ashift, how_known = vdev_ashift(c.reading, c.pool, top, props, c.index)
    sector_src = c.whole if c.dev.kind == "part" else c.dev
    logical, physical = sector_src.logical_sector, sector_src.physical_sector
    if ashift is None or logical is None:
        return check(SECTOR, False, CheckLevel.WARN,
                     f"Sector sizes could not be compared (ashift {how_known}; "
                     f"{me} logical sector {logical or 'unknown'}): ZFS will "
                     "refuse if they do not fit.")
    if _exp(logical) > ashift:
        return check(
            SECTOR, False, CheckLevel.BLOCK,
            f"{me} has {logical}-byte logical sectors (ashift {_exp(logical)}) but "
            f"{top.name} was created with ashift {ashift} ({2 ** ashift}-byte blocks; "
            f"{how_known}). zpool would refuse: \"new device has a different optimal sector "
            "size; use the option '-o ashift=N' to override the optimal size\". That "
            "override only lowers what ZFS would pick; it cannot make a disk with "
            f"{logical}-byte sectors take {2 ** ashift}-byte writes. Use a disk with "
            f"{2 ** ashift}-byte logical sectors (512n or 512e).")
    if physical is not None and _exp(physical) > ashift:
        return check(
            SECTOR, False, CheckLevel.WARN,
            f"{me} has {physical}-byte physical sectors but {top.name} writes "
            f"{2 ** ashift}-byte blocks (ashift {ashift}, {how_known}): ZFS accepts it "
            f"(logical {logical} bytes), but small writes become read-modify-write inside "
            f"the disk and `zpool status` will note 'block size: {2 ** ashift}B configured, "
            f"{physical}B native'.")
    return passed(SECTOR,
                  f"Sectors fit: {me} {logical}/{physical or logical} bytes "
                  f"(logical/physical), {top.name} ashift {ashift} ({how_known}).")
