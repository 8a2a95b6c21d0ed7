"""Upkeep: how full the pools are, how long ago they were scrubbed, whether the L2ARC pays.

Findings (kind, severity, threshold):
- `advice-capacity` WARNING from CAPACITY_SLOWS % (zpool list CAP): the level of the one
                    scale's `pool-capacity` (health/severity.py, which `check` says), at most
                    WARNING as all advice
- `advice-scrub`    WARNING  the last scrub finished more than `scrub_weeks` weeks ago
                             (default SCRUB_WEEKS); a pool with no scan on record is not
                             judged (its age is not known)
- `advice-l2arc`    INFO     the L2ARC answered under L2_MIN_HIT_RATIO of the lookups that
                             reached it, after at least L2_MIN_LOOKUPS of them
"""

from __future__ import annotations

from collections.abc import Iterator

from zconsole.model.advice import ADVICE_CEILING, Advice, AdviceAction
from zconsole.model.arc import ArcStats
from zconsole.model.finding import Severity
from zconsole.model.pool import Pool, ScanFunction, ScanState, Section
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.health.severity import CAPACITY_CRIT, CAPACITY_WARN, capacity_level

# Above about 80 % allocated, ZFS spends longer finding free space and fragmentation rises;
# from 90 % writes slow sharply and a full pool can refuse even deletes (issue 16; the same
# 80/90 of the one scale's pool-capacity finding, services/health/severity.py).
CAPACITY_SLOWS = CAPACITY_WARN
CAPACITY_FULL = CAPACITY_CRIT

# Debian's zfsutils-linux scrubs every pool monthly (/etc/cron.d/zfsutils-linux: the second
# Sunday of each month), as OpenZFS's zfs-scrub-monthly@.timer does. Second Sundays are 28 or
# 35 days apart, so a pool on that schedule never goes more than five weeks between scrubs.
SCRUB_WEEKS = 5
WEEK = 7 * 24 * 3600

# The L2ARC's headers live in the ARC (l2_hdr_size): a cache device that answers fewer than
# one in ten of the lookups that reach it costs RAM for little. Below 10 000 lookups (a host
# just booted) the ratio says nothing yet.
L2_MIN_HIT_RATIO = 0.10
L2_MIN_LOOKUPS = 10_000


def _capacity(reading: HostReading) -> Iterator[Advice]:
    for entry in reading.pools:
        u = entry.usage
        if u is None or u.capacity is None or u.capacity < CAPACITY_SLOWS:
            continue
        full = u.capacity >= CAPACITY_FULL
        level = min(capacity_level(u.capacity), ADVICE_CEILING, key=lambda s: s.rank)
        yield Advice(
            "advice-capacity", level, entry.name,
            f"{entry.name} is {u.capacity} % full",
            why=("Above about 80 % ZFS spends longer finding free space and fragmentation "
                 "rises; near 100 % writes slow sharply and even deletes can fail." if not full
                 else "From 90 % writes slow sharply as ZFS hunts for free space, and a full "
                      "pool can refuse even deletes."),
            cost="Deleting data frees space only when no snapshot still holds it; adding a "
                 "vdev is permanent (it cannot be removed from a raidz pool); growing means "
                 "replacing every disk of a vdev with a larger one.",
            evidence=tuple(x for x in (
                f"CAP: {u.capacity} %",
                f"allocated: {fmt.size(u.alloc)} of {fmt.size(u.size)}"
                if u.alloc is not None and u.size is not None else None,
                f"FRAG: {u.fragmentation} %" if u.fragmentation is not None else None,
            ) if x is not None),
            pool=entry.name)


def _scrub(pool: Pool, now: float, weeks: int) -> Iterator[Advice]:
    scans = pool.scans or ((pool.scan,) if pool.scan else ())
    if any(s.state in (ScanState.IN_PROGRESS, ScanState.PAUSED) for s in scans):
        return
    scrubs = [s for s in scans if s.function is ScanFunction.SCRUB]
    # No scan line at all is not judged: a pool created last week and one never scrubbed in
    # years look the same in `zpool status` (the pool's age is in `zpool history`).
    # JSON gives the end in epoch seconds; the text form its date without a zone (ended_near:
    # off by the host's UTC offset, hours against a limit in weeks)
    ends = [s.end_time or s.ended_near for s in scrubs if s.state is ScanState.FINISHED]
    known = [e for e in ends if e]
    if not known:
        return  # a resilver or a canceled scrub is the last scan, or no date in the C locale
    end = max(known)
    age = now - end
    if age <= weeks * WEEK:
        return
    yield Advice(
        "advice-scrub", Severity.WARNING, pool.name,
        f"{pool.name} was last scrubbed {fmt.duration(age, coarse=True)} ago",
        why="Only a scrub reads every block and repairs the ones that no longer match their "
            f"checksum; distributions scrub monthly, so more than {weeks} weeks means the "
            "schedule is not running or not reaching this pool.",
        cost="A scrub reads the whole pool and slows other I/O while it runs; it can be "
             "paused (zpool scrub -p) and resumed. Check the scrub timer or cron job too.",
        evidence=(f"last scrub finished: {fmt.duration(age, coarse=True)} ago",
                  f"limit: {weeks} weeks"),
        action=AdviceAction.scrub(pool.name), pool=pool.name)


def _l2arc(reading: HostReading, arc: ArcStats | None) -> Iterator[Advice]:
    if arc is None or not arc.get("l2_size"):
        return
    hits, misses = arc.get("l2_hits") or 0, arc.get("l2_misses") or 0
    lookups = hits + misses
    if lookups < L2_MIN_LOOKUPS:
        return
    ratio = hits / lookups
    if ratio >= L2_MIN_HIT_RATIO:
        return
    caches = [(entry.name, v.name) for entry in reading.pools if entry.status is not None
              for v in entry.status.section(Section.CACHE)]
    hdr = arc.get("l2_hdr_size")
    size = arc.size
    yield Advice(
        "advice-l2arc", Severity.INFO, ", ".join(c for _, c in caches) or "L2ARC",
        f"the L2ARC answered {fmt.pct(ratio)} of the {lookups:,} lookups that reached it",
        why="Each block in the L2ARC keeps a header in the ARC, so a cache device that seldom "
            "answers takes RAM the ARC could use for blocks that are read again.",
        cost="Removing a cache device loses no data (zpool remove POOL DEVICE); the RAM its "
             "headers held goes back to the ARC. Counters are since boot.",
        evidence=tuple(x for x in (
            f"l2_hits: {hits:,}", f"l2_misses: {misses:,}",
            f"L2ARC size: {fmt.size(arc.get('l2_size'))}",
            f"headers in ARC: {fmt.size(hdr)} of {fmt.size(size)}"
            if hdr is not None and size else None,
        ) if x is not None),
        action=(AdviceAction.remove(caches[0][0], caches[0][1], "cache") if len(caches) == 1
                else None))


def judge_upkeep(reading: HostReading, *, scrub_weeks: int = SCRUB_WEEKS) -> list[Advice]:
    out = list(_capacity(reading))
    for entry in reading.pools:
        if entry.status is not None:
            out.extend(_scrub(entry.status, reading.taken_at, scrub_weeks))
    out.extend(_l2arc(reading, reading.arc.value if reading.arc.ok else None))
    return out
