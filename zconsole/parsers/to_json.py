"""Model objects -> plain JSON-able data, for `zconsole parse ... --json`.

`pools_to_json(pools)` produces the documented, stable shape of
`zconsole parse zpool-status --json` (keys never renamed; new keys may only be added)::

    {"pools": [{
        "name": str, "state": str, "status": str|null, "action": str|null,
        "scan": SCAN | null,             # the first scan line
        "errors": str|null,
        "vdevs": [NODE...], "logs": [NODE...], "cache": [NODE...],
        "spares": [NODE...], "special": [NODE...], "dedup": [NODE...],
        # added keys:
        "scans": [SCAN...],              # every scan line: scrub/resilver, then one
                                         # sequential rebuild per top-level vdev (dRAID)
        "expand": EXPAND | null,         # `expand:` raidz expansion (2.3+)
        "remove": REMOVE | null,         # `remove:` device removal
        "classes": {"logs"|"cache"|"special"|"dedup": CLASS},  # classes with own state
        "see": str|null,                 # the `see:` link (JSON: moreinfo / msgid)
        "pool_row": POOLROW | null,      # the pool's own row of the config table
        "error_files": [str...],         # `zpool status -v`: the permanent-error files,
                                         # each as printed (`/tank/a`, `tank:<0x24>`)
        "truncated": str|null}]}         # where a paste ends early, and what was expected

    SCAN = {"function": "scrub"|"resilver"|null,
            "state": "in_progress"|"finished"|"canceled"|null,
            "percent_done": float|null, "eta_seconds": int|null, "raw": str,
            "paused": bool, "rebuild_vdev": str|null,      # added keys
            "examined_bytes": int|null, "issued_bytes": int|null, "total_bytes": int|null,
            "processed_bytes": int|null, "errors": int|null, "exact": bool}

    EXPAND = {"vdev": str|null, "state": "in_progress"|"paused"|"finished"|null,
              "copied_bytes": int|null, "total_bytes": int|null,
              "rate_bytes_per_s": int|null, "percent_done": float|null,
              "eta_seconds": int|null, "slow": bool, "waiting_for_resilver": bool,
              "duration_seconds": int|null, "exact": bool, "raw": str}

    REMOVE = {"vdev": str|null, "vdev_index": int|null,
              "state": "in_progress"|"finished"|"canceled"|null,
              "copied_bytes": int|null, "total_bytes": int|null,
              "rate_bytes_per_s": int|null, "percent_done": float|null,
              "eta_seconds": int|null, "slow": bool, "duration_seconds": int|null,
              "mapping_memory_bytes": int|null, "exact": bool, "raw": str}

    POOLROW = {"state": str, "read_errors": int|null, "write_errors": int|null,
               "checksum_errors": int|null, "note": str|null}

    CLASS = {"state": str, "read_errors": int|null, "write_errors": int|null,
             "checksum_errors": int|null, "note": str|null}

    NODE = {"name": str, "type": str, "state": str, "read_errors": int|null,
            "write_errors": int|null, "checksum_errors": int|null, "note": str|null,
            "path": str|null, "removing": bool,
            "children": [NODE...]}   # "children" only on non-leaves

Decisions:
* A paused scrub is reported as `"state": "in_progress"` (kept for existing readers) with
  `"paused": true`; `raw` still says `scrub paused`. An expansion paused for a resilver says
  `"state": "paused"` (a new key's own vocabulary).
* An error scrub (`zpool scrub -e`, 2.2+) is reported as `"function": "scrub"`; `raw` keeps
  the original wording. Use `to_jsonable` for the full model (ScanFunction.ERRORSCRUB,
  ScanState.PAUSED).
* `scan` is the pool's first scan line (`Pool.scan`); `scan: none requested` gives null.
* `eta_seconds` everywhere is zpool's own estimate (null where zpool printed none); zconsole's
  own ETA needs two readings over time (services.read.progress), which one paste is not.
* `exact` is false where the byte figures are rounded human units (`728M`, text output).
* A node has a "children" key only when it has children; leaves have none. Counters are
  integers, or null where zpool prints none (spares, cut-off rows). `type` is `dspare` for a
  dRAID distributed spare (`draid1-0-0`).

`to_jsonable(obj)` converts any model dataclass / list / tuple / dict / enum recursively
(enums -> their value, tuples -> lists); other `zconsole parse` kinds use it.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from zconsole.model import pool as model

_FUNCTION = {model.ScanFunction.SCRUB: "scrub", model.ScanFunction.ERRORSCRUB: "scrub",
             model.ScanFunction.RESILVER: "resilver"}
_STATE = {model.ScanState.IN_PROGRESS: "in_progress", model.ScanState.PAUSED: "in_progress",
          model.ScanState.FINISHED: "finished", model.ScanState.CANCELED: "canceled"}


def record_fields(obj: Any) -> tuple[str, ...] | None:
    """The field names of a model record, in order: a dataclass instance or a NamedTuple
    (the records parsed by the thousand, `DiskStat` and `Dataset`, are NamedTuples: one C
    call each). None for anything else."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return tuple(f.name for f in dataclasses.fields(obj))
    fields = getattr(type(obj), "_fields", None)
    if isinstance(obj, tuple) and isinstance(fields, tuple):
        return fields
    return None


def to_jsonable(obj: Any) -> Any:
    """Records (dataclasses, NamedTuples) -> dicts (field order), enums -> value,
    tuples/lists -> lists."""
    if isinstance(obj, Enum):
        return obj.value
    names = record_fields(obj)
    if names is not None:
        return {n: to_jsonable(getattr(obj, n)) for n in names}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def vdev_to_json(v: model.Vdev) -> dict[str, Any]:
    node: dict[str, Any] = {
        "name": v.name, "type": v.type, "state": v.state,
        "read_errors": v.read_errors, "write_errors": v.write_errors,
        "checksum_errors": v.checksum_errors, "note": v.note, "path": v.path,
        "removing": v.removing,
    }
    if v.children:
        node["children"] = [vdev_to_json(c) for c in v.children]
    return node


def scan_to_json(s: model.ScanInfo | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "function": _FUNCTION.get(s.function) if s.function is not None else None,
        "state": _STATE.get(s.state) if s.state is not None else None,
        "percent_done": s.percent_done, "eta_seconds": s.eta_seconds, "raw": s.raw,
        "paused": s.state is model.ScanState.PAUSED, "rebuild_vdev": s.rebuild_vdev,
        "examined_bytes": s.examined_bytes, "issued_bytes": s.issued_bytes,
        "total_bytes": s.total_bytes, "processed_bytes": s.processed_bytes,
        "errors": s.errors, "exact": s.exact,
    }


def _op_state(state: model.ScanState | None) -> str | None:
    return state.value if state is not None else None


def expand_to_json(e: model.ExpandInfo | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {
        "vdev": e.vdev, "state": _op_state(e.state), "copied_bytes": e.copied_bytes,
        "total_bytes": e.total_bytes, "rate_bytes_per_s": e.rate_bytes_per_s,
        "percent_done": e.percent_done, "eta_seconds": e.eta_seconds, "slow": e.slow,
        "waiting_for_resilver": e.waiting_for_resilver,
        "duration_seconds": e.duration_seconds, "exact": e.exact, "raw": e.raw,
    }


def removal_to_json(r: model.RemovalInfo | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "vdev": r.vdev, "vdev_index": r.vdev_index, "state": _op_state(r.state),
        "copied_bytes": r.copied_bytes, "total_bytes": r.total_bytes,
        "rate_bytes_per_s": r.rate_bytes_per_s, "percent_done": r.percent_done,
        "eta_seconds": r.eta_seconds, "slow": r.slow, "duration_seconds": r.duration_seconds,
        "mapping_memory_bytes": r.mapping_memory_bytes, "exact": r.exact, "raw": r.raw,
    }


def pool_to_json(p: model.Pool) -> dict[str, Any]:
    return {
        "name": p.name, "state": p.state, "status": p.status, "action": p.action,
        "scan": scan_to_json(p.scan), "errors": p.errors,
        "vdevs": [vdev_to_json(v) for v in p.vdevs],
        "logs": [vdev_to_json(v) for v in p.logs],
        "cache": [vdev_to_json(v) for v in p.cache],
        "spares": [vdev_to_json(v) for v in p.spares],
        "special": [vdev_to_json(v) for v in p.special],
        "dedup": [vdev_to_json(v) for v in p.dedup],
        # added keys (after the original ones)
        "scans": [scan_to_json(s) for s in p.scans],
        "expand": expand_to_json(p.expand), "remove": removal_to_json(p.removal),
        "classes": {c.section.value: {"state": c.state, "read_errors": c.read_errors,
                                      "write_errors": c.write_errors,
                                      "checksum_errors": c.checksum_errors, "note": c.note}
                    for c in p.classes},
        "see": p.see, "pool_row": _pool_row(p.root), "error_files": list(p.error_files),
        "truncated": p.truncated,
    }


def _pool_row(root: model.Vdev | None) -> dict[str, Any] | None:
    if root is None:
        return None
    return {"state": root.state, "read_errors": root.read_errors,
            "write_errors": root.write_errors, "checksum_errors": root.checksum_errors,
            "note": root.note}


def pools_to_json(pools: list[model.Pool]) -> dict[str, Any]:
    """The documented `zconsole parse zpool-status --json` document (see module doc)."""
    return {"pools": [pool_to_json(p) for p in pools]}
