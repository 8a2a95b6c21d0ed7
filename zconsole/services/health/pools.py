"""Are the pools all right? One finding per thing an operator must know about a pool.

Judged from `zpool status` only (never from `zpool list`'s HEALTH column): a pool whose status
could not be read, or whose reading is older than it may be, is UNKNOWN — never OK.

Findings (kind, severity):
- `pool-unread`  UNKNOWN   zpool status failed or hung: the pools' health is not known
- `pool-stale`   UNKNOWN   the last status reading is older than `max_age` seconds
- `pool-state`   by state  the pool is not ONLINE (DEGRADED: WARNING, FAULTED/UNAVAIL/
                           SUSPENDED: CRITICAL), with the devices that make it so
- `redundancy-lost` CRITICAL  top-level vdevs with no redundancy left (health.redundancy),
                           named in one finding per pool
- `device-state` WARNING   a device is not ONLINE although the pool is (a spare in use, an
                           OFFLINE member of a still-redundant vdev, ...)
- `device-errors` WARNING  read/write/checksum errors on an ONLINE device
- `data-errors`  CRITICAL  `errors:` reports permanent data errors
- `scan`         INFO      a scrub, resilver or rebuild is running (with its progress)
"""

from __future__ import annotations

from collections.abc import Iterator

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, ScanState, Vdev
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.health.redundancy import lost_redundancy, margin, rebuilding
from zconsole.services.health.severity import pool_state_level

OK_STATES = frozenset({"ONLINE", "AVAIL"})


def _errors(v: Vdev) -> int:
    return sum(n or 0 for n in (v.read_errors, v.write_errors, v.checksum_errors))


def _error_words(v: Vdev) -> str:
    parts = [f"{n:,} {what}" for n, what in ((v.read_errors, "read"),
                                             (v.write_errors, "write"),
                                             (v.checksum_errors, "checksum")) if n]
    return ", ".join(parts) + (" error" if _errors(v) == 1 else " errors")


def _troubled(pool: Pool) -> Iterator[Vdev]:
    """Leaves that are not ONLINE/AVAIL, in tree order."""
    for _section, _depth, v in pool.walk():
        if v.is_leaf and v.state not in OK_STATES:
            yield v


def _device_phrase(v: Vdev) -> str:
    bits = [f"{v.name} {v.state}"]
    if _errors(v):
        bits.append(f"after {_error_words(v)}")
    if v.note:
        bits.append(f"({v.note})")
    return " ".join(bits)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _lost_finding(pool: Pool, lost: list[Vdev]) -> Finding:
    def why(top: Vdev) -> str:
        gone = [v for _d, v in top.walk() if v.is_leaf and v.state not in OK_STATES]
        said = ", ".join(f"{v.name} {v.state}" for v in gone[:2])
        return f"{top.name} ({said})" if said else top.name

    names = [why(t) for t in lost]
    data_gone = any(margin(t, rebuild=rebuilding(pool, t)) < 0 for t in lost)
    tail = ("data is already missing" if data_gone
            else "one more failure in " + ("it" if len(lost) == 1 else
                                          "either" if len(lost) == 2 else "any of them")
            + " loses the pool")
    return Finding("redundancy-lost", Severity.CRITICAL, pool.name,
                   f"{pool.name}: no redundancy left in {_and(names)}: {tail}",
                   evidence=tuple(t.name for t in lost), pool=pool.name)


def judge_pool(pool: Pool) -> list[Finding]:
    out: list[Finding] = []
    sev = pool_state_level(pool.state)
    troubled = list(_troubled(pool))
    if pool.state not in OK_STATES:
        what = "; ".join(_device_phrase(v) for v in troubled[:4])
        more = f" and {len(troubled) - 4} more" if len(troubled) > 4 else ""
        out.append(Finding("pool-state", sev, pool.name,
                           f"{pool.name} is {pool.state}" + (f": {what}{more}" if what else ""),
                           evidence=tuple(x for x in (pool.status, pool.action) if x),
                           pool=pool.name))
    else:
        for v in troubled:
            out.append(Finding("device-state", Severity.WARNING, v.name,
                               f"{pool.name}: {_device_phrase(v)}", pool=pool.name))
    lost = lost_redundancy(pool)
    if lost:
        out.append(_lost_finding(pool, lost))
    for _section, _depth, v in pool.walk():
        if v.is_leaf and v.state in OK_STATES and _errors(v):
            out.append(Finding("device-errors", Severity.WARNING, v.name,
                               f"{pool.name}: {v.name} has {_error_words(v)}",
                               pool=pool.name))
    if pool.error_count:
        out.append(Finding("data-errors", Severity.CRITICAL, pool.name,
                           f"{pool.name} has {fmt.plural(pool.error_count, 'permanent data error')}",
                           evidence=(pool.errors,) if pool.errors else (), pool=pool.name))
    for scan in pool.scans or ((pool.scan,) if pool.scan else ()):
        if scan.state is ScanState.IN_PROGRESS and scan.function is not None:
            pct = f" {scan.percent_done:.1f} %" if scan.percent_done is not None else ""
            eta = (f", done in about {fmt.duration(scan.eta_seconds)}"
                   if scan.eta_seconds else "")
            out.append(Finding("scan", Severity.INFO, pool.name,
                               f"{pool.name}: {scan.function.value}{pct}{eta}",
                               pool=pool.name))
    return out


def judge_pools(reading: HostReading, *, now: float | None = None,
                max_age: float | None = None) -> list[Finding]:
    """Every pool finding of one reading. With `now` and `max_age`, a status reading older
    than `max_age` seconds makes the pools UNKNOWN (whatever it said). `now` is the console's
    monotonic clock: the age counts from the status answer's `seen` (`Part.age`)."""
    part = reading.pool_status
    unreachable = reading.unreachable
    if unreachable is not None:  # the host, not zpool (its status read or not attempted)
        return [Finding("pool-unread", Severity.UNKNOWN, "pools",
                        f"pool health unknown: {unreachable}")]
    if part.skipped:  # ZFS is not there: nothing to judge
        return []
    if not part.ok or part.value is None:
        return [Finding("pool-unread", Severity.UNKNOWN, "pools",
                        f"pool health unknown: {part.source or 'zpool status'} failed "
                        f"({part.error})")]
    if now is not None and max_age is not None and part.age(now) > max_age:
        return [Finding("pool-stale", Severity.UNKNOWN, p.name,
                        f"{p.name} UNKNOWN: no answer from zpool status for "
                        f"{fmt.duration(part.age(now))}", pool=p.name) for p in part.value]
    out: list[Finding] = []
    for pool in part.value:
        out.extend(judge_pool(pool))
    return out
