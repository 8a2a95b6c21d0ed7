"""The ARC in figures: the last arcstats readings, what changed between two of them, and the
figures table, for OpenZFS 2.1 and 2.2+ field sets. (The sentences and the judgement are in
`services.health.arc`.)

Pure: no I/O, no clock. Inputs are the reading's arcstats (`HostReading.arc`, a Part with
its own age) and the sampler's ARC deltas (`Sampler.arc_history`, one per refresh, for the
headline hit ratio). `ArcWatch` keeps the last few arcstats readings itself: the sampler's
`ArcDelta` carries hits/misses/iohits only, so the demand, prefetch, MRU/MFU, ghost, L2ARC
and throttle deltas are computed here from two consecutive readings (`interval`). Every rate is a difference of two readings; lifetime counters are only ever shown
as lifetime counters.

Version families: "2.1" is the field set before OpenZFS 2.2 (`p`, `arc_meta_limit`,
`arc_meta_max`, `arc_meta_min`; no `iohits`), "2.2+" the later one (`iohits` and
`*_iohits`, `mru_data`/`mru_metadata`, `uncached_*`, `meta`, `pd`, `pm`). The hit ratio is
hits/(hits+misses) on 2.1 and hits/(hits+iohits+misses) on 2.2+
(`parsers.arcstats.arc_hit_ratio`). The per-class efficiencies (demand data, demand metadata,
prefetch data, prefetch metadata) are hits/(hits+misses) of that class on both, as
`parsers.arcstats.demand_data_efficiency` computes it.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import NamedTuple

from zconsole.model.arc import ArcStats
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.read.sampling import ArcDelta

FAMILY_21 = "2.1"
FAMILY_22 = "2.2+"
ONLY_21 = "2.1 only"
ONLY_22 = "2.2+ only"

GiB = 1 << 30
MiB = 1 << 20


# ----------------------------------------------------------------------------- readings


class ArcReading(NamedTuple):
    """One arcstats reading, the host time it was taken and the console's monotonic time it
    arrived (`Part.seen`; None when no console stamped it): its age counts from `seen`."""

    taken_at: float
    stats: ArcStats
    seen: float | None = None

    def newer(self, part: Part[ArcStats]) -> bool:
        """Whether `part` was read after this reading: on the console's clock when both were
        stamped (a host clock that stopped or stepped back is no reason to keep the old)."""
        if self.seen is not None and part.seen is not None:
            return part.seen > self.seen
        return part.taken_at > self.taken_at


class ArcWatch:
    """The last few successful arcstats readings, keyed on the time they were taken.

    Feed it every snapshot's `arc` part (`observe`); a part seen twice (same `taken_at`) or a
    failed one adds nothing, so the latest good reading survives a failed refresh.

    Two threads observe it, the refresh worker (`HostSession`) and the UI thread (the ARC
    screen's `health.arc.report`), and the screen reads the last two readings: every change
    and every read holds `_lock`, and `last_two()` gives both from one state (read one by
    one, a refresh landing in between paired a reading with itself, issue 27).
    """

    def __init__(self, history: int = 8) -> None:
        if history < 2:
            raise ValueError("an interval needs at least two readings")
        self._readings: deque[ArcReading] = deque(maxlen=history)
        self._lock = threading.Lock()

    def observe(self, part: Part[ArcStats] | None) -> None:
        if part is None or part.value is None or not part.ok:
            return
        with self._lock:
            if self._readings and not self._readings[-1].newer(part):
                return
            self._readings.append(ArcReading(part.taken_at, part.value, part.seen))

    def last_two(self) -> tuple[ArcReading | None, ArcReading | None]:
        """(latest, previous), both from the same moment."""
        with self._lock:
            n = len(self._readings)
            return (self._readings[-1] if n else None,
                    self._readings[-2] if n >= 2 else None)

    @property
    def latest(self) -> ArcReading | None:
        return self.last_two()[0]

    @property
    def previous(self) -> ArcReading | None:
        return self.last_two()[1]


# ----------------------------------------------------------------------------- figures


class ArcRow(NamedTuple):
    """One line of the figures table: label (with its unit), value, version note."""

    label: str
    value: str
    only: str = ""  # "2.1 only" / "2.2+ only" for fields one field set lacks


class Efficiency(NamedTuple):
    """hits/(hits+misses) of one read class over the interval; None without such reads."""

    name: str
    hits: int
    misses: int
    iohits: int | None  # 2.2+ only

    @property
    def reads(self) -> int:
        return self.hits + self.misses + (self.iohits or 0)

    @property
    def ratio(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None


def ratio(a: int | None, b: int | None) -> float | None:
    if a is None or not b:
        return None
    return a / b


def delta(prev: ArcStats, cur: ArcStats, name: str) -> int | None:
    a, b = prev.get(name), cur.get(name)
    if a is None or b is None or b < a:
        return None
    return b - a


def efficiency(prev: ArcStats, cur: ArcStats, cls: str) -> Efficiency | None:
    hits = delta(prev, cur, f"{cls}_hits")
    misses = delta(prev, cur, f"{cls}_misses")
    if hits is None or misses is None:
        return None
    iohits = delta(prev, cur, f"{cls}_iohits") if cur.has_iohits and prev.has_iohits else None
    return Efficiency(cls.replace("_", " "), hits, misses, iohits)


def arc_family(stats: ArcStats, zfs_version: tuple[int, int, int] | None = None) -> str | None:
    """"2.2+" or "2.1" from the fields the running module prints (`iohits` is 2.2+, `p` and
    `arc_meta_limit` are 2.1 and older); only when neither shows (an excerpt), from the
    version zconsole detected. None when nothing tells."""
    if stats.has_iohits:
        return FAMILY_22
    if stats.get("p") is not None or stats.get("arc_meta_limit") is not None:
        return FAMILY_21
    if zfs_version is not None:
        return FAMILY_22 if zfs_version[:2] >= (2, 2) else FAMILY_21
    return None


class ArcInterval(NamedTuple):
    """What changed between the last two good readings (`ArcWatch.previous` -> `latest`).

    Every field is None when there is no previous reading or the counters restarted
    (`counters_reset`: the zfs module was reloaded between the readings).
    """

    seconds: float | None = None
    counters_reset: bool = False
    demand_data: Efficiency | None = None
    demand_metadata: Efficiency | None = None
    prefetch_data: Efficiency | None = None
    prefetch_metadata: Efficiency | None = None
    demand_share: float | None = None  # demand reads / all classified reads
    mru_hits: int | None = None
    mfu_hits: int | None = None
    mru_hit_share: float | None = None
    ghost_hits: int | None = None
    l2_hits: int | None = None
    l2_misses: int | None = None
    throttle_delta: int | None = None

    @property
    def measured(self) -> bool:
        return self.seconds is not None and not self.counters_reset


def interval(latest: ArcReading, previous: ArcReading | None) -> ArcInterval:
    """The deltas between two readings (see ArcInterval)."""
    if previous is None:
        return ArcInterval()
    prev, cur = previous.stats, latest.stats
    seconds = latest.taken_at - previous.taken_at
    if (cur.get("hits") or 0) < (prev.get("hits") or 0):
        return ArcInterval(seconds=seconds, counters_reset=True)
    dd = efficiency(prev, cur, "demand_data")
    dm = efficiency(prev, cur, "demand_metadata")
    pd = efficiency(prev, cur, "prefetch_data")
    pm = efficiency(prev, cur, "prefetch_metadata")
    demand = sum(e.reads for e in (dd, dm) if e is not None)
    prefetch = sum(e.reads for e in (pd, pm) if e is not None)
    mru_hits = delta(prev, cur, "mru_hits")
    mfu_hits = delta(prev, cur, "mfu_hits")
    mru_share = None
    if mru_hits is not None and mfu_hits is not None:
        mru_share = ratio(mru_hits, mru_hits + mfu_hits)
    g1, g2 = delta(prev, cur, "mru_ghost_hits"), delta(prev, cur, "mfu_ghost_hits")
    return ArcInterval(
        seconds=seconds, demand_data=dd, demand_metadata=dm, prefetch_data=pd,
        prefetch_metadata=pm, demand_share=ratio(demand, demand + prefetch),
        mru_hits=mru_hits, mfu_hits=mfu_hits, mru_hit_share=mru_share,
        ghost_hits=g1 + g2 if g1 is not None and g2 is not None else None,
        l2_hits=delta(prev, cur, "l2_hits"), l2_misses=delta(prev, cur, "l2_misses"),
        throttle_delta=delta(prev, cur, "memory_throttle_count"))


# The ARC's sizes in the figures table, in order: (label, arcstats name, only in one version).
_SIZES = (
    ("size", "size", ""), ("target (c)", "c", ""), ("c_max", "c_max", ""),
    ("c_min", "c_min", ""), ("MRU target (p)", "p", ONLY_21), ("data", "data_size", ""),
    ("metadata", "metadata_size", ""), ("headers", "hdr_size", ""),
    ("MRU size", "mru_size", ""), ("MFU size", "mfu_size", ""),
    ("arc_meta_used", "arc_meta_used", ""), ("arc_meta_limit", "arc_meta_limit", ONLY_21),
    ("uncached", "uncached_size", ONLY_22),
)


def figure_rows(cur: ArcStats, v22: bool, last: ArcDelta | None, dd: Efficiency | None,
          dm: Efficiency | None, pd: Efficiency | None, pm: Efficiency | None,
          detail_interval: float | None, l2_ratio: float | None,
          l2_present: bool) -> tuple[ArcRow, ...]:
    rows: list[ArcRow] = []

    def b(label: str, name: str, only: str = "") -> None:
        v = cur.get(name)
        if v is not None:
            rows.append(ArcRow(label, fmt.size(v), only))

    other_version = ONLY_21 if v22 else ONLY_22
    for label, name, only in _SIZES:
        if only != other_version:
            b(label, name, only)
    if last is not None:
        span = last.interval_s
        rows.append(ArcRow("hits", fmt.rate(last.hits, span)))
        if last.iohits is not None:
            rows.append(ArcRow("iohits", fmt.rate(last.iohits, span), ONLY_22))
        rows.append(ArcRow("misses", fmt.rate(last.misses, span)))
    for eff, label in ((dd, "demand data hit"), (dm, "demand metadata hit"),
                       (pd, "prefetch data hit"), (pm, "prefetch metadata hit")):
        if eff is not None:
            rows.append(ArcRow(label, fmt.pct(eff.ratio) if eff.ratio is not None
                               else "no reads"))
    if l2_present:
        b("L2ARC size", "l2_size")
        b("L2ARC on disk", "l2_asize")
        if detail_interval is not None:
            rows.append(ArcRow("L2ARC hit", fmt.pct(l2_ratio)))
    c = cur.get("memory_throttle_count")
    if c is not None:
        rows.append(ArcRow("throttle count (lifetime)", f"{c:,}"))
    avail = cur.get("memory_available_bytes")
    if avail is not None:
        rows.append(ArcRow("memory available", fmt.size(avail)))
    return tuple(rows)
