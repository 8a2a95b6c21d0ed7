"""Many snapshots: 20 datasets x 500 snapshots made on demand, clones of clones."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.common import GiB, MiB
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "20 datasets x 500 snapshots (generated lazily) with clones of clones"
ORDER = 50


def build(seed: int, now: float, datasets: int = 20, per: int = 500,
          scenario: str = "snapshots") -> Machine:
    b = kit.new_machine(scenario, seed, now)
    disks = b.hdds("TOSHIBA MG08ACA16TE", 16000900661248, "X1A0A001FVGG", "X1A0A002FVGG")
    b.pool("tank", b.mirrors("tank", disks), frag=23)
    b.fs("tank", 96 * 1024, days_ago=800, props={"compression": "lz4"})
    b.fs("tank/proj", 96 * 1024, days_ago=800)
    for i in range(datasets):
        name = f"tank/proj/p{i:02d}"
        b.fs(name, (20 + 7 * i) * GiB, days_ago=799)
        b.series(name, "auto-", per, every_s=3600, used_each=(3 + i % 5) * MiB,
                 first_days_ago=per / 24 + 1)
    # clones of clones
    b.fs("tank/clones", 96 * 1024, days_ago=100)
    b.fs("tank/clones/c1", 1 * GiB, refer=21 * GiB, origin="tank/proj/p01@auto-00100",
         days_ago=10)
    b.snap("tank/clones/c1", "s1", used=10 * MiB, days_ago=9)
    b.fs("tank/clones/c1-1", 200 * MiB, refer=21 * GiB, origin="tank/clones/c1@s1",
         days_ago=8)
    b.snap("tank/clones/c1-1", "s1", used=5 * MiB, days_ago=7)
    b.fs("tank/clones/c1-1-1", 50 * MiB, refer=21 * GiB, origin="tank/clones/c1-1@s1",
         days_ago=6)
    b.fs("tank/clones/c2", 3 * GiB, refer=30 * GiB, origin=f"tank/proj/p02@auto-{per - 2:05d}",
         days_ago=1)
    b.finish()
    kit.add_arc(b.m)
    return b.m
