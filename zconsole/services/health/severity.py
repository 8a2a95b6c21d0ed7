"""The one severity scale of a host: what makes it CRITICAL, WARNING, UNKNOWN or INFO.

Written once, here, as `RULES` (the README shows this table); every face reads its verdict
from `judge_host`: the Pools screen's to-do line, the Fleet rows, the Timeline summary,
`zconsole check` (its exit code 0/1/2/3) and the metrics (`zconsole_pool_health`,
`zconsole_check_status`). A finding's level is the scale's, whatever level the rule that
found it gave it for its own colours (a slow disk 10x slower is drawn red on the Pools
screen, and is a WARNING here).

Advice is INFO and never raises the verdict unless asked (`advice_counts`, `check
--advice`): then at its own level, at most WARNING. A finding the operator muted (advice or a
slow disk, `MUTABLE`; never a finding about the pool's health itself) is kept apart in
`muted` and raises nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from zconsole.model.finding import Finding, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:  # the Pools screen's first frame imports this module: only what it needs
    from zconsole.model.advice import Advice, Mute
    from zconsole.model.pool import Pool
    from zconsole.model.reading import HostReading, PoolEntry
    from zconsole.services.read.progress import ScanEstimate

C, W, U, N = Severity.CRITICAL, Severity.WARNING, Severity.UNKNOWN, Severity.INFO

CAPACITY_WARN = 80  # percent allocated (zpool list CAP): from here ZFS slows finding space
CAPACITY_CRIT = 90  # from here writes slow sharply and a full pool can refuse even deletes
STALL_SPAN_S = 60.0  # a resilver is said to have stopped after this long without progress


class Rule(NamedTuple):
    level: Severity
    kind: str  # the finding's kind ("advice-*": every advisor finding)
    when: str  # the README's words


RULES: tuple[Rule, ...] = (
    Rule(C, "pool-state", "a pool FAULTED, UNAVAIL or SUSPENDED"),
    Rule(C, "redundancy-lost", "a top-level vdev (data, special, dedup) with no redundancy "
         "left: a mirror down to one copy, a raidz-N or dRAID-N missing N members, a spare or "
         "replacing member that leaves one copy (services/health/redundancy.py)"),
    Rule(C, "data-errors", "permanent data errors (`errors:` of zpool status)"),
    Rule(C, "pool-capacity", f"capacity at or over the critical threshold "
         f"(`--capacity-crit`, {CAPACITY_CRIT} %)"),
    Rule(C, "smart-failed", "a disk's SMART health check says FAILED, or a prefail attribute "
         "is at or below its threshold now (services/health/smart.py)"),
    Rule(C, "smart-nvme-critical", "an NVMe critical warning: reliability degraded, media "
         "read-only, volatile memory backup failed, persistent memory unreliable"),
    Rule(C, "smart-temperature", "a disk at or over its critical temperature limit"),
    Rule(W, "pool-state", "a pool DEGRADED (or any other state but ONLINE) whose vdevs all "
         "have redundancy left"),
    Rule(W, "device-state", "a device not ONLINE in an ONLINE pool (a spare in use, an "
         "OFFLINE or missing cache or log device)"),
    Rule(W, "device-errors", "read, write or checksum errors on a device"),
    Rule(W, "slow-disk", "a slow disk (needs several I/O samples: `check --sample`)"),
    Rule(W, "smart-counters", "reallocated, pending or offline uncorrectable sectors, "
         "reported uncorrectable errors or command timeouts (ATA 5, 187, 188, 197, 198) above "
         "zero or growing; NVMe media errors; SCSI grown defects or uncorrected errors"),
    Rule(W, "smart-crc", "UDMA CRC errors (ATA 199): the cable or backplane, not the disk"),
    Rule(W, "smart-temperature", "a disk at or over its own temperature limit (or 60 °C for "
         "a hard disk, 70 °C for an SSD, when it gives none)"),
    Rule(W, "smart-wear", "an SSD at or over 90 % of its rated endurance, or its spare below "
         "its threshold"),
    Rule(W, "smart-self-test", "a disk's newest self-test of a kind failed"),
    Rule(W, "pool-capacity", f"capacity at or over the warning threshold "
         f"(`--capacity-warn`, {CAPACITY_WARN} %)"),
    Rule(W, "resilver-stalled", f"a resilver or rebuild that made no progress for "
         f"{STALL_SPAN_S:g} s or more"),
    Rule(U, "pool-unread", "health could not be read: zpool status failed, hung or was not "
         "understood (never OK, never the last known state)"),
    Rule(U, "pool-stale", "the last zpool status is older than the console's limit"),
    Rule(U, "no-answer", "the host did not answer at all"),
    Rule(N, "scan", "a scrub, resilver or rebuild running"),
    Rule(N, "advice-*", "every advisor finding (`check --advice`: at its own level, at most "
         "WARNING)"),
)

#: the level of the kinds that have one level whatever their figures
_FIXED: dict[str, Severity] = {
    r.kind: r.level for r in RULES
    if r.kind not in ("pool-state", "pool-capacity", "smart-temperature")
    and not r.kind.endswith("*")}
#: the kinds an operator may mute (with a reason): never a finding about the pool's health
#: itself, nor a disk that says it is failing (smart-failed, smart-nvme-critical) or too hot:
#: a slow disk, advice, and the SMART findings an admin can knowingly live with for a while
#: (a cable they know about: smart-crc; a disk already scheduled for replacement: its
#: counters, a failed self-test, its wear)
MUTABLE = ("slow-disk", "advice-", "smart-crc", "smart-counters", "smart-self-test",
           "smart-wear")
_ORDER = {r.kind: i for i, r in enumerate(RULES)}


def pool_state_level(state: str) -> Severity:
    """FAULTED, UNAVAIL, SUSPENDED: CRITICAL; any other state but ONLINE: WARNING."""
    s = state.upper()
    if s in ("FAULTED", "UNAVAIL", "SUSPENDED"):
        return C
    return Severity.OK if s == "ONLINE" else W


def capacity_level(capacity: int, warn: int = CAPACITY_WARN,
                   crit: int = CAPACITY_CRIT) -> Severity:
    return C if capacity >= crit else W if capacity >= warn else Severity.OK


def level_of(f: Finding, *, advice_counts: bool = False) -> Severity:
    """The scale's level for a finding (its kind's rule; pool-state and capacity findings
    carry theirs, judged by `pool_state_level` / `capacity_level`; a temperature its own:
    CRITICAL at the drive's critical limit)."""
    if f.kind.startswith("advice-"):
        # W: model.advice's ADVICE_CEILING (not imported: the first frame needs none of it)
        return min(f.severity, W, key=lambda s: s.rank) if advice_counts else N
    return _FIXED.get(f.kind, f.severity)


def mutable(kind: str) -> bool:
    return kind.startswith(MUTABLE)


def muted_by(f: Finding, mutes: Sequence[Mute]) -> Mute | None:
    """The operator's mute of this finding (a slow disk, advice, a SMART kind of `MUTABLE`),
    if any: kept apart from the level by every face alike."""
    return next((m for m in mutes if mutable(f.kind) and m.matches(f)), None)


class Thresholds(NamedTuple):
    capacity_warn: int = CAPACITY_WARN
    capacity_crit: int = CAPACITY_CRIT


DEFAULT_THRESHOLDS = Thresholds()


class HostVerdict(NamedTuple):
    """A host judged on the scale: `findings` worst first (the order of `RULES` among
    equals), `muted` apart."""

    level: Severity  # OK when there is nothing above INFO
    findings: tuple[Finding, ...]
    muted: tuple[tuple[Finding, Mute], ...] = ()

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity.rank > N.rank)

    @property
    def headline(self) -> str:
        """The highest finding, and how many more there are ("" when none)."""
        bad = self.problems
        if not bad:
            return ""
        return bad[0].message + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")

    def pool_level(self, pool: str) -> Severity:
        """The worst health finding of one pool (advice left out), OK when none."""
        s = Severity.worst(f.severity for f in self.findings
                           if f.pool == pool and not f.kind.startswith("advice-"))
        return Severity.OK if s is N else s


def capacity_finding(entry: PoolEntry, t: Thresholds) -> list[Finding]:
    u = entry.usage
    if u is None or u.capacity is None:
        return []
    level = capacity_level(u.capacity, t.capacity_warn, t.capacity_crit)
    if level is Severity.OK:
        return []
    return [Finding("pool-capacity", level, entry.name, f"{entry.name} is {u.capacity} % full",
                    pool=entry.name, factor=float(u.capacity))]


def stalled_findings(pool: str, estimates: Sequence[ScanEstimate]) -> list[Finding]:
    """A resilver or rebuild whose pace, over at least STALL_SPAN_S of samples, is nil."""
    return [Finding("resilver-stalled", W, pool,
                    f"{pool}: the {e.kind or 'resilver'} has not progressed for "
                    f"{e.span_s:.0f} s (still {e.percent_done:.1f} %)", pool=pool)
            for e in estimates
            if e.function == "resilver" and e.stalled and e.span_s >= STALL_SPAN_S]


def pool_extra(entry: PoolEntry, slow: Iterable[Finding],
               estimates: Mapping[str, Sequence[ScanEstimate]], t: Thresholds
               ) -> list[Finding]:
    """What the scale judges of a pool beyond its `zpool status` tree (health.pools): its
    capacity, a stalled resilver, its slow disks."""
    return [*capacity_finding(entry, t), *stalled_findings(entry.name,
                                                           estimates.get(entry.name, ())),
            *(f for f in slow if f.pool == entry.name)]


def tree_level(pool: Pool) -> Severity:
    """A pool on the scale from its `zpool status` tree alone (state, redundancy, device and
    data errors): the Timeline summary's word."""
    from zconsole.services.health.pools import judge_pool

    s = Severity.worst(level_of(f) for f in judge_pool(pool))
    return Severity.OK if s is N else s


def pool_level(entry: PoolEntry, *, slow: Iterable[Finding] = (),
               estimates: Mapping[str, Sequence[ScanEstimate]] | None = None,
               thresholds: Thresholds = DEFAULT_THRESHOLDS, mutes: Sequence[Mute] = (),
               smart: Iterable[Finding] = ()) -> Severity:
    """One pool on the scale (what `judge_host(...).pool_level(name)` says of it, from the
    pool alone and the SMART of its disks, the host's mutes kept apart as there): the Pools
    screen's to-do line. UNKNOWN when its status was not read."""
    from zconsole.services.health.pools import judge_pool

    if entry.status is None:
        return U
    found = [*judge_pool(entry.status), *pool_extra(entry, slow, estimates or {}, thresholds),
             *(f for f in smart if f.pool == entry.name)]
    s = Severity.worst(level_of(f) for f in found if muted_by(f, mutes) is None)
    return Severity.OK if s is N else s


def judge_host(reading: HostReading, *, slow: Iterable[Finding] = (),
               estimates: Mapping[str, Sequence[ScanEstimate]] | None = None,
               thresholds: Thresholds = DEFAULT_THRESHOLDS, advice: Iterable[Advice] = (),
               advice_counts: bool = False, mutes: Sequence[Mute] = (),
               now: float | None = None, max_age: float | None = None,
               smart: Iterable[Finding] = ()) -> HostVerdict:
    """One reading (and what took more than one: the session's slow disks and scan pace)
    on the scale. `smart`: the session's SMART findings (services/smart_follow.py, read at
    their own cadence), every disk's, in a pool or not. `advice` joins at INFO (at its
    level, at most WARNING, with `advice_counts`); `mutes` keep muted slow disks and advice
    apart."""
    from zconsole.services.health.pools import judge_pools

    found: list[Finding] = judge_pools(reading, now=now, max_age=max_age)
    slow = tuple(slow)
    for entry in reading.pools if reading.pool_status.ok else ():
        found.extend(pool_extra(entry, slow, estimates or {}, thresholds))
    found.extend(smart)
    found.extend(a.as_finding() for a in advice if a.kind != "advice-capacity")
    said: list[Finding] = []
    muted: list[tuple[Finding, Mute]] = []
    for f in found:
        f = dataclasses.replace(f, severity=level_of(f, advice_counts=advice_counts))
        m = muted_by(f, mutes)
        if m is not None:
            muted.append((f, m))
        else:
            said.append(f)
    said.sort(key=lambda f: (-f.severity.rank, _ORDER.get(
        "advice-*" if f.kind.startswith("advice-") else f.kind, len(_ORDER))))
    level = Severity.worst(f.severity for f in said)
    return HostVerdict(Severity.OK if level is N else level, tuple(said), tuple(muted))
