"""The catalogue of read-only commands and files zconsole looks at.

One place for every argv: the collectors in this package, the demo host (which answers them in
the real formats) and the capture tool (which records them on a real machine for ReplayHost)
all use these functions, so a change here changes all three together.

Every command is an argv tuple, never a shell string. Nothing here writes to the host.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from zconsole.model.command import Command
from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, SNAPSHOT_COLUMNS

# Files read directly (cheaper than a command, and identical on every distribution).
ARCSTATS = "/proc/spl/kstat/zfs/arcstats"
ZIL_KSTAT = "/proc/spl/kstat/zfs/zil"
DISKSTATS = "/proc/diskstats"
ZFS_MODULE_VERSION = "/sys/module/zfs/version"
KERNEL_RELEASE = "/proc/sys/kernel/osrelease"
SYS_CLASS_BLOCK = "/sys/class/block"
DISK_BY_ID = "/dev/disk/by-id"
DISK_BY_PATH = "/dev/disk/by-path"

LSBLK_COLUMNS = (
    "NAME", "KNAME", "PKNAME", "TYPE", "SIZE", "ROTA", "LOG-SEC", "PHY-SEC", "MODEL",
    "SERIAL", "WWN", "VENDOR", "TRAN", "FSTYPE", "LABEL", "MOUNTPOINT",
)


def zfs_version() -> tuple[str, ...]:
    """Userland and kernel module versions (`zfs-2.3.2-…` / `zfs-kmod-2.3.2-…`)."""
    return ("zfs", "version")


def zpool_status_json() -> tuple[str, ...]:
    """OpenZFS 2.3+: the status tree as JSON with plain integers."""
    return ("zpool", "status", "-j", "--json-int")


def zpool_status_text() -> tuple[str, ...]:
    """OpenZFS 2.1 (no JSON): the text status with exact numbers."""
    return ("zpool", "status", "-p")


def zpool_status(json: bool) -> tuple[str, ...]:
    return zpool_status_json() if json else zpool_status_text()


def zpool_list() -> tuple[str, ...]:
    """Capacity of every pool and, with -v, of every vdev."""
    return ("zpool", "list", "-H", "-p", "-v")


def zpool_iostat_latency(interval: int = 1) -> tuple[str, ...]:
    """One report of per-vdev and per-leaf throughput and latency over INTERVAL seconds.

    `-y` skips the since-import report, `1` is the count: the command blocks for INTERVAL
    seconds. There is no JSON form of iostat, even in 2.3.
    """
    if interval < 1:
        raise ValueError(f"zpool iostat interval must be at least 1 s, got {interval}")
    return ("zpool", "iostat", "-v", "-l", "-H", "-p", "-y", str(int(interval)), "1")


def zfs_list_datasets() -> tuple[str, ...]:
    """Filesystems and volumes only: listing every snapshot can take minutes on big hosts."""
    return ("zfs", "list", "-H", "-p", "-t", "filesystem,volume", "-o", ",".join(DEFAULT_COLUMNS))


def zfs_list_snapshots(dataset: str) -> tuple[str, ...]:
    """The snapshots of ONE dataset (loaded when the operator opens it)."""
    _check_name(dataset)
    return ("zfs", "list", "-H", "-p", "-t", "snapshot", "-d", "1", "-o",
            ",".join(SNAPSHOT_COLUMNS), dataset)


SNAPSHOT_NAME_COLUMNS = ("name", "createtxg")


def zfs_list_snapshot_names(datasets: Sequence[str]) -> tuple[str, ...]:
    """Snapshot names of some datasets, no space columns (per-snapshot `used` is the
    expensive part): the background scan runs this a batch of datasets at a time."""
    if not datasets:
        raise ValueError("name at least one dataset")
    for d in datasets:
        _check_name(d)
    return ("zfs", "list", "-H", "-p", "-t", "snapshot", "-d", "1", "-o",
            ",".join(SNAPSHOT_NAME_COLUMNS), *datasets)


# The dataset properties the advisor judges (services/health/advice): one `zfs get` of every
# filesystem and volume, read when the advice is asked for, not on every refresh.
ADVICE_PROPERTIES: tuple[str, ...] = (
    "type", "referenced", "compression", "atime", "relatime", "xattr", "acltype", "copies",
    "recordsize", "volblocksize", "dedup", "mountpoint", "snapshot_count", "origin",
)
# the snapshots clones were made from (their `origin`), read by name: when each was taken,
# what it alone holds, its user holds
ORIGIN_PROPERTIES: tuple[str, ...] = ("creation", "used", "userrefs")
MAX_ORIGINS = 256  # per command: the argv stays short on a host with many clones


def zfs_get_advice() -> tuple[str, ...]:
    """The advisor's dataset properties, exact numbers, with their source (local,
    default, inherited from ...)."""
    return ("zfs", "get", "-H", "-p", "-t", "filesystem,volume", "-o",
            "name,property,value,source", ",".join(ADVICE_PROPERTIES))


def zfs_get_origins(snapshots: Sequence[str]) -> tuple[str, ...]:
    """`zfs get` of the origin snapshots' ORIGIN_PROPERTIES, by name (the first MAX_ORIGINS)."""
    names = list(snapshots)[:MAX_ORIGINS]
    for name in names:
        _check_name(name)
    return ("zfs", "get", "-H", "-p", "-o", "name,property,value,source",
            ",".join(ORIGIN_PROPERTIES), *names)


def zpool_get_all(pool: str) -> tuple[str, ...]:
    _check_name(pool)
    return ("zpool", "get", "-H", "-p", "all", pool)


# The Timeline screen's reads (services/read/timeline.py), read when that screen is shown.
ZPOOL_EVENTS: tuple[str, ...] = ("zpool", "events", "-v")
# each event's time and class, no host string: what splits the -v output (read first)
ZPOOL_EVENTS_SHORT: tuple[str, ...] = ("zpool", "events", "-H")
ZPOOL_HISTORY: tuple[str, ...] = ("zpool", "history", "-il")
# the same records without the `-l` suffixes: where each record ends (read first)
ZPOOL_HISTORY_PLAIN: tuple[str, ...] = ("zpool", "history", "-i")
DATE_ZONE: tuple[str, ...] = ("date", "+%z %Z")  # the host's UTC offset and zone name


def udevadm_export_db() -> tuple[str, ...]:
    """The whole udev database in one command (identity of every block device)."""
    return ("udevadm", "info", "--export-db")


def lsblk_json() -> tuple[str, ...]:
    """Every block device with sizes in bytes, parents, filesystems and mountpoints."""
    return ("lsblk", "-J", "-b", "-o", ",".join(LSBLK_COLUMNS))


def uname_release() -> tuple[str, ...]:
    """Fallback for the kernel release when /proc/sys/kernel/osrelease cannot be read."""
    return ("uname", "-r")


def _check_name(name: str) -> None:
    # An argv element starting with '-' would be read as an option by zfs/zpool.
    if not name or name.startswith("-"):
        raise ValueError(f"not a pool or dataset name: {name!r}")


class FileRead(NamedTuple):
    """A file zconsole reads (through Host.read_text)."""

    path: str
    purpose: str


READ_ONLY_FILES: tuple[FileRead, ...] = (
    FileRead(ZFS_MODULE_VERSION, "version of the loaded ZFS kernel module"),
    FileRead(KERNEL_RELEASE, "kernel release"),
    FileRead(ARCSTATS, "ARC size, target and hit counters"),
    FileRead(ZIL_KSTAT, "intent log counters: synchronous writes to log devices and pools "
                        "(the advisor's SLOG finding)"),
    FileRead(DISKSTATS, "per-disk I/O counters (utilisation, await, queue size)"),
)


def read_only_commands(
    *,
    json_status: bool = True,
    pools: Iterable[str] = (),
    datasets: Iterable[str] = (),
    iostat_interval: int = 1,
) -> list[Command]:
    """Every read-only command zconsole runs, in the order `collect()` runs them.

    `json_status` picks the 2.3 (JSON) or 2.1 (text) status form; `pools` adds
    `zpool get all` per pool and `datasets` adds each one's snapshot listing. The capture tool
    iterates this list; none of these commands writes.
    """
    cmds = [
        Command(zfs_version(), "OpenZFS userland and kernel module versions"),
        Command(uname_release(), "kernel release"),
        Command(zpool_status(json_status), "pool health and vdev tree"),
        Command(zpool_list(), "pool and vdev capacity"),
        Command(zfs_list_datasets(), "filesystems and volumes (never all snapshots)"),
        Command(lsblk_json(), "block devices: sizes, parents, filesystems, mountpoints"),
        Command(udevadm_export_db(), "disk identities (serial, model, by-id names)"),
        Command(zpool_iostat_latency(iostat_interval), "per-disk ZFS latency over an interval"),
    ]
    for pool in pools:
        cmds.append(Command(zpool_get_all(pool), f"properties of pool {pool}"))
    for ds in datasets:
        cmds.append(Command(zfs_list_snapshots(ds), f"snapshots of {ds}"))
    return cmds


READ_ONLY_COMMANDS: tuple[Command, ...] = (
    *read_only_commands(json_status=True),
    Command(zpool_status_text(), "pool health and vdev tree (OpenZFS 2.1 text form)"),
    Command(ZPOOL_EVENTS, "the kernel's recent ZFS events (Timeline screen)"),
    Command(ZPOOL_EVENTS_SHORT, "each event's time and class, to check the events read"),
    Command(ZPOOL_HISTORY, "every command and internal change of each pool (Timeline screen)"),
    Command(ZPOOL_HISTORY_PLAIN, "the same without who ran them, to tell where each ends"),
    Command(DATE_ZONE, "the host's time zone (Timeline screen)"),
)


def is_read_only(argv: Sequence[str]) -> bool:
    """True when argv is one of the catalogue's commands (any pool, dataset or interval)."""
    args = tuple(argv)
    if any(c.argv == args for c in READ_ONLY_COMMANDS):
        return True
    iostat = zpool_iostat_latency(1)
    if len(args) == len(iostat) and args[:-2] == iostat[:-2] and args[-1] == "1" \
            and args[-2].isdigit() and int(args[-2]) >= 1:
        return True
    if len(args) == 6 and args[:5] == ("zpool", "get", "-H", "-p", "all"):
        return not args[5].startswith("-")
    names = zfs_list_snapshot_names(["x"])
    if len(args) >= len(names) and args[:len(names) - 1] == names[:-1]:
        return all(not a.startswith("-") for a in args[len(names) - 1:])
    snaps = zfs_list_snapshots("x")
    return len(args) == len(snaps) and args[:-1] == snaps[:-1] and not args[-1].startswith("-")
