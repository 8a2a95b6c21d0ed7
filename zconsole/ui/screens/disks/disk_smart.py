"""The selected disk's SMART in the detail panel: its findings as sentences, then what an
admin reads first (health, temperature against the drive's own limit, the failure counters
with how they moved since zconsole first saw them, NVMe and SCSI figures, the newest
self-tests), or why it was not read. `h` reads the disk now (the watch's `request`).

Pure text from `SmartFollow` (services/smart_follow.py); nothing here reads the host.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from zconsole.model.advice import Mute
from zconsole.model.finding import Finding, Severity
from zconsole.model.smart import COUNTER_WORDS, CounterTrack, SmartReading, counters
from zconsole.services import fmt
from zconsole.services.health.severity import muted_by
from zconsole.services.health.smart import DEFAULT_LIMIT_HDD, DEFAULT_LIMIT_SSD
from zconsole.services.health.smart_words import NOT_YET
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Para, para

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart
    from zconsole.services.smart_follow import SmartFollow

MUTED = LEVEL_STYLE["muted"]
LABEL = 11
SELF_TESTS_SHOWN = 3
RUNNING_REREAD_S = 30.0  # a disk whose self-test runs is read again this often (Disks)
_FINDING_STYLE = {Severity.CRITICAL: "bad", Severity.WARNING: "warn"}


def _labelled(label: str, value: str) -> Para:
    return para(value, Content.styled(f"{label:<{LABEL}}", MUTED))


def _ago(now: float, then: float | None) -> str:
    return f"{fmt.duration(max(0.0, now - then))} ago" if then is not None else "?"


def counter_line(key: str, value: int, track: CounterTrack | None, now: float) -> str:
    """"pending sectors 54 (48 when first seen 2 h ago; last rise 10 min ago)"."""
    words = COUNTER_WORDS.get(key, key)
    if track is None:
        return f"{words} {value:,}"
    first = f"{track.first:,} when first seen {_ago(now, track.first_seen)}"
    if value > track.first:
        rise = f"; last rise {_ago(now, track.grew_at)}" if track.grew_at else ""
        return f"{words} {value:,} ({first}{rise})"
    return f"{words} {value:,} (unchanged since first seen {_ago(now, track.first_seen)})"


def _figures(r: SmartReading) -> list[tuple[str, str]]:
    """(label, value): health, temperature, NVMe and SCSI figures."""
    health = "PASSED" if r.passed else "FAILED" if r.passed is False else "no verdict"
    head = f"{r.protocol.value if r.protocol else '?'}, health {health}"
    if r.power_on_hours is not None:
        head += f", {r.power_on_hours:,} power-on hours"
    lines = [("SMART", head)]
    t = r.temperature
    if t is not None:
        default = DEFAULT_LIMIT_HDD if r.rotation_rate else DEFAULT_LIMIT_SSD
        limit = (f" (limit {t.limit} °C, {t.limit_source or 'the drive'}'s)"
                 if t.limit is not None
                 else f" (the drive gives no limit: zconsole warns at {default} °C)")
        crit = f", critical {t.critical} °C" if t.critical is not None else ""
        lines.append(("temp", f"{t.current} °C{limit}{crit}"))
    n = r.nvme
    if n is not None:
        spare = (f"spare {n.available_spare} % (threshold {n.available_spare_threshold} %)"
                 if n.available_spare is not None else "spare -")
        used = f"{n.percentage_used} %" if n.percentage_used is not None else "-"
        lines.append(("wear", f"{used} of rated endurance used, {spare}"))
        lines.append(("", f"critical_warning {n.critical_warning:#04x}"
                          + (f" ({'; '.join(n.warnings)})" if n.warnings else "")
                          + (f", {n.unsafe_shutdowns:,} unsafe shutdowns"
                             if n.unsafe_shutdowns is not None else "")))
    s = r.scsi
    if s is not None and s.endurance_used is not None:
        lines.append(("wear", f"{s.endurance_used} % of rated endurance used"))
    return lines


def _tests(r: SmartReading) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    if r.running is not None:
        done = (f"{r.running.percent_done} % done" if r.running.percent_done is not None
                else "running")
        kind = f"{r.running.kind} test, " if r.running.kind else ""
        lines.append(("self-test", f"{done} ({kind}running in the drive; read again every "
                                   f"{RUNNING_REREAD_S:.0f} s)"))
    for t in r.self_tests[:SELF_TESTS_SHOWN]:
        at = f" at {t.hours:,} h" if t.hours is not None else ""
        lba = f", first bad LBA {t.lba:,}" if t.lba is not None else ""
        lines.append(("self-test" if not lines else "", f"{t.kind}: {t.status}{at}{lba}"))
    if not lines:
        lines.append(("self-test", "none in the log"))
    return lines


def reread_due(follow: SmartFollow | None, disk: str, now: float) -> bool:
    """Whether `disk`'s last reading shows a self-test running and is `RUNNING_REREAD_S`
    old: the Disks screen then asks for it again (its progress moves on the screen)."""
    state = follow.state(disk) if follow is not None else None
    if follow is None or state is None or state.reading is None or follow.asked(disk):
        return False
    return state.reading.running is not None and \
        now - (state.read_at or 0.0) >= RUNNING_REREAD_S


def reading_lines(s: DiskSmart, now: float) -> list[tuple[str, str]]:
    """(label, value) lines of a disk the watch read."""
    r = s.reading
    assert r is not None
    lines = _figures(r)
    lines[0] = ("SMART", f"{lines[0][1]}; read {_ago(now, s.read_at)} (h: read again)")
    if s.unread is not None and s.unread.unread is not None:
        lines.insert(1, ("", f"since: {s.unread.unread.words}"))
    if s.error:
        lines.insert(1, ("", f"since: {s.words}"))
    said: list[str] = []
    zero: list[str] = []
    for key, value in counters(r).items():
        track = s.tracks.get(key)
        if value == 0 and not (track and track.grew):
            zero.append(COUNTER_WORDS.get(key, key))
        else:
            said.append(counter_line(key, value, track, now))
    if zero:
        said.append("none: " + ", ".join(zero))
    lines.extend(("counters" if i == 0 else "", line) for i, line in enumerate(said))
    return [*lines, *_tests(r)]


def smart_items(follow: SmartFollow | None, disk: str, now: float,
                mutes: Sequence[Mute] = ()) -> list[Content | Para]:
    """The SMART part of the detail panel of `disk`: a finding the operator muted stays,
    dimmed, with their reason."""
    if follow is None:
        return [_labelled("SMART", NOT_YET)]
    state = follow.state(disk)
    findings: tuple[Finding, ...] = follow.of_disk(disk)
    items: list[Content | Para] = []
    for f in findings:
        mute = muted_by(f, mutes)
        if mute is not None:
            items.append(para(f"{f.message} Muted: {mute.reason}", "· ", MUTED))
            continue
        style = LEVEL_STYLE[_FINDING_STYLE.get(f.severity, "warn")]
        items.append(para(f.message, f"{f.severity.symbol} ", f"{style} bold"))
    if follow.asked(disk) or (follow.pending and state is None):
        items.append(_labelled("SMART", "reading…"))
    elif state is None:
        items.append(_labelled("SMART", f"{NOT_YET} (h: read it now)"))
    elif state.reading is None:
        detail = state.unread.unread_detail if state.unread is not None else ""
        items.append(_labelled("SMART", state.words + (f" ({detail})" if detail else "")))
    else:
        items.extend(_labelled(label, value) for label, value in reading_lines(state, now))
    if follow.error:
        items.append(_labelled("", f"the last SMART poll failed: {follow.error}"))
    return items
