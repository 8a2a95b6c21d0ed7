"""The Disks screen's rows: identity, role and I/O of every whole disk that matters.

Pure: built from a `DiskInventory` (identity and roles from services.identity), the newest
per-disk `DiskIo`, the sampler's history and the slow-disk findings. No I/O, no Textual.

Rules kept here:
- one row per whole disk; partitions are listed under their disk and never add to its
  figures (a whole disk's /proc/diskstats line already counts its partitions);
- every value the screen prints is either read or computed from read values; what is
  unknown is None together with the reason, never a guess;
- %util is called "busy": the share of the interval with at least one request
  outstanding. On SSD/NVMe, which serve many requests at once, 100 % busy does not mean
  saturated, so await and aqu-sz are always shown beside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TypeVar

from zconsole.model.disk import Disk, DiskIo
from zconsole.model.finding import Finding
from zconsole.model.pool import Section
from zconsole.model.reading import DiskInventory, DiskRole, DiskState

SLOW_KIND = "slow-disk"

BUSY_FOOTNOTE = ("busy = time with a request outstanding (%util); on SSD/NVMe not "
                 "saturation")

# Role word, symbol and level (for colour; the word and symbol carry the meaning).
ROLE_LOOK: dict[DiskState | None, tuple[str, str, str]] = {
    DiskState.IN_POOL: ("IN POOL", "◆", "ok"),
    DiskState.FREE: ("FREE", "○", "free"),
    DiskState.IN_USE: ("IN USE", "■", "off"),
    DiskState.HAS_DATA: ("HAS DATA", "◐", "warn"),
    DiskState.IGNORED: ("IGNORED", "·", "off"),
    None: ("UNKNOWN", "?", "warn"),
}

_SECTION_WORD = {Section.LOGS: "log", Section.CACHE: "cache", Section.SPARES: "spare",
                 Section.SPECIAL: "special", Section.DEDUP: "dedup"}


_C = TypeVar("_C", bound="_Cycling")


class _Cycling(str, Enum):
    """An enum a key cycles through: `next()` is the member after this one, the first after
    the last."""

    def next(self: _C) -> _C:
        members = list(type(self))
        return members[(members.index(self) + 1) % len(members)]


class RoleFilter(_Cycling):
    """What the `f` key cycles through."""

    ALL = "all"
    IN_POOL = "in pool"
    FREE = "free"
    IN_USE = "in use or holding data"

    def accepts(self, state: DiskState | None) -> bool:
        if self is RoleFilter.ALL:
            return True
        if self is RoleFilter.IN_POOL:
            return state is DiskState.IN_POOL
        if self is RoleFilter.FREE:
            return state is DiskState.FREE
        return state in (DiskState.IN_USE, DiskState.HAS_DATA)


class SortKey(_Cycling):
    """What the `s` key cycles through."""

    NAME = "name"
    BUSY = "busy"
    AWAIT = "await"


class History(Protocol):
    """What the view needs from services.sampling.Sampler."""

    def series(self, disk: str, attr: str) -> tuple[float, ...]: ...


@dataclass(frozen=True)
class PartitionRow:
    name: str
    size_bytes: int | None
    fs_type: str | None
    fs_label: str | None
    mountpoints: tuple[str, ...]
    holders: tuple[str, ...]
    by_id: str | None

    @property
    def use(self) -> str:
        """What is on the partition, in words ("ext4 mounted at /srv/backup")."""
        bits: list[str] = []
        swap = [m for m in self.mountpoints if m == "[SWAP]"]
        mounts = [m for m in self.mountpoints if m != "[SWAP]"]
        what = self.fs_type or "no filesystem signature seen"
        if self.fs_type == "zfs_member":
            what = f"ZFS label of pool {self.fs_label}" if self.fs_label else "ZFS label"
        if not (swap and self.fs_type == "swap"):
            bits.append(what)
        if swap:
            bits.append("active swap")
        if mounts:
            bits.append("mounted at " + ", ".join(mounts))
        if self.holders:
            bits.append("held by " + ", ".join(self.holders))
        return ", ".join(bits)


@dataclass(frozen=True)
class DiskRow:
    """One whole disk as the Disks screen shows it: the `disk` itself, with its role, its
    partitions, its I/O figures and their history."""

    disk: Disk  # as the inventory read it: identity, size, sectors, holders, mounts, signature
    state: DiskState | None
    reasons: tuple[str, ...]  # identity's full sentences
    role_detail: str  # one short line: "tank, mirror-0", "/srv/backup mounted (ext4)"
    pool: str | None
    section: Section | None
    vdev_path: tuple[str, ...]
    leaf: str | None
    partitions: tuple[PartitionRow, ...]
    io: DiskIo | None
    io_missing: str | None  # why `io` is None
    busy_series: tuple[float, ...]
    r_await_series: tuple[float, ...]
    w_await_series: tuple[float, ...]
    slow: Finding | None

    # -- derived words ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.disk.name

    @property
    def role_word(self) -> str:
        return ROLE_LOOK[self.state][0]

    @property
    def role_symbol(self) -> str:
        return ROLE_LOOK[self.state][1]

    @property
    def role_level(self) -> str:
        return ROLE_LOOK[self.state][2]

    @property
    def role_sentence(self) -> str:
        """"in pool tank, mirror-0", "free: no partitions, no signature", "in use: ..."."""
        if self.state is DiskState.IN_POOL:
            return f"in pool {self.role_detail}"
        prefix = {DiskState.FREE: "free", DiskState.IN_USE: "in use",
                  DiskState.HAS_DATA: "has data", DiskState.IGNORED: "ignored"}.get(
                      self.state, "role unknown") if self.state else "role unknown"
        return f"{prefix}: {self.role_detail}" if self.role_detail else prefix

    @property
    def media(self) -> str | None:
        """HDD, SSD or NVMe from the kernel's queue/rotational flag and the transport."""
        if self.disk.rotational is None:
            return None
        if self.disk.rotational:
            return "HDD"
        if (self.disk.transport or "") == "nvme" or self.name.startswith("nvme"):
            return "NVMe"
        return "SSD"

    @property
    def sector_format(self) -> str | None:
        """512n, 512e (512-byte logical on 4 KiB physical) or 4Kn; None when unknown."""
        lo, ph = self.disk.logical_sector, self.disk.physical_sector
        if lo is None or ph is None:
            return None
        if lo == 512 and ph == 512:
            return "512n"
        if lo == 512 and ph == 4096:
            return "512e"
        if lo == 4096 and ph == 4096:
            return "4Kn"
        return f"{lo}/{ph}"

    @property
    def await_ms(self) -> float | None:
        """The larger of r_await and w_await (for sorting: the slow direction counts)."""
        if self.io is None:
            return None
        return max(self.io.r_await_ms, self.io.w_await_ms)

    @property
    def vdev(self) -> str | None:
        """Where in the pool: "mirror-0", "log mirror-2", "cache", "spare"."""
        if self.state is not DiskState.IN_POOL:
            return None
        containers = list(self.vdev_path[:-1])
        word = _SECTION_WORD.get(self.section) if self.section is not None else None
        parts = ([word] if word else []) + containers
        return " ".join(parts) if parts else "top-level disk"

    @property
    def slow_sentence(self) -> str | None:
        return self.slow.message if self.slow is not None else None


# --- building ---------------------------------------------------------------------------------

def _mounted_words(dev: Disk) -> list[str]:
    out: list[str] = []
    fs = f" ({dev.fs_type})" if dev.fs_type and dev.fs_type != "swap" else ""
    for mp in dev.mountpoints:
        out.append("swap" if mp == "[SWAP]" else f"{mp} mounted{fs}")
    return out


def _role_detail(disk: Disk, role: DiskRole | None, inv: DiskInventory) -> str:
    """A short line for the table; the full reasons stay in `DiskRow.reasons`."""
    if role is None:
        return "no role computed"
    state = role.state
    if state is DiskState.IN_POOL:
        containers = list(role.vdev_path[:-1])
        word = _SECTION_WORD.get(role.section) if role.section is not None else None
        where = ([word] if word else []) + containers
        return f"{role.pool}, {' '.join(where)}" if where else f"{role.pool}"
    if state is DiskState.FREE:
        text = "no partitions, no signature"
        if any("could not be checked" in r for r in role.reasons):
            text += " (pool membership not checked)"
        return text
    if state is DiskState.IGNORED:
        return role.reasons[0] if role.reasons else ""
    members = [disk] + [p for n in disk.partitions if (p := inv.device(n)) is not None]
    words: list[str] = []
    for dev in members:
        words.extend(_mounted_words(dev))
        for h in dev.holders:
            holder = inv.device(h)
            kind = holder.kind if holder is not None else ""
            words.append(f"md member ({h})" if kind == "md" else
                         f"dm member ({h})" if kind == "dm" else f"held by {h}")
        if dev.fs_type == "zfs_member" and not dev.mountpoints:
            label = dev.fs_label
            words.append(f"label of pool {label}, not imported here" if label
                         and not any("stale label" in r for r in role.reasons)
                         else f"stale label of pool {label}" if label else "a ZFS label")
        elif dev.fs_type and not dev.mountpoints and not dev.holders \
                and state is DiskState.HAS_DATA:
            words.append(f"{dev.fs_type} on {dev.name}, not mounted" if dev is not disk
                         else f"{dev.fs_type}, not mounted")
    if not words and disk.partitions:
        words.append("partitions " + ", ".join(disk.partitions) + ", none in use")
    if not words:
        return "; ".join(role.reasons)
    # the same word twice (two swap partitions) reads as noise
    seen: list[str] = []
    for w in words:
        if w not in seen:
            seen.append(w)
    return "; ".join(seen)


def _partition_rows(disk: Disk, inv: DiskInventory) -> tuple[PartitionRow, ...]:
    out: list[PartitionRow] = []
    for name in disk.partitions:
        p = inv.device(name)
        if p is None:
            out.append(PartitionRow(name, None, None, None, (), (), None))
            continue
        out.append(PartitionRow(p.name, p.size_bytes, p.fs_type, p.fs_label, p.mountpoints,
                                p.holders, p.preferred_id))
    return tuple(out)


def _slow_for(role: DiskRole | None, findings: Iterable[Finding]) -> Finding | None:
    if role is None or role.state is not DiskState.IN_POOL:
        return None
    for f in findings:
        if f.kind != SLOW_KIND:
            continue
        if f.subject == role.leaf and (f.pool is None or f.pool == role.pool):
            return f
    return None


def io_missing_reason(sample_taken: bool, sample_errors: Sequence[str],
                      diskstats_error: str | None) -> str:
    """Why a disk has no I/O figures, in words."""
    if diskstats_error:
        return f"/proc/diskstats could not be read: {diskstats_error}"
    if sample_errors:
        return "sampling failed: " + "; ".join(sample_errors)
    if not sample_taken:
        return "no sample yet"
    return "no interval yet: needs two /proc/diskstats readings some time apart"


def build_rows(
    inventory: DiskInventory,
    *,
    latest: Mapping[str, DiskIo] | None = None,
    history: History | None = None,
    findings: Sequence[Finding] = (),
    io_missing: str = "no sample yet",
    include_ignored: bool = False,
) -> list[DiskRow]:
    """One row per whole disk (in inventory order). `latest` is the newest interval's
    figures per kernel name; `io_missing` is the reason shown for disks without figures.

    IGNORED devices (loop, zram, ram, optical, zvols, dm/md themselves) are left out unless
    `include_ignored`; a stacked device a pool uses directly has role IN_POOL and is kept.
    """
    rows: list[DiskRow] = []
    latest = latest or {}
    candidates = [d for d in inventory.devices if d.kind != "part"]
    for d in candidates:
        role = inventory.role(d.name)
        if role is None and d.kind != "disk":
            continue
        if role is not None and role.state is DiskState.IGNORED and not include_ignored:
            continue
        io = latest.get(d.name)

        def series(attr: str, name: str = d.name) -> tuple[float, ...]:
            return history.series(name, attr) if history is not None else ()

        rows.append(DiskRow(
            disk=d,
            state=role.state if role is not None else None,
            reasons=role.reasons if role is not None else (),
            role_detail=_role_detail(d, role, inventory),
            pool=role.pool if role is not None else None,
            section=role.section if role is not None else None,
            vdev_path=role.vdev_path if role is not None else (),
            leaf=role.leaf if role is not None else None,
            partitions=_partition_rows(d, inventory),
            io=io,
            io_missing=None if io is not None else io_missing,
            busy_series=series("util_pct"),
            r_await_series=series("r_await_ms"),
            w_await_series=series("w_await_ms"),
            slow=_slow_for(role, findings),
        ))
    return rows


def ignored_summary(inventory: DiskInventory) -> str | None:
    """"not shown: 8 loop, 1 zram" for the devices left out of the table."""
    counts: dict[str, int] = {}
    for d in inventory.devices:
        if d.kind == "part":
            continue
        role = inventory.role(d.name)
        if role is None or role.state is not DiskState.IGNORED:
            continue
        kind = d.kind
        for prefix in ("zram", "ram"):
            if d.name.startswith(prefix):
                kind = prefix
        counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    return "not shown: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def natural_key(name: str) -> tuple[tuple[int, int, str], ...]:
    """Kernel order: sda < sdb < sdz < sdaa, nvme1n1 < nvme10n1."""
    out: list[tuple[int, int, str]] = []
    for chunk in re.split(r"(\d+)", name):
        if not chunk:
            continue
        out.append((0, int(chunk), "") if chunk.isdigit() else (1, len(chunk), chunk))
    return tuple(out)


def filter_rows(rows: Iterable[DiskRow], which: RoleFilter) -> list[DiskRow]:
    return [r for r in rows if which.accepts(r.state)]


def sort_rows(rows: Iterable[DiskRow], key: SortKey) -> list[DiskRow]:
    """Name order, or the busiest / slowest first (disks without figures last)."""
    ordered = sorted(rows, key=lambda r: natural_key(r.name))
    if key is SortKey.NAME:
        return ordered
    if key is SortKey.BUSY:
        return sorted(ordered, key=lambda r: (r.io is None,
                                              -(r.io.util_pct if r.io else 0.0)))
    return sorted(ordered, key=lambda r: (r.await_ms is None, -(r.await_ms or 0.0)))


def counts_by_state(rows: Iterable[DiskRow]) -> dict[DiskState | None, int]:
    out: dict[DiskState | None, int] = {}
    for r in rows:
        out[r.state] = out.get(r.state, 0) + 1
    return out
