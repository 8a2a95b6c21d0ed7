"""Collect one consistent picture of a host: `collect(host) -> HostReading`.

Every part is read on its own and carries its own outcome (`model.snapshot.Part`): one
failed read never hides the others, and never turns into a guess. In particular, when
`zpool status` cannot be read the pools have health "UNKNOWN" (never ONLINE from
`zpool list`), and disk roles do not claim pool membership.

No ZFS (no zfs/zpool command, or the kernel module not loaded) is one clearly worded state
(`HostReading.zfs`), with the ZFS parts marked skipped rather than an avalanche of errors;
disks and their I/O are still collected. Reads refused because zconsole is not root are
listed in `HostReading.limitations`.

Datasets are filesystems and volumes only: listing every snapshot takes minutes on big
hosts; load a dataset's snapshots with `list_snapshots()` when it is opened.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from zconsole.hosts.base import (
    CommandFailed,
    CommandNotFound,
    Host,
    HostError,
    HostUnreachable,
    PathNotFound,
    PermissionDenied,
)
from zconsole.model.arc import ArcStats
from zconsole.model.dataset import Dataset, PropertyValue
from zconsole.model.disk import DiskStat
from zconsole.model.pool import Pool, PoolUsage, ScanState
from zconsole.model.reading import (
    SKIPPED,
    DiskInventory,
    HostReading,
    Part,
    ZfsInfo,
    ZfsPresence,
)
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.parsers.diskstats import parse_diskstats
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.parsers.version import ZfsVersion, parse_zfs_version, supports_json
from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, SNAPSHOT_COLUMNS, parse_zfs_list
from zconsole.parsers.zpool_list import parse_zpool_list
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services.read import catalogue
from zconsole.services.read.identity import collect_inventory
from zconsole.services.read.memo import ParseMemo

T = TypeVar("T")

DEFAULT_TIMEOUT = 30.0

# Failures worth a Part instead of a crash: the host's typed errors and unreadable output
# (ParseError, and the ValueError/KeyError/TypeError a parser may let through on odd input).
_EXPECTED = (HostError, ParseError, ValueError, KeyError, TypeError, IndexError)


def _show(argv: Sequence[str]) -> str:
    return " ".join(argv)


class _Reader:
    """Runs each read and turns its outcome into a Part; remembers not-root refusals.

    Each Part is stamped twice: `taken_at`, the host's clock (a fact about the host), and
    `seen`, the console's monotonic clock `mono` when the answer arrived (what ages count
    from). `wall` is the console's wall clock, only to measure how far the host's is off.
    """

    def __init__(self, host: Host, timeout: float, memo: ParseMemo | None = None, *,
                 mono: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.host = host
        self.timeout = timeout
        self.mono, self.wall = mono, wall
        # a session's reader keeps the last parse of each text (a one-off reading has none)
        self.memo = memo if memo is not None else ParseMemo()
        self.is_root = _is_root(host)
        self.limitations: list[str] = []
        self.unreachable: str | None = None  # once set, later reads are skipped

    def part(self, source: str, fn: Callable[[], T]) -> Part[T]:
        if self.unreachable is not None:  # said once, by the part that failed
            return self.skipped(source, f"not attempted: {self.unreachable}")
        try:
            value = fn()
        except HostUnreachable as e:
            self.unreachable = str(e)
            return self.failed(source, str(e), type(e).__name__)
        except PermissionDenied as e:
            needs_root = not self.is_root
            if needs_root:
                self.limitations.append(f"{source}: permission denied (zconsole is not root)")
            return self.failed(source, str(e), type(e).__name__, needs_root)
        except _EXPECTED as e:
            return self.failed(source, str(e) or type(e).__name__, type(e).__name__)
        except Exception as e:  # noqa: BLE001 - a bug in one read must not hide the others
            return self.failed(source, f"zconsole could not read this ({type(e).__name__}: {e})",
                               type(e).__name__)
        seen = self.mono()
        return Part(value, self._now(), source, seen=seen)

    def failed(self, source: str, error: str, error_type: str,
               needs_root: bool = False) -> Part[T]:
        seen = self.mono()
        return Part(None, self._now(), source, error, error_type, needs_root, seen)

    def skipped(self, source: str, why: str) -> Part[T]:
        return self.failed(source, why, SKIPPED)

    def stamped(self, part: Part[T]) -> Part[T]:
        """`part` with the console's time of its arrival, when it was made without (a read
        given up at its deadline, `read.flights`): stamped as it is handed over."""
        return part if part.seen is not None else dataclasses.replace(part, seen=self.mono())

    def begin(self) -> tuple[float, float, float | None]:
        """The reading's start: (host clock, console monotonic clock, the host's clock less
        the console's wall clock or None when the host's could not be read)."""
        try:
            host_now = float(self.host.now())
        except HostError:
            return 0.0, self.mono(), None
        return host_now, self.mono(), host_now - float(self.wall())
    def run(self, argv: Sequence[str]) -> str:
        return self.host.run(argv, timeout=self.timeout).stdout

    def _now(self) -> float:
        try:
            return self.host.now()
        except HostError:
            return 0.0


def _is_root(host: Host) -> bool:
    try:
        return bool(host.is_root())
    except HostError:
        return False


def _label(host: Host) -> str:
    try:
        return str(host.label)
    except HostError:
        return "host"


def detect_zfs(host: Host, *, timeout: float = DEFAULT_TIMEOUT) -> ZfsInfo:
    """Is OpenZFS installed and loaded, which version, JSON or text status."""
    label = _label(host)
    module_text: str | None = None
    module_missing = False
    try:
        module_text = host.read_text(catalogue.ZFS_MODULE_VERSION)
    except PathNotFound:
        module_missing = True
    except HostError:
        module_text = None  # unreadable: tell from `zfs version` alone

    cmd_text: str | None = None
    cmd_error: str | None = None
    try:
        r = host.run(catalogue.zfs_version(), timeout=timeout, check=False)
        cmd_text = r.stdout
        if r.returncode != 0 and not r.stdout.strip():
            cmd_error = (r.stderr.strip() or f"exit {r.returncode}")
    except CommandNotFound:
        return ZfsInfo(ZfsPresence.NOT_INSTALLED,
                       f"OpenZFS is not installed on {label}: there is no zfs command.")
    except HostError as e:
        cmd_error = str(e)

    version: ZfsVersion | None = None
    for text in (cmd_text, module_text):
        if text and text.strip():
            try:
                version = parse_zfs_version(text)
                break
            except ParseError:
                continue
    kmod = version.kmod if version else None
    if module_text and module_text.strip() and kmod is None:
        kmod = module_text.strip()

    if module_missing:
        return ZfsInfo(
            ZfsPresence.MODULE_NOT_LOADED,
            f"OpenZFS tools are installed on {label} but the zfs kernel module is not loaded "
            f"({catalogue.ZFS_MODULE_VERSION} is missing; try `modprobe zfs`).",
            userland=version.userland if version else None, kernel_module=None,
            version=version.numeric if version else None,
            json_status=supports_json(version) if version else False)
    if version is None:
        why = cmd_error or "no version in its output"
        return ZfsInfo(ZfsPresence.UNKNOWN,
                       f"Could not tell which OpenZFS version runs on {label}: "
                       f"`zfs version` failed ({why}).")
    return ZfsInfo(
        ZfsPresence.PRESENT,
        f"OpenZFS {version.userland or kmod} on {label}"
        + (f" (kernel module {kmod}: reboot or reload pending)" if version.mismatch else "")
        + ".",
        userland=version.userland, kernel_module=kmod, version=version.numeric,
        json_status=supports_json(version))


# Fields of `zpool status -j --json-int` that move on every transaction group of a pool being
# written and that the parser never reads (tests/unit/test_read_memo.py holds it to that):
# left out of the comparison, so a busy but healthy pool is not parsed again at each refresh.
_VOLATILE = re.compile(r'"(?:txg|alloc_space)":\d+')


def _status_compared(text: str) -> str:
    return _VOLATILE.sub("", text)


def _timeless(pools: tuple[Pool, ...]) -> bool:
    """Nothing in these pools depends on the time of the reading: the JSON parse works out
    the ETA of a running scan, expansion or removal from `now`."""
    return not any(
        any(s.state is ScanState.IN_PROGRESS for s in p.scans)
        or (p.expand is not None and p.expand.state is ScanState.IN_PROGRESS)
        or (p.removal is not None and p.removal.state is ScanState.IN_PROGRESS)
        for p in pools)


def read_pool_status(host: Host, zfs: ZfsInfo, *, timeout: float = DEFAULT_TIMEOUT,
                     memo: ParseMemo | None = None) -> tuple[tuple[Pool, ...], str]:
    """Status trees, in the format the version supports; (pools, argv shown).

    With an unknown version JSON is tried first, then the 2.1 text form. `memo`: the text
    seen last time is not parsed again.
    """
    memo = memo if memo is not None else ParseMemo()
    now = int(host.now())
    if zfs.json_status or zfs.presence is ZfsPresence.UNKNOWN:
        argv = catalogue.zpool_status(True)
        try:
            out = host.run(argv, timeout=timeout).stdout
            return memo.parse("status-json", out, lambda text: tuple(
                parse_zpool_status_json(text, now=now)), keep=_timeless,
                compared=_status_compared), _show(argv)
        except (CommandFailed, ParseError):
            if zfs.json_status:
                raise
    # the 2.1 text parser (and its scan-line patterns) only for hosts that need it
    from zconsole.parsers.zpool_status import parse_zpool_status

    argv = catalogue.zpool_status(False)
    out = host.run(argv, timeout=timeout).stdout
    totals = zfs.version is not None and zfs.version >= (2, 3, 0)
    return memo.parse(f"status-text-{totals}", out, lambda text: tuple(
        parse_zpool_status(text, ddt_sizes_are_totals=totals))), _show(argv)


def _kernel(host: Host, timeout: float) -> str:
    try:
        text = host.read_text(catalogue.KERNEL_RELEASE).strip()
        if text:
            return text
    except HostError:
        pass
    return host.run(catalogue.uname_release(), timeout=timeout).stdout.strip()


def read_status(rd: _Reader, zfs: ZfsInfo) -> Part[tuple[Pool, ...]]:
    status_src = _show(catalogue.zpool_status(zfs.json_status))
    if not zfs.present and zfs.presence is not ZfsPresence.UNKNOWN:
        return rd.skipped(status_src, zfs.message)
    read = rd.part(status_src, lambda: read_pool_status(rd.host, zfs, timeout=rd.timeout,
                                                        memo=rd.memo))
    if read.value is None:
        return Part(None, read.taken_at, read.source, read.error, read.error_type,
                    read.needs_root, read.seen)
    return Part(read.value[0], read.taken_at, read.value[1], seen=read.seen)


def read_usage(rd: _Reader, zfs: ZfsInfo) -> Part[tuple[PoolUsage, ...]]:
    argv = catalogue.zpool_list()
    if not zfs.present and zfs.presence is not ZfsPresence.UNKNOWN:
        return rd.skipped(_show(argv), zfs.message)
    return rd.part(_show(argv), lambda: rd.memo.parse(
        "usage", rd.run(argv), lambda text: tuple(parse_zpool_list(text))))


def read_datasets(rd: _Reader, zfs: ZfsInfo) -> Part[tuple[Dataset, ...]]:
    argv = catalogue.zfs_list_datasets()
    if not zfs.present and zfs.presence is not ZfsPresence.UNKNOWN:
        return rd.skipped(_show(argv), zfs.message)
    return rd.part(_show(argv), lambda: rd.memo.parse(
        "datasets", rd.run(argv), lambda text: tuple(parse_zfs_list(text, DEFAULT_COLUMNS))))


def read_arc(rd: _Reader, zfs: ZfsInfo) -> Part[ArcStats]:
    if not zfs.present and zfs.presence is not ZfsPresence.UNKNOWN:
        return rd.skipped(catalogue.ARCSTATS, zfs.message)
    return rd.part(catalogue.ARCSTATS,
                   lambda: parse_arcstats(rd.host.read_text(catalogue.ARCSTATS)))


def read_diskstats(rd: _Reader) -> Part[tuple[DiskStat, ...]]:
    return rd.part(catalogue.DISKSTATS, lambda: tuple(
        parse_diskstats(rd.host.read_text(catalogue.DISKSTATS))))


def read_kernel(rd: _Reader) -> Part[str]:
    return rd.part(catalogue.KERNEL_RELEASE, lambda: _kernel(rd.host, rd.timeout))


INVENTORY_SOURCE = "lsblk / udevadm / sysfs"


def pools_for_roles(zfs: ZfsInfo, status: Part[tuple[Pool, ...]]) -> tuple[Pool, ...] | None:
    """The pools disk roles are judged against: None when membership is unknown."""
    if not zfs.present and zfs.presence is not ZfsPresence.UNKNOWN:
        return ()  # no ZFS: no disk can be in an imported pool
    return status.value if status.ok else None


def assemble(host: Host, rd: _Reader, *, start: tuple[float, float, float | None],
             zfs: ZfsInfo, kernel: Part[str],
             status: Part[tuple[Pool, ...]], usage: Part[tuple[PoolUsage, ...]],
             datasets: Part[tuple[Dataset, ...]], arc: Part[ArcStats],
             diskstats: Part[tuple[DiskStat, ...]], disks: Part[DiskInventory]) -> HostReading:
    """`start`: `_Reader.begin()`'s (host clock, console monotonic clock, clock offset)."""
    taken_at, seen, offset = start
    return HostReading(
        host=_label(host), kind=str(getattr(host, "kind", "")), taken_at=taken_at,
        is_root=rd.is_root, zfs=zfs, kernel=kernel, pool_status=status, pool_usage=usage,
        datasets=datasets, arc=arc, diskstats=diskstats, disks=disks,
        limitations=tuple(dict.fromkeys(rd.limitations)), seen=seen, clock_offset=offset)


def collect(host: Host, *, timeout: float = DEFAULT_TIMEOUT) -> HostReading:
    """Read every part of the host once, one after the other (blocking: call from a worker,
    never the UI thread). For one-shot readings (plans, capture, check); the console's
    refresh reads the same parts independently (`services.session`).

    Never raises for a failed read: each failure is in its Part. `timeout` applies to each
    command.
    """
    rd = _Reader(host, timeout)
    start = rd.begin()
    zfs = detect_zfs(host, timeout=timeout)
    kernel = read_kernel(rd)
    status = read_status(rd, zfs)
    usage = read_usage(rd, zfs)
    datasets = read_datasets(rd, zfs)
    arc = read_arc(rd, zfs)
    diskstats = read_diskstats(rd)
    roles_from = pools_for_roles(zfs, status)
    disks: Part[DiskInventory] = rd.part(
        INVENTORY_SOURCE, lambda: collect_inventory(host, pools=roles_from, timeout=timeout))
    return assemble(host, rd, start=start, zfs=zfs, kernel=kernel, status=status,
                    usage=usage, datasets=datasets, arc=arc, diskstats=diskstats, disks=disks)


def list_snapshots(host: Host, dataset: str, *, timeout: float = DEFAULT_TIMEOUT
                   ) -> Part[tuple[Dataset, ...]]:
    """The snapshots of one dataset (when the operator opens it), never of all datasets."""
    rd = _Reader(host, timeout)
    argv = catalogue.zfs_list_snapshots(dataset)
    return rd.part(_show(argv), lambda: tuple(parse_zfs_list(rd.run(argv), SNAPSHOT_COLUMNS)))


def pool_properties(host: Host, pool: str, *, timeout: float = DEFAULT_TIMEOUT
                    ) -> Part[tuple[PropertyValue, ...]]:
    """`zpool get -H -p all POOL`."""
    rd = _Reader(host, timeout)
    argv = catalogue.zpool_get_all(pool)
    return rd.part(_show(argv), lambda: tuple(parse_get(rd.run(argv))))
