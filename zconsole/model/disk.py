"""Block devices: identity (who is this disk) and I/O counters (how is it doing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Disk:
    """A block device with its stable identity.

    `name` is the kernel name (sda, vdb, nvme0n1, sda1). Never store `name` in a plan: it can
    change across boots. `by_id` holds /dev/disk/by-id link names (without the directory), best
    first (model+serial names before wwn-, never -partN for a whole disk).
    """

    name: str
    devpath: str
    kind: str  # disk, part, loop, dm, md, zvol, rom, other
    size_bytes: int | None = None
    by_id: tuple[str, ...] = ()
    by_path: tuple[str, ...] = ()
    serial: str | None = None
    model: str | None = None
    vendor: str | None = None
    wwn: str | None = None
    rotational: bool | None = None
    logical_sector: int | None = None
    physical_sector: int | None = None
    parent: str | None = None  # whole disk of a partition
    partitions: tuple[str, ...] = ()
    fs_type: str | None = None  # ID_FS_TYPE / lsblk FSTYPE (zfs_member, ext4, swap, ...)
    fs_label: str | None = None  # for zfs_member: the pool name
    holders: tuple[str, ...] = ()  # dm-*/md* stacked on top
    mountpoints: tuple[str, ...] = ()
    transport: str | None = None  # sata, nvme, usb, virtio ...
    rotation_rpm: int | None = None  # udev ID_ATA_ROTATION_RATE_RPM (0: not spinning)

    @property
    def preferred_id(self) -> str | None:
        """The by-id name an operator should use for this disk, if any."""
        return self.by_id[0] if self.by_id else None


class DiskStat(NamedTuple):
    """One line of /proc/diskstats. Counters as the kernel prints them (see iostats.rst).

    Discard fields exist from kernel 4.18 (15 fields), flush fields from 5.5 (17 fields);
    None when the line has fewer fields.

    A NamedTuple, not a frozen dataclass: a host with 1 000 disks has 3 000 lines, parsed on
    every refresh, and a tuple is made in one C call (`DiskStat._make`) where a frozen
    dataclass sets its 20 fields one Python-level call at a time.
    """

    major: int
    minor: int
    name: str
    reads: int
    reads_merged: int
    sectors_read: int
    ms_reading: int
    writes: int
    writes_merged: int
    sectors_written: int
    ms_writing: int
    in_flight: int
    ms_io: int
    weighted_ms: int
    discards: int | None = None
    discards_merged: int | None = None
    sectors_discarded: int | None = None
    ms_discarding: int | None = None
    flushes: int | None = None
    ms_flushing: int | None = None


@dataclass(frozen=True)
class DiskIo:
    """iostat -x style figures for one device over one interval (two DiskStat samples)."""

    name: str
    interval_s: float
    r_s: float
    w_s: float
    rkb_s: float
    wkb_s: float
    r_await_ms: float
    w_await_ms: float
    await_ms: float
    aqu_sz: float
    util_pct: float  # "busy": share of the interval with at least one request outstanding
