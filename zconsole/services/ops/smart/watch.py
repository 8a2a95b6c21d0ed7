"""What the engine needs to follow a SMART self-test, registered on import: the predicate
kinds (`engine/predicates.py`) and the watch of the activity "self-test"
(`engine/watch.py`).

Every look is one `smartctl --json --all -n standby DEV` (the read the Disks screen
does, `services/read/smart.py`), read once per evaluator round and shared by the
predicates and the watch. A disk that does not answer (asleep, gone, smartctl missing)
is a failed read (`ReadFailed`), never "holds".

Predicate kinds (params; DEV as the plan's command names it):
  smart_idle (device)                 no self-test runs on the disk
  self_test_started (device, test, since_hours, seen)
                                      a test runs, or its result is already in the log
  self_test_logged (device, test, since_hours, seen, minutes)
                                      no test runs and the log holds a new entry of `test`
                                      ("short", "extended")
                                      (more than `seen` entries at or after the power-on
                                      hour `since_hours`): its sentence is the result

"New in the log" is counted, not compared by time: the ATA log keeps power-on hours, not
minutes, and QEMU's emulated disk stamps every entry 4660 h (smart-facts.md §5.2).
"""

from __future__ import annotations

from collections.abc import Callable

from zconsole.hosts.base import HostError
from zconsole.model.plan import Predicate, Wait
from zconsole.model.smart import SelfTest, SmartReading, Unread
from zconsole.parsers.errors import ParseError
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, predicate_kind
from zconsole.services.ops.engine.watch import Look, watch_activity
from zconsole.services.read.smart import smartctl_argv

ACTIVITY = "self-test"
KINDS = ("smart_idle", "self_test_started", "self_test_logged")  # the predicate kinds here
WORDS = {"short": "short", "extended": "long (extended)"}


def read_device(ev: Evaluator, device: str, *, asleep_ok: bool = False) -> SmartReading:
    """The disk's SMART now (once per evaluator round); ReadFailed when it has none (a
    sleeping disk's reading, `unread` ASLEEP, is returned when `asleep_ok`)."""
    from zconsole.parsers.smartctl import parse_smartctl

    def read() -> SmartReading:
        try:
            r = ev.host.run(smartctl_argv(device), timeout=ev.timeout, check=False)
            return parse_smartctl(r.stdout, device)
        except (HostError, ParseError) as e:
            raise ReadFailed(f"SMART of {device} could not be read: {e}") from None

    reading = ev.reading(f"smartctl {device}", read)
    if reading.unread is not None and not (asleep_ok and reading.unread is Unread.ASLEEP):
        raise ReadFailed(f"SMART of {device} could not be read: {reading.unread.words}")
    return reading


ATA_LOG_HOURS = 1 << 16  # the ATA self-test log keeps power-on hours modulo 65536


def _at_or_after(hours: int | None, since: int | None) -> bool:
    if since is None or hours is None:
        return True
    if hours < ATA_LOG_HOURS <= since:  # an old drive's ATA log wrapped
        return hours >= since % ATA_LOG_HOURS
    return hours >= since


def new_entries(reading: SmartReading, kind: str, since_hours: int | None) -> list[SelfTest]:
    """The finished log entries of `kind` at or after `since_hours` (None: every one)."""
    return [t for t in reading.self_tests if t.kind == kind and not t.running
            and _at_or_after(t.hours, since_hours)]


def result_words(t: SelfTest) -> str:
    """"passed" / "FAILED: Completed: read failure at LBA 5,112,093,184" / "ended: ..."."""
    at = f" at LBA {t.lba:,}" if t.lba is not None else ""
    hours = f" (power-on hour {t.hours:,})" if t.hours is not None else ""
    if t.passed:
        return f"passed: {t.status}{hours}"
    if t.passed is False:
        return f"FAILED: {t.status}{at}{hours}"
    return f"ended without a verdict: {t.status}{hours}"


def _since(p: Predicate) -> int | None:
    text = p.param("since_hours")
    return int(text) if text.isdigit() else None


def _running(r: SmartReading) -> str:
    run = r.running
    if run is None:
        return ""
    done = f", {run.percent_done} % done" if run.percent_done is not None else ""
    return f"a {run.kind + ' ' if run.kind else ''}self-test runs{done}"


@predicate_kind("smart_idle")
def smart_idle(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    r = read_device(ev, p.param("device"), asleep_ok=True)
    if r.unread is Unread.ASLEEP:  # a disk in STANDBY runs no self-test (-n standby: unwoken)
        return True, "asleep (STANDBY): no self-test runs"
    running = _running(r)
    return (not running, running or "no self-test runs")


def _where(ev: Evaluator, p: Predicate) -> tuple[str, SelfTest | None]:
    """Where the self-test on the disk stands: the sentence of the one running ("" when none
    runs), and the newest result of `test` the log holds beyond the `seen` entries (None:
    none new)."""
    r = read_device(ev, p.param("device"))
    seen = int(p.param("seen")) if p.param("seen").isdigit() else 0
    new = new_entries(r, p.param("test"), _since(p))
    return _running(r), (new[0] if len(new) > seen else None)


@predicate_kind("self_test_started")
def self_test_started(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    """Holds while a test runs, or once its result is new in the log (a short test can be
    over before the first look)."""
    running, result = _where(ev, p)
    if result is not None and not running:
        return True, f"already over: {result_words(result)}"
    return bool(running), running or "no self-test runs and none new in the log"


@predicate_kind("self_test_logged")
def self_test_logged(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    """Holds once no test runs and the log holds a new result: its sentence is the result."""
    running, result = _where(ev, p)
    if result is None or running:
        return False, running or "no self-test runs and no new result in the log yet"
    kind = WORDS.get(p.param("test"), p.param("test"))
    return True, f"{kind} self-test {result_words(result)}"


@watch_activity(ACTIVITY)
class SelfTestWatch:
    """Follows the self-test on the disk the wait's `until` names (self_test_logged)."""

    def __init__(self, ev: Evaluator, wait: Wait,
                 clock: Callable[[], float] | None = None) -> None:
        self.ev = ev
        self.wait = wait
        self.until = next((p for p in wait.until if p.kind == "self_test_logged"), None)

    def _param(self, key: str, default: str = "") -> str:
        try:
            return self.until.param(key) if self.until is not None else default
        except KeyError:
            return default

    def look(self) -> Look:
        device = self._param("device")
        if not device:
            raise ReadFailed("the wait names no disk to watch")
        r = read_device(self.ev, device)
        run = r.running
        if run is None:
            return Look(False, f"no self-test runs on {device}")
        pct = run.percent_done
        minutes = self._param("minutes")
        eta = None
        if pct is not None and minutes.isdigit() and int(minutes) > 0:
            eta = int(int(minutes) * 60 * (100 - pct) / 100)
        text = f"self-test {pct} % done" if pct is not None else "self-test running"
        # the estimate is zconsole's, from the drive's expected minutes (no tool gives one)
        return Look(True, f"{text} on {device}", text, function="self-test",
                    percent=float(pct) if pct is not None else None, own_eta_s=eta)

    def ended(self) -> dict[str, object]:
        """The result the wait ended on, for its audit record: the disk (device, kernel
        name, model, serial) and the log entry (test, power-on hour, status, first bad LBA),
        read in the round that saw it (the Timeline shows it once with the drive's own log:
        `ref`); {} when no new result is in the log."""
        if self.until is None:
            return {}
        _running, t = _where(self.ev, self.until)
        if t is None:
            return {}
        r = read_device(self.ev, self._param("device"))
        return {"device": self._param("device"), "disk": self._param("disk"),
                "model": r.model or "",
                "serial": r.serial or "", "test": t.kind, "hours": t.hours,
                "status": t.status, "lba": t.lba, "passed": t.passed}

    def hurry(self, timeout: float) -> bool:
        """A simulated host: let the drive's expected time pass (`sleep`, which the demo
        answers by moving its clock)."""
        minutes = self._param("minutes")
        seconds = int(minutes) * 60 + 1 if minutes.isdigit() else 0
        if seconds <= 0:
            return False
        try:
            self.ev.host.run(["sleep", str(seconds)], timeout=max(timeout, seconds + 60.0),
                             check=False)
        except HostError:
            return False
        return True
