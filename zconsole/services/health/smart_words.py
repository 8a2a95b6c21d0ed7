"""A disk's SMART in a word or two, for the places that have no room for a sentence: the
Disks screen's HEALTH column ("48 pending", "asleep", "no SMART"), the Pools leaf's NOTE, the
slow-disk sentence's "…and it has 48 pending sectors", and a wizard's row for a new disk
("SMART: 8 pending sectors").

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
    if f.kind == "smart-wear" and reading is not None:
        # what the finding is for: the wear over its mark, or the spare below its threshold
        # (an NVMe 1 % worn whose spare ran low was called "1 % worn")
        return _wear_words(reading).replace("spare below its threshold", "spare low")
    return {"smart-failed": "FAILED", "smart-nvme-critical": "critical", "smart-wear": "worn",
            "smart-self-test": "test failed", "smart-temperature": "hot"}.get(f.kind, f.kind)


#: the findings that say a disk is failing or about to (what a replace plan blocks or warns
#: on for a new disk: services/ops/zfs/new_disk_smart.py), not the link (CRC) or the room
FAILING_KINDS = ("smart-failed", "smart-nvme-critical", "smart-counters", "smart-self-test",
                 "smart-wear")


def _wear_words(reading: SmartReading) -> str:
    """A smart-wear finding's reason: "93 % worn", "spare below its threshold"."""
    from zconsole.services.health.smart import WEAR_WARN  # loaded: the finding came from it

    n, scsi = reading.nvme, reading.scsi
    used = n.percentage_used if n is not None else scsi.endurance_used if scsi else None
    words = [f"{used} % worn"] if used is not None and used >= WEAR_WARN else []
    if n is not None and (n.critical_warning & 0x01 or (
            n.available_spare is not None and n.available_spare_threshold is not None
            and n.available_spare < n.available_spare_threshold)):
        words.append("spare below its threshold")
    return ", ".join(words) or "worn"


def _failing_words(f: Finding, reading: SmartReading) -> str:
    if f.kind == "smart-failed":
        return ("overall FAILED" if reading.passed is False
                else "a prefail attribute at its threshold")
    if f.kind == "smart-nvme-critical":
        return "critical warning"
    if f.kind == "smart-counters":
        return counter_clause(reading) or "failure counters growing"
    if f.kind == "smart-self-test":
        kind = f.evidence[0].split(":", 1)[0] if f.evidence else ""
        return f"{kind} self-test failed" if kind else "a self-test failed"
    return _wear_words(reading)


def choice_mark(reading: SmartReading | None, findings: Sequence[Finding]) -> str:
    """A disk's failing SMART in a short phrase, for its row in a wizard's list of new
    disks: "SMART: 8 pending sectors", "SMART: overall FAILED, extended self-test failed"
    (worst first); "" when its findings say nothing of failing, or when it has no reading
    (not read yet, asleep, no SMART). From what the session read: it reads nothing."""
    if reading is None or not reading.read:
        return ""
    words: list[str] = []
    for f in findings:
        if f.kind in FAILING_KINDS:
            w = _failing_words(f, reading)
            if w not in words:
                words.append(w)
    return "SMART: " + ", ".join(words) if words else ""


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
