"""ZFS's predicate kinds, registered with the engine's evaluator (`engine/predicates.py`).

Each reads what it needs through the evaluator (`zpool status` as JSON on 2.3 and text on
2.1, `zpool list`, `zpool get`, `zfs get`); the pool trees are read once per round
(`pools(ev)`). A read that fails raises `ReadFailed`: the outcome is unknown, never "holds".

Kinds (params):
  vdev_present (pool, name[, section]) a vdev with this name/path is in the pool (and in
                                       that section: logs, cache, spares...: its role)
  vdev_absent (pool, name)             it is not
  vdev_state (pool, name, state)       it has this state (e.g. ONLINE; "OFFLINE|FAULTED": any
                                       of them) and is not resilvering
  container_present (pool, type)       some vdev of this type exists (e.g. replacing)
  container_absent (pool, type)        none does
  no_scan (pool)                       no scrub/resilver is in progress
  pool_property (pool, property, value)
  dataset_property (dataset, property, value)
  pool_size_at_least (pool, bytes)     `zpool list` SIZE >= bytes
  new_disk_still_fit (pool, target, disk, serial, approved, replacing)
                                       the new-disk guards pass again on a fresh reading,
                                       for the disk with that serial (checks named in
                                       `approved` were forced by the operator); with
                                       smart=yes its SMART is read again and anything
                                       not in `smart_seen` (the preview's) stops it
  bay_swapped (pool, old, old_serial, old_disk, stays, members)
                                       the same-bay swap is done: the old disk is gone and
                                       a new one that passes every guard is in (`bay.py`,
                                       beside the watch that shares its reading)

A new kind is one function here, decorated `@predicate_kind("name")`.
"""

from __future__ import annotations

import re

from zconsole.hosts.base import HostError
from zconsole.model.plan import CheckLevel, Predicate
from zconsole.model.pool import Pool, ScanInfo, ScanState, Vdev
from zconsole.model.reading import ZfsInfo, ZfsPresence
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.parsers.units import parse_size
from zconsole.parsers.zpool_list import parse_zpool_list_columns
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, predicate_kind
from zconsole.services.ops.zfs import new_disk_smart as nds
from zconsole.services.ops.zfs.dedup_predicates import KINDS as DEDUP_KINDS
from zconsole.services.ops.zfs.new_disk import check_new_disk
from zconsole.services.read.collect import collect, detect_zfs, pool_properties, read_pool_status
from zconsole.services.read.identity import DiskIndex

READ_ERRORS = (HostError, ParseError, ValueError, KeyError, TypeError, IndexError)
_DEV_PREFIXES = ("/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-vdev/",
                 "/dev/disk/by-partuuid/", "/dev/disk/by-uuid/", "/dev/mapper/", "/dev/")

KINDS = ("vdev_present", "vdev_absent", "vdev_state", "container_present", "container_absent",
         "no_scan", "pool_property", "dataset_property", "pool_size_at_least",
         "new_disk_still_fit", "bay_swapped") + DEDUP_KINDS  # dedup_predicates.py


# ------------------------------------------------------------------------------- names


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


# ------------------------------------------------------------------------------- scans


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


# ---------------------------------------------------------------------------- readings


def zfs_info(ev: Evaluator) -> ZfsInfo:
    """The host's OpenZFS (kept for the evaluator's life once known)."""
    info: ZfsInfo | None = ev.kept.get("zfs")
    if info is None or info.presence is ZfsPresence.UNKNOWN:
        info = detect_zfs(ev.host, timeout=ev.timeout)
        ev.kept["zfs"] = info
    return info


def pools(ev: Evaluator) -> tuple[Pool, ...]:
    """Every imported pool from a fresh `zpool status` (once per round); raises ReadFailed."""
    def read() -> tuple[Pool, ...]:
        try:
            found, _ = read_pool_status(ev.host, zfs_info(ev), timeout=ev.timeout)
        except READ_ERRORS as e:
            raise ReadFailed(f"could not read zpool status: {e}") from None
        return found
    return ev.reading("zfs.pools", read)


def pool(ev: Evaluator, name: str) -> Pool | None:
    return next((p for p in pools(ev) if p.name == name), None)


def need_pool(ev: Evaluator, name: str) -> Pool:
    """The pool `name`, or ReadFailed: a pool that is not imported leaves every predicate on
    it unknown, never false (nor true)."""
    found = pool(ev, name)
    if found is None:
        raise ReadFailed(f"pool {name} is not imported (zpool status does not list it)")
    return found


def _get(ev: Evaluator, argv: list[str], what: str) -> str:
    try:
        rows = parse_get(ev.host.run(argv, timeout=ev.timeout).stdout)
    except READ_ERRORS as e:
        raise ReadFailed(f"could not read {what}: {e}") from None
    if not rows:
        raise ReadFailed(f"could not read {what}: no answer")
    return rows[0].value


def pool_sizes(ev: Evaluator, name: str) -> tuple[int | None, int | None]:
    """(SIZE, EXPANDSZ) in bytes from `zpool list -H -p -o size,expandsize POOL`."""
    cols = ["size", "expandsize"]
    argv = ["zpool", "list", "-H", "-p", "-o", ",".join(cols), name]
    try:
        rows = parse_zpool_list_columns(ev.host.run(argv, timeout=ev.timeout).stdout, cols)
    except READ_ERRORS as e:
        raise ReadFailed(f"could not read the size of pool {name}: {e}") from None
    if not rows:
        raise ReadFailed(f"could not read the size of pool {name}: no answer")
    size, exp = rows[0]["size"], rows[0]["expandsize"]
    return (parse_size(size) if size else None, parse_size(exp) if exp else None)


def _resolve(ev: Evaluator, path: str) -> str:
    resolved: dict[str, str] = ev.kept.setdefault("zfs.realpath", {})
    if path not in resolved:
        try:
            resolved[path] = ev.host.realpath(path)
        except READ_ERRORS:
            resolved[path] = path
    return resolved[path]


def find(ev: Evaluator, pool_: Pool, name: str) -> Vdev | None:
    """The vdev named `name` (any spelling: short name, by-id path, -partN, guid), else
    the one on the same device node (by-id vs sdX spellings of one disk)."""
    want = {name, _norm(name)}
    for _, _, v in pool_.walk():
        if want & _names(v):
            return v
    if not name.startswith("/dev/"):
        return None
    target = _resolve(ev, name)
    for _, _, v in pool_.walk():
        if not v.is_leaf:
            continue
        candidates = [v.path] if v.path else [f"/dev/disk/by-id/{v.name}", f"/dev/{v.name}"]
        if any(_same_disk(_resolve(ev, c), target) for c in candidates):
            return v
    return None


# --------------------------------------------------------------------------- the kinds


@predicate_kind("vdev_present", "vdev_absent", "vdev_state")
def _vdev(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    in_pool = need_pool(ev, p.param("pool"))
    name = p.param("name")
    v = find(ev, in_pool, name)
    short = _norm(name)
    if p.kind == "vdev_present":
        role = dict(p.params).get("section")
        if v is not None and role:  # the role it had when planned (a log re-added as a spare)
            got = next((s for s, _, w in in_pool.walk() if w is v), None)
            if got is None or got.value != role:
                return False, (f"{short} is in {in_pool.name} in its "
                               f"{got.value if got else 'unknown'} section now, not {role}")
        return (True, f"{short} is in {in_pool.name} ({v.state})") if v else \
            (False, f"{short} is not in {in_pool.name}")
    if p.kind == "vdev_absent":
        return (False, f"{short} is still in {in_pool.name} ({v.state})") if v else \
            (True, f"{short} is not in {in_pool.name}")
    want = p.param("state").upper()
    accepted = set(want.split("|"))
    if v is None:
        return False, f"{short} is not in {in_pool.name} (expected {want})"
    if v.state.upper() in accepted and not v.resilvering:
        return True, f"{short} is {v.state}"
    if v.state.upper() in accepted:
        return False, f"{short} is {v.state} but still resilvering"
    return False, f"{short} is {v.state}, expected {want}"


@predicate_kind("container_present", "container_absent")
def _container(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    in_pool = need_pool(ev, p.param("pool"))
    kind = p.param("type")
    found = [v for _, _, v in in_pool.walk() if v.type == kind]
    if found:
        desc = ", ".join(
            f"{v.name} ({' + '.join(_norm(c.name) for c in v.children)})"
            if v.children else v.name for v in found)
        return (p.kind == "container_present"), f"{desc} in {in_pool.name}"
    return (p.kind == "container_absent"), f"no {kind} vdev in {in_pool.name}"


@predicate_kind("no_scan")
def _no_scan(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    in_pool = need_pool(ev, p.param("pool"))
    running = running_scans(in_pool)
    if running:
        return False, f"{in_pool.name}: " + "; ".join(describe_scan(s) for s in running)
    return True, f"no scrub or resilver running in {in_pool.name}"


def _property(ev: Evaluator, p: Predicate, tool: str, target: str, what: str
              ) -> tuple[bool, str]:
    prop, want = p.param("property"), p.param("value")
    value = _get(ev, [tool, "get", "-H", "-p", prop, target], f"{prop} of {what}")
    return value == want, f"{prop} of {target} is {value}" + (
        "" if value == want else f" (expected {want})")


@predicate_kind("pool_property")
def _pool_property(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    pname = p.param("pool")
    return _property(ev, p, "zpool", pname, f"pool {pname}")


@predicate_kind("dataset_property")
def _dataset_property(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    ds = p.param("dataset")
    return _property(ev, p, "zfs", ds, ds)


@predicate_kind("pool_size_at_least")
def _pool_size_at_least(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    pname, least = p.param("pool"), int(p.param("bytes"))
    size, exp = pool_sizes(ev, pname)
    if size is None:
        raise ReadFailed(f"zpool list shows no size for {pname}")
    extra = f", EXPANDSZ {exp} bytes unclaimed" if exp else ""
    if size >= least:
        return True, f"{pname} SIZE is {size} bytes (at least {least}){extra}"
    return False, f"{pname} SIZE is {size} bytes, expected at least {least}{extra}"


# ------------------------------------------------------------------------------- new disks


@predicate_kind("new_disk_still_fit")
def new_disk_still_fit(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    """Run the new-disk guards again, right before the command that writes to the disk."""
    pool, disk, serial = p.param("pool"), p.param("disk"), p.param("serial")
    reading = ev.reading("collect", lambda: collect(ev.host, timeout=ev.timeout))
    if not reading.disks.ok or reading.disks.value is None:
        raise ReadFailed(f"disk identities could not be read ({reading.disks.error})")
    props_part = ev.reading(f"props:{pool}", lambda: pool_properties(ev.host, pool,
                                                                      timeout=ev.timeout))
    props = {v.property: v.value for v in props_part.value or ()}
    dev = DiskIndex(reading.disks.value.devices).find(disk)
    if dev is None:
        return False, f"{disk} is no longer there: nothing is written"
    if serial and dev.serial != serial:
        return False, (f"{disk} is now a different disk (serial {dev.serial or 'unknown'}, "
                       f"not {serial} as in the preview): nothing is written")
    approved = {n for n in p.param("approved").split(",") if n}
    params = dict(p.params)
    smart = nds.look_at(ev.host, reading, disk) if params.get("smart") == "yes" else None
    checks = check_new_disk(reading, pool, p.param("target"), disk, props=props,
                            replacing=p.param("replacing") == "yes", smart=smart)
    changed = [c.detail for c in checks if not c.passed and (
        c.level is CheckLevel.BLOCK or (c.level is CheckLevel.CONFIRM and c.name not in approved))]
    worse = nds.news(smart, params) if smart is not None else ""
    if worse and not any(c.name == nds.SMART and c.blocking for c in checks):
        changed.append(worse)
    if changed:
        return False, ("changed since the preview, so zconsole stops and asks again: "
                       + "; ".join(changed))
    said = "" if smart is None else "; its SMART is no worse than in the preview"
    return True, f"{disk} (serial {dev.serial or 'unknown'}) is still clean and fit{said}"
