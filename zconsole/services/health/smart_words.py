"""A disk's SMART in a word or two, for the places that have no room for a sentence: the
Disks screen's HEALTH column ("48 pending", "asleep", "no SMART"), the Pools leaf's NOTE, and
the slow-disk sentence's "…and it has 48 pending sectors".

Pure: from the findings (services/health/smart.py) and the watch's `DiskSmart` (its last
reading, or why none). Imports nothing of the SMART read: the Pools screen's first frame
imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.model.finding import Finding, Severity
from zconsole.model.smart import COUNTER_WORDS, SmartReading, Unread, counters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.model.reading import DiskInventory
    from zconsole.services.read.smart import DiskSmart

#: the counters in the order an admin reads them, with their word in a column
SHORT_COUNTERS: tuple[tuple[str, str], ...] = (
    ("ata-197", "pending"), ("ata-5", "realloc."), ("ata-198", "offline unc."),
    ("ata-187", "uncorrect."), ("ata-188", "timeouts"), ("nvme-media_errors", "media err."),
    ("scsi-grown_defects", "defects"), ("scsi-read_uncorrected", "read unc."),
    ("scsi-write_uncorrected", "write unc."), ("scsi-verify_uncorrected", "verify unc."),
)
_UNREAD_SHORT = {Unread.ASLEEP: "asleep", Unread.NO_SMART: "no SMART",
                 Unread.MISSING: "no smartctl", Unread.NOT_ROOT: "needs root",
                 Unread.OPEN_FAILED: "not opened"}
NOT_YET = "not read yet"


def worst_counter(reading: SmartReading | None) -> tuple[str, int] | None:
    """The failure counter an admin looks at first that is above zero: (key, value)."""
    if reading is None:
        return None
    found = counters(reading)
    return next(((k, found[k]) for k, _ in SHORT_COUNTERS if found.get(k, 0) > 0), None)


def counter_clause(reading: SmartReading | None) -> str:
    """"48 pending sectors" (the slow-disk sentence's end), "" when none is above zero."""
    worst = worst_counter(reading)
    if worst is None:
        return ""
    key, value = worst
    words = COUNTER_WORDS.get(key, key)
    return f"{value:,} {words[:-1] if value == 1 and words.endswith('s') else words}"


def finding_word(f: Finding, reading: SmartReading | None) -> str:
    """One finding in a word or two: "48 pending", "312 CRC", "74 °C", "93 % worn"."""
    if f.kind == "smart-counters":
        worst = worst_counter(reading)
        if worst is not None:
            return f"{worst[1]:,} {dict(SHORT_COUNTERS)[worst[0]]}"
        return "counters"
    if f.kind == "smart-crc":
        crc = counters(reading).get("ata-199") if reading is not None else None
        return f"{crc:,} CRC" if crc else "CRC errors"
    if f.kind == "smart-temperature" and reading is not None and reading.temperature:
        return f"{reading.temperature.current} °C"
    if f.kind == "smart-wear" and reading is not None and reading.nvme is not None \
            and reading.nvme.percentage_used is not None:
        return f"{reading.nvme.percentage_used} % worn"
    return {"smart-failed": "FAILED", "smart-nvme-critical": "critical", "smart-wear": "worn",
            "smart-self-test": "test failed", "smart-temperature": "hot"}.get(f.kind, f.kind)


def disk_word(state: DiskSmart | None, findings: Sequence[Finding]
              ) -> tuple[Severity | None, str]:
    """The HEALTH column of one disk: its worst finding's level and word, else "ok" (read,
    nothing found), else why it was not read ("asleep", "no SMART", "not read yet")."""
    if findings:
        worst = max(findings, key=lambda f: f.severity.rank)
        return worst.severity, finding_word(worst, state.reading if state else None)
    if state is None:
        return None, NOT_YET
    if state.error:
        return Severity.UNKNOWN, "not read"
    if state.unread is not None and state.unread.unread is not None:
        return None, _UNREAD_SHORT.get(state.unread.unread, "not read")
    return (Severity.OK, "ok") if state.reading is not None else (None, NOT_YET)


def leaf_notes(inventory: DiskInventory | None, findings: Sequence[Finding],
               states: Mapping[str, DiskSmart], pool: str) -> dict[str, tuple[Severity, str]]:
    """The pool's leaves (by the name zpool prints) whose disk has a SMART finding: its
    level and word, for the NOTE column."""
    if inventory is None or not findings:
        return {}
    out: dict[str, tuple[Severity, str]] = {}
    for role in inventory.roles:
        if role.pool != pool or not role.leaf:
            continue
        mine = [f for f in findings if f.subject == role.disk]
        if mine:
            level, word = disk_word(states.get(role.disk), mine)
            if level is not None:
                out[role.leaf] = (level, word)
    return out
