"""The refresh worker feeds the Sampler while the UI thread draws sparklines from it (issue 27
item 1: `RuntimeError: deque mutated during iteration` killed the console). A feeder and a
reader thread, a fixed number of samples each (never a time), the interpreter switching
threads as often as it can: the reader never sees a history being changed under it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.unit import races
from tests.unit.races import switch_often  # noqa: F401 - the fixture
from tests.unit.test_services_fakehost import fixture
from tests.unit.test_services_sampling import DS2
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.parsers.diskstats import parse_diskstats
from zconsole.services.read.sampling import Sampler, leaf_samples

SAMPLES = 10000  # the feeder's; the reader reads as many times
DISKS = ("vdb", "vdc", "vdd", "vde", "vdf", "vdg")


def run_both(feed: Callable[[int], None], read: Callable[[], object]) -> list[BaseException]:
    """SAMPLES feeds and as many reads."""
    errors, _fed = races.run_both(feed, lambda _i: read(), reads=SAMPLES, feeds=SAMPLES)
    return errors


@pytest.mark.usefixtures("switch_often")
def test_sparklines_drawn_while_the_worker_samples() -> None:
    base = [s for s in parse_diskstats(DS2) if s.name in DISKS]
    sampler = Sampler(history=60)

    def feed(i: int) -> None:
        # counters that only grow: every sample adds one interval to each disk's history
        sampler.add_diskstats([s._replace(reads=s.reads + 10 * i, ms_io=s.ms_io + 5 * i)
                               for s in base], 100.0 + i)

    def read() -> object:
        return [sampler.series(d, "util_pct") for d in sampler.disks()]  # the Disks screen

    assert run_both(feed, read) == []
    assert sampler.disks() == DISKS
    assert len(sampler.series("vdb", "util_pct")) == 60  # the history is bounded, and full
    assert len(sampler.history("vdg")) == 60


@pytest.mark.usefixtures("switch_often")
def test_arc_and_leaf_histories_read_while_fed() -> None:
    """The ARC screen's history and the slow-disk samples, the same way."""
    arc = parse_arcstats(fixture("arcstats/2.3.2-head3-plus-grep-excerpt.txt"))
    sampler = Sampler(history=30)

    def feed(i: int) -> None:
        sampler.add_arcstats(arc, 10.0 + i)
        sampler.add_leaf_sample(leaf_samples((), None, {}, None))

    def read() -> object:
        return (sum(d.interval_s for d in sampler.arc_history), len(sampler.leaf_history))

    assert run_both(feed, read) == []
    assert len(sampler.arc_history) == 30 and len(sampler.leaf_history) == 30
