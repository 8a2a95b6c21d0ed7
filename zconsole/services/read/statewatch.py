"""What zconsole saw change between two readings of `zpool status` (the session's
`StateWatch`). Its own module so the session, which observes on every refresh, does not
import the Timeline's parsers before the first frame (`services/read/timeline.py` merges
these entries with `zpool events`, `zpool history` and the audit log when that screen opens);
the Timeline's model (`model.timeline`) is imported with the first change seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from zconsole.model.pool import Pool

if TYPE_CHECKING:
    from zconsole.model.timeline import Entry


def _entry(at: float, pool: str, vdev: str, text: str, state: str, seq: int) -> Entry:
    """A state change as the Timeline shows it; its model imported with the first one (a
    quiet host's first frame has none)."""
    from zconsole.model.timeline import Entry, Kind, Source

    return Entry(at, Kind.STATE, pool, vdev, text, Source.OBSERVED, state=state, seq=seq)


class StateWatch:
    """What zconsole saw change between two readings of `zpool status` (this session)."""

    LIMIT = 2000

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], str] | None = None
        self._entries: tuple[Entry, ...] = ()
        self._lock = threading.Lock()
        self._seq = 0
        self._seen: Sequence[Pool] | None = None  # the pools observed last

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self._entries

    def observe(self, pools: Sequence[Pool], at: float) -> None:
        if pools is self._seen and self._last is not None:
            return  # the very same reading (ParseMemo): nothing changed
        self._seen = pools
        states: dict[tuple[str, str], str] = {}
        for p in pools:
            states[(p.name, "")] = p.state
            for top in (*p.vdevs, *p.logs, *p.cache):
                for _, v in top.walk():
                    states.setdefault((p.name, v.name), v.state)
        with self._lock:
            last = self._last
            new: list[Entry] = []
            for key, state in states.items():
                before = None if last is None else last.get(key, "")
                if before == state:
                    continue
                if before is None and (state == "ONLINE" or key[1]):
                    continue  # the first reading: only a pool that is not healthy is news
                pool, vdev = key
                name = vdev or pool
                if before is None:
                    why = "first seen; already so at zconsole's first reading"
                elif before == "":
                    why = "first seen; new"
                else:
                    why = f"first seen; was {before}"
                self._seq += 1
                new.append(_entry(at, pool, vdev, f"{name} {state} ({why})", state, self._seq))
            if last is not None:
                for key, before in last.items():
                    if key not in states and key[1]:
                        self._seq += 1
                        new.append(_entry(at, key[0], key[1],
                                          f"{key[1]} gone from the pool (was {before})", "",
                                          self._seq))
            self._last = states
            if new:
                self._entries = (self._entries + tuple(new))[-self.LIMIT:]
