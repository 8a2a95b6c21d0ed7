"""SMART in the replace plans (issue 30): the new disk is asked before anything is written
to it, and the failing disk's SMART is shown as evidence.

The new disk (`smart_check`, check name `smart`, appended by `new_disk.check_new_disk` when
the plan read it): one `smartctl --json --all -n standby` at plan time, through
`services.read.smart.read_smart` (the operator asked for this plan; `-n standby` still never
wakes a sleeping disk). Judged by `services.health.smart.judge_smart`, the console's one
judgement, and read as a careful admin reads a disk about to receive a pool's copy:

* the drive says it is failing (overall health FAILED, a prefail attribute at or below its
  threshold now, an NVMe critical warning: reliability degraded, read-only media, backup
  or persistent memory failed): BLOCK, never overridden. The resilver would read every
  block of the members that still hold a copy, to fill a disk whose own firmware says it
  will fail; the pool would then count a copy it cannot trust. zpool's `-f` overrides a
  label, not a disk's health, so there is nothing honest to force: take another disk;
* reallocated, pending, offline-uncorrectable (and reported-uncorrectable, timeouts) above
  zero, a failed self-test in the log, NVMe media errors, worn out or spare below its
  threshold: WARN, shown loudly and acknowledged like the other warnings (the operator
  goes on knowing it: a disk with a few reallocated sectors can still serve, and on a
  degraded pool any copy may be better than none);
* no SMART readable (asleep, virtio, smartctl missing, not root, a read that failed):
  a NOTE, never a block: zconsole says it could not check;
* CRC errors and temperature are the link and the room, not the disk: a NOTE.

Right before the step that writes to the disk, `new_disk_still_fit` reads its SMART again
(`with_smart` adds `smart=yes` and what the preview showed, `smart_seen`): anything the
preview did not show (a counter that grew, a self-test that failed since) stops the run
before ZFS is asked, and the operator previews again.

The failing disk (`evidence`, check name `smart-evidence`, a NOTE): one or two lines an
admin would write ("sdb: 48 pending sectors (up from 8 in 2 h); 24 reallocated sectors;
its last extended self-test failed; SMART overall PASSED"). The wizard gives the console's
own reading with its history (`smart_words`); the CLI reads it once at plan time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel, Plan, Predicate
from zconsole.model.reading import HostReading
from zconsole.model.smart import COUNTER_WORDS, CounterTrack, SmartReading, counters
from zconsole.parsers.errors import ParseError
from zconsole.services import fmt
from zconsole.services.health.smart import judge_smart
from zconsole.services.health.smart_words import SHORT_COUNTERS
from zconsole.services.ops.zfs.guards import HEALTHY_TARGET
from zconsole.services.read.identity import DiskIndex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart

SMART = "smart"  # the new disk's SMART (new_disk.check_new_disk)
SMART_EVIDENCE = "smart-evidence"  # the failing disk's SMART, a NOTE
SMART_FAILING = "smart-evidence-failing"  # the same, when SMART says the disk is failing
PLAN_READ_TIMEOUT_S = 20.0  # one disk, at plan time: a dying disk may answer slowly

BLOCK_KINDS = ("smart-failed", "smart-nvme-critical")
WARN_KINDS = ("smart-counters", "smart-self-test", "smart-wear")
NOTE_KINDS = ("smart-crc", "smart-temperature")


@dataclass(frozen=True)
class SmartLook:
    """One disk's SMART as a plan saw it: the reading (read or why not), or the error of a
    read that failed."""

    disk: str  # the whole disk's kernel name
    reading: SmartReading | None
    error: str = ""


def whole_disk(reading: HostReading, ref: str) -> Disk | None:
    inv = reading.disks.value if reading.disks.ok else None
    return DiskIndex(inv.devices).whole(ref) if inv is not None else None


def look(host: Host, disk: Disk, *, timeout: float = PLAN_READ_TIMEOUT_S) -> SmartLook:
    """Read one whole disk's SMART once (`-n standby`: a sleeping disk stays asleep)."""
    from zconsole.services.read.smart import read_smart

    try:
        return SmartLook(disk.name, read_smart(host, disk, timeout=timeout))
    except (HostError, ParseError) as e:
        return SmartLook(disk.name, None, str(e).strip()[:200] or type(e).__name__)


def look_at(host: Host, reading: HostReading, ref: str | None, *,
            timeout: float = PLAN_READ_TIMEOUT_S) -> SmartLook | None:
    """The SMART of the whole disk `ref` names, read now; None when no such disk is seen
    (the plan's other checks say so)."""
    disk = whole_disk(reading, ref) if ref else None
    if disk is None or disk.kind != "disk":
        return None
    return look(host, disk, timeout=timeout)


def looks(host: Host, reading: HostReading, refs: Sequence[str]) -> dict[str, SmartLook | None]:
    """`look_at` for each new disk a plan names, by the name it gives."""
    return {ref: look_at(host, reading, ref) for ref in dict.fromkeys(refs)}


# ------------------------------------------------------------------------- the new disk


def _findings(lk: SmartLook, by_id: str | None) -> tuple[Finding, ...]:
    r = lk.reading
    return judge_smart(r, disk=lk.disk, by_id=by_id) if r is not None and r.read else ()


def seen(lk: SmartLook | None) -> tuple[str, ...]:
    """What a plan's operator acknowledged of a disk's SMART: each warning's evidence
    ("ata-197=8", "extended: Completed: read failure"), sorted."""
    if lk is None:
        return ()
    out = {f"{f.kind}:{e}" for f in _findings(lk, None) if f.kind in WARN_KINDS
           for e in f.evidence}
    return tuple(sorted(out))


def _unread_words(lk: SmartLook) -> str:
    if lk.error:
        return f"could not be read ({lk.error})"
    r = lk.reading
    if r is not None and r.unread is not None:
        return r.unread.words + (f" ({r.unread_detail})" if r.unread_detail
                                 and r.unread.words == "no SMART" else "")
    return "not read"


def _health(r: SmartReading) -> str:
    if r.passed is None:
        return "no overall health result"
    return "SMART overall PASSED" if r.passed else "SMART overall FAILED"


def smart_check(lk: SmartLook | None, me: str, by_id: str | None = None) -> Check:
    """The new disk's SMART as a plan-time check (see the module's docstring)."""
    if lk is None:
        return Check(SMART, False, CheckLevel.INFO,
                     f"The SMART of {me} was not read: zconsole could not find the disk.")
    r = lk.reading
    if r is None or not r.read:
        return Check(SMART, False, CheckLevel.INFO,
                     f"SMART of {me}: {_unread_words(lk)}; zconsole could not check the "
                     "disk's own health (reallocated or pending sectors, self-tests).")
    found = _findings(lk, by_id)
    said = f"SMART of {me}: {smart_words(r)}."
    block = [f for f in found if f.kind in BLOCK_KINDS]
    if block:
        return Check(SMART, False, CheckLevel.BLOCK,
                     f"{block[0].message} zconsole never puts a pool's copy on a disk that "
                     "says it is failing: the resilver would read every block of the members "
                     "that still hold one, to fill a disk that may die before it ends, and "
                     f"-f cannot override a disk's health. Use another disk. ({said})")
    if any(f.kind in WARN_KINDS for f in found):
        return Check(SMART, False, CheckLevel.WARN,
                     f"{said} A new disk should have none, and the resilver writes every "
                     "block of the vdev onto it: return it, or run a long self-test "
                     "(smartctl -t long) first.")
    if any(f.kind in NOTE_KINDS for f in found):  # the link (CRC) or the room (heat)
        hot = " ".join(f.message for f in found if f.kind == "smart-temperature")
        return Check(SMART, False, CheckLevel.INFO, f"{said} {hot}".rstrip())
    return Check(SMART, True, CheckLevel.INFO,
                 f"SMART of {me}: {_health(r)}, no reallocated, pending or uncorrectable "
                 "sectors, no failed self-test.")


def with_smart(fit: Predicate | None, lk: SmartLook | None) -> Predicate | None:
    """`still_fit`'s pre-check that also reads the disk's SMART again right before the
    write, knowing what the preview showed (`smart_seen`)."""
    if fit is None or lk is None:
        return fit
    params = dict(fit.params)
    params.update(smart="yes", smart_seen="\n".join(seen(lk)))
    return Predicate(fit.kind, tuple(sorted(params.items())),
                     fit.description + ", its SMART no worse than in the preview")


def news(lk: SmartLook, params: Mapping[str, str]) -> str:
    """What the disk's SMART shows now that the preview did not ("" when nothing): the
    reason the run stops before writing."""
    before = set(filter(None, params.get("smart_seen", "").split("\n")))
    now = set(seen(lk))
    if now <= before:
        return ""
    check = smart_check(lk, lk.disk)
    return f"SMART changed since the preview: {check.detail}"


# --------------------------------------------------------------------- the failing disk


def _counter_words(key: str, value: int) -> str:
    words = COUNTER_WORDS.get(key, key)
    return f"{value:,} {words[:-1] if value == 1 and words.endswith('s') else words}"


def _grew(track: CounterTrack | None, value: int, now: float | None) -> str:
    if track is None or now is None or value <= track.first:
        return ""
    return f" (up from {track.first:,} in {fmt.duration(now - track.first_seen)})"


def smart_words(r: SmartReading, tracks: Mapping[str, CounterTrack] | None = None,
                now: float | None = None) -> str:
    """A read disk's SMART as an admin writes it in a ticket: the failure counters (the
    first with its history), failed self-tests, wear and critical warnings, the overall
    health."""
    parts: list[str] = []
    found = counters(r)
    for key, _short in SHORT_COUNTERS:
        value = found.get(key, 0)
        if value > 0:
            parts.append(_counter_words(key, value) + _grew((tracks or {}).get(key), value,
                                                            now))
    if found.get("ata-199", 0) > 0:
        parts.append(_counter_words("ata-199", found["ata-199"]) + " (the link, not the disk)")
    for kind in dict.fromkeys(t.kind for t in r.self_tests):
        t = r.newest_test(kind)
        if t is not None and t.passed is False:
            parts.append(f"{kind} self-test failed ({t.status})")
    if r.nvme is not None:
        parts.extend(r.nvme.warnings)
        if r.nvme.percentage_used is not None and r.nvme.percentage_used >= 90:
            parts.append(f"{r.nvme.percentage_used} % of its rated endurance used")
    if not parts:
        parts.append("no failure counter above zero, no failed self-test")
    parts.append(_health(r))
    return "; ".join(parts)


def failing(r: SmartReading | None) -> bool:
    """The disk's SMART itself says it is failing or about to: a finding that blocks or
    warns on a new disk (not CRC errors, not heat)."""
    if r is None or not r.read:
        return False
    return any(f.kind in BLOCK_KINDS + WARN_KINDS for f in judge_smart(r, disk=r.device))


def evidence(who: str, lk: SmartLook | None, *, words: str | None = None,
             bad: bool = False) -> Check:
    """The failing disk's SMART as a NOTE: `words` (what the console already knows, with
    history; `bad`: its SMART says failing), else from `lk` (read at plan time), else why
    there is none. Its name says whether SMART shows the disk failing."""
    if words is None:
        if lk is None:
            words = "no block device to read (the disk is not seen by the host)"
        elif lk.reading is not None and lk.reading.read:
            words, bad = smart_words(lk.reading), failing(lk.reading)
        else:
            words = _unread_words(lk)
    return Check(SMART_FAILING if bad else SMART_EVIDENCE, False, CheckLevel.INFO,
                 f"SMART of {who}: {words}.")


def state_words(state: DiskSmart | None, now: float) -> tuple[str, bool] | None:
    """What the console's SMART watch knows of a disk, in `evidence`'s words (its last
    reading with the counters' history, else why there is none), and whether that reading
    says the disk is failing; None when the watch has not tried it yet (the plan then reads
    it once itself)."""
    if state is None or state.tried_at is None:
        return None
    if state.reading is not None:
        age = now - state.read_at if state.read_at is not None else 0.0
        when = f" (read {fmt.duration(age)} ago)" if age >= 60 else ""
        return (smart_words(state.reading, state.tracks, now) + when,
                failing(state.reading))
    return (state.words or "not read yet").rstrip("."), False


def old_evidence(host: Host | None, reading: HostReading, pool: str, old: str, *,
                 words: str | None = None, bad: bool = False) -> Check | None:
    """The failing leaf `old`'s SMART as a NOTE: `words` (and `bad`) when the console gave
    them, else read now through `host` (None: the leaf is not in the pool)."""
    entry = reading.pool(pool)
    leaf = entry.status.find(old) if entry is not None and entry.status is not None else None
    if leaf is None or leaf.children:
        return None
    inv = reading.disks.value if reading.disks.ok else None
    disk = DiskIndex(inv.devices).leaf_disk(leaf) if inv is not None else None
    who = disk.name if disk is not None else old
    if words is not None:
        return evidence(who, None, words=words, bad=bad)
    lk = look(host, disk) if host is not None and disk is not None and disk.kind == "disk" \
        else None
    return evidence(who, lk)


def add_evidence(plan: Plan, ev: Check | None) -> Plan:
    """`plan` with the failing disk's SMART beside the check on the disk itself (the first
    thing an admin weighs). When that check warns the disk looks healthy (no ZFS error, not
    slow) but its SMART says it is failing, SMART is the reason it is failing: the two become
    one passed check."""
    if ev is None:
        return plan
    checks = list(plan.checks)
    at = next((i for i, c in enumerate(checks) if c.name == HEALTHY_TARGET), None)
    if at is None:
        return dataclasses.replace(plan, checks=(ev, *checks))
    target = checks[at]
    if ev.name == SMART_FAILING and not target.passed and target.level is CheckLevel.WARN:
        leaf = plan.params and dict(plan.params).get("old") or "the disk"
        words = ev.detail.split(": ", 1)[-1]
        checks[at] = Check(HEALTHY_TARGET, True, CheckLevel.INFO,
                           f"{leaf} is failing by its own SMART, though ZFS counts no error "
                           f"yet: {words}")
    else:
        checks.insert(at + 1, ev)
    return dataclasses.replace(plan, checks=tuple(checks))
