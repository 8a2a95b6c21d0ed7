"""A refresh worker and the UI thread racing over a shared container, for the race tests
(test_sampling_race.py, test_shared_containers_race.py): a feeder and a reader thread, a
fixed number of iterations (never a time), the interpreter switching threads as often as it
can (`switch_often`)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import pytest

FEED_CAP = 10**7  # a feeder that feeds until the reader is done stops here at the latest


@pytest.fixture
def switch_often() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def run_both(feed: Callable[[int], None], read: Callable[[int], object], reads: int,
             feeds: int | None = None) -> tuple[list[BaseException], int]:
    """The feeder calls `feed(i)` `feeds` times, or until the reader is done when None (a
    read that costs much more than a feed would otherwise outlast the feeder); the reader
    calls `read(i)` `reads` times. Both start together. Returns the errors raised in either
    thread and how many feeds were done."""
    errors: list[BaseException] = []
    started = threading.Barrier(2)
    read_all = threading.Event()
    fed = [0]
    cap = FEED_CAP if feeds is None else feeds

    def feeder() -> None:
        started.wait()
        try:
            while fed[0] < cap and (feeds is not None or not read_all.is_set()):
                feed(fed[0])
                fed[0] += 1
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def reader() -> None:
        started.wait()
        try:
            for i in range(reads):
                read(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            read_all.set()

    threads = [threading.Thread(target=feeder), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors, fed[0]
