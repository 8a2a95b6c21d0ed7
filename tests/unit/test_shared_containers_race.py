"""Containers the refresh worker writes while the UI thread reads them (issue 27 item 1: "look
for the same pattern everywhere a worker and the UI share a container"). Each test runs a
feeder and a reader thread for a fixed number of iterations (never a time), with the
interpreter switching threads as often as it can, as `test_sampling_race.py` does.

Audited and found safe without a change:
- `StateWatch.entries`: a tuple, replaced by one assignment under the watch's lock.
- `ScanTracker`, `ParseMemo`, the session's roles and DiskIndex: only the refresh worker
  touches them (a session runs one refresh at a time, `HostSession.begin`); the screens get
  their immutable results (`Refresh.scan_estimates`, frozen models).
- `Flights._flying`: under its lock; a flight's Part is set before its Event.
- `HostSession.last`, `.started`, `.refreshes`: assigned on the UI thread only (`done`,
  `progress`, `failed`), each an immutable `Refresh` swapped by one assignment.
- The plan runner's outcomes: the worker's own list, made from a copy the wizard hands it;
  the wizard gets frozen events (`engine/events.py`) and a `RunResult` holding a tuple.
- The audit log's readers (`AuditLog.records`): the whole file read at once, a torn last
  line skipped; the writers append whole lines under `flock`.
- The Fleet rows: made on the UI thread from each member's `HostSession.last`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.unit import races
from tests.unit.races import switch_often  # noqa: F401 - the fixture
from tests.unit.test_services_fakehost import fixture
from zconsole.model.arc import ArcStats
from zconsole.model.reading import Part
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.services.health import arc as arc_health
from zconsole.services.read.arc import ArcWatch

STATS = parse_arcstats(fixture("arcstats/2.3.2-head3-plus-grep-excerpt.txt"))


READS = 8000  # the reader's; the feeder feeds for as long as the reader reads


def run_both(feed: Callable[[int], None], read: Callable[[int], object]
             ) -> tuple[list[BaseException], int]:
    """The reader does READS reads (a report costs some 60 observations, so a fixed count
    for the feeder would end long before the reader's); the feeder feeds until the reader
    is done. Returns the errors and how many were fed."""
    return races.run_both(feed, read, reads=READS)


def part(i: int) -> Part[ArcStats]:
    return Part(STATS, 1000.0 + i, "/proc/spl/kstat/zfs/arcstats")


@pytest.mark.usefixtures("switch_often")
def test_the_arc_screen_never_pairs_a_reading_with_itself() -> None:
    """The ARC screen's report read `latest`, then `previous`: a refresh landing between the
    two made `previous` the reading just taken as `latest`, an interval of 0 s."""
    watch = ArcWatch()
    seconds: list[float] = []

    def read(_i: int) -> object:
        r = arc_health.report(watch, None, (), now=5000.0, refresh_interval=5.0)
        if r.detail is not None and r.detail.seconds is not None:
            seconds.append(r.detail.seconds)
        return r

    errors, fed = run_both(lambda i: watch.observe(part(i)), read)
    assert errors == []
    assert seconds, "the reader never saw two readings"
    assert min(seconds) == max(seconds) == 1.0  # one second between two consecutive ones
    assert watch.latest is not None and watch.latest.taken_at == 1000.0 + fed - 1


@pytest.mark.usefixtures("switch_often")
def test_the_worker_and_the_arc_screen_observe_the_same_reading() -> None:
    """Both the refresh worker (`HostSession._judge`) and the ARC screen (`report`) observe
    the reading's arcstats part: checked and appended apart, both appended it."""
    watch = ArcWatch()
    seconds: list[float] = []

    current = [0]  # the reading the worker is observing now

    def read_and_observe(_i: int) -> None:
        # the screen is handed the reading the worker is observing (an early result)
        r = arc_health.report(watch, part(current[0]), (), now=5000.0, refresh_interval=5.0)
        if r.detail is not None and r.detail.seconds is not None:
            seconds.append(r.detail.seconds)

    def observe(i: int) -> None:
        current[0] = i
        watch.observe(part(i))

    errors, _fed = run_both(observe, read_and_observe)
    assert errors == []
    assert seconds and min(seconds) > 0  # never the same reading twice
    latest, previous = watch.last_two()
    assert latest is not None and previous is not None
    assert latest.taken_at > previous.taken_at
