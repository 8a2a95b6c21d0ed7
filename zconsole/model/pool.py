"""Pools and their vdev trees, as `zpool status` and `zpool list` describe them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum


class Section(str, Enum):
    """Which part of a pool's config a top-level vdev belongs to.

    The values are the keys of the `zconsole parse zpool-status --json` pool object.
    """

    DATA = "vdevs"
    LOGS = "logs"
    CACHE = "cache"
    SPARES = "spares"
    SPECIAL = "special"
    DEDUP = "dedup"


class ScanFunction(str, Enum):
    SCRUB = "scrub"
    RESILVER = "resilver"
    ERRORSCRUB = "errorscrub"


class ScanState(str, Enum):
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    CANCELED = "canceled"
    PAUSED = "paused"


# Vdev types as zconsole names them. Values match OpenZFS's own `vdev_type` strings (JSON);
# the text parser derives them from the row name (mirror-0 -> mirror, raidz2-1 -> raidz, ...).
VDEV_TYPES = (
    "root",
    "disk",
    "file",
    "mirror",
    "raidz",
    "draid",
    "replacing",
    "spare",
    "hole",
    "missing",
    "indirect",
    "unknown",
)

# Containers whose children are all copies of the same data.
MIRROR_LIKE = frozenset({"mirror", "replacing", "spare"})


@dataclass(frozen=True)
class Vdev:
    """One row of the config table: a container (mirror-0, raidz2-1, replacing-0) or a leaf.

    `state` is the word `zpool status` prints (ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL,
    REMOVED, AVAIL, INUSE). JSON output gives the raw vdev_state_str (CANT_OPEN ...): parsers map
    it onto the printed word and keep the raw value in `raw_state`.
    Error counters are None where zpool prints none (spares, `-` in some rows).
    """

    name: str
    type: str
    state: str
    read_errors: int | None = 0
    write_errors: int | None = 0
    checksum_errors: int | None = 0
    note: str | None = None
    path: str | None = None
    guid: str | None = None
    children: tuple[Vdev, ...] = ()
    raw_state: str | None = None
    aux: str | None = None
    slow_ios: int | None = None
    parity: int | None = None  # raidzP / draidP
    resilvering: bool = False

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.type not in ("mirror", "raidz", "draid", "replacing",
                                                        "spare", "root")

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Vdev]]:
        """Depth-first (depth, vdev) pairs, self first, in zpool's print order."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)

    def leaves(self) -> Iterator[Vdev]:
        for _, v in self.walk():
            if not v.children and v.type not in ("root",):
                yield v


@dataclass(frozen=True)
class ScanInfo:
    """A `scan:` line (or JSON scan_stats): scrub or resilver progress.

    `percent_done` is zpool's own figure (issued / (to_examine - skipped)); `eta_seconds` is
    zpool's ETA where it printed one. `raw` keeps the original text for display.
    """

    function: ScanFunction | None
    state: ScanState | None
    percent_done: float | None = None
    eta_seconds: int | None = None
    raw: str = ""
    examined_bytes: int | None = None
    issued_bytes: int | None = None
    total_bytes: int | None = None
    processed_bytes: int | None = None  # resilvered / repaired so far
    errors: int | None = None
    start_time: int | None = None  # epoch seconds where known (JSON)
    end_time: int | None = None
    rebuild_vdev: str | None = None  # sequential rebuild: `resilver (mirror-0) ...`


@dataclass(frozen=True)
class DedupSummary:
    """`dedup: DDT entries N, size X on disk, Y in core` from `zpool status -D`.

    Beware: in OpenZFS 2.1 X and Y are per-entry averages, in 2.3 they are totals. The parser
    does not guess: `sizes_are_totals` says which one the caller told it.
    """

    entries: int
    size_on_disk: int
    size_in_core: int
    sizes_are_totals: bool
    raw: str = ""

    @property
    def core_total_bytes(self) -> int:
        return self.size_in_core if self.sizes_are_totals else self.entries * self.size_in_core

    @property
    def disk_total_bytes(self) -> int:
        return self.size_on_disk if self.sizes_are_totals else self.entries * self.size_on_disk


@dataclass(frozen=True)
class Pool:
    name: str
    state: str
    status: str | None = None
    action: str | None = None
    see: str | None = None
    scan: ScanInfo | None = None
    scans: tuple[ScanInfo, ...] = ()  # every scan line, `scan` is the first one
    errors: str | None = None
    vdevs: tuple[Vdev, ...] = ()
    logs: tuple[Vdev, ...] = ()
    cache: tuple[Vdev, ...] = ()
    spares: tuple[Vdev, ...] = ()
    special: tuple[Vdev, ...] = ()
    dedup: tuple[Vdev, ...] = ()
    guid: str | None = None
    ddt: DedupSummary | None = None
    unparsed: tuple[str, ...] = ()  # lines the parser did not understand, kept verbatim
    error_count: int | None = None
    # The pool's own row of the config table (vdev_type root): pool-wide counters and note
    # (e.g. `insufficient replicas`). Its children are `vdevs`.
    root: Vdev | None = None

    def section(self, section: Section) -> tuple[Vdev, ...]:
        return {
            Section.DATA: self.vdevs,
            Section.LOGS: self.logs,
            Section.CACHE: self.cache,
            Section.SPARES: self.spares,
            Section.SPECIAL: self.special,
            Section.DEDUP: self.dedup,
        }[section]

    def walk(self) -> Iterator[tuple[Section, int, Vdev]]:
        """Every vdev with its section and depth (top-level vdevs have depth 0)."""
        for section in Section:
            for top in self.section(section):
                for depth, v in top.walk():
                    yield section, depth, v

    def find(self, name: str) -> Vdev | None:
        for _, _, v in self.walk():
            if v.name == name or v.path == name:
                return v
        return None

    def parent_of(self, name: str) -> Vdev | None:
        for _, _, v in self.walk():
            if any(c.name == name for c in v.children):
                return v
        return None


@dataclass(frozen=True)
class VdevUsage:
    """One row of `zpool list -v -H -p` below the pool row. Sizes in bytes, None for `-`."""

    name: str
    section: Section
    size: int | None
    alloc: int | None
    free: int | None
    checkpoint: int | None
    expandsize: int | None
    fragmentation: int | None
    capacity: int | None
    health: str | None


@dataclass(frozen=True)
class PoolUsage:
    """`zpool list -H -p [-v]`: the pool row plus, with -v, its vdev rows."""

    name: str
    size: int | None
    alloc: int | None
    free: int | None
    checkpoint: int | None
    expandsize: int | None
    fragmentation: int | None
    capacity: int | None
    dedupratio: float | None
    health: str
    altroot: str | None
    vdevs: tuple[VdevUsage, ...] = field(default=())
