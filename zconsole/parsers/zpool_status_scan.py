"""The entries of a `zpool status` TEXT pool block read line by line: `scan:` (scrub,
resilver, sequential rebuild), `expand:` (raidz expansion), `remove:` (device removal) and
`dedup:` (the DDT summary of `-D`). The forms each reader takes are listed in the module doc of
`parsers.zpool_status`, which calls them for every block.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import replace

from zconsole.model.pool import (
    DedupSummary,
    ExpandInfo,
    RemovalInfo,
    ScanFunction,
    ScanInfo,
    ScanState,
)
from zconsole.parsers.errors import parser
from zconsole.parsers.units import lenient, parse_duration, parse_size

SOURCE = "zpool status"

_SIZE = r"[0-9]+(?:\.[0-9]+)?[BKMGTPEZ]?"
# Unanchored searches start with this guard: a match cannot begin inside a run of digits, so a
# long digit run is scanned once, not once per position (linear, not quadratic).
_AT_NUMBER = r"(?<![0-9.])"


def _safe_size(text: str | None) -> int | None:
    return lenient(parse_size, text)


def _safe_float(text: str) -> float | None:
    return lenient(float, text)


# ---------------------------------------------------------------- durations and scan lines

_HM = re.compile(r"^([0-9]+)h([0-9]+)m$")


def parse_eta(text: str) -> int | None:
    """`01:16:21`, `2 days 03:04:05`, `0 days 01:24:38`, old `60h43m` -> seconds; else None."""
    t = text.strip()
    m = _HM.match(t)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60
    if not re.match(r"^(?:[0-9]+\s+days?\s+)?[0-9]+:[0-9]{2}:[0-9]{2}$", t):
        return None
    try:
        return parse_duration(t)
    except ValueError:
        return None


_FINISHED = re.compile(
    r"^(?P<what>scrub repaired|resilvered|error scrub repaired)\s+(?:\((?P<vdev>[^)]*)\)\s+)?"
    r"(?P<proc>" + _SIZE + r")\s+in\s+(?P<dur>.+?)\s+with\s+(?P<err>[0-9]+)\s+errors?")
_CANCELED = re.compile(r"^(?P<what>error scrub|scrub|resilver)\s+(?:\((?P<vdev>[^)]*)\)\s+)?"
                       r"canceled")
_RUNNING = re.compile(r"^(?P<what>error scrub|scrub|resilver)\s+(?:\((?P<vdev>[^)]*)\)\s+)?"
                      r"in progress")
_PAUSED = re.compile(r"^(?P<what>error scrub|scrub)\s+paused")
_SOLARIS_DONE = re.compile(r"^(?P<what>scrub|resilver)\s+completed")
# 2.2+: `X / T scanned at R/s, Y / T2 issued at R/s` (rates absent when paused or 0)
_PROG22 = re.compile(_AT_NUMBER + r"(?P<ex>" + _SIZE + r")\s*/\s*(?P<tot>" + _SIZE + r")\s+scanned"
                     r"(?:\s+at\s+[^\s,]+)?,\s*(?P<iss>" + _SIZE + r")\s*/\s*(?P<toti>" + _SIZE +
                     r")\s+issued")
# 0.8-2.1 (also the sequential-rebuild line, which lacks "at" before the issue rate)
_PROG08 = re.compile(_AT_NUMBER + r"(?P<ex>" + _SIZE + r")\s+scanned(?:\s+at\s+[^\s,]+)?,\s*(?P<iss>" + _SIZE +
                     r")\s+issued(?:\s+(?:at\s+)?\S+/s)?,\s*(?P<tot>" + _SIZE + r")\s+total")
# 0.6/0.7: `X scanned out of T at R/s, 2h9m to go`
_PROG06 = re.compile(_AT_NUMBER + r"(?P<ex>" + _SIZE + r")\s+scanned out of\s+(?P<tot>" + _SIZE + r")"
                     r"(?:\s+at\s+[^\s,]+)?(?:,\s*(?P<eta>[0-9]+h[0-9]+m)\s+to go)?")
_DONE = re.compile(_AT_NUMBER + r"(?:(?P<proc>" + _SIZE + r")\s+(?:resilvered|repaired),\s*)?"
                   r"(?P<pct>[0-9]+(?:\.[0-9]+)?)%\s+done"
                   r"(?:,\s*(?P<eta>.+?)\s+to go)?")


@parser(SOURCE)
def parse_scan_text(raw: str) -> ScanInfo | None:
    """One `scan:` entry (first line plus continuation lines joined by newlines)."""
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return None
    first = lines[0]
    if first.startswith("none requested"):
        return None
    function: ScanFunction | None = None
    state: ScanState | None = None
    processed: int | None = None
    errors: int | None = None
    rebuild_vdev: str | None = None

    def func_of(word: str) -> ScanFunction:
        if word.startswith("error scrub"):
            return ScanFunction.ERRORSCRUB
        return ScanFunction.SCRUB if word.startswith("scrub") else ScanFunction.RESILVER

    m = _FINISHED.match(first)
    if m:
        function = func_of(m.group("what"))
        state = ScanState.FINISHED
        processed = _safe_size(m.group("proc"))
        errors = int(m.group("err"))
        rebuild_vdev = m.group("vdev")
    elif (mc := _CANCELED.match(first)) is not None:
        function, state, rebuild_vdev = func_of(mc.group("what")), ScanState.CANCELED, \
            mc.group("vdev")
    elif (mp := _PAUSED.match(first)) is not None:
        function, state = func_of(mp.group("what")), ScanState.PAUSED
    elif (mr := _RUNNING.match(first)) is not None:
        function, state, rebuild_vdev = func_of(mr.group("what")), ScanState.IN_PROGRESS, \
            mr.group("vdev")
    elif (ms := _SOLARIS_DONE.match(first)) is not None:
        function, state = func_of(ms.group("what")), ScanState.FINISHED

    examined = issued = total = None
    percent: float | None = None
    eta: int | None = None
    body = " ".join(lines[1:]) if len(lines) > 1 else ""
    whole = first + " " + body
    if (p := _PROG22.search(whole)) is not None:
        examined, total, issued = (_safe_size(p.group("ex")), _safe_size(p.group("tot")),
                                   _safe_size(p.group("iss")))
    elif (p8 := _PROG08.search(whole)) is not None:
        examined, issued, total = (_safe_size(p8.group("ex")), _safe_size(p8.group("iss")),
                                   _safe_size(p8.group("tot")))
    elif (p6 := _PROG06.search(whole)) is not None:
        examined, total = _safe_size(p6.group("ex")), _safe_size(p6.group("tot"))
        if p6.group("eta"):
            eta = parse_eta(p6.group("eta"))
    if (d := _DONE.search(whole)) is not None:
        percent = _safe_float(d.group("pct"))
        if d.group("proc") is not None:
            processed = _safe_size(d.group("proc"))
        if d.group("eta"):
            eta = parse_eta(d.group("eta"))
    return ScanInfo(function=function, state=state, percent_done=percent, eta_seconds=eta,
                    raw="\n".join(lines), examined_bytes=examined, issued_bytes=issued,
                    total_bytes=total, processed_bytes=processed, errors=errors,
                    rebuild_vdev=rebuild_vdev,
                    ended_near=_ended_near(whole) if state is ScanState.FINISHED else None)


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# ctime(3) as zpool prints a finished scan's end (`... with 0 errors on Sun Nov  8 05:36:41
# 2026`), C locale only
_ON_DATE = re.compile(r"\bon\s+[A-Z][a-z]{2}\s+(?P<mon>[A-Z][a-z]{2})\s+(?P<day>[0-9]{1,2})\s+"
                      r"(?P<h>[0-9]{2}):(?P<m>[0-9]{2}):(?P<s>[0-9]{2})\s+(?P<y>[0-9]{4})\b")


def _ended_near(text: str) -> int | None:
    m = _ON_DATE.search(text)
    if m is None or m.group("mon") not in _MONTHS:
        return None
    try:
        return calendar.timegm((int(m.group("y")), _MONTHS.index(m.group("mon")) + 1,
                                int(m.group("day")), int(m.group("h")), int(m.group("m")),
                                int(m.group("s")), 0, 0, 0))
    except (ValueError, OverflowError):
        return None


_FIG = r"[0-9]{1,20}(?:[.,][0-9]{1,20})?[BKMGTPEZ]?"
_PCT = r"(?P<pct>[0-9]{1,20}(?:[.,][0-9]{1,20})?)%\s+done"
_EXPANDING = re.compile(r"^expansion of\s+(?P<vdev>\S+)\s+in progress\b")
_EXPANDED = re.compile(r"^expanded\s+(?P<vdev>\S+)\s+copied\s+(?P<copied>" + _FIG + r")\s+in\s+"
                       r"(?P<dur>[0-9]{1,12}(?:\s+days?)?\s*[0-9:]{0,12})")
_EXPAND_PROGRESS = re.compile(
    r"^(?P<copied>" + _FIG + r")\s*/\s*(?P<total>" + _FIG + r")\s+copied"
    r"(?:\s+at\s+(?P<rate>" + _FIG + r")/s)?,\s*" + _PCT +
    r"(?:,\s*(?:(?P<slow>\(copy is slow)|(?P<paused>paused for resilver)|"
    r"(?P<eta>[0-9]{1,12}(?:\s+days?)?\s*[0-9]{1,12}:[0-9]{2}:[0-9]{2})\s+to go))?")
_EVACUATING = re.compile(r"^Evacuation of\s+(?P<vdev>\S+)\s+in progress\b")
_REMOVED = re.compile(r"^Removal of vdev\s+(?P<idx>[0-9]{1,12})\s+copied\s+(?P<copied>" + _FIG +
                      r")\s+in\s+(?P<h>[0-9]{1,12})h(?P<m>[0-9]{1,2})m")
_REMOVAL_CANCELED = re.compile(r"^Removal of\s+(?P<vdev>\S+)\s+canceled\b")
_REMOVE_PROGRESS = re.compile(
    r"^(?P<copied>" + _FIG + r")\s+copied out of\s+(?P<total>" + _FIG + r")"
    r"(?:\s+at\s+(?P<rate>" + _FIG + r")/s)?,\s*" + _PCT +
    r"(?:,\s*(?:(?P<slow>\(copy is slow)|(?P<h>[0-9]{1,12})h(?P<m>[0-9]{1,2})m\s+to go))?")
_MAPPING = re.compile(r"^(?P<mem>" + _FIG + r")\s+memory used for removed device mappings")


def _fig(text: str | None) -> int | None:
    return _safe_size(text.replace(",", ".")) if text is not None else None


def _pct(text: str | None) -> float | None:
    return _safe_float(text.replace(",", ".")) if text is not None else None


@parser(SOURCE)
def parse_expand_text(raw: str) -> ExpandInfo | None:
    """One `expand:` entry (first line plus continuation lines joined by newlines):
    `expansion of raidz2-0 in progress since DATE` + `563K / 588K copied at 14.8K/s,
    95.75% done, 00:00:01 to go` (or `, (copy is slow, no estimated time)`, or `, paused for
    resilver or clear`), or `expanded raidz2-0 copied 743K in 00:02:03, on DATE`."""
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return None
    first, text = lines[0], "\n".join(lines)
    if (m := _EXPANDED.match(first)) is not None:
        dur = m.group("dur").strip()
        return ExpandInfo(vdev=m.group("vdev"), state=ScanState.FINISHED,
                          copied_bytes=_fig(m.group("copied")),
                          duration_seconds=parse_eta(dur) if dur else None,
                          percent_done=100.0, raw=text)
    m = _EXPANDING.match(first)
    if m is None:
        return ExpandInfo(vdev=None, state=None, raw=text)
    info = ExpandInfo(vdev=m.group("vdev"), state=ScanState.IN_PROGRESS, raw=text)
    p = _EXPAND_PROGRESS.match(lines[1]) if len(lines) > 1 else None
    if p is None:
        return info
    paused = p.group("paused") is not None
    return replace(info, state=ScanState.PAUSED if paused else ScanState.IN_PROGRESS,
                   copied_bytes=_fig(p.group("copied")), total_bytes=_fig(p.group("total")),
                   rate_bytes_per_s=_fig(p.group("rate")), percent_done=_pct(p.group("pct")),
                   eta_seconds=parse_eta(p.group("eta")) if p.group("eta") else None,
                   slow=p.group("slow") is not None, waiting_for_resilver=paused)


@parser(SOURCE)
def parse_removal_text(raw: str) -> RemovalInfo | None:
    """One `remove:` entry: `Evacuation of /dev/vdc1 in progress since DATE` + `158M copied
    out of 698M at 39.4M/s, 22.57% done, 0h0m to go` (or `(copy is slow, no estimated
    time)`), `Removal of vdev 1 copied 698M in 0h0m, completed on DATE`, `Removal of VDEV
    canceled on DATE`; then optionally `10.1K memory used for removed device mappings`."""
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return None
    first, text = lines[0], "\n".join(lines)
    memory = None
    for line in lines[1:]:
        if (mm := _MAPPING.match(line)) is not None:
            memory = _fig(mm.group("mem"))
    if (m := _REMOVED.match(first)) is not None:
        return RemovalInfo(vdev=None, vdev_index=int(m.group("idx")), state=ScanState.FINISHED,
                           copied_bytes=_fig(m.group("copied")), percent_done=100.0,
                           duration_seconds=int(m.group("h")) * 3600 + int(m.group("m")) * 60,
                           mapping_memory_bytes=memory, raw=text)
    if (m := _REMOVAL_CANCELED.match(first)) is not None:
        return RemovalInfo(vdev=m.group("vdev"), state=ScanState.CANCELED,
                           mapping_memory_bytes=memory, raw=text)
    m = _EVACUATING.match(first)
    if m is None:
        return RemovalInfo(vdev=None, state=None, mapping_memory_bytes=memory, raw=text)
    info = RemovalInfo(vdev=m.group("vdev"), state=ScanState.IN_PROGRESS,
                       mapping_memory_bytes=memory, raw=text)
    p = _REMOVE_PROGRESS.match(lines[1]) if len(lines) > 1 else None
    if p is None:
        return info
    eta = int(p.group("h")) * 3600 + int(p.group("m")) * 60 if p.group("h") else None
    return replace(info, copied_bytes=_fig(p.group("copied")), total_bytes=_fig(p.group("total")),
                   rate_bytes_per_s=_fig(p.group("rate")), percent_done=_pct(p.group("pct")),
                   eta_seconds=eta, slow=p.group("slow") is not None)


_DDT = re.compile(r"DDT entries\s+(?P<n>[0-9]+),\s*size\s+(?P<d>\S+)\s+on disk,\s*"
                  r"(?P<m>\S+)\s+in core")


@parser(SOURCE)
def parse_ddt_line(text: str, *, sizes_are_totals: bool) -> DedupSummary | None:
    """` dedup: DDT entries 514, size 166K on disk, 72.3K in core` -> DedupSummary."""
    t = text.strip()
    if t.startswith("dedup:"):
        t = t[len("dedup:"):].strip()
    if t.startswith("no DDT entries"):
        return DedupSummary(0, 0, 0, sizes_are_totals, raw=t)
    m = _DDT.search(t)
    if not m:
        return None
    disk, core = _safe_size(m.group("d")), _safe_size(m.group("m"))
    if disk is None or core is None:
        return None
    return DedupSummary(int(m.group("n")), disk, core, sizes_are_totals, raw=t)

