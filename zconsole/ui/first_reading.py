"""The first reading, drawn in the console's first frame when it comes quickly (issue 28).

The first refresh starts in the app's `on_load`, in its worker, before the first screen is
made. A refresh's outcome is a message to the app, and the app handles its messages only once
its first screen is composed, mounted and drawn: the first frame was always an empty Pools
screen ("reading the host…"), drawn, then drawn again with the pools a moment later, on the
demo host as on a local one. `on_load` now waits for the first outcome of that refresh (its
pools answered, its end or its failure) up to `WAIT_S`, and the app handles it there, before
the screen is made: the screen is composed with the pools and drawn once. The wait costs
nothing while the worker reads (it has the interpreter to itself); a host slower than
`WAIT_S` gets the empty frame, `WAIT_S` later, and its outcome as a message as before.

Exactly one of the two ways takes each outcome: the worker hands it to the waiting `on_load`
(`take`) or, once the wait is over, posts it as before (`take` is False).

The first outcome is often the pools alone: `zpool status` answered while other reads run
(a host read in parallel), or, read in order (the demo host), once `zpool status` and
`zpool list` did. The screen is made and drawn from them; the worker holds the rest of the
reading (the disks' identity, the ARC, the I/O sample: most of the demo's first reading)
until that frame is drawn (`hold_until_drawn`, at most `DRAWN_WAIT_S`), rather than share
the interpreter with its drawing; the whole reading then replaces it. Nothing in the first
frame waits for those reads: the Pools screen draws nothing of them before SMART is read.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

WAIT_S = 0.1
"""How long the first screen waits for the first reading (seconds)."""

DRAWN_WAIT_S = 1.0
"""How long the rest of the first reading waits for the frame drawn from its pools (s)."""


class FirstReading(Generic[T]):
    """The hand-over of the first refresh's first outcome from its worker to `on_load`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: asyncio.Future[T] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drawn = threading.Event()

    async def wait(self, timeout: float | None = None) -> T | None:
        """The first outcome `take`n within `timeout` (None: `WAIT_S`), or None (it will be
        posted)."""
        timeout = WAIT_S if timeout is None else timeout
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            self._waiting, self._loop = future, loop
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            with self._lock:
                if self._waiting is future:  # not taken: the worker posts it, as before
                    self._waiting = None
                    return None
            return await future  # taken as the wait ended: on its way here

    def take(self, outcome: T) -> bool:
        """From the worker: True when `outcome` was handed to the waiting `on_load` (the
        caller does not post it); False once nobody waits (or never did)."""
        with self._lock:
            future, self._waiting = self._waiting, None
            loop = self._loop
        if future is None or loop is None:
            return False
        try:
            loop.call_soon_threadsafe(_settle, future, outcome)
        except RuntimeError:  # the loop closed (the app left while it waited)
            return False
        return True

    def drawn(self) -> None:
        """The first frame made from a handed-over outcome is drawn (or the app leaves)."""
        self._drawn.set()

    def hold_until_drawn(self, cancelled: Callable[[], bool]) -> None:
        """From the worker, once `take` handed over an early outcome (the pools, read
        first): wait until the screen made from it is drawn, at most `DRAWN_WAIT_S`. The
        rest of the reading (the disks' identity, the I/O sample, the ARC) is read after
        it, rather than sharing the interpreter with the first frame's drawing."""
        end = time.monotonic() + DRAWN_WAIT_S
        while not self._drawn.wait(0.02):
            if cancelled() or time.monotonic() >= end:
                return


def _settle(future: asyncio.Future[T], outcome: T) -> None:
    if not future.done():
        future.set_result(outcome)
