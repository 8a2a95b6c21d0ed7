"""Building many objects at once.

CPython's cyclic garbage collector runs a collection every 700 or so new container objects
(tuples, lists, dicts) and, as the survivors pile up, older generations too: a parse that
builds 100 000 records (`zfs list` of every snapshot of a big host) spent four fifths of its
building time in collections that could find nothing, since a fresh parse result has no
cycles. `holding_collections()` holds the collector for the duration of such a build and
then puts it back as it was (objects are still freed by reference counting meanwhile; any
cycle is collected at the next collection after it).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def holding_collections() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
