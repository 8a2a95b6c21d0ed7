"""A demo disk's SMART self-test: `smartctl -t short|long` starts one, it runs on the demo
clock, and when its time is up its result goes to the top of the self-test log.

How long: the drive's own polling minutes (the figure `smartctl -c` prints and
`tools/smart.py` writes as `polling_minutes`): a short test takes 1 (SSD) or 2 (HDD)
minutes of demo time, watchable in a rehearsal; an extended one its minutes divided by the
machine's pace (a rehearsal's 555-minute HDD test takes about 9 minutes), as a resilver is.

The result, as a real drive's: a disk with pending sectors (the showcase's dying disk, sdb)
fails with "Completed: read failure" at its first unreadable LBA, 60 % of the test left
(ATA status 0x76); every other disk passes ("Completed without error", status 0x00).
While a test runs, the drive's self-test execution status is 0xF0 plus the tenths left
(ATA: the high nibble 15 is "in progress", smart-facts.md §1.2). `smartctl -X` aborts it
("Aborted by host", status 0x10).
"""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.hosts.demo.machine.smart import LoggedTest, SmartState

KINDS = {"short": 1, "long": 2}  # `-t` word -> ATA test type (log entry type)
FIRST_BAD_LBA = 5_112_093_184  # the dying disk's first unreadable sector
READ_FAILURE = 0x76  # status 7 (read failure), 60 % of the test left


def polling_minutes(rotational: bool) -> dict[str, int]:
    """The drive's expected minutes per test kind (`polling_minutes` in smartctl's JSON)."""
    return {"short": 2, "extended": 555} if rotational else {"short": 1, "extended": 2}


@dataclass
class RunningTest:
    kind: int  # 1 short, 2 extended
    started: float  # demo time
    seconds: float  # how long it runs

    def left(self, now: float) -> float:
        """The share of the test still to run, 0.0 - 1.0."""
        if self.seconds <= 0:
            return 0.0
        return max(0.0, min(1.0, 1.0 - (now - self.started) / self.seconds))

    def status(self, now: float) -> int:
        """The ATA self-test execution status byte: 0xF0 + tenths left (at least 1)."""
        return 0xF0 | max(1, min(9, int(self.left(now) * 10 + 0.999)))


def settle(st: SmartState, now: float) -> None:
    """Log the running test's result if its time is up."""
    run = st.running
    if run is None or now < run.started + run.seconds:
        return
    end = run.started + run.seconds
    failed = st.pending_at(end) > 0
    st.tests.insert(0, LoggedTest(run.kind, READ_FAILURE if failed else 0, 0,
                                  lba=FIRST_BAD_LBA if failed else None,
                                  at_hours=st.hours_at(end)))
    del st.tests[21:]  # the ATA self-test log holds 21 entries
    st.running = None


def start(st: SmartState, word: str, now: float, *, rotational: bool, pace: float) -> float:
    """Start a test (`-t short|long`); the minutes the drive says it takes."""
    minutes = polling_minutes(rotational)["short" if word == "short" else "extended"]
    seconds = minutes * 60.0 if word == "short" else minutes * 60.0 / max(1.0, pace)
    st.running = RunningTest(KINDS[word], now, seconds)
    return minutes


def abort(st: SmartState, now: float) -> bool:
    """`-X`: the running test ends "Aborted by host" (False: none ran)."""
    run = st.running
    if run is None:
        return False
    st.tests.insert(0, LoggedTest(run.kind, 0x10, 0, at_hours=st.hours_at(now)))
    del st.tests[21:]
    st.running = None
    return True
