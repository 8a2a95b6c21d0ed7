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


# The words `zpool status` prints after a vdev's row for its aux state (vdev_aux_t, as
# zpool_main.c's print_status_config words them); JSON names the state (`aux`) instead.
VDEV_AUX_TEXT = {
    "OPEN_FAILED": "cannot open",
    "CORRUPT_DATA": "corrupted data",
    "NO_REPLICAS": "insufficient replicas",
    "BAD_GUID_SUM": "missing device",
    "TOO_SMALL": "device too small",
    "BAD_LABEL": "invalid label",
    "VERSION_NEWER": "newer version",
    "VERSION_OLDER": "old version",
    "UNSUP_FEAT": "unsupported feature(s)",
    "SPARED": "currently in use",
    "ERR_EXCEEDED": "too many errors",
    "IO_FAILURE": "experienced I/O failures",
    "BAD_LOG": "bad intent log",
    "EXTERNAL": "external device fault",
    "SPLIT_POOL": "split into new pool",
    "ACTIVE": "currently in use",
    "CHILDREN_OFFLINE": "all children offline",
    "ASHIFT_TOO_BIG": "unsupported minimum blocksize",
}


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
    "dspare",  # dRAID distributed spare (draid1-0-0): a spare, never a disk of its own
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
    removing: bool = False  # `(removing)`: the top-level vdev `zpool remove` is evacuating
    # A leaf's ashift and its disk's native one, known only when zpool reports that they
    # differ (`block size: 512B configured, 4096B native`; JSON configured_ashift and
    # physical_ashift): zpool prints neither when the configured one is large enough.
    ashift: int | None = None
    native_ashift: int | None = None

    @property
    def is_distributed_spare(self) -> bool:
        """A dRAID distributed spare (`draid1-0-0`): spare capacity spread over the dRAID's
        own disks. In a `spare-N` it is the spare in use; in the spares section its state
        is AVAIL or INUSE."""
        return self.type == "dspare"

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.type not in ("mirror", "raidz", "draid", "replacing",
                                                        "spare", "root")

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Vdev]]:
        """Depth-first (depth, vdev) pairs, self first, in zpool's print order."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)

    def paths(self, parent: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Vdev]]:
        """Depth-first (path, vdev) pairs, self first, in zpool's print order; a path runs
        from the top-level vdev down (`("mirror-0", "vdc")`), below `parent`."""
        here = (*parent, self.name)
        yield here, self
        for child in self.children:
            yield from child.paths(here)

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
    exact: bool = False  # byte figures exact (JSON --json-int) rather than rounded (text)
    # The text form's `on Sun Nov  8 05:36:41 2026` of a finished scan, read as if it were
    # UTC: the host's zone is not printed, so it is off by the host's UTC offset (good for
    # "weeks ago", not for a timeline). None when not printed or not in the C locale.
    ended_near: int | None = None

    @property
    def paused(self) -> bool:
        return self.state is ScanState.PAUSED

    @property
    def is_rebuild(self) -> bool:
        """A sequential rebuild (`zpool replace -s`, dRAID spares): one per top-level vdev."""
        return self.rebuild_vdev is not None


@dataclass(frozen=True)
class CopyProgress:
    """What a raidz expansion and a device removal both report: a copy of `total_bytes`
    (`copied_bytes` so far, at `rate_bytes_per_s`), zpool's `percent_done` and `eta_seconds`
    (None when it printed `(copy is slow, no estimated time)`: `slow`), and once finished its
    `duration_seconds`. `start_time`/`end_time` are epoch seconds where known (JSON
    --json-int). Text figures are rounded (`exact` False); `raw` keeps the lines."""

    vdev: str | None
    state: ScanState | None
    copied_bytes: int | None = None
    total_bytes: int | None = None
    rate_bytes_per_s: int | None = None
    percent_done: float | None = None
    eta_seconds: int | None = None
    slow: bool = False
    duration_seconds: int | None = None
    start_time: int | None = None
    end_time: int | None = None
    exact: bool = False
    raw: str = ""

    @property
    def paused(self) -> bool:
        return self.state is ScanState.PAUSED


@dataclass(frozen=True)
class ExpandInfo(CopyProgress):
    """An `expand:` line (raidz expansion, `zpool attach POOL raidzP-N DISK`, OpenZFS 2.3+)
    or the JSON `raidz_expand_stats`.

    `state` IN_PROGRESS / FINISHED (ScanState), PAUSED while zpool says `paused for resilver
    or clear` (`waiting_for_resilver`). `percent_done` is zpool's copied / total and can pass
    100 (the total is an estimate taken at the start; openzfs/zfs#16803); `eta_seconds` is
    None too while the expansion is paused. Finished: `copied 743K in 00:02:03`.
    """

    waiting_for_resilver: bool = False


@dataclass(frozen=True)
class RemovalInfo(CopyProgress):
    """A `remove:` line (top-level device removal, `zpool remove POOL VDEV`) or the JSON
    `removal_stats`.

    In progress zpool names the vdev as it prints it (`Evacuation of /dev/da0p4`, and a
    container by its type alone: `Evacuation of mirror`); the tree row being evacuated has
    Vdev.removing. Finished it gives only its index (`Removal of vdev 1 copied 300M in 0h1m,
    completed on ...`): `vdev` is then None and `vdev_index` set. From JSON, `vdev` is the
    name with its index (`mirror-1`, `indirect-1` once done: the `zpool list -v` row).
    `eta_seconds` and `duration_seconds` are to the minute (`0h3m to go`, `in 0h9m`).
    `mapping_memory_bytes`: the `N memory used for removed device mappings` continuation line.
    """

    vdev_index: int | None = None
    mapping_memory_bytes: int | None = None


@dataclass(frozen=True)
class ClassRow:
    """A class header of the config table that carries its own state and counters, as
    illumos/Solaris-era `zpool status` prints (`logs  FAULTED  0 0 0  bad intent log`).
    OpenZFS prints the bare word (`logs`); then there is no ClassRow."""

    section: Section
    state: str
    read_errors: int | None = None
    write_errors: int | None = None
    checksum_errors: int | None = None
    note: str | None = None


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
    """One pool as `zpool status` shows it: its state and the operator's text, its scans,
    its vdevs by section, and the lines the parser did not understand."""

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
    expand: ExpandInfo | None = None  # `expand:` (raidz expansion)
    removal: RemovalInfo | None = None  # `remove:` (top-level device removal)
    classes: tuple[ClassRow, ...] = ()  # class rows with their own state (illumos era)
    # `zpool status -v`: the files listed under `errors: Permanent errors have been detected
    # in the following files:`, each exactly as printed (`/tank/a b`, `tank/fs:<0x24>`,
    # `<metadata>:<0x48>`) without zpool's indentation; `errors` keeps the `errors:` line.
    error_files: tuple[str, ...] = ()
    # Where a pasted report ends early (read from the grammar: a last pool without its
    # `config:` table or its `errors:` line, a container cut short): a sentence with the line
    # number and what was expected; None when the text is whole.
    truncated: str | None = None

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

    def leaf_paths(self) -> Iterator[tuple[Section, tuple[str, ...], Vdev]]:
        """Every vdev without children, with its section and its path from the top-level vdev
        (`("mirror-0", "vdc")`; a top-level disk is `("vdb",)`), section by section."""
        for section in Section:
            for top in self.section(section):
                for path, v in top.paths():
                    if not v.children:
                        yield section, path, v

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
class UsageRow:
    """What every `zpool list` row has, the pool's and its vdevs': the name, then SIZE ALLOC
    FREE CKPOINT EXPANDSZ FRAG CAP. Sizes in bytes, fragmentation and capacity integer
    percents, None for `-`."""

    name: str
    size: int | None
    alloc: int | None
    free: int | None
    checkpoint: int | None
    expandsize: int | None
    fragmentation: int | None
    capacity: int | None


@dataclass(frozen=True)
class VdevUsage(UsageRow):
    """One vdev row of `zpool list -v` below the pool row.

    `depth` is the row's place in the tree, from the indentation of the human form: 0 for a
    top-level vdev (or a cache/spare device) of its section, 1 for its children, ... The
    scripted form (`-H`) does not indent: there `depth` and `parent` are None (use
    `zpool status` for the tree). `parent` is the index, in the pool's `vdevs`, of the
    container this row belongs to (None for top-level rows). `exact` is False when a size
    was printed in human units and may have been rounded (`1.84G`).
    """

    section: Section
    health: str | None
    depth: int | None = None
    parent: int | None = None
    exact: bool = True


@dataclass(frozen=True)
class PoolUsage(UsageRow):
    """`zpool list [-v]` (scripted `-H -p`, or the human form with its header): the pool row
    plus, with -v, its vdev rows in zpool's print order."""

    dedupratio: float | None
    health: str
    altroot: str | None
    vdevs: tuple[VdevUsage, ...] = field(default=())
    exact: bool = True  # the pool row's sizes are exact bytes (-p), not rounded human units

    def children(self, index: int | None) -> list[VdevUsage]:
        """The rows whose `parent` is `index` (None: the top-level rows) in print order.
        Empty for every index when the tree is unknown (scripted form)."""
        if index is None:
            return [v for v in self.vdevs if v.depth == 0]
        return [v for v in self.vdevs if v.parent == index]
