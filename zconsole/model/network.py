"""Network interfaces, bridges and VLANs as the kernel reports them (iproute2 JSON or sysfs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from zconsole.model.finding import Finding


class IfKind(str, Enum):
    BRIDGE = "bridge"
    VLAN = "vlan"
    BOND = "bond"
    PHYSICAL = "physical"
    VETH = "veth"
    LOOPBACK = "loopback"
    OTHER = "other"


@dataclass(frozen=True)
class Address:
    family: str  # "inet" or "inet6"
    address: str
    prefixlen: int
    scope: str | None = None

    def __str__(self) -> str:
        return f"{self.address}/{self.prefixlen}"


@dataclass(frozen=True)
class VlanRange:
    """One entry of `bridge vlan show` for a port: a VLAN id or a range (vid..vid_end)."""

    vid: int
    vid_end: int | None = None
    pvid: bool = False
    untagged: bool = False

    def __str__(self) -> str:
        s = str(self.vid) if self.vid_end is None else f"{self.vid}-{self.vid_end}"
        marks = [m for m, on in (("PVID", self.pvid), ("untagged", self.untagged)) if on]
        return s + (f" ({', '.join(marks)})" if marks else "")


@dataclass(frozen=True)
class Interface:
    """One network device.

    `carrier` is True/False as the kernel says, None when it does not say (administratively
    down: sysfs answers EINVAL, ip prints neither LOWER_UP nor NO-CARRIER). `admin_up` is
    the IFF_UP flag (None when it could not be read). `parent` is the lower device of a VLAN;
    `lower`/`upper` are the stacking links (a bridge's ports are its lower devices, a port's
    bridge is its upper device).
    """

    name: str
    kind: IfKind
    mtu: int | None = None
    operstate: str = "UNKNOWN"
    carrier: bool | None = None
    admin_up: bool | None = None
    mac: str | None = None
    addresses: tuple[Address, ...] = ()
    master: str | None = None
    lower: tuple[str, ...] = ()
    upper: tuple[str, ...] = ()
    vlan_id: int | None = None
    parent: str | None = None
    ifindex: int | None = None
    info_kind: str | None = None  # the kernel's own kind word (ifb, dummy, vxlan, ...)

    @property
    def state(self) -> str:
        """One word for the link: UP, DOWN (administratively), NO-CARRIER, LOWERLAYERDOWN,
        DORMANT, or the operstate when nothing better is known."""
        if self.admin_up is False:
            return "DOWN"
        if self.carrier is False:
            return "NO-CARRIER"
        op = self.operstate.upper()
        if op == "UP" or (op == "UNKNOWN" and self.carrier is True):
            return "UP"
        return op or "UNKNOWN"

    @property
    def working(self) -> bool:
        """Can carry traffic: up with carrier."""
        return self.state == "UP"


@dataclass(frozen=True)
class Bridge:
    name: str
    ports: tuple[str, ...]
    # Per port (and the bridge itself, "self") the VLANs of `bridge vlan show`.
    port_vlans: tuple[tuple[str, tuple[VlanRange, ...]], ...] = ()
    vlan_filtering: bool | None = None

    def vlans_of(self, port: str) -> tuple[VlanRange, ...]:
        for name, vlans in self.port_vlans:
            if name == port:
                return vlans
        return ()


@dataclass(frozen=True)
class NetworkView:
    """What the network screen shows. `source` says how it was read ("ip" or "sysfs");
    `problems` are reads that failed, each a sentence with what failed."""

    interfaces: tuple[Interface, ...]
    bridges: tuple[Bridge, ...]
    source: str
    taken_at: float
    findings: tuple[Finding, ...] = ()
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def get(self, name: str) -> Interface | None:
        for i in self.interfaces:
            if i.name == name:
                return i
        return None

    @property
    def bridge_names(self) -> frozenset[str]:
        return frozenset(b.name for b in self.bridges)
