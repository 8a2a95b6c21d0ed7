"""Network links: ethernet ports, bridges and VLANs with their addresses, as `ip` and
/sys/class/net show them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class NetLink:
    name: str
    ifindex: int
    kind: str | None  # None for a plain ethernet, "bridge", "vlan"
    mac: str
    mtu: int = 1500
    master: str | None = None
    link: str | None = None  # lower device of a vlan
    vlan_id: int | None = None
    up: bool = True
    addrs: list[tuple[str, int]] = field(default_factory=list)  # (ip, prefixlen)
    addrs6: list[tuple[str, int]] = field(default_factory=list)
    carrier: bool = True
