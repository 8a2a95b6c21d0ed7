"""Disks and their partitions: identity (model, serial, WWN, by-id and by-path names),
size and sectors, the steady I/O load a disk carries (`IoProfile`) and its /proc/diskstats
counters (`count_io`), its speed for scrubs and resilvers, and `zpool labelclear`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, MiB

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine

Rates = tuple[float, float, float, float, float, float]
"""(r_iops, w_iops, r_bps, w_bps, r_ms, w_ms) of a disk at one moment."""


@dataclass
class Partition:
    number: int
    size: int
    fs_type: str | None = None
    fs_label: str | None = None
    fs_uuid: str | None = None
    part_label: str | None = None
    mountpoint: str | None = None
    swap: bool = False


@dataclass
class IoProfile:
    """Steady background load of a disk and how fast it answers."""

    r_iops: float = 0.0
    w_iops: float = 0.0
    r_bps: float = 0.0
    w_bps: float = 0.0
    r_ms: float = 5.0  # service time per read
    w_ms: float = 5.0
    slow: float = 1.0  # multiplier on service times (the sick disk answers ~10x slower)


@dataclass
class Disk:
    name: str  # kernel name: sda, nvme0n1
    model: str
    serial: str
    size: int  # bytes
    rotational: bool
    transport: str  # sata, sas, nvme
    major: int
    minor: int
    logical_sector: int = 512
    physical_sector: int = 512
    vendor: str = "ATA"
    wwn: str | None = None
    pci_path: str = ""
    partitions: list[Partition] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)
    io: IoProfile = field(default_factory=IoProfile)
    counters: list[float] = field(default_factory=lambda: [0.0] * 17)
    present: bool = True

    @property
    def id_model(self) -> str:
        return self.model.replace(" ", "_")

    @property
    def by_id(self) -> list[str]:
        """Link names under /dev/disk/by-id, model+serial first."""
        if self.transport == "nvme":
            out = [f"nvme-{self.id_model}_{self.serial}"]
            if self.wwn:
                out.append(f"nvme-{self.wwn}")
            return out
        prefix = "ata" if self.transport == "sata" else "scsi-SATA"
        out = [f"{prefix}-{self.id_model}_{self.serial}"]
        if self.wwn:
            out.append(f"wwn-{self.wwn}")
        return out

    @property
    def by_path(self) -> str:
        return self.pci_path

    def part_name(self, n: int) -> str:
        return f"{self.name}p{n}" if self.name[-1].isdigit() else f"{self.name}{n}"

    @property
    def in_use_mount(self) -> str | None:
        for p in self.partitions:
            if p.mountpoint:
                return p.mountpoint
        return None


def disk_speed(d: Disk) -> float:
    if d.transport == "nvme":
        return 900 * MiB
    if not d.rotational:
        return 380 * MiB
    return 165 * MiB


def count_io(d: Disk, rates: Rates, dt: float) -> None:
    """Move a disk's /proc/diskstats counters on by `dt` seconds at `rates`
    (`Machine.disk_rates`)."""
    r_iops, w_iops, r_bps, w_bps, r_ms, w_ms = rates
    c = d.counters
    dr, dw = r_iops * dt, w_iops * dt
    c[0] += dr
    c[1] += dr * 0.02
    c[2] += r_bps * dt / 512
    c[3] += dr * r_ms
    c[4] += dw
    c[5] += dw * 0.05
    c[6] += w_bps * dt / 512
    c[7] += dw * w_ms
    busy = min(1.0, (r_iops * r_ms + w_iops * w_ms) / 1000.0 * 0.6)
    c[9] += busy * dt * 1000
    c[10] += dr * r_ms + dw * w_ms
    if not d.rotational:
        c[11] += dt * 0.05
        c[12] += 0
        c[13] += dt * 0.05 * 2048
        c[14] += dt * 0.05 * 0.4
    c[15] += dt * 0.5
    c[16] += dt * 0.5 * (w_ms * 0.5)


def labelclear(m: Machine, dev: str, force: bool) -> None:
    hit = m.disk_by_any(dev)
    if hit is None:
        raise CmdError(1, f"failed to open {dev}: No such file or directory")
    d, part = hit
    n = part or 1
    for p in d.partitions:
        if p.number != n or p.fs_type != "zfs_member":
            continue
        owner = m.leaf_of_disk(d.name)
        if owner is not None:
            pool, _ = owner
            raise CmdError(1, "labelclear operation failed.\n"
                              f"\tVdev {dev} is a member (ACTIVE), of pool \"{pool.name}\".\n"
                              "\tTo remove label information from this device, export or "
                              "destroy\n\tthe pool, or remove "
                              f"{dev} from the configuration of this pool\n"
                              "\tand retry the labelclear operation.")
        if not force:
            raise CmdError(1, "use '-f' to override the following error:\n"
                              f"{dev} is a member of exported pool \"{p.fs_label}\"")
        p.fs_type, p.fs_label, p.fs_uuid = None, None, None
