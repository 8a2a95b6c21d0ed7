"""`zpool status` TEXT output -> list[Pool].

Formats handled
---------------
* OpenZFS 2.1 (main target), with or without `-p`; 2.2 / 2.3 text; ZFS on Linux 0.6 / 0.7 / 0.8.
* Any number of pools, each block starting `  pool: NAME`; blank lines between blocks are
  optional (pasted output often loses them). `no pools available`, `all pools are healthy`
  and `pool 'x' is healthy` (`-x`) give [].
* Header keys `pool`, `state`, `status`, `action`, `see`, `scan` (also Solaris-era `scrub:`),
  with continuation lines indented by TAB or spaces; `expand:` (raidz expansion, 2.3+: in
  progress, paused for resilver, `copy is slow`, over 100 %, finished) -> Pool.expand and
  `remove:` (device removal: `Evacuation of X in progress`, `Removal of vdev N copied ...
  completed`, canceled, `N memory used for removed device mappings`) -> Pool.removal.
  Unknown keys (`checkpoint:`, ZED e-mail fields...) are kept verbatim in `Pool.unparsed`.
* `config:` table: TAB + 2 spaces per depth + name, STATE, READ, WRITE, CKSUM (+ SLOW with
  `-s`), then a free-form note (`(resilvering)`, `(repairing)`, `was /dev/...`,
  `too many errors`, `cannot open`, `block size: 512B configured, 4096B native`...). Depth is
  measured relative to the `NAME` header after expanding tabs, so tables whose TAB became
  spaces (pasted output) or that carry extra uniform indentation parse the same.
  Class headers `logs`, `dedup`, `special` (2.1 prints a trailing blank), `cache`, `spares`;
  illumos/Solaris-era class rows with their own state and counters (`logs  FAULTED 0 0 0
  bad intent log`) are classes too (Pool.classes), never data vdevs.
  Rows without counters (spares `AVAIL` / `INUSE  currently in use`, or cut-off lines) get
  None. Counters like `1.02K` are expanded (units.parse_count).
* Vdev types from names: mirror-N, raidzP-N (parity P), draidP:Dd:Cc:Ss-N, replacing-N,
  spare-N (first child is the old disk), indirect-N, distributed spares draidP-N-M (`dspare`,
  a spare in use inside spare-N, AVAIL/INUSE in `spares`), files (`/path` not under /dev),
  disks (everything else). The pool's own row is `Pool.root`. `(removing)` on a top-level
  vdev sets Vdev.removing.
* `scan:` lines, several per pool (scrub + sequential rebuild), each with continuation lines:
  - 2.2+  `X / T scanned at R/s, Y / T2 issued at R/s` + `P repaired, N% done, ETA to go`
  - 0.8-2.1 `X scanned at R/s, Y issued at R/s, T total` + `P resilvered, N% done, ...`
  - 0.6/0.7 `X scanned out of T at R/s, 2h9m to go` + `P resilvered, N% done`
  - ETA as `HH:MM:SS`, `N days HH:MM:SS`, `12h2m`, `no estimated completion time`,
    `(scan is slow, no estimated time)` (-> None)
  - `scrub repaired ... in ... with N errors on ...`, `resilvered ...`, `resilvered (vdev) ...`,
    `... canceled on ...`, `scrub paused since ...`, `resilver (mirror-0) in progress since`,
    `none requested` (-> Pool.scan is None).
* `errors:` line (the permanent-error file list, `-v`, is appended on following lines).
* `-D`: ` dedup: DDT entries N, size X on disk, Y in core` -> Pool.ddt; `dedup: no DDT
  entries` -> DedupSummary(0, 0, 0). The histogram below it is skipped.

Version traps
-------------
* `size X on disk, Y in core` are per-entry averages in 2.1 and totals in 2.3; the text does
  not say which, so the caller passes `ddt_sizes_are_totals`.
* Human sizes in scan lines are rounded (`729M`); exact byte counts need JSON (2.3+).
* States stay exactly as printed (UNAVAIL, not CANT_OPEN).
* ANSI colour codes (ZFS_COLOR / `--color`) are stripped first.

Never raises anything but ParseError, and only when the input has no `pool:` block at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from zconsole.model.pool import (
    ClassRow,
    DedupSummary,
    ExpandInfo,
    Pool,
    RemovalInfo,
    ScanFunction,
    ScanInfo,
    ScanState,
    Section,
    Vdev,
)
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_count, parse_duration, parse_size

SOURCE = "zpool status"

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_POOL_LINE = re.compile(r"^\s*pool:\s*(?P<name>\S(?:.*\S)?)\s*$")
_KEY_LINE = re.compile(r"^\s{0,8}(?P<key>[a-z][a-z ]{1,11}):(?:\s(?P<val>.*))?$")
_HEADER_KEYS = {"pool", "state", "status", "action", "see", "scan", "scrub", "config",
                "errors", "dedup", "remove", "expand"}
_CLASS_HEADERS = {"logs": "logs", "log": "logs", "dedup": "dedup", "special": "special",
                  "cache": "cache", "spares": "spares"}
_STATES = ("ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "AVAIL",
           "INUSE", "SPLIT", "UNKNOWN", "SUSPENDED")
_CNT = r"[0-9]+(?:\.[0-9]+)?[KMGTPEZ]?"
_ROW = re.compile(
    r"^(?P<name>\S(?:.*?\S)?)\s+(?P<state>" + "|".join(_STATES) + r")"
    r"(?:\s+(?P<r>" + _CNT + r")(?:\s+(?P<w>" + _CNT + r")(?:\s+(?P<c>" + _CNT + r")"
    r"(?:\s+(?P<s>" + _CNT + r"))?)?)?)?(?:\s+(?P<note>\S(?:.*\S)?))?\s*$")
_DDT = re.compile(r"DDT entries\s+(?P<n>[0-9]+),\s*size\s+(?P<d>\S+)\s+on disk,\s*"
                  r"(?P<m>\S+)\s+in core")
_DDT_HISTO = re.compile(r"^\s*(bucket\b|_{4,}|refcnt\b|-{4,}|Total\b|[0-9.]+[KMGTPEZ]?\s+\S)")
_SIZE = r"[0-9]+(?:\.[0-9]+)?[BKMGTPEZ]?"
# Unanchored searches start with this guard: a match cannot begin inside a run of digits, so a
# long digit run is scanned once, not once per position (linear, not quadratic).
_AT_NUMBER = r"(?<![0-9.])"

# Vdev names -> types.
_MIRROR = re.compile(r"^mirror(?:-[0-9]+)?$")
_RAIDZ = re.compile(r"^raidz(?P<p>[1-3])?(?:-[0-9]+)?$")
_DRAID = re.compile(r"^draid(?P<p>[1-3])?(?::[0-9]+[a-z])*-[0-9]+$")
_DSPARE = re.compile(r"^draid[1-3]-[0-9]+-[0-9]+$")
_REPLACING = re.compile(r"^replacing-[0-9]+$")
_SPARE = re.compile(r"^spare-[0-9]+$")
_INDIRECT = re.compile(r"^indirect-[0-9]+$")


def _safe_size(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return parse_size(text)
    except ValueError:
        return None


def _safe_count(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return parse_count(text)
    except ValueError:
        return None


def _safe_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def vdev_type_from_name(name: str) -> tuple[str, int | None]:
    """`raidz2-0` -> ('raidz', 2), `mirror-1` -> ('mirror', None), `/tank/f1` -> ('file', None)."""
    if _MIRROR.match(name):
        return "mirror", None
    m = _RAIDZ.match(name)
    if m:
        return "raidz", int(m.group("p") or 1)
    if _DSPARE.match(name):
        return "dspare", None
    m = _DRAID.match(name)
    if m:
        return "draid", int(m.group("p") or 1)
    if _REPLACING.match(name):
        return "replacing", None
    if _SPARE.match(name):
        return "spare", None
    if _INDIRECT.match(name):
        return "indirect", None
    if name.startswith("/") and not name.startswith("/dev/"):
        return "file", None
    return "disk", None


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
                    rebuild_vdev=rebuild_vdev)


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


# ---------------------------------------------------------------- config table


@dataclass
class _Node:
    name: str
    state: str
    counters: tuple[int | None, int | None, int | None]
    slow: int | None
    note: str | None
    depth: int
    children: list[_Node] = field(default_factory=list)

    def freeze(self) -> Vdev:
        vtype, parity = vdev_type_from_name(self.name)
        path = self.name if vtype in ("file", "disk") and self.name.startswith("/") else None
        note = self.note
        return Vdev(name=self.name, type=vtype, state=self.state,
                    read_errors=self.counters[0], write_errors=self.counters[1],
                    checksum_errors=self.counters[2], note=note, path=path,
                    children=tuple(c.freeze() for c in self.children), slow_ios=self.slow,
                    parity=parity,
                    resilvering=bool(note and "(resilvering)" in note),
                    removing=bool(note and "(removing)" in note))


def _indent(line: str) -> int:
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip(" "))


def _parse_row(stripped: str, has_slow: bool, depth: int) -> _Node | None:
    m = _ROW.match(stripped)
    if not m:
        return None
    r, w, c, s = m.group("r"), m.group("w"), m.group("c"), m.group("s")
    note = m.group("note")
    slow = None
    if s is not None:
        if has_slow:
            slow = _safe_count(s)
        else:
            note = s if note is None else s + stripped[m.end("s"):]
            note = note.strip() or None
    return _Node(name=m.group("name"), state=m.group("state"),
                 counters=(_safe_count(r), _safe_count(w), _safe_count(c)), slow=slow,
                 note=note, depth=depth)


class _Table:
    """Builds the vdev forest of one pool from config rows."""

    def __init__(self, pool_name: str) -> None:
        self.pool_name = pool_name
        self.base: int | None = None
        self.has_slow = False
        self.section = "vdevs"
        self.root: _Node | None = None
        self.tops: dict[str, list[_Node]] = {k: [] for k in
                                             ("vdevs", "logs", "dedup", "special", "cache",
                                              "spares")}
        self.stack: list[_Node] = []
        self.classes: list[ClassRow] = []

    def header(self, line: str) -> None:
        self.base = _indent(line)
        self.has_slow = "SLOW" in line.split()

    def feed(self, line: str) -> bool:
        """Consume one table line; False if it is not a table row."""
        stripped = line.strip()
        if self.base is None:
            self.base = _indent(line)
        depth = max(0, (_indent(line) - self.base) // 2)
        if depth == 0 and stripped in _CLASS_HEADERS:
            self.section = _CLASS_HEADERS[stripped]
            self.stack = []
            return True
        node = _parse_row(stripped, self.has_slow, depth)
        if node is None:
            return False
        if depth == 0 and self.root is not None and node.name in _CLASS_HEADERS \
                and node.name != "spares":
            # illumos/Solaris era: `logs  FAULTED  0 0 0  bad intent log` - the class itself
            # has a state; its children follow, indented, as with the bare word.
            self.section = _CLASS_HEADERS[node.name]
            self.stack = []
            self.classes.append(ClassRow(Section(self.section), node.state, *node.counters,
                                         note=node.note))
            return True
        if self.section == "vdevs" and self.root is None and depth == 0:
            self.root = node
            self.stack = [node]
            return True
        if depth == 0:
            if self.section != "vdevs":
                depth = 1  # some pastes lose the class children's indent
            else:
                return False
        node.depth = depth
        # Climb to the parent: the nearest earlier node with a smaller depth.
        while self.stack and self.stack[-1].depth >= depth:
            self.stack.pop()
        if self.stack and not (self.section == "vdevs" and self.stack[-1] is self.root):
            self.stack[-1].children.append(node)
        elif self.section == "vdevs" and self.stack and self.stack[-1] is self.root:
            self.tops["vdevs"].append(node)
        else:
            self.tops[self.section].append(node)
        self.stack.append(node)
        return True

    def freeze(self) -> dict[str, tuple[Vdev, ...]]:
        return {k: tuple(n.freeze() for n in v) for k, v in self.tops.items()}


# ---------------------------------------------------------------- pools


def _split_blocks(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    pre: list[str] = []
    blocks: list[list[str]] = []
    for line in lines:
        if _POOL_LINE.match(line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        else:
            pre.append(line)
    return pre, blocks


def _parse_block(block: list[str], ddt_totals: bool, extra_unparsed: list[str]) -> Pool:
    m = _POOL_LINE.match(block[0])
    name = m.group("name") if m else ""
    fields: dict[str, list[str]] = {}
    scans: list[list[str]] = []
    unparsed: list[str] = list(extra_unparsed)
    errors_lines: list[str] = []
    table = _Table(name)
    ddt: DedupSummary | None = None
    mode = "header"  # header | config | errors | ddt
    current: list[str] | None = None

    for line in block[1:]:
        if not line.strip():
            current = None if mode == "header" else current
            continue
        stripped = line.strip()
        km = _KEY_LINE.match(line)
        key = km.group("key").strip() if km else None
        val = (km.group("val") or "").strip() if km else ""
        if key == "dedup" and (stripped.startswith("dedup: DDT") or "no DDT" in stripped):
            ddt = parse_ddt_line(stripped, sizes_are_totals=ddt_totals)
            if ddt is None:
                unparsed.append(line)
            mode = "ddt"
            continue
        if key in _HEADER_KEYS and key != "dedup" and (mode == "header" or key == "errors"
                                                      or key == "config"):
            assert key is not None
            if key == "config":
                mode = "config"
                current = None
            elif key == "errors":
                mode = "errors"
                errors_lines = [val]
            elif key in ("scan", "scrub"):
                current = [val]
                scans.append(current)
            else:
                current = [val]
                fields.setdefault(key, current)
            continue
        if mode == "header":
            if km is not None or current is None:
                unparsed.append(line)
                current = None
            else:
                current.append(stripped)
            continue
        if mode == "config":
            if stripped.split()[:1] == ["NAME"] and "STATE" in stripped:
                table.header(line)
                continue
            if not table.feed(line):
                unparsed.append(line)
            continue
        if mode == "errors":
            if km is not None and key not in ("errors",) and not line.startswith((" ", "\t")):
                unparsed.append(line)
            else:
                errors_lines.append(stripped)
            continue
        if mode == "ddt":
            if not _DDT_HISTO.match(line):
                unparsed.append(line)
            continue

    def joined(key: str) -> str | None:
        parts = fields.get(key)
        if parts is None:
            return None
        return " ".join(p for p in parts if p) or None

    expand = parse_expand_text("\n".join(fields["expand"])) if "expand" in fields else None
    removal = parse_removal_text("\n".join(fields["remove"])) if "remove" in fields else None

    scan_infos = tuple(s for s in (parse_scan_text("\n".join(p)) for p in scans) if s)
    sections = table.freeze()
    errors = "\n".join(e for e in errors_lines if e) or None
    return Pool(
        name=name, state=joined("state") or "", status=joined("status"),
        action=joined("action"), see=joined("see"),
        scan=scan_infos[0] if scan_infos else None, scans=scan_infos, errors=errors,
        vdevs=sections["vdevs"], logs=sections["logs"], cache=sections["cache"],
        spares=sections["spares"], special=sections["special"], dedup=sections["dedup"],
        ddt=ddt, unparsed=tuple(unparsed),
        root=table.root.freeze() if table.root is not None else None,
        expand=expand, removal=removal, classes=tuple(table.classes),
    )


def _root_type_fix(pool: Pool) -> Pool:
    if pool.root is None:
        return pool
    return replace(pool, root=replace(pool.root, type="root", parity=None, path=None,
                                      children=pool.vdevs))


_NOTHING = re.compile(r"^\s*(no pools available|all pools are healthy|"
                      r"pool '.*' is healthy)\s*$")


@parser(SOURCE)
def parse_zpool_status(text: str, *, ddt_sizes_are_totals: bool = False) -> list[Pool]:
    """Parse `zpool status [-p] [-v] [-D] [-s] [pool...]` text into pools (see module doc)."""
    clean = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    lines = clean.split("\n")
    pre, blocks = _split_blocks(lines)
    if not blocks:
        if any(_NOTHING.match(ln) for ln in lines):
            return []
        first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        raise ParseError(SOURCE, "no `pool:` line found",
                         line_no=None if first is None else first + 1,
                         line=None if first is None else lines[first][:200])
    pre_unparsed = [ln for ln in pre if ln.strip()]
    pools = []
    for i, block in enumerate(blocks):
        pool = _parse_block(block, ddt_sizes_are_totals, pre_unparsed if i == 0 else [])
        pools.append(_root_type_fix(pool))
    return pools
