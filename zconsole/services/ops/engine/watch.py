"""How the runner follows what the host does by itself (a resilver): the watches domains register.

A `Wait` step names an `activity`; the domain that plans it registers a watch for that
activity (`services/ops/zfs/watch.py`: resilver, replace, scrub and the other `zpool wait -t`
activities). The runner and resume know no domain: they ask `watch_for(ev, wait)` and read
`Look`s:

    @watch_activity("restart")
    class UnitRestart:  # a Watch
        def __init__(self, ev: Evaluator, wait: Wait, clock: Callable[[], float] | None): ...
        def look(self) -> Look: ...          # raises ReadFailed when it cannot look
        def hurry(self, timeout: float) -> bool: ...  # simulated hosts: jump to the end
        def ended(self) -> dict[str, object]: ...  # optional: the result, for the audit

`clock` is given by the runner, which shows progress and ETAs (the watch then keeps the pace
of the activity); resume only looks, without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from zconsole.model.plan import Wait
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, register_in


@dataclass(frozen=True)
class Look:
    """One look at the activity a Wait follows. The figures are None when unknown (or when
    nothing runs)."""

    busy: bool  # the activity (or another one of its kind) still runs
    detail: str  # every running one: "resilver in progress (42 %)"; or why it is idle
    summary: str = ""  # the first running one in a few words: "resilver in progress (42 %)"
    function: str | None = None  # what runs: "resilver", "scrub"
    percent: float | None = None
    done_bytes: int | None = None
    total_bytes: int | None = None
    tool_eta_s: int | None = None  # the tool's own estimate (zpool's)
    own_eta_s: int | None = None  # zconsole's, from the pace over its recent looks


class Watch(Protocol):
    def look(self) -> Look:
        """A fresh look (the caller calls `ev.fresh()` first); raises ReadFailed."""
        ...

    def hurry(self, timeout: float) -> bool:
        """Ask a simulated host to finish the activity now; False when there is no way."""
        ...


WatchFactory = Callable[[Evaluator, Wait, "Callable[[], float] | None"], Watch]
WATCHES: dict[str, WatchFactory] = {}


def watch_activity(*activities: str) -> Callable[[WatchFactory], WatchFactory]:
    """Register the decorated factory (a Watch class) for each of `activities`."""
    return lambda factory: register_in(WATCHES, "wait activity", activities, factory)


class _Unknown:
    """A wait whose activity no domain registered: every look fails, saying so."""

    def __init__(self, wait: Wait) -> None:
        self.wait = wait

    def look(self) -> Look:
        raise ReadFailed(f"zconsole cannot watch the activity {self.wait.activity!r}")

    def hurry(self, timeout: float) -> bool:
        return False


def watch_for(ev: Evaluator, wait: Wait, clock: Callable[[], float] | None = None) -> Watch:
    """The watch for `wait` (a new one: it keeps the pace of this wait only)."""
    factory = WATCHES.get(wait.activity)
    if factory is None:
        return _Unknown(wait)
    return factory(ev, wait, clock)
