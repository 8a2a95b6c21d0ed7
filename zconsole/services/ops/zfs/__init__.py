"""ZFS disk operations: one module per kind (attach, detach, replace, replace_grow,
dedup_off) over `common.py`, the checks they run (`guards.py`, `new_disk.py`), and what the
engine needs to run their plans, registered on import: the predicate kinds
(`predicates.py`), the watch of resilvers and scrubs (`watch.py`) and the explanations of
ZFS's refusals (`refusals.py`). The kinds are listed in `services/ops/registry.py`.
"""

from zconsole.services.ops.zfs import bay, predicates, refusals, watch  # registered on import

__all__ = ["bay", "predicates", "refusals", "watch"]
