"""Reads that cannot hold each other up: each on its own thread, each with its own deadline.

A console refresh reads several things (pool status, usage, datasets, ARC, disks, an I/O
sample). One of them may hang — `zpool status` in D state on a suspended pool, an ssh channel
that stalls — and must not keep the others from reaching the screen, nor keep the console from
quitting. `Flights.run()` starts every read on a daemon thread, reports each outcome as soon as
it lands (`on_part`), and returns at the latest at the deadline: a read still running then is
reported as "no answer for N s" and is not started again while it is still running (its thread
is left to finish or hang on its own; a daemon thread never keeps the process alive).

`parallel=False` runs the reads one after the other on the calling thread, in order: the
simulated demo host and captured replays answer instantly and deterministically, and pictures
taken from them must not depend on thread timing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from zconsole.model.reading import Part

NO_ANSWER = "NoAnswer"  # Part.error_type of a read that had not answered by its deadline


class _Flight:
    """One read under way: when it started (monotonic), set when it answered, its answer.
    A plain class: a dataclass costs ~1 ms to make on Python 3.10, on the first frame."""

    __slots__ = ("done", "part", "started")

    def __init__(self, started: float) -> None:
        self.started = started
        self.done = threading.Event()
        self.part: Part[Any] | None = None


class Flights:
    def __init__(self, *, parallel: bool, monotonic: Callable[[], float] = time.monotonic
                 ) -> None:
        self.parallel = parallel
        self.monotonic = monotonic
        self._flying: dict[str, _Flight] = {}
        self._lock = threading.Lock()

    def in_flight(self, name: str) -> float | None:
        """Seconds the read `name` has been running without an answer, or None."""
        with self._lock:
            f = self._flying.get(name)
        if f is None or f.done.is_set():
            return None
        return self.monotonic() - f.started

    def run(self, reads: Mapping[str, Callable[[], Part[Any]]], *, deadline: float,
            now: Callable[[], float], source: Mapping[str, str],
            on_part: Callable[[str, Part[Any]], None] | None = None,
            cancelled: Callable[[], bool] = lambda: False) -> dict[str, Part[Any]]:
        """Run every read (each returns a Part and never raises); return their Parts.

        `deadline`: seconds from now after which an unanswered read is given up for this
        refresh. `now()` gives host time for the Parts made here; `source` names what each
        read runs (for the "no answer" sentence). `cancelled()` is polled while waiting (the
        console is quitting): the unanswered reads are then reported as not answered.
        """
        if not self.parallel:
            out: dict[str, Part[Any]] = {}
            for name, read in reads.items():
                out[name] = read()
                if on_part is not None:
                    on_part(name, out[name])
            return out
        start = self.monotonic()
        flights: dict[str, _Flight] = {}
        for name, read in reads.items():
            flights[name] = self._launch(name, read)
        out = {}
        pending = set(flights)
        while pending:
            for name in sorted(pending):
                f = flights[name]
                if f.done.is_set():
                    pending.discard(name)
                    assert f.part is not None
                    out[name] = f.part
                    if on_part is not None:
                        on_part(name, f.part)
            if not pending:
                break
            left = deadline - (self.monotonic() - start)
            if left <= 0 or cancelled():
                break
            next(iter(flights[n] for n in pending)).done.wait(min(0.1, left))
        for name in pending:
            waited = self.monotonic() - flights[name].started
            out[name] = Part(None, now(), source.get(name, name),
                             f"no answer for {waited:.0f} s", NO_ANSWER)
            if on_part is not None:
                on_part(name, out[name])
        return out

    def _launch(self, name: str, read: Callable[[], Part[Any]]) -> _Flight:
        with self._lock:
            old = self._flying.get(name)
            if old is not None and not old.done.is_set():
                return old  # still hanging from an earlier refresh: do not pile up threads
            flight = _Flight(self.monotonic())
            self._flying[name] = flight

        def body() -> None:
            try:
                flight.part = read()
            finally:
                flight.done.set()

        threading.Thread(target=body, name=f"zconsole-read-{name}", daemon=True).start()
        return flight
