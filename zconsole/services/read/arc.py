"""The ARC in figures and plain sentences: size against its target, hit ratio, demand vs
prefetch, MRU/MFU, L2ARC and memory throttling, for OpenZFS 2.1 and 2.2+ field sets.

Pure: no I/O, no clock. Inputs are the snapshot's arcstats (`HostReading.arc`, a Part with
its own age), the sampler's ARC deltas (`Sampler.arc_history`, one per refresh, for the
headline hit ratio and its sparkline), and an `ArcWatch` that keeps the last few arcstats
readings itself: the sampler's `ArcDelta` carries hits/misses/iohits only, so the demand,
prefetch, MRU/MFU, ghost, L2ARC and throttle deltas are computed here from two consecutive
readings. Every rate is a difference of two readings; lifetime counters are only ever shown
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

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from zconsole.model.arc import ArcStats
from zconsole.model.pool import Pool
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.read.sampling import ArcDelta

FAMILY_21 = "2.1"
FAMILY_22 = "2.2+"
ONLY_21 = "2.1 only"
ONLY_22 = "2.2+ only"

GiB = 1 << 30
MiB = 1 << 20

# Target within 5 % of c_min: the kernel has pushed the ARC down as far as it goes.
AT_MINIMUM_SLACK = 1.05


# ----------------------------------------------------------------------------- readings


@dataclass(frozen=True)
class ArcReading:
    """One arcstats reading and the host time it was taken."""

    taken_at: float
    stats: ArcStats


class ArcWatch:
    """The last few successful arcstats readings, keyed on the time they were taken.

    Feed it every snapshot's `arc` part (`observe`); a part seen twice (same `taken_at`) or a
    failed one adds nothing, so the latest good reading survives a failed refresh.
    """

    def __init__(self, history: int = 8) -> None:
        if history < 2:
            raise ValueError("an interval needs at least two readings")
        self._readings: deque[ArcReading] = deque(maxlen=history)

    def observe(self, part: Part[ArcStats] | None) -> None:
        if part is None or part.value is None or not part.ok:
            return
        if self._readings and part.taken_at <= self._readings[-1].taken_at:
            return
        self._readings.append(ArcReading(part.taken_at, part.value))

    @property
    def latest(self) -> ArcReading | None:
        return self._readings[-1] if self._readings else None

    @property
    def previous(self) -> ArcReading | None:
        return self._readings[-2] if len(self._readings) >= 2 else None

    def report(self, part: Part[ArcStats] | None, history: Sequence[ArcDelta], *,
               now: float, refresh_interval: float, pools: Sequence[Pool] = (),
               zfs_version: tuple[int, int, int] | None = None) -> ArcReport:
        """Observe `part`, then build the report (see `build_report`)."""
        self.observe(part)
        return build_report(part=part, latest=self.latest, previous=self.previous,
                            history=history, now=now, refresh_interval=refresh_interval,
                            pools=pools, zfs_version=zfs_version)


# ----------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class ArcRow:
    """One line of the figures table: label (with its unit), value, version note."""

    label: str
    value: str
    only: str = ""  # "2.1 only" / "2.2+ only" for fields one field set lacks


@dataclass(frozen=True)
class ArcArea:
    """One panel: a title, a state word with its level (ok/warn/bad/off), one sentence."""

    key: str
    title: str
    state: str
    level: str
    sentence: str


@dataclass(frozen=True)
class Efficiency:
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


@dataclass(frozen=True)
class ArcReport:
    """Everything the ARC screen shows. Raw figures for tests, sentences and rows for the eye.

    `readable` is False when there is no arcstats reading at all (then only `error` and the
    `unreadable` sentence matter). `stale` is True when the latest read failed and the
    figures are from an older reading (`data_age` seconds old).
    """

    readable: bool
    family: str | None = None  # "2.1", "2.2+", or None when the fields do not tell
    error: str | None = None
    error_age: float | None = None
    stale: bool = False
    data_age: float | None = None
    notice: str | None = None  # the stale-data sentence, shown above everything
    # size
    size: int | None = None
    target: int | None = None
    c_min: int | None = None
    c_max: int | None = None
    size_of_target: float | None = None  # size / c
    size_of_max: float | None = None  # size / c_max
    target_of_max: float | None = None  # c / c_max
    # headline hit ratio (sampler, latest interval)
    hit_interval_s: float | None = None
    reads: int | None = None
    hit_ratio: float | None = None
    iohit_ratio: float | None = None
    hit_series: tuple[float | None, ...] = ()  # one per refresh, oldest first; None: no reads
    # detail interval (two consecutive readings of the snapshot)
    detail_interval_s: float | None = None
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
    mru_size: int | None = None
    mfu_size: int | None = None
    # L2ARC
    l2_present: bool = False
    l2_size: int | None = None
    l2_asize: int | None = None
    l2_hits: int | None = None
    l2_misses: int | None = None
    l2_hit_ratio: float | None = None
    # throttle
    throttle_count: int | None = None  # lifetime, since the module loaded
    throttle_delta: int | None = None  # growth over the detail interval
    throttled: bool | None = None  # grew in the latest interval; None: not measured yet
    throttled_intervals: int = 0  # intervals of the sampler history where it grew
    # presentation
    areas: tuple[ArcArea, ...] = ()
    rows: tuple[ArcRow, ...] = ()

    def area(self, key: str) -> ArcArea:
        for a in self.areas:
            if a.key == key:
                return a
        raise KeyError(key)


def _ratio(a: int | None, b: int | None) -> float | None:
    if a is None or not b:
        return None
    return a / b


def _d(prev: ArcStats, cur: ArcStats, name: str) -> int | None:
    a, b = prev.get(name), cur.get(name)
    if a is None or b is None or b < a:
        return None
    return b - a


def _efficiency(prev: ArcStats, cur: ArcStats, cls: str) -> Efficiency | None:
    hits = _d(prev, cur, f"{cls}_hits")
    misses = _d(prev, cur, f"{cls}_misses")
    if hits is None or misses is None:
        return None
    iohits = _d(prev, cur, f"{cls}_iohits") if cur.has_iohits and prev.has_iohits else None
    return Efficiency(cls.replace("_", " "), hits, misses, iohits)


def _waiting(refresh_interval: float) -> str:
    return f"after the second refresh (in about {fmt.duration(refresh_interval)})"


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


def build_report(*, part: Part[ArcStats] | None, latest: ArcReading | None,
                 previous: ArcReading | None, history: Sequence[ArcDelta], now: float,
                 refresh_interval: float, pools: Sequence[Pool] = (),
                 zfs_version: tuple[int, int, int] | None = None) -> ArcReport:
    """The ARC report from the snapshot's arcstats part and the readings/deltas known so far.

    `latest`/`previous`: the last two good readings (ArcWatch). `history`: the sampler's
    deltas, oldest first; its last one is the headline hit ratio. `refresh_interval` only
    words the "appears after the second refresh (in about N s)" sentence.
    """
    error = part.error if part is not None and not part.ok else None
    error_age = part.age(now) if part is not None and not part.ok else None
    if latest is None:
        if part is None:
            why = "ARC: not read yet (waiting for the first refresh)."
        else:
            why = (f"ARC could not be read: {error} (tried {fmt.duration(error_age or 0)} "
                   "ago). No ARC figures are shown rather than a guess.")
        area = ArcArea("unreadable", "ARC", "UNREADABLE" if part is not None else "WAITING",
                       "bad" if part is not None else "off", why)
        return ArcReport(readable=False, error=error, error_age=error_age, areas=(area,))

    cur = latest.stats
    stale = part is None or not part.ok or part.taken_at > latest.taken_at
    family = arc_family(cur, zfs_version)
    v22 = family == FAMILY_22

    # -- size --------------------------------------------------------------------------
    size, target, c_min, c_max = cur.size, cur.target, cur.c_min, cur.c_max
    size_of_target = _ratio(size, target)
    size_of_max = _ratio(size, c_max)
    target_of_max = _ratio(target, c_max)
    if size is not None and target is not None:
        size_sentence = f"ARC holds {fmt.size(size)} of a {fmt.size(target)} target"
        if c_max is not None:
            size_sentence += f" (at most {fmt.size(c_max)}"
            size_sentence += f", at least {fmt.size(c_min)})" if c_min is not None else ")"
        size_sentence += "."
    else:
        size_sentence = "arcstats has no size or target (c) field."
    at_min = (target is not None and c_min is not None and c_max is not None
              and c_min < c_max and target <= c_min * AT_MINIMUM_SLACK)
    if at_min:
        size_sentence += (" The target has fallen to its minimum (c_min): the kernel is "
                          "short of memory.")
    size_area = ArcArea("size", "Size", "AT MINIMUM" if at_min else "OK",
                        "warn" if at_min else "ok", size_sentence)

    # -- headline hit ratio (sampler) ----------------------------------------------------
    hit_series = tuple(d.hit_ratio for d in history)
    last = history[-1] if history else None
    hit_ratio = iohit_ratio = None
    reads: int | None = None
    hit_interval = None
    if last is None:
        hit_sentence = f"Hit ratio appears {_waiting(refresh_interval)}."
    else:
        hit_interval = last.interval_s
        reads = last.hits + last.misses + (last.iohits or 0)
        span = fmt.duration(last.interval_s)
        hit_ratio = last.hit_ratio
        if hit_ratio is None or reads == 0:
            hit_ratio = None
            hit_sentence = f"No reads in the last {span}."
        else:
            if last.iohits is not None:
                iohit_ratio = last.iohits / reads
            hit_sentence = (f"{fmt.pct(hit_ratio)} of reads hit in the last {span} "
                            f"({fmt.rate(reads, last.interval_s).replace('/s', ' reads/s')}")
            if iohit_ratio is not None:
                hit_sentence += f"; {fmt.pct(iohit_ratio)} joined a read already in flight"
            hit_sentence += ")."
    measured = [r for r in hit_series if r is not None]
    if len(measured) >= 2:
        hit_sentence += (f" Last {len(hit_series)} refreshes: {fmt.pct(min(measured))} to "
                         f"{fmt.pct(max(measured))}.")
    hit_title = f"Hit ratio {fmt.pct(hit_ratio)}" if hit_ratio is not None else "Hit ratio"
    hit_area = ArcArea("hits", hit_title, "", "off", hit_sentence)

    # -- detail interval (two readings) --------------------------------------------------
    prev = previous.stats if previous is not None else None
    detail_interval = latest.taken_at - previous.taken_at if previous is not None else None
    counters_reset = (prev is not None and (cur.get("hits") or 0) < (prev.get("hits") or 0))
    dd = dm = pd = pm = None
    demand_share = mru_share = None
    mru_hits = mfu_hits = ghost = None
    l2_hits = l2_misses = None
    throttle_delta = None
    if prev is not None and not counters_reset:
        dd = _efficiency(prev, cur, "demand_data")
        dm = _efficiency(prev, cur, "demand_metadata")
        pd = _efficiency(prev, cur, "prefetch_data")
        pm = _efficiency(prev, cur, "prefetch_metadata")
        demand = sum(e.reads for e in (dd, dm) if e is not None)
        prefetch = sum(e.reads for e in (pd, pm) if e is not None)
        demand_share = _ratio(demand, demand + prefetch)
        mru_hits = _d(prev, cur, "mru_hits")
        mfu_hits = _d(prev, cur, "mfu_hits")
        if mru_hits is not None and mfu_hits is not None:
            mru_share = _ratio(mru_hits, mru_hits + mfu_hits)
        g1, g2 = _d(prev, cur, "mru_ghost_hits"), _d(prev, cur, "mfu_ghost_hits")
        ghost = g1 + g2 if g1 is not None and g2 is not None else None
        l2_hits, l2_misses = _d(prev, cur, "l2_hits"), _d(prev, cur, "l2_misses")
        throttle_delta = _d(prev, cur, "memory_throttle_count")

    if prev is None:
        detail_wait = _waiting(refresh_interval)
    elif counters_reset:
        detail_wait = ("after the next refresh: the ARC counters restarted (zfs module "
                       "reloaded)")
    else:
        detail_wait = ""
    span_d = fmt.duration(detail_interval) if detail_interval is not None else ""

    # demand vs prefetch
    classes = (dd, dm, pd, pm)
    if detail_wait:
        demand_sentence = f"Demand and prefetch efficiency appear {detail_wait}."
    elif all(e is None for e in classes):
        demand_sentence = "arcstats has no demand_* or prefetch_* counters."
    elif demand_share is None:
        demand_sentence = f"No demand or prefetch reads in the last {span_d}."
    else:
        parts = [f"In the last {span_d}, {fmt.pct(demand_share)} of reads were demand reads "
                 f"(asked for by programs), {fmt.pct(1 - demand_share)} prefetch"]
        hit_parts = []
        for eff, label in ((dd, "demand data"), (dm, "demand metadata"),
                           (pd, "prefetch data"), (pm, "prefetch metadata")):
            if eff is not None and eff.ratio is not None:
                hit_parts.append(f"{label} {fmt.pct(eff.ratio)}")
        if hit_parts:
            parts.append("hits: " + ", ".join(hit_parts))
        demand_sentence = "; ".join(parts) + "."
    demand_area = ArcArea("demand", "Demand vs prefetch", "", "off", demand_sentence)

    # MRU / MFU
    mru_size, mfu_size = cur.get("mru_size"), cur.get("mfu_size")
    held = (f"MRU holds {fmt.size(mru_size)}, MFU {fmt.size(mfu_size)}"
            if mru_size is not None and mfu_size is not None else "")
    if detail_wait:
        lists_sentence = ((held + ". " if held else "")
                          + f"MRU/MFU hit shares appear {detail_wait}.")
    else:
        if mru_hits is None or mfu_hits is None:
            lists_sentence = "arcstats has no mru_hits/mfu_hits counters"
        elif mru_share is not None:
            lists_sentence = (f"In the last {span_d}, {fmt.pct(mru_share)} of hits came from "
                              f"MRU (recently used), {fmt.pct(1 - mru_share)} from MFU "
                              "(frequently used)")
        else:
            lists_sentence = f"No MRU or MFU hits in the last {span_d}"
        if held:
            lists_sentence += f"; {held}"
        lists_sentence += "."
        if ghost:
            lists_sentence += (f" {ghost:,} ghost hits ({fmt.rate(ghost, detail_interval or 0)}"
                               "): recently evicted blocks that a larger ARC would have "
                               "served.")
        elif ghost == 0:
            lists_sentence += " No ghost hits (no recently evicted block was read again)."
    lists_area = ArcArea("lists", "MRU / MFU", "", "off", lists_sentence)

    # L2ARC
    l2_size, l2_asize = cur.get("l2_size"), cur.get("l2_asize")
    cache_devs = sum(len(p.cache) for p in pools)
    l2_present = bool(l2_size or l2_asize or cache_devs)
    l2_ratio = None
    if l2_hits is not None and l2_misses is not None:
        l2_ratio = _ratio(l2_hits, l2_hits + l2_misses)
    if not l2_present:
        l2_sentence = "No L2ARC: no cache device, and arcstats shows nothing stored in one."
        l2_state, l2_level = "NONE", "off"
    else:
        l2_state, l2_level = "PRESENT", "ok"
        if l2_size:
            l2_sentence = f"L2ARC holds {fmt.size(l2_size)} ({fmt.size(l2_asize)} on disk)"
        else:
            l2_sentence = "L2ARC cache device present but still empty"
        if detail_wait:
            l2_sentence += f"; its hit ratio appears {detail_wait}."
        elif l2_ratio is None:
            l2_sentence += f"; no L2ARC lookups in the last {span_d}."
        else:
            assert l2_hits is not None and l2_misses is not None
            lookups = fmt.rate(l2_hits + l2_misses, detail_interval or 0)
            l2_sentence += (f"; {fmt.pct(l2_ratio)} of its lookups hit in the last {span_d} "
                            f"({lookups.replace('/s', ' lookups/s')}).")
    l2_area = ArcArea("l2arc", "L2ARC", l2_state, l2_level, l2_sentence)

    # throttle
    count = cur.get("memory_throttle_count")
    throttled_intervals = sum(1 for d in history if d.throttled)
    throttled: bool | None = None
    span_t = ""
    if throttle_delta is not None:
        throttled, span_t = throttle_delta > 0, span_d
    elif last is not None and prev is None:  # the screen just opened: the sampler's interval
        throttled, span_t = last.throttled, fmt.duration(last.interval_s)
    lifetime = (f"memory_throttle_count is {count:,} since the zfs module loaded"
                if count is not None else "")
    if count is None:
        throttle_sentence = "arcstats has no memory_throttle_count: throttling cannot be told."
        t_state, t_level = "UNKNOWN", "off"
    elif throttled:
        times = f"{throttle_delta:,} times " if throttle_delta else ""
        throttle_sentence = (f"THROTTLED: the ARC made writers wait for memory {times}in the "
                             f"last {span_t}; {lifetime}.")
        t_state, t_level = "THROTTLED", "warn"
    elif throttled is None:
        throttle_sentence = (f"Whether the ARC is throttling now shows "
                             f"{detail_wait or _waiting(refresh_interval)}; {lifetime}.")
        t_state, t_level = "WAITING", "off"
    else:
        throttle_sentence = f"Not throttled in the last {span_t}; {lifetime}."
        t_state, t_level = "NOT THROTTLED", "ok"
    if throttled_intervals and not throttled:
        throttle_sentence += (f" It grew in {throttled_intervals} of the last "
                              f"{len(history)} refreshes.")
    throttle_area = ArcArea("throttle", "Memory throttle", t_state, t_level, throttle_sentence)

    data_age = max(0.0, now - latest.taken_at)
    notice = None
    if stale:
        tried = f" (tried {fmt.duration(error_age)} ago)" if error_age is not None else ""
        notice = (f"ARC could not be read: {error or 'no reading in this refresh'}{tried}. "
                  f"The figures below are from the reading of {fmt.duration(data_age)} ago.")
    areas = (size_area, hit_area, demand_area, lists_area, l2_area, throttle_area)
    rows = _rows(cur, v22, last, dd, dm, pd, pm, detail_interval, l2_ratio, l2_present)
    return ArcReport(
        readable=True, family=family, error=error, error_age=error_age, stale=stale,
        data_age=data_age, notice=notice,
        size=size, target=target, c_min=c_min, c_max=c_max, size_of_target=size_of_target,
        size_of_max=size_of_max, target_of_max=target_of_max,
        hit_interval_s=hit_interval, reads=reads, hit_ratio=hit_ratio, iohit_ratio=iohit_ratio,
        hit_series=hit_series, detail_interval_s=detail_interval,
        counters_reset=counters_reset, demand_data=dd, demand_metadata=dm, prefetch_data=pd,
        prefetch_metadata=pm, demand_share=demand_share, mru_hits=mru_hits,
        mfu_hits=mfu_hits, mru_hit_share=mru_share, ghost_hits=ghost, mru_size=mru_size,
        mfu_size=mfu_size, l2_present=l2_present, l2_size=l2_size, l2_asize=l2_asize,
        l2_hits=l2_hits, l2_misses=l2_misses, l2_hit_ratio=l2_ratio, throttle_count=count,
        throttle_delta=throttle_delta, throttled=throttled,
        throttled_intervals=throttled_intervals, areas=areas, rows=rows)


def _rows(cur: ArcStats, v22: bool, last: ArcDelta | None, dd: Efficiency | None,
          dm: Efficiency | None, pd: Efficiency | None, pm: Efficiency | None,
          detail_interval: float | None, l2_ratio: float | None,
          l2_present: bool) -> tuple[ArcRow, ...]:
    rows: list[ArcRow] = []

    def b(label: str, name: str, only: str = "") -> None:
        v = cur.get(name)
        if v is not None:
            rows.append(ArcRow(label, fmt.size(v), only))

    b("size", "size")
    b("target (c)", "c")
    b("c_max", "c_max")
    b("c_min", "c_min")
    if not v22:
        b("MRU target (p)", "p", ONLY_21)
    b("data", "data_size")
    b("metadata", "metadata_size")
    b("headers", "hdr_size")
    b("MRU size", "mru_size")
    b("MFU size", "mfu_size")
    b("arc_meta_used", "arc_meta_used")
    if not v22:
        b("arc_meta_limit", "arc_meta_limit", ONLY_21)
    else:
        b("uncached", "uncached_size", ONLY_22)
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
