"""The summary line of the Timeline screen, for a screen share during an incident:

    ✖ CRITICAL tank DEGRADED since 03:12 (47 min): sdb FAULTED after 117 write errors;
    resilver of sdm 62 %, done in about 25 min

One sentence per pool that is not healthy or has a scan running, headed by the pool's level
on the one scale (`health.severity.tree_level`, judged from its tree) when it is not OK. "Since" is when the
current bad spell of its first vdev to go bad began, by ZFS's own events (else by
zconsole's own observation, said so); the errors are `zpool status`'s counters; the
resilver's figure is zpool's and its end zconsole's estimate from its own pace (zpool's
when zconsole has none yet).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from zconsole.model.finding import Severity
from zconsole.model.pool import Pool, ScanState, Vdev
from zconsole.model.timeline import Entry, Kind, Source, Zone, as_tz, readable_epoch
from zconsole.parsers.zpool_events import vdev_short
from zconsole.services import fmt
from zconsole.services.health.severity import tree_level
from zconsole.services.read.progress import ScanEstimate
from zconsole.services.read.timeline import BAD_STATES


def clock_time(at: float, offset: Zone, *, now: float | None = None,
               seconds: bool = False) -> str:
    """`at` as the host's wall clock ("03:12" or "03:12:40", with the date before it when
    it is not the day of `now`); UTC when the zone is unknown."""
    if not readable_epoch(at):
        return "(time out of range)"
    zone = as_tz(offset)
    t = datetime.fromtimestamp(at, zone)
    text = t.strftime("%H:%M:%S" if seconds else "%H:%M")
    if now is not None and readable_epoch(now):
        today = datetime.fromtimestamp(now, zone)
        if today.date() != t.date():
            text = f"{t:%Y-%m-%d} {text}"
    return text


def vdev_words(v: Vdev) -> str:
    """A leaf as the summary names it: a missing disk, which zpool names by its guid, by
    the path it was at."""
    if v.name.isdigit() and v.note and v.note.startswith("was "):
        return vdev_short(v.note[len("was "):])
    return v.name


def _errors(v: Vdev) -> str:
    counts = [(n or 0, w) for n, w in ((v.write_errors, "write"), (v.read_errors, "read"),
                                       (v.checksum_errors, "checksum"))]
    nonzero = sorted((c for c in counts if c[0] > 0), key=lambda c: -c[0])
    if not nonzero:
        return ""
    parts = [f"{n} {w}" for n, w in nonzero]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f" after {text} errors"


def _bad_leaves(p: Pool) -> list[Vdev]:
    out: list[Vdev] = []
    for top in (*p.vdevs, *p.logs, *p.cache):
        for _, v in top.walk():
            if v.is_leaf and v.state in BAD_STATES:
                out.append(v)
    return out


def since(pool: str, names: Sequence[str], entries: Sequence[Entry]
          ) -> tuple[float, bool] | None:
    """When the current bad spell of `pool` began: the earliest start, over the vdevs in
    `names` (and the pool itself), of the run of bad-state entries after the last entry
    that saw it healthy. (time, True) when ZFS's events say so, (time, False) when only
    zconsole's observation does; None when no entry reaches back to it."""
    best: tuple[float, bool] | None = None
    for name in (*names, ""):
        start: Entry | None = None
        for e in entries:
            if e.pool != pool or e.vdev != name or e.kind is not Kind.STATE or not e.state:
                continue
            if e.state in BAD_STATES:
                if start is None:
                    start = e
            else:
                start = None
        if start is not None:
            cand = (start.at, start.source is Source.EVENTS)
            if best is None or cand[0] < best[0]:
                best = cand
    return best


def _resilver(p: Pool, estimates: Sequence[ScanEstimate]) -> str:
    scan = p.scan
    if scan is None or scan.state not in (ScanState.IN_PROGRESS, ScanState.PAUSED):
        return ""
    what = scan.function.value if scan.function is not None else "scan"
    targets = [v.name for top in p.vdevs for _, v in top.walk() if v.resilvering]
    if not targets:  # zpool marks it only once it is written to: a replacing's new disk
        targets = [v.children[-1].name for top in p.vdevs for _, v in top.walk()
                   if v.type == "replacing" and v.children]
    text = what + (f" of {', '.join(targets)}" if targets and what == "resilver" else "")
    if scan.percent_done is not None:
        text += f" {scan.percent_done:.0f} %"
    if scan.paused:
        return text + ", paused"
    eta: int | None = None
    for est in estimates:
        if est.function == what and est.eta_seconds is not None:
            eta = est.eta_seconds
            break
    if eta is None:
        eta = scan.eta_seconds
    if eta is not None:
        text += f", done in about {fmt.duration(eta)}"
    return text


def summary(pools: Sequence[Pool], entries: Sequence[Entry],
            estimates: Mapping[str, Sequence[ScanEstimate]], now: float,
            offset: Zone) -> list[str]:
    """One sentence per pool that is not ONLINE or has a scan running; ["every pool
    ONLINE"] when there is nothing to say, [] when there are no pools."""
    lines: list[str] = []
    for p in pools:
        bad = _bad_leaves(p)
        scan = _resilver(p, estimates.get(p.name, ()))
        if p.state == "ONLINE" and not bad and not scan:
            continue
        level = tree_level(p)
        head = (f"{level.symbol} {level.name} " if level is not Severity.OK else "") + \
            f"{p.name} {p.state}"
        if p.state != "ONLINE":
            got = since(p.name, [v.name for v in bad]
                        + [top.name for top in p.vdevs if top.state in BAD_STATES], entries)
            if got is None:
                head += " (since before the oldest event)"
            else:
                at, by_zfs = got
                word = "since" if by_zfs else "first seen by zconsole at"
                head += (f" {word} {clock_time(at, offset, now=now)} "
                         f"({fmt.duration(now - at)})")
        parts = [f"{vdev_words(v)} {v.state}{_errors(v)}" for v in bad]
        if scan:
            parts.append(scan)
        lines.append(head + (": " + "; ".join(parts) if parts else ""))
    if not lines and pools:
        lines.append("every pool ONLINE" if len(pools) > 1 else f"{pools[0].name} ONLINE")
    return lines
