"""A network fault: healthy pools, but bridge br0 has no port with carrier."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.net import NetLink
from zconsole.hosts.demo.scenarios import _builder as kit
from zconsole.hosts.demo.scenarios.healthy import build as build_healthy

DESCRIPTION = ("healthy pools; every port of bridge br0 lacks carrier, so the VLAN br0.100 on "
               "it and the bridge br100 on that are down too")
ORDER = 80


def _network_ports_down() -> list[NetLink]:
    """The showcase kit.network with both cables of br0 pulled: eno1 and eno2 are up but have
    no carrier, so br0, the VLAN br0.100 on it and the bridge br100 on that carry nothing."""
    links = kit.network()
    for ln in links:
        if ln.name in ("eno1", "eno2"):
            ln.up, ln.carrier, ln.master = True, False, "br0"
    return links


def build(seed: int, now: float) -> Machine:
    m = build_healthy(seed, now)
    m.hostname = "zdemo-netdown"
    m.links = _network_ports_down()
    return m
