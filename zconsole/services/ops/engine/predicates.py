"""Evaluate a plan's `Predicate`s against a fresh reading of the host.

`evaluate(host, predicate)` reads what it needs (`zpool status` as JSON on 2.3 and text on
2.1, `zpool list`, `zpool get`, `zfs get`) and answers (holds?, sentence saying what was
seen). A read that fails never counts as "holds": the sentence says what could not be read.

`Evaluator` does the same for many predicates with one reading per source (`fresh()` drops
the cached readings; the runner calls it before every poll).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.model.plan import Predicate
from zconsole.model.pool import Pool, ScanInfo, ScanState, Vdev
from zconsole.model.reading import ZfsInfo, ZfsPresence
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.parsers.units import parse_size
from zconsole.parsers.zpool_list import parse_zpool_list_columns
from zconsole.services.read.collect import detect_zfs, read_pool_status

DEFAULT_TIMEOUT = 30.0
_READ_ERRORS = (HostError, ParseError, ValueError, KeyError, TypeError, IndexError)
_DEV_PREFIXES = ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-vdev/",
                 "/dev/disk/by-partuuid/", "/dev/disk/by-uuid/", "/dev/mapper/", "/dev/")

KINDS = ("vdev_present", "vdev_absent", "vdev_state", "container_present", "container_absent",
         "no_scan", "pool_property", "dataset_property", "pool_size_at_least")


@dataclass(frozen=True)
class Outcome:
    """One evaluation. `unknown` is True when the host could not be read: `ok` is then
    False, and nothing may be concluded from it."""

    predicate: Predicate
    ok: bool
    detail: str
    unknown: bool = False


class ReadFailed(Exception):
    """A source could not be read; str() says which and why."""


def _norm(name: str) -> str:
    """Compare names the way zpool prints them: last path component, no `-partN` of a
    whole-disk vdev (`/dev/disk/by-id/ata-X-part1` -> `ata-X`, `/dev/sdb1` stays `sdb1`)."""
    n = name.strip()
    for prefix in _DEV_PREFIXES:
        if n.startswith(prefix):
            n = n[len(prefix):]
            break
    if "-part" in n:
        base, _, num = n.rpartition("-part")
        if num.isdigit():
            n = base
    return n


def _same_disk(real: str, target: str) -> bool:
    """`real` is the device node `target` or one of its partitions (/dev/vdb1, nvme0n1p1)."""
    if real == target:
        return True
    return real.startswith(target) and re.fullmatch(r"p?\d+", real[len(target):]) is not None


def _names(v: Vdev) -> set[str]:
    out = {v.name, _norm(v.name)}
    if v.path:
        out |= {v.path, _norm(v.path)}
    if v.guid:
        out.add(str(v.guid))
    return out


def _scan_running(scan: ScanInfo | None) -> bool:
    return scan is not None and scan.state in (ScanState.IN_PROGRESS, ScanState.PAUSED)


def running_scans(pool: Pool) -> list[ScanInfo]:
    scans = list(pool.scans) or ([pool.scan] if pool.scan is not None else [])
    return [s for s in scans if _scan_running(s)]


def describe_scan(scan: ScanInfo) -> str:
    fn = scan.function.value if scan.function else "scan"
    where = f" ({scan.rebuild_vdev})" if scan.rebuild_vdev else ""
    pct = f" ({scan.percent_done:.0f} %)" if scan.percent_done is not None else ""
    paused = " paused" if scan.state is ScanState.PAUSED else " in progress"
    return f"{fn}{where}{paused}{pct}"


class Evaluator:
    """Evaluates predicates on one host, reading each source at most once until `fresh()`."""

    def __init__(self, host: Host, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host = host
        self.timeout = timeout
        self._zfs: ZfsInfo | None = None
        self._pools: tuple[Pool, ...] | None = None
        self._pools_error: str | None = None
        self._resolved: dict[str, str] = {}

    # --- readings ------------------------------------------------------------------------

    def fresh(self) -> None:
        self._pools = None
        self._pools_error = None

    def zfs(self) -> ZfsInfo:
        if self._zfs is None or self._zfs.presence is ZfsPresence.UNKNOWN:
            self._zfs = detect_zfs(self.host, timeout=self.timeout)
        return self._zfs

    def pools(self) -> tuple[Pool, ...]:
        """Every imported pool from a fresh `zpool status`; raises ReadFailed."""
        if self._pools is None and self._pools_error is None:
            try:
                self._pools, _ = read_pool_status(self.host, self.zfs(), timeout=self.timeout)
            except _READ_ERRORS as e:
                self._pools_error = f"could not read zpool status: {e}"
        if self._pools is None:
            raise ReadFailed(self._pools_error or "could not read zpool status")
        return self._pools

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools() if p.name == name), None)

    def _get(self, argv: list[str], what: str) -> str:
        try:
            rows = parse_get(self.host.run(argv, timeout=self.timeout).stdout)
        except _READ_ERRORS as e:
            raise ReadFailed(f"could not read {what}: {e}") from None
        if not rows:
            raise ReadFailed(f"could not read {what}: no answer")
        return rows[0].value

    def pool_property(self, pool: str, prop: str) -> str:
        return self._get(["zpool", "get", "-H", "-p", prop, pool], f"{prop} of pool {pool}")

    def dataset_property(self, dataset: str, prop: str) -> str:
        return self._get(["zfs", "get", "-H", "-p", prop, dataset], f"{prop} of {dataset}")

    def pool_sizes(self, pool: str) -> tuple[int | None, int | None]:
        """(SIZE, EXPANDSZ) in bytes from `zpool list -H -p -o size,expandsize POOL`."""
        cols = ["size", "expandsize"]
        argv = ["zpool", "list", "-H", "-p", "-o", ",".join(cols), pool]
        try:
            rows = parse_zpool_list_columns(self.host.run(argv, timeout=self.timeout).stdout,
                                            cols)
        except _READ_ERRORS as e:
            raise ReadFailed(f"could not read the size of pool {pool}: {e}") from None
        if not rows:
            raise ReadFailed(f"could not read the size of pool {pool}: no answer")
        size, exp = rows[0]["size"], rows[0]["expandsize"]
        return (parse_size(size) if size else None, parse_size(exp) if exp else None)

    # --- finding vdevs -------------------------------------------------------------------

    def _resolve(self, path: str) -> str:
        if path not in self._resolved:
            try:
                self._resolved[path] = self.host.realpath(path)
            except _READ_ERRORS:
                self._resolved[path] = path
        return self._resolved[path]

    def find(self, pool: Pool, name: str) -> Vdev | None:
        """The vdev named `name` (any spelling: short name, by-id path, -partN, guid), else
        the one on the same device node (by-id vs sdX spellings of one disk)."""
        want = {name, _norm(name)}
        for _, _, v in pool.walk():
            if want & _names(v):
                return v
        if not name.startswith("/dev/"):
            return None
        target = self._resolve(name)
        for _, _, v in pool.walk():
            if not v.is_leaf:
                continue
            candidates = [v.path] if v.path else [f"/dev/disk/by-id/{v.name}", f"/dev/{v.name}"]
            if any(_same_disk(self._resolve(c), target) for c in candidates):
                return v
        return None

    # --- evaluation ----------------------------------------------------------------------

    def check(self, p: Predicate) -> Outcome:
        try:
            ok, detail = self._check(p)
        except ReadFailed as e:
            return Outcome(p, False, str(e), unknown=True)
        except KeyError as e:
            return Outcome(p, False, f"predicate {p.kind} lacks the parameter {e}",
                           unknown=True)
        return Outcome(p, ok, detail)

    def check_all(self, preds: Iterable[Predicate]) -> list[Outcome]:
        return [self.check(p) for p in preds]

    def _need_pool(self, name: str) -> Pool:
        pool = self.pool(name)
        if pool is None:
            raise ReadFailed(f"pool {name} is not imported (zpool status does not list it)")
        return pool

    def _check(self, p: Predicate) -> tuple[bool, str]:
        k = p.kind
        if k in ("vdev_present", "vdev_absent", "vdev_state"):
            pool = self._need_pool(p.param("pool"))
            name = p.param("name")
            v = self.find(pool, name)
            short = _norm(name)
            if k == "vdev_present":
                return (True, f"{short} is in {pool.name} ({v.state})") if v else \
                    (False, f"{short} is not in {pool.name}")
            if k == "vdev_absent":
                return (False, f"{short} is still in {pool.name} ({v.state})") if v else \
                    (True, f"{short} is not in {pool.name}")
            want = p.param("state").upper()
            if v is None:
                return False, f"{short} is not in {pool.name} (expected {want})"
            if v.state.upper() == want and not v.resilvering:
                return True, f"{short} is {v.state}"
            if v.state.upper() == want:
                return False, f"{short} is {v.state} but still resilvering"
            return False, f"{short} is {v.state}, expected {want}"
        if k in ("container_present", "container_absent"):
            pool = self._need_pool(p.param("pool"))
            kind = p.param("type")
            found = [v for _, _, v in pool.walk() if v.type == kind]
            if found:
                desc = ", ".join(
                    f"{v.name} ({' + '.join(_norm(c.name) for c in v.children)})"
                    if v.children else v.name for v in found)
                return (k == "container_present"), f"{desc} in {pool.name}"
            return (k == "container_absent"), f"no {kind} vdev in {pool.name}"
        if k == "no_scan":
            pool = self._need_pool(p.param("pool"))
            running = running_scans(pool)
            if running:
                return False, f"{pool.name}: " + "; ".join(describe_scan(s) for s in running)
            return True, f"no scrub or resilver running in {pool.name}"
        if k == "pool_property":
            pname, prop, want = p.param("pool"), p.param("property"), p.param("value")
            value = self.pool_property(pname, prop)
            return value == want, f"{prop} of {pname} is {value}" + (
                "" if value == want else f" (expected {want})")
        if k == "dataset_property":
            ds, prop, want = p.param("dataset"), p.param("property"), p.param("value")
            value = self.dataset_property(ds, prop)
            return value == want, f"{prop} of {ds} is {value}" + (
                "" if value == want else f" (expected {want})")
        if k == "pool_size_at_least":
            pname, least = p.param("pool"), int(p.param("bytes"))
            size, exp = self.pool_sizes(pname)
            if size is None:
                raise ReadFailed(f"zpool list shows no size for {pname}")
            extra = f", EXPANDSZ {exp} bytes unclaimed" if exp else ""
            if size >= least:
                return True, f"{pname} SIZE is {size} bytes (at least {least}){extra}"
            return False, f"{pname} SIZE is {size} bytes, expected at least {least}{extra}"
        return False, f"unknown predicate kind {k!r}: zconsole cannot evaluate it"


def evaluate(host: Host, predicate: Predicate, *, timeout: float = DEFAULT_TIMEOUT
             ) -> tuple[bool, str]:
    """(holds?, what was seen). A failed read is (False, why it could not look)."""
    out = Evaluator(host, timeout=timeout).check(predicate)
    return out.ok, out.detail
