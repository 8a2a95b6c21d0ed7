"""The SMART domain: operations on a disk's own firmware, not on ZFS. One kind today,
`self-test` (`selftest.py`: `smartctl -t short|long`), and what the engine needs to run
it, registered on import: the predicate kinds and the self-test watch (`watch.py`).
"""

from zconsole.services.ops.smart import watch  # registered on import

__all__ = ["watch"]
