"""Network: /sys/class/net and iproute2 JSON (`ip -j -d link show`, `ip -j addr show`,
`bridge -j vlan show`). A netplan-style layout: eno1 in bridge br0, VLAN br0.100 on br0 as
the only port of bridge br100.

Shapes compared with real captures (tests/fixtures/parsers/iproute/, kernel 6.18 and
iproute2 6.1): `linkmode` follows `operstate` in `ip link` (not in `ip addr`); bridges print
`txqlen`, VLAN devices (tx_queue_len 0) do not; details end with tso_max_size, tso_max_segs,
gro_max_size. Carrier is stacked as the kernel does it: a bridge has carrier when one of its
ports has, a VLAN when its lower device has (otherwise NO-CARRIER and operstate
LOWERLAYERDOWN). sysfs has `flags` (IFF_* in hex) and `uevent` (DEVTYPE for bridges and
VLANs). One difference remains: reading `carrier` of an administratively down device fails
with EINVAL on a real machine; the demo's file tree cannot fail a read, so the file is absent.
"""

from __future__ import annotations

import json
from typing import Any

from zconsole.hosts.demo.machine.net import NetLink
from zconsole.hosts.demo.machine.state import Machine
from zconsole.hosts.demo.render.tree import Tree


def _carrier(m: Machine, ln: NetLink, depth: int = 0) -> bool:
    """The kernel's stacked carrier: a bridge has it when one of its ports has it, a VLAN
    when its lower device has it."""
    if not ln.up:
        return False
    if depth > 8:
        return ln.carrier
    if ln.kind == "bridge":
        ports = [p for p in m.links if p.master == ln.name]
        return any(_carrier(m, p, depth + 1) for p in ports) if ports else ln.carrier
    if ln.kind == "vlan" and ln.link:
        lower = next((x for x in m.links if x.name == ln.link), None)
        return ln.carrier and lower is not None and _carrier(m, lower, depth + 1)
    return ln.carrier


def _flags(m: Machine, ln: NetLink) -> list[str]:
    if ln.name == "lo":
        return ["LOOPBACK", "UP", "LOWER_UP"]
    f = ["BROADCAST", "MULTICAST"]
    carrier = _carrier(m, ln)
    if ln.up:
        f.append("UP")
        if carrier:
            f.append("LOWER_UP")
    return f if carrier or not ln.up else ["NO-CARRIER", *f]


def _operstate(m: Machine, ln: NetLink) -> str:
    if ln.name == "lo":
        return "UNKNOWN"
    if ln.up and _carrier(m, ln):
        return "UP"
    if ln.up and ln.kind == "vlan" and ln.carrier:
        return "LOWERLAYERDOWN"
    return "DOWN"


def _sys_flags(ln: NetLink) -> str:
    """/sys/class/net/X/flags: IFF_UP 0x1, IFF_BROADCAST 0x2, IFF_LOOPBACK 0x8,
    IFF_MULTICAST 0x1000 (a real bridge reads 0x1003, lo 0x9)."""
    if ln.name == "lo":
        return "0x9"
    return hex(0x1002 | (0x1 if ln.up else 0))


def _base(m: Machine, ln: NetLink, link_mode: bool = False) -> dict[str, Any]:
    o: dict[str, Any] = {"ifindex": ln.ifindex}
    if ln.link:
        o["link"] = ln.link
    o["ifname"] = ln.name
    o["flags"] = _flags(m, ln)
    o["mtu"] = ln.mtu
    o["qdisc"] = "noqueue" if ln.kind or ln.name == "lo" else "mq"
    if ln.master:
        o["master"] = ln.master
    o["operstate"] = _operstate(m, ln)
    if link_mode:
        o["linkmode"] = "DEFAULT"
    o["group"] = "default"
    if ln.kind != "vlan":
        o["txqlen"] = 1000
    o["link_type"] = "loopback" if ln.name == "lo" else "ether"
    o["address"] = ln.mac
    o["broadcast"] = "00:00:00:00:00:00" if ln.name == "lo" else "ff:ff:ff:ff:ff:ff"
    return o


def ip_link(m: Machine, details: bool) -> str:
    out = []
    for ln in m.links:
        o = _base(m, ln, link_mode=True)
        if details:
            o["promiscuity"] = 1 if ln.master else 0
            o["allmulti"] = 1 if ln.master else 0
            o["min_mtu"] = 0 if ln.kind or ln.name == "lo" else 68
            o["max_mtu"] = 65535 if ln.kind else (0 if ln.name == "lo" else 9216)
            info: dict[str, Any] = {}
            if ln.kind == "bridge":
                info["info_kind"] = "bridge"
                info["info_data"] = {
                    "forward_delay": 1500, "hello_time": 200, "max_age": 2000,
                    "ageing_time": 30000, "stp_state": 0, "priority": 32768,
                    "vlan_filtering": 0, "vlan_protocol": "802.1Q",
                    "bridge_id": "8000." + ln.mac, "root_id": "8000." + ln.mac,
                    "root_port": 0, "root_path_cost": 0, "topology_change": 0,
                    "topology_change_detected": 0, "vlan_default_pvid": 1,
                    "vlan_stats_enabled": 0, "mcast_snooping": 1,
                }
            elif ln.kind == "vlan":
                info["info_kind"] = "vlan"
                info["info_data"] = {"protocol": "802.1Q", "id": ln.vlan_id,
                                     "flags": ["REORDER_HDR"]}
            if ln.master:
                info["info_slave_kind"] = "bridge"
                info["info_slave_data"] = {
                    "state": "forwarding", "priority": 32, "cost": 4 if not ln.kind else 100,
                    "hairpin": False, "guard": False, "root_block": False, "fastleave": False,
                    "learning": True, "flood": True, "id": "0x8001", "no": "0x1",
                    "designated_port": 32769, "designated_cost": 0,
                    "bridge_id": "8000." + ln.mac, "root_id": "8000." + ln.mac,
                }
            if info:
                o["linkinfo"] = info
            o["inet6_addr_gen_mode"] = "eui64" if ln.name != "lo" else "none"
            o["num_tx_queues"] = 1 if ln.kind or ln.name == "lo" else 8
            o["num_rx_queues"] = 1 if ln.kind or ln.name == "lo" else 8
            o["gso_max_size"] = 65536
            o["gso_max_segs"] = 65535
            o["tso_max_size"] = 524280 if ln.kind or ln.name == "lo" else 65536
            o["tso_max_segs"] = 65535
            o["gro_max_size"] = 65536
            if ln.name != "lo" and not ln.kind:
                o["parentbus"] = "pci"
                o["parentdev"] = f"0000:00:1f.{6 + ln.ifindex}"
        out.append(o)
    return json.dumps(out, separators=(",", ":")) + "\n"


def ip_addr(m: Machine) -> str:
    out = []
    for ln in m.links:
        o = _base(m, ln)
        infos = []
        for ip, plen in ln.addrs:
            a: dict[str, Any] = {"family": "inet", "local": ip, "prefixlen": plen}
            if ln.name != "lo":
                parts = ip.split(".")
                a["broadcast"] = ".".join(parts[:3] + ["255"])
            a["scope"] = "host" if ln.name == "lo" else "global"
            a["label"] = ln.name
            a["valid_life_time"] = 4294967295
            a["preferred_life_time"] = 4294967295
            infos.append(a)
        for ip, plen in ln.addrs6:
            infos.append({"family": "inet6", "local": ip, "prefixlen": plen,
                          "scope": "host" if ln.name == "lo" else "link",
                          "valid_life_time": 4294967295, "preferred_life_time": 4294967295})
        o["addr_info"] = infos
        out.append(o)
    return json.dumps(out, separators=(",", ":")) + "\n"


def bridge_vlan(m: Machine) -> str:
    out = []
    for ln in m.links:
        if ln.master or ln.kind == "bridge":
            out.append({"ifname": ln.name,
                        "vlans": [{"vlan": 1, "flags": ["PVID", "Egress Untagged"]}]})
    return json.dumps(out, separators=(",", ":")) + "\n"


def proc_vlan_config(m: Machine) -> str:
    lines = ["VLAN Dev name    | VLAN ID", "Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD"]
    for ln in m.links:
        if ln.kind == "vlan":
            lines.append(f"{ln.name:<15}| {ln.vlan_id}  | {ln.link}")
    return "\n".join(lines) + "\n"


def _real(ln: NetLink) -> str:
    if ln.kind or ln.name == "lo":
        return f"/sys/devices/virtual/net/{ln.name}"
    return f"/sys/devices/pci0000:00/0000:00:1f.{6 + ln.ifindex}/net/{ln.name}"


def build_tree(m: Machine, tree: Tree) -> None:
    tree.add_dir("/sys/class/net")
    real = {ln.name: _real(ln) for ln in m.links}
    for ln in m.links:
        r = real[ln.name]
        tree.add_link(f"/sys/class/net/{ln.name}", r)
        tree.add_file(f"{r}/address", ln.mac + "\n")
        tree.add_file(f"{r}/mtu", f"{ln.mtu}\n")
        tree.add_file(f"{r}/ifindex", f"{ln.ifindex}\n")
        tree.add_file(f"{r}/type", "772\n" if ln.name == "lo" else "1\n")
        tree.add_file(f"{r}/operstate", _operstate(m, ln).lower() + "\n")
        if ln.up:
            tree.add_file(f"{r}/carrier", "1\n" if _carrier(m, ln) else "0\n")
        tree.add_file(f"{r}/flags", _sys_flags(ln) + "\n")
        devtype = f"DEVTYPE={ln.kind}\n" if ln.kind in ("bridge", "vlan") else ""
        tree.add_file(f"{r}/uevent", f"{devtype}INTERFACE={ln.name}\nIFINDEX={ln.ifindex}\n")
        if ln.kind == "bridge":
            tree.add_file(f"{r}/bridge/stp_state", "0\n")
            tree.add_file(f"{r}/bridge/bridge_id", "8000." + ln.mac.replace(":", "") + "\n")
            tree.add_file(f"{r}/bridge/vlan_filtering", "0\n")
            tree.add_dir(f"{r}/brif")
            for port in m.links:
                if port.master == ln.name:
                    tree.add_link(f"{r}/brif/{port.name}", f"{real[port.name]}/brport")
                    tree.add_link(f"{r}/lower_{port.name}", real[port.name])
        if ln.master:
            tree.add_link(f"{r}/master", real[ln.master])
            tree.add_link(f"{r}/upper_{ln.master}", real[ln.master])
            tree.add_link(f"{r}/brport/bridge", real[ln.master])
            tree.add_file(f"{r}/brport/state", "3\n")
        if ln.kind == "vlan" and ln.link:
            tree.add_link(f"{r}/lower_{ln.link}", real[ln.link])
            tree.add_link(f"{real[ln.link]}/upper_{ln.name}", r)
    tree.add_file("/proc/net/vlan/config", proc_vlan_config(m))
