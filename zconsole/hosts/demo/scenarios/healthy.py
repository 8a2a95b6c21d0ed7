"""A healthy machine: every pool ONLINE, the last scrub clean."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.system import System
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "every pool ONLINE, last scrub finished without errors"
ORDER = 20


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("healthy", seed, now)
    data = b.hdds("WDC WD40EFRX-68N32N0", kit.HDD_4T, "WD-WCC7K0AAAAAA", "WD-WCC7K0BBBBBB",
                  "WD-WCC7K0CCCCCC", "WD-WCC7K0DDDDDD")
    logs = b.ssds("INTEL SSDSC2BB080G4", kit.SSD_80G, "BTWL4111111Z080BGN",
                  "BTWL4222222Z080BGN", load=2.0)
    tank = b.pool("tank", b.mirrors("tank", data), logs=b.mirrors("tank", logs), frag=7)
    kit.tank_datasets(b, dedup=False)
    b.finish()
    tank.scan = kit.finished_scrub(now, tank.alloc, 2.4, 5 * 3600 + 12 * 60 + 40)
    kit.add_arc(b.m)
    return b.m


def on_clean_host(seed: int, now: float, name: str) -> tuple[Machine, System]:
    """These healthy pools on a clean host named `zdemo-<name>` (`render.system.clean_host`):
    the start of every scenario about the host rather than its pools. The machine, and its
    system to change."""
    m = build(seed, now)
    return m, sysr.clean_host(m, f"zdemo-{name}")
