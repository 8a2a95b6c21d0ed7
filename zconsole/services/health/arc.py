"""Is the ARC all right? One panel per area, each a state word, a severity and one sentence:
size against its target, the headline hit ratio, demand vs prefetch, MRU/MFU, L2ARC and
memory throttling.

The figures come from `services.read.arc` (readings, interval deltas, the figures table);
this module only judges and words them. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zconsole.model.arc import ArcStats
from zconsole.model.finding import Severity
from zconsole.model.pool import Pool
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.read.arc import (
    FAMILY_22,
    ArcInterval,
    ArcReading,
    ArcRow,
    ArcWatch,
    arc_family,
    figure_rows,
    interval,
    ratio,
)
from zconsole.services.read.sampling import ArcDelta

# Target within 5 % of c_min: the kernel has pushed the ARC down as far as it goes.
AT_MINIMUM_SLACK = 1.05

_LEVEL = {Severity.OK: "ok", Severity.INFO: "off", Severity.WARNING: "warn",
          Severity.CRITICAL: "bad", Severity.UNKNOWN: "bad"}


@dataclass(frozen=True)
class ArcArea:
    """One panel: a title, a state word with its severity, one sentence."""

    key: str
    title: str
    state: str
    severity: Severity
    sentence: str

    @property
    def level(self) -> str:
        """The panel's colour class: ok / warn / bad, or off for a neutral fact."""
        return _LEVEL[self.severity]


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
    # what changed between the last two readings (demand/prefetch, MRU/MFU, ghost, L2ARC and
    # throttle deltas; `detail.seconds` is the detail interval)
    detail: ArcInterval = ArcInterval()
    mru_size: int | None = None
    mfu_size: int | None = None
    # L2ARC
    l2_present: bool = False
    l2_size: int | None = None
    l2_asize: int | None = None
    l2_hit_ratio: float | None = None
    # throttle (its growth over the detail interval: `detail.throttle_delta`)
    throttle_count: int | None = None  # lifetime, since the module loaded
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


def report(watch: ArcWatch, part: Part[ArcStats] | None, history: Sequence[ArcDelta], *,
           now: float, refresh_interval: float, pools: Sequence[Pool] = (),
           zfs_version: tuple[int, int, int] | None = None) -> ArcReport:
    """Observe `part` in `watch`, then build the report (see `build_report`)."""
    watch.observe(part)
    latest, previous = watch.last_two()
    return build_report(part=part, latest=latest, previous=previous,
                        history=history, now=now, refresh_interval=refresh_interval,
                        pools=pools, zfs_version=zfs_version)


def _waiting(refresh_interval: float) -> str:
    return f"after the second refresh (in about {fmt.duration(refresh_interval)})"


def _unreadable(part: Part[ArcStats] | None, now: float) -> ArcReport:
    if part is None:
        area = ArcArea("unreadable", "ARC", "WAITING", Severity.INFO,
                       "ARC: not read yet (waiting for the first refresh).")
        return ArcReport(readable=False, areas=(area,))
    error, error_age = part.error, part.age(now)
    why = (f"ARC could not be read: {error} (tried {fmt.duration(error_age or 0)} "
           "ago). No ARC figures are shown rather than a guess.")
    area = ArcArea("unreadable", "ARC", "UNREADABLE", Severity.UNKNOWN, why)
    return ArcReport(readable=False, error=error, error_age=error_age, areas=(area,))


def _size_area(cur: ArcStats) -> ArcArea:
    size, target, c_min, c_max = cur.size, cur.target, cur.c_min, cur.c_max
    if size is not None and target is not None:
        sentence = f"ARC holds {fmt.size(size)} of a {fmt.size(target)} target"
        if c_max is not None:
            sentence += f" (at most {fmt.size(c_max)}"
            sentence += f", at least {fmt.size(c_min)})" if c_min is not None else ")"
        sentence += "."
    else:
        sentence = "arcstats has no size or target (c) field."
    at_min = (target is not None and c_min is not None and c_max is not None
              and c_min < c_max and target <= c_min * AT_MINIMUM_SLACK)
    if not at_min:
        return ArcArea("size", "Size", "OK", Severity.OK, sentence)
    # The target also sits at c_min on a freshly booted or idle host (the ARC has not grown
    # yet): only the kernel's own signs tell memory pressure apart from that.
    no_grow, avail = cur.get("arc_no_grow"), cur.get("memory_available_bytes")
    if no_grow or (avail is not None and avail < 0):
        why = "arc_no_grow is set" if no_grow else \
            f"memory_available_bytes is {fmt.size(-avail)} below zero"  # type: ignore[operator]
        sentence += (f" The target has fallen to its minimum (c_min) and {why}: the kernel "
                     "is short of memory.")
        return ArcArea("size", "Size", "AT MINIMUM", Severity.WARNING, sentence)
    if no_grow is None and avail is None:
        sentence += (" The target is at its minimum (c_min); arcstats has no arc_no_grow or "
                     "memory_available_bytes to tell memory pressure from an ARC not yet "
                     "grown.")
        return ArcArea("size", "Size", "AT MINIMUM", Severity.INFO, sentence)
    sentence += (" The target is at its minimum (c_min) with no sign of memory pressure "
                 "(arc_no_grow is 0): the ARC grows as data is read, as after boot or on an "
                 "idle host.")
    return ArcArea("size", "Size", "NOT GROWN YET", Severity.OK, sentence)


@dataclass(frozen=True)
class _Headline:
    ratio: float | None = None
    iohit_ratio: float | None = None
    reads: int | None = None
    seconds: float | None = None


def _hit_area(history: Sequence[ArcDelta], refresh_interval: float
              ) -> tuple[ArcArea, _Headline]:
    series = tuple(d.hit_ratio for d in history)
    last = history[-1] if history else None
    head = _Headline()
    if last is None:
        sentence = f"Hit ratio appears {_waiting(refresh_interval)}."
    else:
        reads = last.hits + last.misses + (last.iohits or 0)
        span = fmt.duration(last.interval_s)
        if last.hit_ratio is None or reads == 0:
            head = _Headline(reads=reads, seconds=last.interval_s)
            sentence = f"No reads in the last {span}."
        else:
            io = last.iohits / reads if last.iohits is not None else None
            head = _Headline(last.hit_ratio, io, reads, last.interval_s)
            sentence = (f"{fmt.pct(last.hit_ratio)} of reads hit in the last {span} "
                        f"({fmt.rate(reads, last.interval_s).replace('/s', ' reads/s')}")
            if io is not None:
                sentence += f"; {fmt.pct(io)} joined a read already in flight"
            sentence += ")."
    measured = [r for r in series if r is not None]
    if len(measured) >= 2:
        sentence += (f" Last {len(series)} refreshes: {fmt.pct(min(measured))} to "
                     f"{fmt.pct(max(measured))}.")
    title = f"Hit ratio {fmt.pct(head.ratio)}" if head.ratio is not None else "Hit ratio"
    return ArcArea("hits", title, "", Severity.INFO, sentence), head


def _detail_wait(iv: ArcInterval, refresh_interval: float) -> str:
    """Why the interval figures are not there yet ("" when they are)."""
    if iv.seconds is None:
        return _waiting(refresh_interval)
    if iv.counters_reset:
        return "after the next refresh: the ARC counters restarted (zfs module reloaded)"
    return ""


def _demand_area(iv: ArcInterval, wait: str) -> ArcArea:
    span = fmt.duration(iv.seconds) if iv.seconds is not None else ""
    classes = ((iv.demand_data, "demand data"), (iv.demand_metadata, "demand metadata"),
               (iv.prefetch_data, "prefetch data"), (iv.prefetch_metadata, "prefetch metadata"))
    if wait:
        sentence = f"Demand and prefetch efficiency appear {wait}."
    elif all(e is None for e, _ in classes):
        sentence = "arcstats has no demand_* or prefetch_* counters."
    elif iv.demand_share is None:
        sentence = f"No demand or prefetch reads in the last {span}."
    else:
        parts = [f"In the last {span}, {fmt.pct(iv.demand_share)} of reads were demand reads "
                 f"(asked for by programs), {fmt.pct(1 - iv.demand_share)} prefetch"]
        hit_parts = [f"{label} {fmt.pct(e.ratio)}" for e, label in classes
                     if e is not None and e.ratio is not None]
        if hit_parts:
            parts.append("hits: " + ", ".join(hit_parts))
        sentence = "; ".join(parts) + "."
    return ArcArea("demand", "Demand vs prefetch", "", Severity.INFO, sentence)


def _lists_area(cur: ArcStats, iv: ArcInterval, wait: str) -> ArcArea:
    mru_size, mfu_size = cur.get("mru_size"), cur.get("mfu_size")
    held = (f"MRU holds {fmt.size(mru_size)}, MFU {fmt.size(mfu_size)}"
            if mru_size is not None and mfu_size is not None else "")
    span = fmt.duration(iv.seconds) if iv.seconds is not None else ""
    if wait:
        sentence = (held + ". " if held else "") + f"MRU/MFU hit shares appear {wait}."
        return ArcArea("lists", "MRU / MFU", "", Severity.INFO, sentence)
    if iv.mru_hits is None or iv.mfu_hits is None:
        sentence = "arcstats has no mru_hits/mfu_hits counters"
    elif iv.mru_hit_share is not None:
        share = iv.mru_hit_share
        sentence = (f"In the last {span}, {fmt.pct(share)} of hits came from "
                    f"MRU (recently used), {fmt.pct(1 - share)} from MFU "
                    "(frequently used)")
    else:
        sentence = f"No MRU or MFU hits in the last {span}"
    if held:
        sentence += f"; {held}"
    sentence += "."
    if iv.ghost_hits:
        sentence += (f" {iv.ghost_hits:,} ghost hits "
                     f"({fmt.rate(iv.ghost_hits, iv.seconds or 0)}): recently evicted "
                     "blocks that a larger ARC would have served.")
    elif iv.ghost_hits == 0:
        sentence += " No ghost hits (no recently evicted block was read again)."
    return ArcArea("lists", "MRU / MFU", "", Severity.INFO, sentence)


def _l2_area(cur: ArcStats, iv: ArcInterval, wait: str, present: bool,
             l2_ratio: float | None) -> ArcArea:
    if not present:
        return ArcArea("l2arc", "L2ARC", "NONE", Severity.INFO,
                       "No L2ARC: no cache device, and arcstats shows nothing stored in one.")
    l2_size, l2_asize = cur.get("l2_size"), cur.get("l2_asize")
    if l2_size:
        sentence = f"L2ARC holds {fmt.size(l2_size)} ({fmt.size(l2_asize)} on disk)"
    else:
        sentence = "L2ARC cache device present but still empty"
    span = fmt.duration(iv.seconds) if iv.seconds is not None else ""
    if wait:
        sentence += f"; its hit ratio appears {wait}."
    elif l2_ratio is None or iv.l2_hits is None or iv.l2_misses is None:
        sentence += f"; no L2ARC lookups in the last {span}."
    else:
        lookups = fmt.rate(iv.l2_hits + iv.l2_misses, iv.seconds or 0)
        sentence += (f"; {fmt.pct(l2_ratio)} of its lookups hit in the last {span} "
                     f"({lookups.replace('/s', ' lookups/s')}).")
    return ArcArea("l2arc", "L2ARC", "PRESENT", Severity.OK, sentence)


def _throttled(iv: ArcInterval, history: Sequence[ArcDelta]) -> tuple[bool | None, str]:
    """Did the throttle count grow in the latest interval, and over which span."""
    last = history[-1] if history else None
    if iv.throttle_delta is not None:
        return iv.throttle_delta > 0, fmt.duration(iv.seconds or 0)
    if last is not None and iv.seconds is None:  # one reading so far: the sampler's interval
        return last.throttled, fmt.duration(last.interval_s)
    return None, ""


def _throttle_area(cur: ArcStats, iv: ArcInterval, history: Sequence[ArcDelta], wait: str,
                   refresh_interval: float) -> ArcArea:
    count = cur.get("memory_throttle_count")
    throttled, span = _throttled(iv, history)
    lifetime = (f"memory_throttle_count is {count:,} since the zfs module loaded"
                if count is not None else "")
    if count is None:
        sentence = "arcstats has no memory_throttle_count: throttling cannot be told."
        state, severity = "UNKNOWN", Severity.INFO
    elif throttled:
        times = f"{iv.throttle_delta:,} times " if iv.throttle_delta else ""
        sentence = (f"THROTTLED: the ARC made writers wait for memory {times}in the "
                    f"last {span}; {lifetime}.")
        state, severity = "THROTTLED", Severity.WARNING
    elif throttled is None:
        sentence = (f"Whether the ARC is throttling now shows "
                    f"{wait or _waiting(refresh_interval)}; {lifetime}.")
        state, severity = "WAITING", Severity.INFO
    else:
        sentence = f"Not throttled in the last {span}; {lifetime}."
        state, severity = "NOT THROTTLED", Severity.OK
    grew = sum(1 for d in history if d.throttled)
    if grew and not throttled:
        sentence += f" It grew in {grew} of the last {len(history)} refreshes."
    return ArcArea("throttle", "Memory throttle", state, severity, sentence)


def build_report(*, part: Part[ArcStats] | None, latest: ArcReading | None,
                 previous: ArcReading | None, history: Sequence[ArcDelta], now: float,
                 refresh_interval: float, pools: Sequence[Pool] = (),
                 zfs_version: tuple[int, int, int] | None = None) -> ArcReport:
    """The ARC report from the reading's arcstats part and the readings/deltas known so far.
    `now` is the console's monotonic clock: the ages count from the parts' `seen`.

    `latest`/`previous`: the last two good readings (ArcWatch). `history`: the sampler's
    deltas, oldest first; its last one is the headline hit ratio. `refresh_interval` only
    words the "appears after the second refresh (in about N s)" sentence.
    """
    if latest is None:
        return _unreadable(part, now)
    error = part.error if part is not None and not part.ok else None
    error_age = part.age(now) if part is not None and not part.ok else None
    cur = latest.stats
    stale = part is None or not part.ok or latest.newer(part)
    family = arc_family(cur, zfs_version)
    iv = interval(latest, previous)
    wait = _detail_wait(iv, refresh_interval)
    hit_area, head = _hit_area(history, refresh_interval)
    l2_present = bool(cur.get("l2_size") or cur.get("l2_asize")
                      or sum(len(p.cache) for p in pools))
    l2_ratio = (ratio(iv.l2_hits, iv.l2_hits + iv.l2_misses)
                if iv.l2_hits is not None and iv.l2_misses is not None else None)
    throttled, _ = _throttled(iv, history)
    areas = (_size_area(cur), hit_area, _demand_area(iv, wait), _lists_area(cur, iv, wait),
             _l2_area(cur, iv, wait, l2_present, l2_ratio),
             _throttle_area(cur, iv, history, wait, refresh_interval))
    data_age = max(0.0, now - latest.seen) if latest.seen is not None else 0.0
    notice = None
    if stale:
        tried = f" (tried {fmt.duration(error_age)} ago)" if error_age is not None else ""
        notice = (f"ARC could not be read: {error or 'no reading in this refresh'}{tried}. "
                  f"The figures below are from the reading of {fmt.duration(data_age)} ago.")
    rows = figure_rows(cur, family == FAMILY_22, history[-1] if history else None,
                       iv.demand_data, iv.demand_metadata, iv.prefetch_data,
                       iv.prefetch_metadata, iv.seconds, l2_ratio, l2_present)
    return ArcReport(
        readable=True, family=family, error=error, error_age=error_age, stale=stale,
        data_age=data_age, notice=notice,
        size=cur.size, target=cur.target, c_min=cur.c_min, c_max=cur.c_max,
        size_of_target=ratio(cur.size, cur.target), size_of_max=ratio(cur.size, cur.c_max),
        target_of_max=ratio(cur.target, cur.c_max),
        hit_interval_s=head.seconds, reads=head.reads, hit_ratio=head.ratio,
        iohit_ratio=head.iohit_ratio, hit_series=tuple(d.hit_ratio for d in history),
        detail=iv, mru_size=cur.get("mru_size"), mfu_size=cur.get("mfu_size"),
        l2_present=l2_present, l2_size=cur.get("l2_size"), l2_asize=cur.get("l2_asize"),
        l2_hit_ratio=l2_ratio, throttle_count=cur.get("memory_throttle_count"),
        throttled=throttled, throttled_intervals=sum(1 for d in history if d.throttled),
        areas=areas, rows=rows)
