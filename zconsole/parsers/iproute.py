"""iproute2 JSON (`ip -j -d link show`, `ip -j addr show`, `bridge -j vlan show`) and
/proc/net/vlan/config -> model.network.

Shapes (iproute2 ip/ipaddress.c, ip/iplink_vlan.c, bridge/vlan.c; checked against real
captures in tests/fixtures/parsers/iproute/):

- `ip -j -d link show`: a JSON array, one object per device: ifindex, ifname, flags (a list:
  "UP", "LOWER_UP", "NO-CARRIER", "LOOPBACK", ...), mtu, operstate, address, optional
  `master` (the bridge or bond it is enslaved to), optional `link` (the lower device of a
  VLAN; for a veth whose peer lives in another namespace `link_index` + `link_netnsid`
  instead), and with -d `linkinfo`: {info_kind: "bridge"|"vlan"|"bond"|"veth"|...,
  info_data: {...; for a VLAN protocol, id, flags}, info_slave_kind: "bridge"|"bond"}.
  Physical NICs have no `linkinfo` but (iproute2 >= 5.x) `parentbus`/`parentdev`.
- `ip -j addr show`: the same objects with `addr_info`: [{family, local, prefixlen, scope,
  ...}].
- `bridge -j vlan show`: iproute2 >= 5.x prints [{"ifname": PORT, "vlans": [{"vlan": N,
  ["vlanEnd": M,] ["flags": ["PVID", "Egress Untagged"]]}]}]; older versions printed an
  object {PORT: [{"vlan": N, ...}]}. Both are read. A bridge without VLAN filtering prints
  `[]`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zconsole.model.network import Address, IfKind, Interface, VlanRange
from zconsole.parsers.errors import ParseError, parser

LINK = "ip -j -d link show"
ADDR = "ip -j addr show"
BRIDGE_VLAN = "bridge -j vlan show"
PROC_VLAN = "/proc/net/vlan/config"

_KINDS = {"bridge": IfKind.BRIDGE, "vlan": IfKind.VLAN, "bond": IfKind.BOND,
          "veth": IfKind.VETH}


def _load(text: str, source: str) -> Any:
    if not text.strip():
        raise ParseError(source, "empty output")
    try:
        return json.loads(text)
    except ValueError as e:
        raise ParseError(source, f"not JSON: {e}") from None


def _objects(text: str, source: str) -> list[dict[str, Any]]:
    data = _load(text, source)
    if not isinstance(data, list):
        raise ParseError(source, f"expected a JSON array, got {type(data).__name__}")
    out: list[dict[str, Any]] = []
    for i, o in enumerate(data):
        if not isinstance(o, dict):
            raise ParseError(source, f"entry {i} is not an object")
        if not isinstance(o.get("ifname"), str) or not o["ifname"]:
            raise ParseError(source, f"entry {i} has no ifname")
        out.append(o)
    return out


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def kind_of(obj: Mapping[str, Any]) -> tuple[IfKind, str | None]:
    """The device kind from one `ip -j -d link` object, and the kernel's own kind word."""
    info = obj.get("linkinfo")
    raw = _str(info.get("info_kind")) if isinstance(info, dict) else None
    flags = obj.get("flags")
    if obj.get("link_type") == "loopback" or (isinstance(flags, list) and "LOOPBACK" in flags):
        return IfKind.LOOPBACK, raw
    if raw is not None:
        return _KINDS.get(raw, IfKind.OTHER), raw
    if obj.get("link_type", "ether") == "ether":
        return IfKind.PHYSICAL, None
    return IfKind.OTHER, None


def _carrier(flags: list[str]) -> bool | None:
    if "LOWER_UP" in flags:
        return True
    if "NO-CARRIER" in flags:
        return False
    return None  # administratively down: the kernel says nothing about the cable


@parser("ip -j link")
def parse_ip_link(text: str) -> tuple[Interface, ...]:
    """`ip -j -d link show` (or `ip -j link show`, which lacks the kinds) -> interfaces
    without addresses and without lower/upper links (the service computes those)."""
    out: list[Interface] = []
    for o in _objects(text, LINK):
        flags_raw = o.get("flags")
        flags = [f for f in flags_raw if isinstance(f, str)] if isinstance(flags_raw, list) \
            else []
        admin_up = "UP" in flags
        kind, raw = kind_of(o)
        vlan_id: int | None = None
        info = o.get("linkinfo")
        if kind is IfKind.VLAN and isinstance(info, dict):
            data = info.get("info_data")
            if isinstance(data, dict):
                vlan_id = _int(data.get("id"))
        parent = _str(o.get("link")) if kind is IfKind.VLAN else None
        out.append(Interface(
            name=o["ifname"], kind=kind, mtu=_int(o.get("mtu")),
            operstate=_str(o.get("operstate")) or "UNKNOWN",
            carrier=_carrier(flags), admin_up=admin_up,
            mac=_str(o.get("address")), master=_str(o.get("master")),
            vlan_id=vlan_id, parent=parent, ifindex=_int(o.get("ifindex")), info_kind=raw))
    return tuple(out)


@parser("ip -j addr")
def parse_ip_addr(text: str) -> dict[str, tuple[Address, ...]]:
    """`ip -j addr show` -> addresses per interface name (every interface present, maybe
    with none)."""
    out: dict[str, tuple[Address, ...]] = {}
    for o in _objects(text, ADDR):
        infos = o.get("addr_info", [])
        if not isinstance(infos, list):
            raise ParseError(ADDR, f"{o['ifname']}: addr_info is not a list")
        addrs: list[Address] = []
        for a in infos:
            if not isinstance(a, dict):
                raise ParseError(ADDR, f"{o['ifname']}: an addr_info entry is not an object")
            local, plen = _str(a.get("local")), _int(a.get("prefixlen"))
            if local is None or plen is None:
                continue  # iproute2 prints {} for an entry filtered out
            addrs.append(Address(family=_str(a.get("family")) or "", address=local,
                                 prefixlen=plen, scope=_str(a.get("scope"))))
        out[o["ifname"]] = tuple(addrs)
    return out


def _vlan_ranges(port: str, entries: Any) -> tuple[VlanRange, ...]:
    if not isinstance(entries, list):
        raise ParseError(BRIDGE_VLAN, f"{port}: vlans is not a list")
    out: list[VlanRange] = []
    for e in entries:
        if not isinstance(e, dict) or _int(e.get("vlan")) is None:
            raise ParseError(BRIDGE_VLAN, f"{port}: an entry has no vlan id")
        raw = e.get("flags")
        flags: list[Any] = raw if isinstance(raw, list) else []
        out.append(VlanRange(vid=e["vlan"], vid_end=_int(e.get("vlanEnd")),
                             pvid="PVID" in flags, untagged="Egress Untagged" in flags))
    return tuple(out)


@parser("bridge -j vlan")
def parse_bridge_vlan(text: str) -> dict[str, tuple[VlanRange, ...]]:
    """`bridge -j vlan show` -> VLANs per port (the bridge itself appears under its name)."""
    data = _load(text, BRIDGE_VLAN)
    out: dict[str, tuple[VlanRange, ...]] = {}
    if isinstance(data, dict):  # iproute2 before 5.x: {PORT: [...]}
        for port, entries in data.items():
            out[str(port)] = _vlan_ranges(str(port), entries)
        return out
    if not isinstance(data, list):
        raise ParseError(BRIDGE_VLAN, f"expected a JSON array, got {type(data).__name__}")
    for i, o in enumerate(data):
        if not isinstance(o, dict) or not isinstance(o.get("ifname"), str):
            raise ParseError(BRIDGE_VLAN, f"entry {i} has no ifname")
        out[o["ifname"]] = out.get(o["ifname"], ()) + _vlan_ranges(o["ifname"],
                                                                    o.get("vlans", []))
    return out


@dataclass(frozen=True)
class ProcVlan:
    name: str
    vid: int
    lower: str


@parser("/proc/net/vlan/config")
def parse_proc_net_vlan(text: str) -> dict[str, ProcVlan]:
    """/proc/net/vlan/config (net/8021q/vlanproc.c): two header lines, then
    `NAME | VID | LOWER` per VLAN device."""
    out: dict[str, ProcVlan] = {}
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith(("VLAN Dev name", "Name-Type:")):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not parts[0] or not parts[1].isdigit() or not parts[2]:
            raise ParseError(PROC_VLAN, "expected NAME | VID | DEVICE", line_no, line)
        out[parts[0]] = ProcVlan(parts[0], int(parts[1]), parts[2])
    return out
