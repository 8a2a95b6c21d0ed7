"""A host's SMART as its session follows it: the `SmartWatch` (services/read/smart.py), made
when first polled, and its findings judged (services/health/smart.py) with the pool each
disk serves.

Never on a refresh's path: nothing here imports the SMART read until `poll` runs (the
console calls it from a background worker after the first frame; `check --smart` once,
after its readings). `due` is the console's cadence: a first poll, a disk asked for
(`request`: the Disks screen's key), else one poll a minute, which runs smartctl only on
the disks the watch finds due (each every 30 min) and judges again (the findings say "since
when" on the console's clock). A refresh never reads SMART.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import DiskInventory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart, SmartWatch

POLL_EVERY_S = 60.0  # how often the console asks the watch what is due (no command if none)


class SmartFollow:
    """The SMART of one host's disks between refreshes. `clock`: the console's wall clock
    (the watch's history and the findings' "since when" are counted on it)."""

    def __init__(self, host: Host, clock: Callable[[], float]) -> None:
        self._host, self._clock = host, clock
        self._watch: SmartWatch | None = None
        self._lock = threading.Lock()  # one poll at a time (a worker, or check)
        self.findings: tuple[Finding, ...] = ()
        self.polled_at: float | None = None  # the end of the last poll (wall clock)
        self._asked: set[str] = set()
        self.pending = False  # a poll is on its way (the console's worker sets it)
        self.error = ""  # the last poll raised (the console says it on the Disks screen)

    @property
    def started(self) -> bool:
        return self._watch is not None

    def state(self, disk: str) -> DiskSmart | None:
        return self._watch.state(disk) if self._watch is not None else None

    def request(self, disk: str) -> None:
        """Read this disk at the next poll, whatever its age (on demand)."""
        self._asked.add(disk)

    def asked(self, disk: str) -> bool:
        """Whether this disk waits for a poll asked for it."""
        return disk in self._asked

    def states(self) -> dict[str, DiskSmart]:
        """What the watch knows of each disk, by kernel name."""
        return {s.disk: s for s in self._watch.states()} if self._watch is not None else {}

    def clauses(self, pools: Sequence[Pool],
                leaf_disk: Callable[[str, Vdev], str | None]) -> dict[str, str]:
        """Each leaf (by the name zpool prints) whose disk has a failure counter above
        zero: "48 pending sectors", for the slow-disk sentence. Reads nothing."""
        if self._watch is None:
            return {}
        from zconsole.services.health.smart_words import counter_clause

        out: dict[str, str] = {}
        for pool in pools:
            for _section, _depth, v in pool.walk():
                disk = leaf_disk(pool.name, v) if not v.children else None
                state = self._watch.state(disk) if disk else None
                clause = counter_clause(state.reading) if state is not None else ""
                if clause:
                    out[v.name] = clause
        return out

    def of_disk(self, disk: str) -> tuple[Finding, ...]:
        """One disk's findings, worst first."""
        return tuple(f for f in self.findings if f.subject == disk)

    def due(self, now: float) -> bool:
        """Whether the console should poll now: never polled, a disk asked for, or the
        last poll a minute old."""
        return (self.polled_at is None or bool(self._asked)
                or now - self.polled_at >= POLL_EVERY_S)

    def _make(self) -> SmartWatch:
        if self._watch is None:
            from zconsole.services.read.smart import SmartWatch

            self._watch = SmartWatch(self._host, clock=self._clock)
        return self._watch

    def poll(self, inventory: DiskInventory | None) -> list[str]:
        """Read every whole disk that is due (the asked ones first), a few at a time, and
        judge them all again; the names read. Nothing without an inventory."""
        from zconsole.services.health.smart import judge_disks

        if inventory is None:
            return []
        with self._lock:
            watch = self._make()
            for name in sorted(self._asked):
                watch.request(name)
            self._asked.clear()
            read: list[str] = []
            for _ in range(len(inventory.devices) + 1):  # each poll reads at least one
                got = watch.poll(inventory.devices)
                read.extend(got)
                if not watch.due(inventory.devices):
                    break
            pools = {r.disk: r.pool for r in inventory.roles if r.pool}
            now = self._clock()
            self.findings = judge_disks(watch.states(), now=now, pools=pools)
            self.polled_at = now
            return read
