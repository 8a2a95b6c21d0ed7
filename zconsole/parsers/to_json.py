"""Model objects -> plain JSON-able data, for `zconsole parse ... --json`.

`pools_to_json(pools)` produces the documented, stable shape of
`zconsole parse zpool-status --json` (keys never renamed; new keys may only be added)::

    {"pools": [{
        "name": str, "state": str, "status": str|null, "action": str|null,
        "scan": {"function": "scrub"|"resilver"|null,
                 "state": "in_progress"|"finished"|"canceled"|null,
                 "percent_done": float|null, "eta_seconds": int|null, "raw": str} | null,
        "errors": str|null,
        "vdevs": [NODE...], "logs": [NODE...], "cache": [NODE...],
        "spares": [NODE...], "special": [NODE...], "dedup": [NODE...]}]}

    NODE = {"name": str, "type": str, "state": str, "read_errors": int|null,
            "write_errors": int|null, "checksum_errors": int|null, "note": str|null,
            "path": str|null, "children": [NODE...]}   # "children" only on non-leaves

Decisions:
* A paused scrub is reported as `"state": "in_progress"`; `raw` still says `scrub paused`.
* An error scrub (`zpool scrub -e`, 2.2+) is reported as `"function": "scrub"`; `raw` keeps
  the original wording. Use `to_jsonable` for the full model (ScanFunction.ERRORSCRUB,
  ScanState.PAUSED).
* `scan` is the pool's first scan line (`Pool.scan`); `scan: none requested` gives null.
* A node has a "children" key only when it has children; leaves have none. Counters are
  integers, or null where zpool prints none (spares, cut-off rows).

`to_jsonable(obj)` converts any model dataclass / list / tuple / dict / enum recursively
(enums -> their value, tuples -> lists); other `zconsole parse` kinds use it.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from zconsole.model.pool import Pool, ScanFunction, ScanInfo, ScanState, Vdev

_FUNCTION = {ScanFunction.SCRUB: "scrub", ScanFunction.ERRORSCRUB: "scrub",
             ScanFunction.RESILVER: "resilver"}
_STATE = {ScanState.IN_PROGRESS: "in_progress", ScanState.PAUSED: "in_progress",
          ScanState.FINISHED: "finished", ScanState.CANCELED: "canceled"}


def to_jsonable(obj: Any) -> Any:
    """Dataclasses -> dicts (field order), enums -> value, tuples/lists -> lists."""
    if isinstance(obj, Enum):
        return obj.value
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def vdev_to_json(v: Vdev) -> dict[str, Any]:
    node: dict[str, Any] = {
        "name": v.name, "type": v.type, "state": v.state,
        "read_errors": v.read_errors, "write_errors": v.write_errors,
        "checksum_errors": v.checksum_errors, "note": v.note, "path": v.path,
    }
    if v.children:
        node["children"] = [vdev_to_json(c) for c in v.children]
    return node


def scan_to_json(s: ScanInfo | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "function": _FUNCTION.get(s.function) if s.function is not None else None,
        "state": _STATE.get(s.state) if s.state is not None else None,
        "percent_done": s.percent_done, "eta_seconds": s.eta_seconds, "raw": s.raw,
    }


def pool_to_json(p: Pool) -> dict[str, Any]:
    return {
        "name": p.name, "state": p.state, "status": p.status, "action": p.action,
        "scan": scan_to_json(p.scan), "errors": p.errors,
        "vdevs": [vdev_to_json(v) for v in p.vdevs],
        "logs": [vdev_to_json(v) for v in p.logs],
        "cache": [vdev_to_json(v) for v in p.cache],
        "spares": [vdev_to_json(v) for v in p.spares],
        "special": [vdev_to_json(v) for v in p.special],
        "dedup": [vdev_to_json(v) for v in p.dedup],
    }


def pools_to_json(pools: list[Pool]) -> dict[str, Any]:
    """The documented `zconsole parse zpool-status --json` document (see module doc)."""
    return {"pools": [pool_to_json(p) for p in pools]}
