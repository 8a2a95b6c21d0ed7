"""Slow-disk analysis: which member of a redundancy group holds the others back.

The rule (docs/screens.md quotes this paragraph):

    Within each redundancy group -- the leaf children of one mirror, raidz, draid, replacing
    or spare vdev that are ONLINE; at least two of them -- every sample interval gives each
    leaf a latency per direction (read and write separately): ZFS's own disk_wait from
    `zpool iostat -l` (the time the device itself took, excluding ZFS's queues), or, when
    ZFS figures are missing for any member of the group, the kernel's r_await / w_await from
    /proc/diskstats for every member of the group (the two sources are never mixed within a
    group). A leaf is an outlier in that sample when, in a direction where it completed at
    least 5 operations during the interval, its latency is at least 3 times the median
    latency of its peers in that direction AND at least 2 ms above that median. Only peers
    that completed at least 5 operations in that direction count towards the median; with
    no such peer there is no comparison. A leaf is reported slow when it was an outlier in
    at least 4 of the last 5 samples (so one slow interval -- a blip -- never reports, and at
    least 4 samples are needed). The reported factor is the median, over the outlier
    samples in that window, of latency / peer median (the larger direction when both are
    outliers; a peer median below 0.01 ms counts as 0.01 ms). Severity: warning, critical
    when the factor is 10 or more; a leaf already critical stays so until its factor falls
    below 8 (a factor that wanders around 10 does not flip the word and colour on every
    refresh of a shared screen).

Why this shape: a mirror write completes when its slowest member has written, and a raidz
full-stripe read or write waits for every column, so one slow member sets the pace of the
whole vdev; comparing a leaf to its own peers (same workload, same pool, same moment) rather
than to a fixed threshold works for HDDs, SSDs and NVMe alike. The median of the peers is
robust when a second member is also slow. The absolute margin keeps fast SSDs (0.1 ms vs
0.3 ms) from being reported for differences nobody can feel; the operation floor keeps idle
disks (a handful of metadata reads, each with a noisy latency) out of it. ZFS sends mirror
reads mostly to the faster member, so a slow mirror member shows mainly in writes.

Pure functions over model objects and sample history; no I/O here. Samples come from
`services.sampling` (`leaf_figures_from_iostat`, `leaf_figures_from_diskio`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, Section, Vdev
from zconsole.services import fmt
from zconsole.services.read.sampling import (
    SOURCE_DISKSTATS,
    SOURCE_ZFS,
    Figures,
    LeafKey,
    Sample,
)

KIND = "slow-disk"

GROUP_TYPES = frozenset({"mirror", "raidz", "draid", "replacing", "spare"})

class SlowDiskRule(NamedTuple):
    """When a leaf is slow: how much slower than its peers, for how long."""

    ratio: float = 3.0
    min_excess_ms: float = 2.0
    min_ops: float = 5.0
    window: int = 5
    needed: int = 4
    critical_ratio: float = 10.0
    calm_ratio: float = 8.0  # a critical leaf goes back to warning only below this factor
    median_floor_ms: float = 0.01


DEFAULT_RULE = SlowDiskRule()


class RedundancyGroup(NamedTuple):
    """The leaves of one mirror, raidz, draid, replacing or spare vdev: peers."""

    pool: str
    section: Section
    container: Vdev
    path: tuple[str, ...]  # top-level ... container
    leaves: tuple[Vdev, ...]  # ONLINE leaf children, in tree order

    def key(self, leaf: Vdev) -> LeafKey:
        return (self.pool, (*self.path, leaf.name))


class Outlier(NamedTuple):
    """Why a leaf was an outlier in one sample."""

    direction: str  # "read" or "write"
    latency_ms: float
    peer_median_ms: float
    ratio: float
    ops: float
    source: str


def redundancy_groups(pool: Pool) -> list[RedundancyGroup]:
    """Every container whose ONLINE leaf children (at least two) are peers."""
    groups: list[RedundancyGroup] = []
    for section in Section:
        if section in (Section.CACHE, Section.SPARES):
            continue  # cache devices and idle spares carry no redundancy
        for top in pool.section(section):
            for path, v in top.paths():
                if v.type not in GROUP_TYPES:
                    continue
                leaves = tuple(c for c in v.children if c.is_leaf and c.state == "ONLINE")
                if len(leaves) >= 2:
                    groups.append(RedundancyGroup(pool.name, section, v, path, leaves))
    return groups


def _group_figures(
    group: RedundancyGroup, sample: Sample
) -> tuple[dict[str, Figures], str] | None:
    """Pick one source for the whole group: ZFS when every member has it, else diskstats."""
    zfs: dict[str, Figures] = {}
    disk: dict[str, Figures] = {}
    for leaf in group.leaves:
        entry = sample.get(group.key(leaf))
        if entry is not None and entry.zfs is not None:
            zfs[leaf.name] = entry.zfs
        if entry is not None and entry.disk is not None:
            disk[leaf.name] = entry.disk
    if len(zfs) == len(group.leaves):
        return zfs, SOURCE_ZFS
    if len(disk) == len(group.leaves):
        return disk, SOURCE_DISKSTATS
    return None


def _direction(f: Figures, direction: str) -> tuple[float | None, float]:
    if direction == "read":
        return f.read_ms, f.read_ops
    return f.write_ms, f.write_ops


def sample_outliers(
    group: RedundancyGroup, sample: Sample, rule: SlowDiskRule = DEFAULT_RULE
) -> dict[str, list[Outlier]]:
    """Leaves of `group` that are outliers in this one sample, with the reason per direction."""
    picked = _group_figures(group, sample)
    if picked is None:
        return {}
    figures, source = picked
    out: dict[str, list[Outlier]] = {}
    for direction in ("read", "write"):
        busy: dict[str, float] = {}
        ops_of: dict[str, float] = {}
        for name, f in figures.items():
            lat, ops = _direction(f, direction)
            if lat is not None and ops >= rule.min_ops:
                busy[name] = lat
                ops_of[name] = ops
        medians = _peer_medians(busy)
        for name, lat in busy.items():
            median = medians.get(name)
            if median is None:
                continue
            if lat >= rule.ratio * median and lat - median >= rule.min_excess_ms:
                ratio = lat / max(median, rule.median_floor_ms)
                out.setdefault(name, []).append(
                    Outlier(direction, lat, median, ratio, ops_of[name], source))
    return out


def _peer_medians(values: dict[str, float]) -> dict[str, float]:
    """For each name, `statistics.median` of every other name's value: one sort for the
    group instead of one per member (a draid of 100 disks asked 100 sorts of 99 values per
    direction, per sample, per refresh). Equal values are interchangeable, so removing a
    member from the sorted list is removing any one copy of its value."""
    n = len(values)
    if n < 2:
        return {}
    order = sorted(values, key=values.__getitem__)
    s = [values[k] for k in order]
    m = n - 1  # the peers of each member
    out: dict[str, float] = {}
    half = m // 2
    for i, name in enumerate(order):
        # position p of the list without index i is s[p] before i, s[p + 1] from i on
        hi = s[half] if half < i else s[half + 1]
        if m % 2:
            out[name] = hi
        else:
            lo = s[half - 1] if half - 1 < i else s[half]
            out[name] = (lo + hi) / 2
    return out


def _fmt_names(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def sentence(group: RedundancyGroup, leaf: str, ratio: float) -> str:
    """The one sentence an operator reads (exact wording is tested)."""
    peers = [v.name for v in group.leaves if v.name != leaf]
    c = group.container
    factor = f"{ratio:.1f}×"
    if c.type == "mirror":
        who = f"its mirror peer {peers[0]}" if len(peers) == 1 else \
            f"its mirror peers {_fmt_names(peers)}"
        return f"{leaf} answers {factor} slower than {who}; every write to {c.name} waits for it"
    if c.type in ("raidz", "draid"):
        who = "the other disk" if len(peers) == 1 else f"the other {len(peers)} disks"
        return (f"{leaf} answers {factor} slower than {who} of {c.name}; "
                "every full-stripe read and write waits for it")
    # replacing / spare: a temporary mirror while the resilver runs
    return (f"{leaf} answers {factor} slower than {_fmt_names(peers)} in {c.name}; "
            f"the resilver and every write to {c.name} wait for it")



def find_slow_disks(
    pools: Sequence[Pool],
    samples: Sequence[Sample],
    rule: SlowDiskRule = DEFAULT_RULE,
    previous: Sequence[Finding] = (),
    smart: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Apply the module rule to the most recent `rule.window` samples (oldest first).
    `previous`: the findings of the last refresh (a leaf critical there stays critical
    while its factor is at least `rule.calm_ratio`). `smart`: a leaf's SMART failure
    counter in words ("48 pending sectors", `SmartFollow.clauses`), said at the end of its
    sentence: the slow disk is also the one whose sectors fail."""
    was_critical = {(f.pool, f.subject) for f in previous
                    if f.kind == KIND and f.severity is Severity.CRITICAL}
    window = list(samples[-rule.window:])
    findings: list[Finding] = []
    for pool in pools:
        for group in redundancy_groups(pool):
            per_sample = [sample_outliers(group, s, rule) for s in window]
            for leaf in group.leaves:
                hits = [(i, o[leaf.name]) for i, o in enumerate(per_sample) if leaf.name in o]
                if len(hits) < rule.needed:
                    continue
                from statistics import median  # only once a disk is slow: not at start-up

                factor = median([max(x.ratio for x in outs) for _, outs in hits])
                stays = (pool.name, leaf.name) in was_critical and factor >= rule.calm_ratio
                severity = (Severity.CRITICAL if factor >= rule.critical_ratio or stays
                            else Severity.WARNING)
                evidence = [
                    f"pool {pool.name}, {group.container.name}: "
                    f"{len(group.leaves)} ONLINE members "
                    f"({', '.join(v.name for v in group.leaves)})",
                    f"outlier in {len(hits)} of the last {len(window)} samples "
                    f"(rule: at least {rule.needed} of {rule.window}; latency at least "
                    f"{rule.ratio:g}× the peer median and {rule.min_excess_ms:g} ms above it, "
                    f"at least {rule.min_ops:g} operations)",
                ]
                first = len(samples) - len(window)
                for i, outs in hits:
                    for o in outs:
                        evidence.append(
                            f"sample {first + i + 1}: {o.direction} {fmt.ms(o.latency_ms, unit=True)} vs "
                            f"peer median {fmt.ms(o.peer_median_ms, unit=True)} ({o.ratio:.1f}×) "
                            f"over {o.ops:g} operations [{o.source}]")
                findings.append(Finding(
                    kind=KIND,
                    severity=severity,
                    subject=leaf.name,
                    message=sentence(group, leaf.name, factor) + (
                        f", and it has {smart[leaf.name]}" if smart and leaf.name in smart
                        else ""),
                    evidence=tuple(evidence),
                    pool=pool.name,
                    factor=round(factor, 1),
                ))
    return findings
