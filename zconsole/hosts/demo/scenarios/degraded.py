"""A degraded pool: a FAULTED member, a missing one, a slow disk."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.disks import IoProfile
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "a FAULTED member (too many errors), a missing one (was /dev/...), a slow disk"
ORDER = 30


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("degraded", seed, now)
    a0 = b.hdd("ST4000VN008-2DR166", "ZGY8A1B2", kit.HDD_4T)
    a1 = b.hdd("ST4000VN008-2DR166", "ZGY8C3D4", kit.HDD_4T, r_ms=30, w_ms=40)
    b0 = b.hdd("ST4000VN008-2DR166", "ZGY8E5F6", kit.HDD_4T, slow=10.0)
    b1 = b.hdd("ST4000VN008-2DR166", "ZGY8G7H8", kit.HDD_4T)
    c0 = b.hdd("ST4000VN008-2DR166", "ZGY8J9K0", kit.HDD_4T)
    c1 = b.hdd("ST4000VN008-2DR166", "ZGY8L1M2", kit.HDD_4T)
    sp = b.quiet(b.hdd("ST4000VN008-2DR166", "ZGY8N3P4", kit.HDD_4T))
    b.quiet(b.hdd("ST4000VN008-2DR166", "ZGY8Q5R6", kit.HDD_4T))  # a fresh replacement
    bad = b.leaf(a1, "tank")
    bad.state, bad.aux = "FAULTED", "ERR_EXCEEDED"
    bad.read_errors, bad.write_errors, bad.checksum_errors = 3, 117, 0
    a1.io = IoProfile(r_ms=30, w_ms=40)
    gone = b.leaf(c1, "tank")
    gone.state, gone.aux, gone.not_present = "CANT_OPEN", "OPEN_FAILED", True
    c1.present = False
    tank = b.pool("tank", [b.mirror(b.leaf(a0, "tank"), bad),
                           *b.mirrors("tank", [b0, b1]),
                           b.mirror(b.leaf(c0, "tank"), gone)],
                  spares=[b.leaf(sp, "tank")], frag=19)
    kit.tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = kit.finished_scrub(now, tank.alloc, 6.0, 7 * 3600 + 3 * 60 + 12)
    kit.add_arc(b.m)
    return b.m
