"""The degraded pool after its hot spare kicked in: the FAULTED disk under spare-0, the spare
INUSE (its resilver finished a day ago). Replacing the failed disk gives the spare back."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.vdevs import attach
from zconsole.hosts.demo.scenarios import degraded

NAME = "degraded-spare"
DESCRIPTION = "the degraded pool with its hot spare INUSE for the FAULTED member"
ORDER = 31
FAILED = "ata-ST4000VN008-2DR166_ZGY8C3D4"
SPARE = "/dev/disk/by-id/ata-ST4000VN008-2DR166_ZGY8N3P4"


def build(seed: int, now: float) -> Machine:
    kicked_in = now - 86400
    m = degraded.build(seed, kicked_in)
    m.last = kicked_in
    tank = m.pools["tank"]
    tank.scan = None
    attach(m, tank, FAILED, SPARE, force=False, replacing=True, ashift=None, now=kicked_in)
    m.advance(now)  # the spare's resilver runs to its end
    return m
