"""A disk's SMART judged the way an experienced admin reads it, as `Finding`s on the one
severity scale (`model.finding.Severity`, `services/health/severity.py`).

| kind | level | when |
|---|---|---|
| smart-failed | CRITICAL | the drive's overall health check says FAILED (ATA, SCSI), or a prefail attribute is at or below its threshold now |
| smart-nvme-critical | CRITICAL | NVMe critical_warning: reliability degraded, read-only media, volatile memory backup failed, persistent memory unreliable |
| smart-counters | WARNING | ATA 5, 187, 188, 197, 198 above zero or growing; NVMe media errors; SCSI grown defects or uncorrected errors (Backblaze: raw above zero is "a reason to investigate") |
| smart-crc | WARNING | ATA 199 UDMA CRC errors: the link (cable, backplane), not the disk |
| smart-temperature | WARNING / CRITICAL | at or over the drive's own limit (ATA op_limit_max, SCSI drive_trip, NVMe WCTEMP or its temperature bit), else over a default (below); CRITICAL at its critical limit |
| smart-wear | WARNING | NVMe percentage_used or SCSI endurance used at or over 90 %; NVMe spare below its threshold |
| smart-self-test | WARNING | the newest self-test of a kind failed |

NVMe `smart_status.passed` is just `critical_warning == 0`; it is judged bit by bit here
(a hot NVMe is a temperature WARNING, not a failed drive). A disk whose SMART was not read
(asleep, no SMART, smartctl missing, not root) has no finding: the faces say
`Unread.words` once, as a fact.

"Growing" needs history: `CounterTrack`s kept by `services/read/smart.SmartWatch`; each
finding then says since when ("48 pending sectors, up from 12 when first seen 3 h ago").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import visible
from zconsole.model.smart import (
    COUNTER_WORDS,
    CounterTrack,
    Protocol,
    SmartReading,
    counters,
)
from zconsole.services import fmt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart

C, W = Severity.CRITICAL, Severity.WARNING

#: without a limit from the drive: a common datasheet operating maximum for hard disks
#: (HGST/WD/Seagate 3.5" enterprise disks: 60 °C) and a common NVMe WCTEMP (70 °C; QEMU's)
DEFAULT_LIMIT_HDD = 60
DEFAULT_LIMIT_SSD = 70
WEAR_WARN = 90  # percent of rated endurance used
#: NVMe critical_warning bits that mean the drive is failing (bits 0 and 1 are judged as
#: wear and temperature)
_NVME_FAILING = (0x04, 0x08, 0x10, 0x20)

Tracks = Mapping[str, CounterTrack]


def disk_label(disk: str, by_id: str | None) -> str:
    """"sda (ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT)": the kernel name and the stable name."""
    return f"{visible(disk)} ({visible(by_id)})" if by_id else visible(disk)


def _f(kind: str, level: Severity, disk: str, message: str, evidence: tuple[str, ...] = (),
       pool: str | None = None) -> Finding:
    return Finding(kind=kind, severity=level, subject=disk, message=message,
                   evidence=evidence, pool=pool)


def _since(track: CounterTrack | None, value: int, now: float | None) -> tuple[str, str]:
    """(the message's clause, the evidence's) about how the counter moved."""
    if track is None or now is None:
        return "", ""
    first = f"first seen {track.first:,} {fmt.duration(now - track.first_seen)} ago"
    if value > track.first:
        grew = (f", last rise found {fmt.duration(now - track.grew_at)} ago"
                if track.grew_at else "")
        return (f", up from {track.first:,} when first seen "
                f"{fmt.duration(now - track.first_seen)} ago", f" ({first}{grew})")
    return "", f" (unchanged since {first})"


def _failed(r: SmartReading, who: str, disk: str, pool: str | None) -> list[Finding]:
    failing = [a for a in r.attributes if a.prefailure and a.failing_now]
    if r.protocol is Protocol.NVME or not (r.passed is False or failing):
        return []
    names = ", ".join(f"{a.name} {a.value} <= {a.thresh}" for a in failing)
    why = ("its own health check says FAILED" if r.passed is False
           else "a prefail attribute is at or below its threshold")
    msg = f"{who}: SMART says the disk is failing ({why}); replace it before it takes data."
    return [_f("smart-failed", C, disk, msg, (f"smart_status.passed={r.passed}",)
               + ((f"failing now: {names}",) if names else ()), pool)]


def _words(key: str, value: int) -> str:
    words = COUNTER_WORDS.get(key, key)
    return words[:-1] if value == 1 and words.endswith("s") else words


def _counters(r: SmartReading, who: str, disk: str, tracks: Tracks, now: float | None,
              pool: str | None) -> list[Finding]:
    parts: list[str] = []
    evidence: list[str] = []
    crc: list[Finding] = []
    for key, value in counters(r).items():
        track = tracks.get(key)
        if value <= 0 and not (track and track.grew):
            continue
        words = _words(key, value)
        since, history = _since(track, value, now)
        evidence.append(f"{key}={value}{history}")
        if key == "ata-199":
            crc.append(_f("smart-crc", W, disk, f"{who} has {value:,} {words}{since}: a cable "
                          "or backplane problem, not the disk; reseat or replace the cable.",
                          (evidence.pop(),), pool))
            continue
        parts.append(f"{value:,} {words}{since}")
    if not parts:
        return crc
    msg = (f"{who} has {'; '.join(parts)}: counters that predict disk failure; plan its "
           "replacement.")
    return [_f("smart-counters", W, disk, msg, tuple(evidence), pool), *crc]


def _temperature(r: SmartReading, who: str, disk: str, pool: str | None) -> list[Finding]:
    t = r.temperature
    hot_bit = r.nvme is not None and bool(r.nvme.critical_warning & 0x02)
    now = f" is at {t.current} °C and" if t is not None else ""
    if t is not None and t.critical is not None and t.current >= t.critical:
        return [_f("smart-temperature", C, disk, f"{who} is at {t.current} °C, at or over its "
                   f"critical limit of {t.critical} °C: it may throttle or shut down; cool it "
                   "now.", (f"critical={t.critical}",), pool)]
    if hot_bit:  # the drive's own judgement against its own threshold
        return [_f("smart-temperature", W, disk, f"{who}{now} reports itself over (or under) "
                   "its temperature threshold: check airflow and fans.",
                   ("critical_warning bit 1",), pool)]
    if t is None:
        return []
    limit, source = t.limit, t.limit_source
    if limit is None:
        limit = DEFAULT_LIMIT_HDD if r.rotation_rate else DEFAULT_LIMIT_SSD
        source = "zconsole's default"
    if t.current < limit:
        return []
    return [_f("smart-temperature", W, disk, f"{who} is at {t.current} °C, at or over its "
               f"limit of {limit} °C ({source}): check airflow and fans.",
               (f"current={t.current}", f"limit={limit} ({source})"), pool)]


def _nvme(r: SmartReading, who: str, disk: str, pool: str | None) -> list[Finding]:
    n = r.nvme
    if n is None:
        return []
    out: list[Finding] = []
    failing = [words for mask, words in zip(
        _NVME_FAILING, ("NVM subsystem reliability degraded", "media placed in read-only mode",
                        "volatile memory backup device failed",
                        "persistent memory region read-only or unreliable"), strict=True)
        if n.critical_warning & mask]
    if failing:
        out.append(_f("smart-nvme-critical", C, disk, f"{who} raises a critical warning: "
                      f"{'; '.join(failing)}; replace it.",
                      (f"critical_warning={n.critical_warning:#04x}",), pool))
    wear: list[str] = []
    if n.percentage_used is not None and n.percentage_used >= WEAR_WARN:
        wear.append(f"{n.percentage_used} % of its rated endurance used")
    spare_low = n.critical_warning & 0x01 or (
        n.available_spare is not None and n.available_spare_threshold is not None
        and n.available_spare < n.available_spare_threshold)
    if spare_low:
        wear.append(f"spare {n.available_spare} % below its threshold of "
                    f"{n.available_spare_threshold} %")
    if wear:
        out.append(_f("smart-wear", W, disk, f"{who} is wearing out: {', '.join(wear)}; order "
                      "a replacement.", tuple(wear), pool))
    return out


def _scsi_wear(r: SmartReading, who: str, disk: str, pool: str | None) -> list[Finding]:
    used = r.scsi.endurance_used if r.scsi else None
    if used is None or used < WEAR_WARN:
        return []
    return [_f("smart-wear", W, disk, f"{who} is wearing out: {used} % of its rated endurance "
               "used; order a replacement.", (f"endurance_used={used}",), pool)]


def _self_tests(r: SmartReading, who: str, disk: str, pool: str | None) -> list[Finding]:
    out: list[Finding] = []
    for kind in dict.fromkeys(t.kind for t in r.self_tests):
        t = r.newest_test(kind)
        if t is None or t.passed is not False:
            continue
        at = f" at {t.hours:,} power-on hours" if t.hours is not None else ""
        lba = f", first bad LBA {t.lba:,}" if t.lba is not None else ""
        out.append(_f("smart-self-test", W, disk, f"{who}: its last {kind} self-test failed"
                      f"{at} ({visible(t.status)}{lba}).", (f"{kind}: {t.status}",), pool))
    return out


def judge_smart(reading: SmartReading, *, disk: str, by_id: str | None = None,
                tracks: Tracks | None = None, now: float | None = None,
                pool: str | None = None) -> tuple[Finding, ...]:
    """The findings of one disk's SMART, worst first. `disk` is the kernel name (the
    finding's subject), `by_id` its stable name, `tracks` its counter history, `pool` the
    pool it serves (if any)."""
    if not reading.read:
        return ()
    who = disk_label(disk, by_id)
    found = [*_failed(reading, who, disk, pool), *_nvme(reading, who, disk, pool),
             *_counters(reading, who, disk, tracks or {}, now, pool),
             *_temperature(reading, who, disk, pool), *_scsi_wear(reading, who, disk, pool),
             *_self_tests(reading, who, disk, pool)]
    return tuple(sorted(found, key=lambda f: -f.severity.rank))


def judge_disks(states: Iterable[DiskSmart], *, now: float,
                pools: Mapping[str, str] | None = None) -> tuple[Finding, ...]:
    """Every disk's SMART findings from a `SmartWatch`'s states, worst first (the session
    joins read and judgement); `pools` maps a disk's kernel name to its pool."""
    out: list[Finding] = []
    for s in states:
        if s.reading is not None:
            out.extend(judge_smart(s.reading, disk=s.disk, by_id=s.by_id, tracks=s.tracks,
                                   now=now, pool=(pools or {}).get(s.disk)))
    return tuple(sorted(out, key=lambda f: -f.severity.rank))


def render_reading(r: SmartReading) -> str:
    """`zconsole parse smartctl`: what an admin reads first, then the findings."""
    if not r.read:
        assert r.unread is not None
        detail = f" ({r.unread_detail})" if r.unread_detail else ""
        return f"{r.device}: {r.unread.words}{detail}\n"
    lines = [f"device: {r.device} ({r.protocol.value if r.protocol else '?'})",
             f"model: {r.model or '-'}  serial: {r.serial or '-'}  firmware: {r.firmware or '-'}",
             f"health: {'PASSED' if r.passed else 'FAILED' if r.passed is False else '-'}"
             f"  power-on hours: {r.power_on_hours if r.power_on_hours is not None else '-'}"]
    if r.temperature:
        limit = f" (limit {r.temperature.limit} °C)" if r.temperature.limit else ""
        lines.append(f"temperature: {r.temperature.current} °C{limit}")
    for key, value in counters(r).items():
        lines.append(f"{COUNTER_WORDS.get(key, key)}: {value:,}")
    if r.nvme is not None:
        lines.append(f"wear: {r.nvme.percentage_used} % used, spare {r.nvme.available_spare} %")
    if r.running:
        lines.append(f"self-test running: {r.running.percent_done} % done")
    for t in r.self_tests[:3]:
        lines.append(f"self-test: {t.kind} {t.status} at {t.hours} h")
    if r.exit_meanings:
        lines.append(f"exit status {r.exit_status}: " + "; ".join(r.exit_meanings))
    for f in judge_smart(r, disk=r.device):
        lines.append(f"{f.severity.symbol} {f.severity.value.upper()}: {f.message}")
    lines.extend(f"(not understood) {d}" for d in r.damaged)
    return "\n".join(lines) + "\n"
