"""A host's SMART as its session follows it: the `SmartWatch` (services/read/smart.py), made
when first polled, and its findings judged (services/health/smart.py) with the pool each
disk serves.

Never on a refresh's path: nothing here imports the SMART read until `poll` runs (the
console calls it from a background worker after the first frame; `check --smart` once,
after its readings). `due` is the console's cadence: a first poll, a disk asked for
(`request`: the Disks screen's key), else one poll a minute, which runs smartctl only on
the disks the watch finds due (each every 30 min) and judges again (the findings say "since
when" on the console's clock). A refresh never reads SMART.

Across runs (services/smart_history.py): the watch starts each disk from the tracks earlier
runs kept for it, and each poll that changed them writes them back; a damaged file is
ignored and said once (`note`, an INFO finding `smart-history`). Each poll's news (a counter
that grew, a self-test result in the drive's log) becomes Timeline entries (`entries`,
services/smart_timeline.py), as the session's `StateWatch` does for pool states. A demo
rehearsal reads each disk every `INTERVAL_S / pace` (its disks' SMART moves with demo time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import DiskInventory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.model.smart import CounterTrack, SmartReading
    from zconsole.model.timeline import Entry
    from zconsole.services.read.smart import DiskSmart, SmartWatch
    from zconsole.services.smart_history import DiskHistory, History

POLL_EVERY_S = 60.0  # how often the console asks the watch what is due (no command if none)
ENTRIES_KEPT = 2000  # the Timeline's SMART entries of one session (the oldest dropped)


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
        self.entries: tuple[Entry, ...] = ()  # what the polls saw happen (the Timeline's)
        self._history: History | None = None
        self._known: dict[str, DiskHistory] = {}
        self._seq = 0
        self._clause_of: dict[str, str] = {}  # disk -> "48 pending sectors", made per poll

    @property
    def note(self) -> str:
        """Why the SMART history of earlier runs was not used or not kept ("" when it was)."""
        return self._history.note if self._history is not None else ""

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
        if not self._clause_of:  # a refresh of a thousand healthy disks walks no leaf
            return {}
        out: dict[str, str] = {}
        for pool in pools:
            for _section, _depth, v in pool.walk():
                disk = leaf_disk(pool.name, v) if not v.children else None
                clause = self._clause_of.get(disk, "") if disk else ""
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
            from zconsole.services.read.smart import INTERVAL_S, SmartWatch
            from zconsole.services.smart_history import History, history_path

            simulated = bool(getattr(self._host, "simulated", False))
            self._history = History(history_path(str(self._host.label), simulated=simulated))
            self._known = self._history.load()
            pace = getattr(self._host, "pace", None) if simulated else None
            interval = INTERVAL_S / pace if isinstance(pace, (int, float)) and pace > 1 \
                else INTERVAL_S
            self._watch = SmartWatch(self._host, clock=self._clock, interval=interval,
                                     seed=self._seed)
        return self._watch

    def _seed(self, reading: SmartReading) -> dict[str, CounterTrack]:
        from zconsole.services.smart_history import identity

        ident = identity(reading)
        known = self._known.get(ident) if ident is not None else None
        return dict(known.tracks) if known is not None else {}

    def poll(self, inventory: DiskInventory | None) -> list[str]:
        """Read every whole disk that is due (the asked ones first), a few at a time, and
        judge them all again; the names read. Nothing without an inventory."""
        from zconsole.services.health.smart import judge_disks
        from zconsole.services.health.smart_words import counter_clause

        if inventory is None:
            return []
        with self._lock:
            watch = self._make()
            for name in sorted(self._asked):
                watch.request(name)
            self._asked.clear()
            before = {st.disk: st for st in watch.states()}
            # every due disk in one pass: the due list is made once (in batches of the
            # watch's limit, a thousand disks made it 125 times: bench/smart_cost.py)
            read = watch.poll(inventory.devices, limit=len(inventory.devices))
            pools = {r.disk: r.pool for r in inventory.roles if r.pool}
            now = self._clock()
            self._after_poll(before, read, inventory, now)
            found = judge_disks(watch.states(), now=now, pools=pools)
            self._clause_of = {st.disk: c for st in watch.states()
                               if (c := counter_clause(st.reading))}
            if self.note:
                found = (*found, Finding("smart-history", Severity.INFO, "SMART", self.note))
            self.findings = found
            self.polled_at = now
            return read

    def _after_poll(self, before: dict[str, DiskSmart], read: list[str],
                    inventory: DiskInventory, now: float) -> None:
        """The poll's Timeline entries, and the history kept for the next run."""
        from zconsole.services.smart_timeline import history_of, poll_entries

        assert self._watch is not None and self._history is not None
        states = self._watch.states()
        places = {r.disk: (r.pool or "", r.leaf or r.disk) for r in inventory.roles
                  if r.pool}
        new = poll_entries(before, states, read, self._known, places, now, self._seq)
        if new:
            self._seq += len(new)
            self.entries = (*self.entries, *new)[-ENTRIES_KEPT:]
        kept = history_of(s for s in states if s.disk in read)
        if kept:
            self._known.update(kept)
            self._history.save(kept)
