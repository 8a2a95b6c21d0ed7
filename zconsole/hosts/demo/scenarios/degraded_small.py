"""The degraded pool, rehearsed with a mistake: the first disk handed over for the same-bay
swap is too small (a 2 TB disk for 4 TB members); a fitting one follows a little later."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.scenarios import degraded

NAME = "degraded-small"
DESCRIPTION = "the degraded pool; the first new disk of a same-bay swap is too small"
ORDER = 32
TOO_SMALL = 2000398934016  # a 2 TB disk


def build(seed: int, now: float) -> Machine:
    m = degraded.build(seed, now)
    m.swap_sizes = [TOO_SMALL]  # what the rehearsal's hands insert first
    return m
