"""The per-sample worst-latency cache is one per process, shared by every host's refresh
thread (`check --hosts`, Fleet, the exporter). Two threads evicting its oldest entry at once
once raised KeyError in one of them, and `check --hosts` called that host UNKNOWN
("refresh failed: KeyError: 140553364051584"; CI of stop 40)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from zconsole.services.read.pools import _WorstOf
from zconsole.services.read.sampling import Figures, LeafSample, Sample


@pytest.fixture
def switch_often() -> Iterator[None]:
    """Threads switch every microsecond, so the eviction of one and the insertion of
    another interleave many times in a short run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _sample(ms: float) -> Sample:
    return {("tank", ("mirror-0", "sda")): LeafSample(zfs=Figures(ms, 1.0, None, 0.0))}


def test_many_threads_share_the_cache_without_error(switch_often: None) -> None:
    cache = _WorstOf(keep=2)
    errors: list[BaseException] = []
    results: list[bool] = []
    start = threading.Barrier(8)

    def run(n: int) -> None:
        start.wait()
        try:
            for i in range(3_000):
                ms = float(n * 10_000 + i)
                got = cache(_sample(ms))
                results.append(got == {("tank", ("mirror-0", "sda")): ms})
        except BaseException as e:  # noqa: BLE001 - the test reports what a thread raised
            errors.append(e)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 8 * 3_000 and all(results)
    assert len(cache._by_id) <= cache.keep


def test_a_kept_sample_is_worked_out_once() -> None:
    cache = _WorstOf(keep=4)
    s = _sample(7.0)
    first = cache(s)
    assert cache(s) is first
