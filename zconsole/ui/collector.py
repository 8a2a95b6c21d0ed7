"""The console's cyclic garbage collector: held through start-up (`zconsole`'s main turns
it off before importing the console), let go once the first reading is drawn."""

from __future__ import annotations

import gc

YOUNG_COLLECTION = 10_000
"""The collector's first threshold while the console runs (Python's default is 700)."""


def release_collector() -> None:
    """After start-up (the first reading drawn): move everything start-up made (modules,
    classes, styles: hundreds of thousands of objects that live as long as the console) out
    of the collector's sight with gc.freeze, so no later collection walks them again, and
    turn the collector back on. Start-up ran without collections (`zconsole`'s main): they
    found nothing to free among objects that all stay, and cost a fifth of the first frame.
    A refresh of 1 000 disks then makes ~40 000 objects that live until the next: at 700,
    57 young collections and half a full one a refresh, each full one walking everything made
    since start-up (the SMART of every disk: 15 % of a refresh, bench/smart_cost.py); at
    `YOUNG_COLLECTION`, 3 young ones and a full one every ~25 refreshes."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    gc.enable()
