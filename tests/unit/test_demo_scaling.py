"""The demo host's own cost grows linearly with the machine it simulates.

Work is counted, not timed: every Python call made inside the demo host's code (its
machine, renderers and tools) while a console session refreshes twice (the first refresh
reads the disk inventory, the second is the steady state). A machine ten times larger may
cost about ten times as much, never a hundred."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from zconsole.hosts.demo import DemoHost
from zconsole.services.session import HostSession

DEMO = "/hosts/demo/"


def demo_calls(scenario: str) -> tuple[int, int]:
    """(calls inside the demo host during two refreshes, size of the machine)."""
    now = [1_800_000_000.0]
    host = DemoHost(scenario, clock=lambda: now[0])
    session = HostSession(host, clock=lambda: now[0], mono=lambda: now[0])
    calls = 0

    def count(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call" and DEMO in frame.f_code.co_filename:
            calls += 1

    sys.setprofile(count)
    try:
        for _ in range(2):
            session.done(session.refresh())
            now[0] += 1.0
    finally:
        sys.setprofile(None)
    m = host.machine
    vdevs = sum(1 for p in m.pools.values() for _ in p.all_vdevs())
    return calls, len(m.disks) + vdevs + len(m.datasets)


def test_demo_work_grows_linearly_with_the_machine() -> None:
    small_work, small_size = demo_calls("healthy")
    big_work, big_size = demo_calls("big100")
    assert big_size > 5 * small_size
    # linear, with a little slack; the walks this replaced (a dataset's children by a scan
    # of every dataset, a disk by any of its names by a scan of every disk, the /sys tree
    # made again for every file read) cost 19x the work for 12x the machine here, and 43x
    # for 9x from big100 to big1000
    assert big_work <= 1.2 * big_size / small_size * small_work, (big_work, small_work)
