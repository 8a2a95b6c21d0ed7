"""`zpool status -j` (OpenZFS 2.3+) -> list[Pool].

Formats handled
---------------
* `zpool status -j` (numbers as strings, sizes with units: "960M", counters "0"),
  `-j --json-int` (plain integers) and `--json-flat-vdevs` (every vdev in one dict with a
  `parent` key; the tree is rebuilt, sibling order preserved).
* Top level `{"output_version": {...}, "pools": {NAME: {...}}}`; pool keys `name`, `state`,
  `pool_guid`, `error_count`, `[status, action, msgid, moreinfo]`, `[scan_stats]`,
  `vdevs: {POOL: {vdev_type: root, vdevs: {...}}}`, `[logs]`, `[special]`, `[dedup]`,
  `[l2cache]` (-> Pool.cache), `[spares]`, `[errlist]` (`-v`: the permanent-error files,
  -> Pool.error_files, the same strings the text form lists).

Version traps
-------------
* There is no JSON before 2.3.0; use the text parser for 2.1.
* Vdev `state` is the raw vdev_state_str (CLOSED, OFFLINE, REMOVED, CANT_OPEN, FAULTED,
  DEGRADED, ONLINE, UNKNOWN), not the printed word; the zpool-status(8) example showing
  "HEALTHY" is wrong. `Vdev.state` gets the word `zpool status` would print, following
  zpool_state_to_name() in lib/libzfs/libzfs_pool.c: CLOSED/OFFLINE -> OFFLINE,
  CANT_OPEN -> FAULTED if aux is CORRUPT_DATA or BAD_LOG, SPLIT if SPLIT_POOL, else UNAVAIL;
  HEALTHY -> ONLINE. The raw value goes to `raw_state`, the aux reason to `aux`, and `note`
  gets the text zpool prints for that aux (`cannot open`, `too many errors`...) or
  `was PATH` for a missing device.
* Pool `status` / `action` keys exist only when the pool has a problem.
* Spares' counters are set to None, as the text table prints none.
* scan_stats: function SCRUB / RESILVER / ERRORSCRUB, state SCANNING / FINISHED / CANCELED
  (SCANNING with scrub_pause != 0 -> PAUSED). percent_done = issued / (to_examine - skipped)
  x 100 for running or paused scans (None for finished/canceled, which zpool prints no
  percentage for). Without --json-int the byte figures are rounded ("728M") and so is the
  percentage.
* ETA needs the current time, which a parser may not read: pass `now` (epoch seconds) to get
  zpool's own estimate: elapsed = now - pass_start - scrub_spent_paused (at least 1),
  rate = issued_bytes_per_scan / elapsed, shown only when not paused, rate >= 10 MiB/s,
  issued <= to_examine - skipped and (resilver with processed > 0, or scrub with issued > 0);
  eta = (to_examine - skipped - issued) / rate. The 10 MiB/s rule was checked against
  print_scan_scrub_resilver_status() of the 2.1 series; the two last conditions are the 2.2+
  rule as remembered, not re-read from the 2.3.2 source.
* `Vdev.resilvering` is derived like the text `(resilvering)` note: scan_processed > 0 on a
  leaf while the pool's scan is a running resilver. `Vdev.removing` from the vdev's
  `removing` key (the text's `(removing)`).
* Long operations: `scan_stats.rebuild_stats` (one sequential rebuild per top-level vdev,
  states ACTIVE/COMPLETE/CANCELED) -> extra `Pool.scans` after the scrub/resilver one, with
  `rebuild_vdev`; `raidz_expand_stats` -> Pool.expand (`waiting_for_resilver` -> PAUSED);
  `removal_stats` -> Pool.removal. Their ETA follows zpool's own (rate since the start,
  shown under 30 days) and needs `now`.
* The root vdev: `vdev_type` "root"; the zpool-status(8) example and dRAID pools on 2.3.2
  (openzfs/zfs#18431) print an entry named after the pool with no `vdev_type` (and no
  `state`): it is read as the root (state: the pool's), its children as the top vdevs.

Malformed JSON, or JSON of another shape, raises ParseError (and only ParseError).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any, NamedTuple

from zconsole.model.pool import (
    VDEV_AUX_TEXT,
    ExpandInfo,
    Pool,
    RemovalInfo,
    ScanFunction,
    ScanInfo,
    ScanState,
    Vdev,
)
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.units import parse_size
from zconsole.parsers.vdev_names import vdev_type_from_name

SOURCE = "zpool status -j"

_SECTIONS = (("logs", "logs"), ("special", "special"), ("dedup", "dedup"),
             ("l2cache", "cache"), ("spares", "spares"))
_CLASS_TO_SECTION = {"log": "logs", "logs": "logs", "special": "special", "dedup": "dedup",
                     "l2cache": "cache", "cache": "cache", "spare": "spares",
                     "spares": "spares"}
_TEN_MIB = 10 * 1024 * 1024


def state_to_name(raw: str, aux: str | None) -> str:
    """Raw vdev_state_str (+ aux) -> the word `zpool status` prints (zpool_state_to_name)."""
    r = raw.upper()
    if r in ("CLOSED", "OFFLINE"):
        return "OFFLINE"
    if r == "CANT_OPEN":
        a = (aux or "").upper()
        if a in ("CORRUPT_DATA", "BAD_LOG"):
            return "FAULTED"
        if a == "SPLIT_POOL":
            return "SPLIT"
        return "UNAVAIL"
    if r in ("HEALTHY", "ONLINE"):
        return "ONLINE"
    if r in ("REMOVED", "FAULTED", "DEGRADED", "AVAIL", "INUSE", "UNKNOWN"):
        return r
    return r or "UNKNOWN"


def _int(value: object) -> int | None:
    """JSON number, "123", or (without --json-int) "1.02K" / "960M" -> int."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) < 1e30 else None
    if isinstance(value, str):
        t = value.strip()
        if re.fullmatch(r"[0-9]+", t):
            return int(t)
        try:
            return parse_size(t)
        except ValueError:
            return None
    return None


def _exact(value: object) -> bool:
    """Is this JSON figure exact (a number, or digits: --json-int / -p) rather than a human
    string (`960M`) that may have been rounded?"""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and bool(re.fullmatch(r"[0-9]{1,40}", value.strip()))


def _str(value: object) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def _scan(stats: object) -> ScanInfo | None:
    if not isinstance(stats, dict):
        return None
    func = str(stats.get("function", "")).upper()
    function = {"SCRUB": ScanFunction.SCRUB, "RESILVER": ScanFunction.RESILVER,
                "ERRORSCRUB": ScanFunction.ERRORSCRUB}.get(func)
    if function is None:
        return None
    raw_state = str(stats.get("state", "")).upper()
    pause = _int(stats.get("scrub_pause")) or 0
    state = {"SCANNING": ScanState.IN_PROGRESS, "FINISHED": ScanState.FINISHED,
             "CANCELED": ScanState.CANCELED}.get(raw_state)
    if state is ScanState.IN_PROGRESS and pause:
        state = ScanState.PAUSED
    to_examine = _int(stats.get("to_examine"))
    skipped = _int(stats.get("skipped")) or 0
    issued = _int(stats.get("issued"))
    percent: float | None = None
    if state in (ScanState.IN_PROGRESS, ScanState.PAUSED) and to_examine is not None \
            and issued is not None and to_examine - skipped > 0:
        percent = issued * 100.0 / (to_examine - skipped)
    raw = json.dumps(stats, sort_keys=True)
    start = _int(stats.get("start_time"))
    end = _int(stats.get("end_time"))
    return ScanInfo(function=function, state=state, percent_done=percent, raw=raw,
                    examined_bytes=_int(stats.get("examined")), issued_bytes=issued,
                    total_bytes=to_examine, processed_bytes=_int(stats.get("processed")),
                    errors=_int(stats.get("errors")), start_time=start,
                    end_time=end if state in (ScanState.FINISHED, ScanState.CANCELED) else None,
                    exact=_exact(stats.get("issued")) and _exact(stats.get("to_examine")))


_REBUILD_STATE = {"ACTIVE": ScanState.IN_PROGRESS, "COMPLETE": ScanState.FINISHED,
                  "CANCELED": ScanState.CANCELED}


def _rebuilds(stats: object) -> list[ScanInfo]:
    """`scan_stats.rebuild_stats`: one sequential rebuild per top-level vdev (what the text
    prints as `scan: resilver (draid1:...-0) ...`). percent_done = scanned / to_scan, as
    print_rebuild_status_impl computes it (capped at 100)."""
    if not isinstance(stats, dict) or not isinstance(stats.get("rebuild_stats"), dict):
        return []
    out = []
    for name, r in stats["rebuild_stats"].items():
        if not isinstance(r, dict):
            continue
        state = _REBUILD_STATE.get(str(r.get("state", "")).upper())
        scanned, to_scan = _int(r.get("scanned")), _int(r.get("to_scan"))
        percent = None
        if state is ScanState.IN_PROGRESS and scanned is not None and to_scan:
            percent = min(scanned * 100.0 / to_scan, 100.0)
        start, end = _int(r.get("start_time")), _int(r.get("end_time"))
        out.append(ScanInfo(function=ScanFunction.RESILVER, state=state, percent_done=percent,
                            raw=json.dumps({str(name): r}, sort_keys=True),
                            examined_bytes=scanned, issued_bytes=_int(r.get("issued")),
                            total_bytes=to_scan, processed_bytes=_int(r.get("rebuilt")),
                            errors=_int(r.get("errors")), start_time=start,
                            end_time=end if state is not ScanState.IN_PROGRESS else None,
                            rebuild_vdev=str(name),
                            exact=_exact(r.get("scanned")) and _exact(r.get("to_scan"))))
    return out


# A container named by its type alone (the index left out): `raidz1`, `mirror`, `indirect`.
_UNINDEXED = re.compile(r"(?:mirror|indirect|replacing|spare|raidz[1-3]?|draid[1-3]?"
                        r"(?::[0-9]{1,4}[a-z])*)")
_DSS_STATE = {"SCANNING": ScanState.IN_PROGRESS, "FINISHED": ScanState.FINISHED,
              "CANCELED": ScanState.CANCELED}
_THIRTY_DAYS = 30 * 24 * 3600


def _left(copied: int | None, total: int | None, start: int | None, now: int | None
          ) -> int | None:
    """zpool's ETA for an expansion or removal: rate = copied / (now - start), both at least
    1; shown only when under 30 days (print_raidz_expand_status / print_removal_status)."""
    if now is None or start is None or total is None:
        return None
    done = max(copied or 0, 1)
    rate = max(done // max(now - start, 1), 1)
    left = max(total - done, 0) // rate
    return left if left < _THIRTY_DAYS else None


class _Copy(NamedTuple):
    """What `raidz_expand_stats` and `removal_stats` have in common: a state, bytes copied of
    a total, start and end times, and the vdev being expanded or evacuated."""

    state: ScanState
    copied: int | None
    total: int | None
    start: int | None
    end: int | None
    vdev: str | None
    vdev_index: int | None
    exact: bool
    raw: str

    def duration(self) -> int | None:
        if self.state is ScanState.FINISHED and self.end is not None and self.start is not None:
            return self.end - self.start
        return None


def _copy(stats: dict[str, Any], copied_key: str, total_key: str, index_key: str
          ) -> _Copy | None:
    state = _DSS_STATE.get(str(stats.get("state", "")).upper())
    if state is None:
        return None
    # The JSON names the vdev without its index (`raidz1`, zpool_vdev_name(..., 0); `mirror`
    # while evacuating, `indirect` once done); the text prints `raidz1-0` (name + "-" +
    # expanding_vdev), and with the index it is the row `zpool list -v` shows (`mirror-1`,
    # `indirect-1`): the indexed name is kept.
    vdev, index = _str(stats.get("name")), _int(stats.get(index_key))
    if vdev is not None and index is not None and _UNINDEXED.fullmatch(vdev):
        vdev = f"{vdev}-{index}"
    return _Copy(state, _int(stats.get(copied_key)), _int(stats.get(total_key)),
                 _int(stats.get("start_time")), _int(stats.get("end_time")), vdev, index,
                 _exact(stats.get(copied_key)) and _exact(stats.get(total_key)),
                 json.dumps(stats, sort_keys=True))


def _expand(stats: object, now: int | None) -> ExpandInfo | None:
    """`raidz_expand_stats` (raidz_expand_status_nvlist): name, state, expanding_vdev,
    start_time, end_time, to_reflow, reflowed, waiting_for_resilver."""
    if not isinstance(stats, dict) or (
            c := _copy(stats, "reflowed", "to_reflow", "expanding_vdev")) is None:
        return None
    state = c.state
    waiting = bool(_int(stats.get("waiting_for_resilver")))
    if state is ScanState.IN_PROGRESS and waiting:
        state = ScanState.PAUSED
    percent = max(c.copied or 0, 1) * 100.0 / c.total \
        if c.total and state is not ScanState.FINISHED \
        else (100.0 if state is ScanState.FINISHED else None)
    eta = _left(c.copied, c.total, c.start, now) if state is ScanState.IN_PROGRESS else None
    return ExpandInfo(vdev=c.vdev, state=state, copied_bytes=c.copied,
                      total_bytes=c.total, percent_done=percent, eta_seconds=eta,
                      waiting_for_resilver=waiting,
                      slow=state is ScanState.IN_PROGRESS and now is not None and eta is None,
                      duration_seconds=c.duration(), start_time=c.start,
                      end_time=c.end if state is ScanState.FINISHED else None,
                      exact=c.exact, raw=c.raw)


def _removal(stats: object, now: int | None) -> RemovalInfo | None:
    """`removal_stats` (removal_status_nvlist): name, state, removing_vdev, start_time,
    end_time, to_copy, copied, mapping_memory."""
    if not isinstance(stats, dict) or (
            c := _copy(stats, "copied", "to_copy", "removing_vdev")) is None:
        return None
    running = c.state is ScanState.IN_PROGRESS
    percent = max(c.copied or 0, 1) * 100.0 / c.total if c.total and running \
        else (100.0 if c.state is ScanState.FINISHED else None)
    eta = _left(c.copied, c.total, c.start, now) if running else None
    return RemovalInfo(vdev=c.vdev, state=c.state, vdev_index=c.vdev_index, copied_bytes=c.copied,
                       total_bytes=c.total, percent_done=percent, eta_seconds=eta,
                       slow=running and now is not None and eta is None,
                       duration_seconds=c.duration(),
                       mapping_memory_bytes=_int(stats.get("mapping_memory")),
                       start_time=c.start, end_time=None if running else c.end,
                       exact=c.exact, raw=c.raw)


def scan_eta_seconds(stats: dict[str, Any], now: int) -> int | None:
    """zpool's own ETA for a running scan, given the current epoch time (see module doc)."""
    info = _scan(stats)
    if info is None or info.state is not ScanState.IN_PROGRESS:
        return None
    pass_start = _int(stats.get("pass_start"))
    pass_issued = _int(stats.get("issued_bytes_per_scan"))
    to_examine, issued = info.total_bytes, info.issued_bytes
    if pass_start is None or pass_issued is None or to_examine is None or issued is None:
        return None
    elapsed = now - pass_start - (_int(stats.get("scrub_spent_paused")) or 0)
    elapsed = max(elapsed, 1)
    rate = pass_issued // elapsed
    total_i = to_examine - (_int(stats.get("skipped")) or 0)
    started = (info.function is ScanFunction.RESILVER and (info.processed_bytes or 0) > 0) or \
        (info.function is not ScanFunction.RESILVER and issued > 0)
    if total_i < issued or rate < _TEN_MIB or not started:
        return None
    return (total_i - issued) // rate


def _vdev(name: str, d: dict[str, Any], children: tuple[Vdev, ...], *, spare_row: bool,
          resilver_running: bool) -> Vdev:
    # dRAID vdevs on 2.3.2 carry no `state` (nor `vdev_type`, openzfs/zfs#18431): UNKNOWN,
    # with no raw state, rather than a guess from the children.
    raw_state = _str(d.get("state"))
    aux = _str(d.get("aux"))
    vtype = str(d.get("vdev_type") or vdev_type_from_name(name)[0])
    parity = vdev_type_from_name(name)[1] if vtype in ("raidz", "draid") else None
    if parity is None and vtype in ("raidz", "draid"):
        parity = _int(d.get("nparity"))
    note: str | None = None
    ashift, native = _int(d.get("configured_ashift")), _int(d.get("physical_ashift"))
    if d.get("was") is not None:
        note = f"was {d.get('was')}"
    elif aux is not None:
        note = VDEV_AUX_TEXT.get(aux.upper(), aux)
    elif ashift is not None and native is not None and 0 < ashift < native < 64:
        # the text form's note for the same fact (print_status_config)
        note = f"block size: {1 << ashift}B configured, {1 << native}B native"
    if not (ashift is not None and native is not None and 0 < ashift < native < 64):
        ashift = native = None
    leaf = not children and vtype not in ("root", "mirror", "raidz", "draid", "replacing",
                                         "spare")
    processed = _int(d.get("scan_processed")) or 0
    counters = (None, None, None) if spare_row else (
        _int(d.get("read_errors")), _int(d.get("write_errors")),
        _int(d.get("checksum_errors")))
    return Vdev(name=str(d.get("name", name)), type=vtype,
                state=state_to_name(raw_state, aux) if raw_state is not None else "UNKNOWN",
                read_errors=counters[0], write_errors=counters[1],
                checksum_errors=counters[2], note=note, path=_str(d.get("path")),
                guid=_str(d.get("guid")), children=children, raw_state=raw_state, aux=aux,
                slow_ios=_int(d.get("slow_ios")), parity=parity,
                resilvering=bool(leaf and resilver_running and processed > 0),
                removing=bool(_int(d.get("removing"))), ashift=ashift,
                native_ashift=native)


def _nested(vdevs: object, *, spare_rows: bool, resilver: bool,
            depth: int = 0) -> tuple[Vdev, ...]:
    if not isinstance(vdevs, dict) or depth > 64:
        return ()
    out = []
    for name, d in vdevs.items():
        if not isinstance(d, dict):
            continue
        kids = _nested(d.get("vdevs"), spare_rows=False, resilver=resilver, depth=depth + 1)
        out.append(_vdev(str(name), d, kids, spare_row=spare_rows, resilver_running=resilver))
    return tuple(out)


def _flat(vdevs: dict[str, Any], *, resilver: bool) -> tuple[list[tuple[str, Vdev]], Vdev | None]:
    """--json-flat-vdevs: rebuild the tree from `parent` keys. Returns tops and the root."""
    entries = {str(k): v for k, v in vdevs.items() if isinstance(v, dict)}
    kids: dict[str | None, list[str]] = {}
    for name, d in entries.items():
        parent = _str(d.get("parent"))
        if parent is not None and parent not in entries:
            parent = None
        kids.setdefault(parent, []).append(name)

    def build(name: str, seen: frozenset[str]) -> Vdev:
        d = entries[name]
        children = tuple(build(c, seen | {c}) for c in kids.get(name, []) if c not in seen)
        spare_row = str(d.get("class", "")) == "spare" and _str(d.get("parent")) is None
        return _vdev(name, d, children, spare_row=spare_row, resilver_running=resilver)

    tops: list[tuple[str, Vdev]] = []
    root: Vdev | None = None
    for name in kids.get(None, []):
        v = build(name, frozenset({name}))
        if v.type == "root":
            root = v
            tops.extend((_section_of(entries, c), c) for c in v.children)
        else:
            tops.append((_section_of(entries, v), v))
    return tops, root


def _section_of(entries: dict[str, Any], v: Vdev) -> str:
    d = entries.get(v.name, {})
    return _CLASS_TO_SECTION.get(str(d.get("class", "")), "vdevs") if isinstance(d, dict) \
        else "vdevs"


def _pool(name: str, p: dict[str, Any], now: int | None) -> Pool:
    scan = _scan(p.get("scan_stats"))
    if scan is not None and now is not None and isinstance(p.get("scan_stats"), dict):
        scan = replace(scan, eta_seconds=scan_eta_seconds(p["scan_stats"], now))
    resilver = scan is not None and scan.function is ScanFunction.RESILVER and \
        scan.state is ScanState.IN_PROGRESS
    sections: dict[str, list[Vdev]] = {k: [] for k in
                                       ("vdevs", "logs", "special", "dedup", "cache", "spares")}
    root: Vdev | None = None
    vdevs = p.get("vdevs")
    flat = isinstance(vdevs, dict) and any(isinstance(v, dict) and "parent" in v
                                           for v in vdevs.values())
    if flat and isinstance(vdevs, dict):
        tops, root = _flat(vdevs, resilver=resilver)
        for section, v in tops:
            sections[section].append(v)
    else:
        pool_name = str(p.get("name", name))
        for top in _nested(vdevs, spare_rows=False, resilver=resilver):
            d = vdevs.get(top.name) if isinstance(vdevs, dict) else None
            # The root: vdev_type "root", or - in the man page example and for dRAID pools
            # in 2.3.2 (openzfs/zfs#18431) - an entry without vdev_type named after the pool
            # that holds the real top-level vdevs. Its state is then the pool's.
            untyped_root = isinstance(d, dict) and "vdev_type" not in d \
                and top.name == pool_name and isinstance(d.get("vdevs"), dict)
            if top.type == "root" or untyped_root:
                if untyped_root and isinstance(d, dict) and "state" not in d:
                    raw = str(p.get("state", "")) or "UNKNOWN"
                    top = replace(top, type="root", parity=None, raw_state=raw,
                                  state=state_to_name(raw, None))
                elif untyped_root:
                    top = replace(top, type="root", parity=None)
                root = top
                sections["vdevs"].extend(top.children)
            else:
                sections["vdevs"].append(top)
    for key, section in _SECTIONS:
        sect = p.get(key)
        if not isinstance(sect, dict):
            continue
        if any(isinstance(v, dict) and "parent" in v for v in sect.values()):
            tops, _ = _flat(sect, resilver=resilver)
            sections[section].extend(v for _, v in tops)
        else:
            sections[section].extend(_nested(sect, spare_rows=(section == "spares"),
                                             resilver=resilver))
    scans = ((scan,) if scan is not None else ()) + tuple(_rebuilds(p.get("scan_stats")))
    return Pool(
        name=str(p.get("name", name)), state=str(p.get("state", "")),
        status=_str(p.get("status")), action=_str(p.get("action")),
        see=_str(p.get("moreinfo") or p.get("msgid")), scan=scans[0] if scans else None,
        scans=scans, expand=_expand(p.get("raidz_expand_stats"), now),
        removal=_removal(p.get("removal_stats"), now),
        vdevs=tuple(sections["vdevs"]), logs=tuple(sections["logs"]),
        cache=tuple(sections["cache"]), spares=tuple(sections["spares"]),
        special=tuple(sections["special"]), dedup=tuple(sections["dedup"]),
        guid=_str(p.get("pool_guid")), error_count=_int(p.get("error_count")), root=root,
        error_files=_errlist(p.get("errlist")),
    )


def _errlist(value: object) -> tuple[str, ...]:
    """`-j -v`: `errlist`, the permanent-error files as the text form prints them."""
    if not isinstance(value, list):
        return ()
    return tuple(x for x in value if isinstance(x, str))


@parser(SOURCE)
def parse_zpool_status_json(text: str, *, now: int | None = None) -> list[Pool]:
    """Parse `zpool status -j [--json-int] [--json-flat-vdevs]` output (see module doc)."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(SOURCE, f"not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("pools", {}), dict) \
            or ("pools" not in doc and "output_version" not in doc):
        raise ParseError(SOURCE, "no `pools` object")
    pools_obj = doc.get("pools", {})
    out = []
    try:
        for name, p in pools_obj.items():
            if not isinstance(p, dict):
                raise ParseError(SOURCE, f"pool {name!r} is not an object")
            out.append(_pool(str(name), p, now))
    except RecursionError:
        raise ParseError(SOURCE, "vdev tree nested too deeply") from None
    return out
