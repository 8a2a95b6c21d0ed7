"""How bad a state word is: pool and vdev states (`zpool status`), spare states, link states.

The judgement lives here, not in the UI, so the console, `zconsole check` and any report
read the same word the same way. The UI only chooses the colour for a `Severity`.
"""

from __future__ import annotations

from zconsole.model.finding import Severity

# zpool status states (include/sys/fs/zfs.h vdev_state_t as zpool prints them, plus spare
# states AVAIL/INUSE and the "HEALTHY" some tools print).
POOL_STATE_SEVERITY: dict[str, Severity] = {
    "ONLINE": Severity.OK, "AVAIL": Severity.OK, "HEALTHY": Severity.OK,
    "DEGRADED": Severity.WARNING, "OFFLINE": Severity.WARNING, "INUSE": Severity.WARNING,
    "FAULTED": Severity.CRITICAL, "UNAVAIL": Severity.CRITICAL, "REMOVED": Severity.CRITICAL,
    "SUSPENDED": Severity.CRITICAL,
    "UNKNOWN": Severity.UNKNOWN,
}


def state_severity(state: str) -> Severity:
    """ONLINE -> OK, DEGRADED -> WARNING, FAULTED -> CRITICAL; a word zconsole does not know
    is a WARNING (never OK)."""
    return POOL_STATE_SEVERITY.get(state.upper(), Severity.WARNING)
