"""HostSession: each read independent (a hung one delays nothing and is said), each source
read once per refresh, static facts kept until the block devices change or the operator asks.
Everything here is behaviour: events decide the order, nothing waits on a clock."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from tests.fakes import DelegatingHost
from zconsole.hosts.base import DEFAULT_TIMEOUT, Result
from zconsole.hosts.demo import DemoHost
from zconsole.model.reading import PENDING
from zconsole.services.read.flights import NO_ANSWER
from zconsole.services.session import HostSession, Refresh


class HangingIostat(DelegatingHost):
    """`zpool iostat` blocks until `release` is set; counts how often each program ran."""

    def __init__(self) -> None:
        super().__init__(DemoHost("degraded", clock=lambda: 1795302010.0, seed=0))
        self.release = threading.Event()
        self.calls: list[tuple[str, ...]] = []
        self.lock = threading.Lock()

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        with self.lock:
            self.calls.append(tuple(argv[:2]))
        if tuple(argv[:2]) == ("zpool", "iostat"):
            self.release.wait(60)
        with self.lock:  # the demo machine answers one command at a time
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)

    def count(self, *prefix: str) -> int:
        return sum(1 for c in self.calls if c[:len(prefix)] == prefix)


def test_a_hung_iostat_does_not_hold_back_the_pools() -> None:
    host = HangingIostat()
    session = HostSession(host, timeout=0.5, parallel=True)
    early: list[Refresh] = []
    try:
        result = session.refresh(on_progress=early.append)
    finally:
        host.release.set()
    # the pools came early, from this refresh's own zpool status
    assert early and not early[0].complete
    assert early[0].reading.pool_status.ok
    assert {p.name for p in early[0].reading.pool_status.value or ()} == {"tank"}
    assert early[0].reading.datasets.pending or early[0].reading.datasets.ok
    # the refresh ended without the sample, which is said as such
    assert result.complete and result.reading.pool_status.ok
    assert result.sample is not None and any("no answer for" in e for e in result.sample.errors)


def test_a_read_that_still_hangs_is_not_started_again() -> None:
    host = HangingIostat()
    session = HostSession(host, timeout=0.3, parallel=True)
    try:
        session.refresh()
        second = session.refresh()
        assert host.count("zpool", "iostat") == 1  # the first one is still hanging
        assert host.count("zpool", "status") == 2
        assert second.reading.pool_status.ok
        assert second.sample is not None
        assert any("no answer for" in e for e in second.sample.errors)
    finally:
        host.release.set()


def test_the_hung_read_is_reported_with_its_own_part() -> None:
    from zconsole.model.reading import Part
    from zconsole.services.read.flights import Flights

    gate = threading.Event()
    flights = Flights(parallel=True)
    try:
        parts = flights.run({"fast": lambda: Part(1, 10.0, "fast"),
                             "stuck": lambda: (gate.wait(60), Part(2, 11.0, "stuck"))[1]},
                            deadline=0.2, now=lambda: 99.0, source={"stuck": "zpool status"})
    finally:
        gate.set()
    assert parts["fast"].value == 1
    stuck = parts["stuck"]
    assert stuck.value is None and stuck.error_type == NO_ANSWER
    assert stuck.source == "zpool status" and stuck.error.startswith("no answer for")


class Broken(DelegatingHost):
    """`zpool list` output that breaks a parser in a way nobody expected."""

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if tuple(argv[:2]) == ("zpool", "list"):
            return Result(tuple(argv), 0, "tank\t" + "9" * 500 + "\t1\n", "", 0.0)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


@pytest.mark.parametrize("parallel", [False, True])
def test_an_unreadable_part_fails_alone(parallel: bool) -> None:
    host = Broken(DemoHost("degraded", clock=lambda: 1795302010.0, seed=0))
    r = HostSession(host, parallel=parallel).refresh()
    assert not r.reading.pool_usage.ok and "zpool list" in (r.reading.pool_usage.error or "")
    assert r.reading.pool_status.ok
    states = {p.name: p.state for p in r.reading.pool_status.value or ()}
    assert states["tank"] == "DEGRADED"  # the new status, not an old ONLINE


def test_each_source_is_read_once_per_refresh() -> None:
    clock = [1795302010.0]
    inner = DemoHost("showcase", clock=lambda: clock[0], seed=0)
    reads: list[str] = []

    class Counting(DelegatingHost):
        def read_text(self, path: str) -> str:
            reads.append(path)
            return super().read_text(path)

        def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                check: bool = True, stdin: str | None = None) -> Result:
            reads.append(" ".join(argv[:2]))
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)

    session = HostSession(Counting(inner))
    session.refresh()
    clock[0] += 5
    reads.clear()
    session.refresh()
    for source in ("/proc/diskstats", "/proc/spl/kstat/zfs/arcstats", "zpool status",
                   "zpool list", "zpool iostat"):
        assert reads.count(source) == 1, (source, reads)
    assert reads.count("zfs version") == 0  # the version is kept
    assert reads.count("lsblk -J") + reads.count("udevadm info") == 0  # identity is kept


def test_identity_is_reread_when_the_block_devices_change_or_on_request() -> None:
    host = DemoHost("degraded", clock=lambda: 1795302010.0, seed=0)
    session = HostSession(host)
    for _ in range(3):
        session.refresh()
    assert session.inventory.full_reads == 1
    session.refresh(force=True)
    assert session.inventory.full_reads == 2
    session.inventory.fingerprint = ("sda",)  # as if a disk came or went since
    r = session.refresh()
    assert session.inventory.full_reads == 3
    assert r.reading.disks.ok


def test_first_partial_refresh_marks_unread_parts_pending() -> None:
    host = HangingIostat()
    session = HostSession(host, timeout=0.3, parallel=True)
    early: list[Refresh] = []
    try:
        session.refresh(on_progress=early.append)
    finally:
        host.release.set()
    r = early[0].reading
    assert r.diskstats.error_type == PENDING and r.diskstats.pending
    assert "disk I/O counters" not in {name for name, _ in r.failures}  # not a failure


def test_reads_in_order_hand_out_the_pools_early_on_the_first_refresh_only() -> None:
    """Read in order (the demo host), the first refresh hands out its pools once `zpool
    status` and `zpool list` answered, the other reads still to come: the console draws its
    first frame from it. Later refreshes end within the same call: nothing early."""
    host = HangingIostat()
    host.release.set()
    session = HostSession(host, parallel=False)
    early: list[Refresh] = []
    seen: list[int] = []

    def got(r: Refresh) -> None:
        early.append(r)
        seen.append(len(host.calls))

    first = session.refresh(on_progress=got)
    assert len(early) == 1 and not early[0].complete and first.complete
    reading = early[0].reading
    assert reading.pool_status.ok and reading.pool_usage.ok
    assert reading.disks.pending and reading.arc.pending
    # zpool status and list had run then, nothing after them
    before = host.calls[:seen[0]]
    assert before[-2:] == [("zpool", "status"), ("zpool", "list")], before
    assert ("lsblk", "-J") not in before and ("lsblk", "-J") in host.calls[seen[0]:]
    session.done(first)
    session.refresh(on_progress=got)
    assert len(early) == 1
