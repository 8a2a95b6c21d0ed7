"""One consistent picture of a host: every part with its own outcome and age.

`services.snapshot.collect(host)` builds a `HostReading`. Each part (pool status, pool usage,
datasets, ARC, diskstats, disk identities, kernel) is a `Part`: the value, or None with the
exact error, plus the host time the part was read and the console's own (monotonic) time its
answer arrived: ages are always told on the console's clock, never as the host's time less the
console's (a host whose clock is an hour behind, or stopped, is no older for it; issue 27). A
part that could not be read is never
replaced by a guess: in particular a pool whose `zpool status` failed has health "UNKNOWN",
not the ONLINE that `zpool list` may have printed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Generic, NamedTuple, TypeVar

from zconsole.model.arc import ArcStats
from zconsole.model.dataset import Dataset
from zconsole.model.disk import Disk, DiskStat
from zconsole.model.pool import Pool, PoolUsage, Section

T = TypeVar("T", covariant=True)

# `status:` texts that `zpool status -x` still reports as healthy (cmd/zpool/zpool_main.c:
# ZPOOL_STATUS_FEAT_DISABLED, _VERSION_OLDER, _COMPATIBILITY_ERR, _INCOMPATIBLE_FEAT).
BENIGN_STATUS = (
    "features are not enabled on the pool",
    "legacy on-disk format",
    "has a compatibility list specified",
    "despite not being requested by the 'compatibility' property",
)

# error_type values that are not exception class names.
SKIPPED = "Skipped"  # not attempted: ZFS is absent, or an earlier part failed
UNREACHABLE = "HostUnreachable"  # the error type of a read whose host could not be reached
PENDING = "Pending"  # being read for the first time: nothing is known yet


@dataclass(frozen=True)
class Part(Generic[T]):
    """The outcome of reading one part of the host.

    `value` is None exactly when `error` is set. `error` is a sentence fit for the screen,
    `error_type` the exception class name (CommandTimedOut, PermissionDenied, ParseError, ...)
    or SKIPPED. `taken_at` is host time (epoch seconds) when the read finished or failed: a
    fact about the host (what its clock said), for its own events and times. `seen` is the
    console's monotonic clock when the answer (or the failure) arrived, None when no console
    stamped it: every age shown is counted from it. `source` is what was run or read, as the
    operator would type it. `needs_root` is True when the read failed with a permission error
    while zconsole was not running as root.
    """

    value: T | None
    taken_at: float
    source: str = ""
    error: str | None = None
    error_type: str | None = None
    needs_root: bool = False
    seen: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def skipped(self) -> bool:
        return self.error_type == SKIPPED

    @property
    def pending(self) -> bool:
        return self.error_type == PENDING

    def age(self, now: float) -> float:
        """Seconds since this part's answer arrived, `now` being the console's monotonic
        clock (`seen`'s); 0 for a part no console stamped (its age is not known: never the
        host's time less the console's)."""
        return 0.0 if self.seen is None else max(0.0, now - self.seen)


class ZfsPresence(str, Enum):
    PRESENT = "present"
    NOT_INSTALLED = "not-installed"  # no zfs/zpool commands
    MODULE_NOT_LOADED = "module-not-loaded"  # commands exist, /sys/module/zfs does not
    UNKNOWN = "unknown"  # could not tell (zfs version timed out, ...)


class ZfsInfo(NamedTuple):
    """Is OpenZFS there, which version, and which status format to use.

    `message` is one sentence for the header (e.g. "OpenZFS is not installed on nas1: no zfs
    or zpool command."). `version` is the userland (major, minor, patch) that decides the
    command forms; `json_status` is True from 2.3 (`zpool status -j`).
    """

    presence: ZfsPresence
    message: str
    userland: str | None = None
    kernel_module: str | None = None
    version: tuple[int, int, int] | None = None
    json_status: bool = False

    @property
    def present(self) -> bool:
        return self.presence is ZfsPresence.PRESENT


class DiskState(str, Enum):
    IN_POOL = "in-pool"  # a leaf of an imported pool is on this disk
    IN_USE = "in-use"  # mounted, swap, md/dm member, or a ZFS label of another pool
    HAS_DATA = "has-data"  # partitions or a filesystem signature, nothing active
    FREE = "free"  # no partitions, no signature, no holders: safe to offer for a new vdev
    IGNORED = "ignored"  # loop, zram, ram, optical, zvols, dm/md devices themselves


class DiskRole(NamedTuple):
    """What one whole disk is used for, with the reasons in plain words.

    For IN_POOL, `pool`, `section` and `vdev_path` (top-level ... leaf, as in the status
    tree) say where; `leaf` is the vdev name zpool prints (may be a partition or by-id name).
    """

    disk: str
    state: DiskState
    reasons: tuple[str, ...] = ()
    pool: str | None = None
    section: Section | None = None
    vdev_path: tuple[str, ...] = ()
    leaf: str | None = None


class DiskInventory(NamedTuple):
    """Every block device (whole disks and partitions) with identity, and each disk's role.

    `source` says where identity came from: "pyudev", "udevadm", "sysfs" or "lsblk".
    `notes` records degraded sources (e.g. "udevadm not available; identity from sysfs").
    """

    devices: tuple[Disk, ...]
    roles: tuple[DiskRole, ...] = ()
    source: str = ""
    notes: tuple[str, ...] = ()

    def device(self, name: str) -> Disk | None:
        for d in self.devices:
            if d.name == name:
                return d
        return None

    def whole_disks(self) -> tuple[Disk, ...]:
        return tuple(d for d in self.devices if d.kind == "disk")

    def role(self, disk: str) -> DiskRole | None:
        for r in self.roles:
            if r.disk == disk:
                return r
        return None


class PoolEntry(NamedTuple):
    """A pool as both `zpool status` (tree, health) and `zpool list -v` (capacity) saw it.

    Either side may be None: its read failed, or the pool appeared/disappeared between reads.
    """

    name: str
    status: Pool | None
    usage: PoolUsage | None

    @property
    def health_known(self) -> bool:
        return self.status is not None

    @property
    def health(self) -> str:
        """The state `zpool status` printed, or "UNKNOWN" when status was not read.

        Never falls back to `zpool list`'s HEALTH column: a failed status read must not look
        healthy.
        """
        return self.status.state if self.status is not None else "UNKNOWN"

    @property
    def healthy(self) -> bool:
        """ONLINE per `zpool status` with no status message other than the ones
        `zpool status -x` also calls healthy (features not enabled, legacy on-disk format,
        compatibility-list notes). False when status was not read."""
        s = self.status
        if s is None or s.state != "ONLINE":
            return False
        text = " ".join((s.status or "").split())
        return not text or any(b in text for b in BENIGN_STATUS)


@dataclass(frozen=True)
class HostReading:
    """Everything zconsole knows about a host at one moment. Built by services.read.collect.

    `taken_at` is the host's clock when the reading began, `seen` the console's monotonic
    clock at that moment (None when no console stamped it): the reading's age is counted from
    `seen`. `clock_offset` is the host's wall clock less the console's at that moment
    (seconds, negative when the host is behind; None when not measured).
    """

    host: str
    kind: str
    taken_at: float
    is_root: bool
    zfs: ZfsInfo
    kernel: Part[str]
    pool_status: Part[tuple[Pool, ...]]
    pool_usage: Part[tuple[PoolUsage, ...]]
    datasets: Part[tuple[Dataset, ...]]
    arc: Part[ArcStats]
    diskstats: Part[tuple[DiskStat, ...]]
    disks: Part[DiskInventory]
    limitations: tuple[str, ...] = ()  # reads refused because zconsole is not root
    seen: float | None = None
    clock_offset: float | None = None

    @property
    def unreachable(self) -> str | None:
        """Why the host could not be reached (the part that failed says it; the parts after
        it were not attempted), or None."""
        return next((p.error or "unreachable" for p in (
            self.kernel, self.pool_status, self.pool_usage, self.datasets, self.arc,
            self.diskstats, self.disks) if p.error_type == UNREACHABLE), None)

    @property
    def reached(self) -> bool:
        """False when the host could not be reached (ssh failed): what zconsole may do there,
        root or not, is not known."""
        return self.unreachable is None

    def age(self, now: float) -> float:
        """Seconds since the reading began, `now` on the console's monotonic clock (`seen`'s);
        0 when no console stamped it."""
        return 0.0 if self.seen is None else max(0.0, now - self.seen)

    def host_time(self, now: float) -> float:
        """The host's clock at `now` (console monotonic), told from its own clock at the
        reading and the console's time since: for "created 3 d ago" of a host's own dates,
        each difference on one clock."""
        return self.taken_at + self.age(now)

    @property
    def pools(self) -> tuple[PoolEntry, ...]:
        """Status and usage merged by name, in status order, then usage-only pools."""
        status = self.pool_status.value or ()
        usage = {u.name: u for u in (self.pool_usage.value or ())}
        out = [PoolEntry(p.name, p, usage.pop(p.name, None)) for p in status]
        out.extend(PoolEntry(name, None, u) for name, u in usage.items())
        return tuple(out)

    def pool(self, name: str) -> PoolEntry | None:
        for p in self.pools:
            if p.name == name:
                return p
        return None

    @property
    def healthy_pools(self) -> tuple[str, ...]:
        """Names of pools known to be healthy. Empty when `zpool status` was not read."""
        return tuple(p.name for p in self.pools if p.healthy)

    def parts(self) -> Iterator[tuple[str, Part[object]]]:
        """(name, part) for every part, for a "what failed and how old" panel."""
        yield "kernel", self.kernel
        yield "pool status", self.pool_status
        yield "pool usage", self.pool_usage
        yield "datasets", self.datasets
        yield "ARC", self.arc
        yield "disk I/O counters", self.diskstats
        yield "disk identities", self.disks

    @property
    def failures(self) -> tuple[tuple[str, Part[object]], ...]:
        """Parts that were attempted and failed (skipped and still pending parts are not)."""
        return tuple((n, p) for n, p in self.parts()
                     if not p.ok and not p.skipped and not p.pending)
