"""Read a host's network devices (iproute2 JSON, or sysfs when `ip` is missing) and build
the bridge -> port -> VLAN -> bridge-on-VLAN picture with its findings.

Every failed read becomes a sentence in `NetworkView.problems`; nothing is guessed. A device
whose carrier could not be read has carrier None (shown as "?"), never "up".
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from zconsole.hosts.base import CommandNotFound, Host, HostError, PathNotFound
from zconsole.model.finding import Finding, Severity
from zconsole.model.network import (
    Address,
    Bridge,
    IfKind,
    Interface,
    NetworkView,
    VlanRange,
)
from zconsole.parsers.errors import ParseError
from zconsole.parsers.iproute import (
    ProcVlan,
    parse_bridge_vlan,
    parse_ip_addr,
    parse_ip_link,
    parse_proc_net_vlan,
)

IP_LINK: tuple[str, ...] = ("ip", "-j", "-d", "link", "show")
IP_ADDR: tuple[str, ...] = ("ip", "-j", "addr", "show")
BRIDGE_VLAN: tuple[str, ...] = ("bridge", "-j", "vlan", "show")
SYS_CLASS_NET = "/sys/class/net"
PROC_NET_VLAN = "/proc/net/vlan/config"
TIMEOUT = 10.0
IFF_UP = 0x1
ARPHRD_LOOPBACK = 772

KIND = "network"


def _cmd(argv: Sequence[str]) -> str:
    return " ".join(argv)


# ------------------------------------------------------------------------------- reading


def collect_network(host: Host, *, use_ip: bool = True) -> NetworkView:
    """Everything the network screen shows. `use_ip=False` reads sysfs only (what happens
    on a host without iproute2)."""
    problems: list[str] = []
    notes: list[str] = []
    interfaces: tuple[Interface, ...] | None = None
    source = "ip"
    if use_ip:
        try:
            interfaces = parse_ip_link(host.run(IP_LINK, timeout=TIMEOUT).stdout)
        except CommandNotFound:
            notes.append(f"`ip` (iproute2) is not installed on {host.label}: read from "
                         f"{SYS_CLASS_NET} instead")
        except (HostError, ParseError) as e:
            problems.append(f"{_cmd(IP_LINK)} failed: {e}; read from {SYS_CLASS_NET} instead")
    addresses: dict[str, tuple[Address, ...]] | None = None
    if interfaces is None:
        source = "sysfs"
        interfaces = read_sysfs(host, problems)
        notes.append("addresses are not shown: only `ip` reports them")
    else:
        try:
            addresses = parse_ip_addr(host.run(IP_ADDR, timeout=TIMEOUT).stdout)
        except (HostError, ParseError) as e:
            problems.append(f"addresses unknown: {_cmd(IP_ADDR)} failed: {e}")
    port_vlans: dict[str, tuple[VlanRange, ...]] = {}
    if any(i.kind is IfKind.BRIDGE for i in interfaces):
        try:
            port_vlans = parse_bridge_vlan(host.run(BRIDGE_VLAN, timeout=TIMEOUT).stdout)
        except CommandNotFound:
            notes.append("per-port VLANs are not shown: the `bridge` tool is not installed")
        except (HostError, ParseError) as e:
            problems.append(f"per-port VLANs unknown: {_cmd(BRIDGE_VLAN)} failed: {e}")
    return build_view(interfaces, addresses, port_vlans, source=source,
                      taken_at=host.now(), problems=problems, notes=notes)


def _read(host: Host, path: str, problems: list[str], *, quiet: bool = False) -> str | None:
    try:
        return host.read_text(path).strip()
    except PathNotFound:
        if not quiet:
            problems.append(f"{path}: no such file")
    except (HostError, OSError) as e:
        problems.append(f"{path} could not be read: {e}")
    return None


def _int(text: str | None, base: int = 10) -> int | None:
    if text is None:
        return None
    try:
        return int(text, base)
    except ValueError:
        return None


def _uevent(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k] = v
    return out


def read_sysfs(host: Host, problems: list[str]) -> tuple[Interface, ...]:
    """/sys/class/net/* through the host: operstate, carrier, mtu, address, flags, type,
    uevent (DEVTYPE), master, lower_*/upper_* links, brif/; VLAN ids from
    /proc/net/vlan/config."""
    try:
        names = host.list_dir(SYS_CLASS_NET)
    except (HostError, OSError) as e:
        problems.append(f"{SYS_CLASS_NET} could not be listed: {e}")
        return ()
    vlans: dict[str, ProcVlan] = {}
    try:
        vlans = parse_proc_net_vlan(host.read_text(PROC_NET_VLAN))
    except PathNotFound:
        pass  # no 8021q module loaded: there are no VLAN devices
    except (HostError, OSError, ParseError) as e:
        problems.append(f"{PROC_NET_VLAN} could not be read: {e}")
    out: list[Interface] = []
    for name in names:
        base = f"{SYS_CLASS_NET}/{name}"
        try:
            entries = set(host.list_dir(base))
        except (HostError, OSError) as e:
            problems.append(f"{base} could not be listed: {e}")
            out.append(Interface(name=name, kind=IfKind.OTHER))
            continue
        flags = _int(_read(host, f"{base}/flags", problems, quiet=True), 16)
        admin_up = None if flags is None else bool(flags & IFF_UP)
        carrier: bool | None = None
        if admin_up is not False:
            # Reading carrier of a device that is administratively down fails with EINVAL.
            c = _read(host, f"{base}/carrier", problems, quiet=admin_up is None)
            carrier = None if c is None else c == "1"
        dev_type = _int(_read(host, f"{base}/type", problems, quiet=True))
        devtype = _uevent(_read(host, f"{base}/uevent", problems, quiet=True)).get("DEVTYPE")
        real = host.realpath(base)
        if "bridge" in entries or devtype == "bridge":
            kind = IfKind.BRIDGE
        elif name in vlans or devtype == "vlan":
            kind = IfKind.VLAN
        elif "bonding" in entries or devtype == "bond":
            kind = IfKind.BOND
        elif dev_type == ARPHRD_LOOPBACK:
            kind = IfKind.LOOPBACK
        elif "/devices/virtual/" not in real and dev_type == 1:
            kind = IfKind.PHYSICAL
        else:
            kind = IfKind.OTHER
        master = (posixpath.basename(host.realpath(f"{base}/master"))
                  if "master" in entries else None)
        lower = tuple(sorted(e[len("lower_"):] for e in entries if e.startswith("lower_")))
        upper = tuple(sorted(e[len("upper_"):] for e in entries if e.startswith("upper_")))
        v = vlans.get(name)
        out.append(Interface(
            name=name, kind=kind,
            mtu=_int(_read(host, f"{base}/mtu", problems)),
            operstate=(_read(host, f"{base}/operstate", problems) or "unknown").upper(),
            carrier=carrier, admin_up=admin_up,
            mac=_read(host, f"{base}/address", problems, quiet=True),
            master=master, lower=lower, upper=upper,
            vlan_id=v.vid if v else None,
            parent=v.lower if v else (lower[0] if kind is IfKind.VLAN and lower else None),
            ifindex=_int(_read(host, f"{base}/ifindex", problems, quiet=True)),
            info_kind=devtype))
        if kind is IfKind.BRIDGE:
            try:
                ports = tuple(host.list_dir(f"{base}/brif"))
            except (HostError, OSError) as e:
                problems.append(f"{base}/brif could not be listed: {e}")
                ports = ()
            # brif/ is authoritative for a bridge's ports; lower_* also lists them.
            if set(ports) - set(lower):
                out[-1] = _with(out[-1], lower=tuple(sorted(set(lower) | set(ports))))
    return tuple(out)


def _with(i: Interface, **changes: object) -> Interface:
    from dataclasses import replace

    return replace(i, **changes)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ building


def build_view(interfaces: Sequence[Interface],
               addresses: Mapping[str, tuple[Address, ...]] | None,
               port_vlans: Mapping[str, tuple[VlanRange, ...]], *, source: str,
               taken_at: float, problems: Sequence[str] = (),
               notes: Sequence[str] = ()) -> NetworkView:
    """Fill in addresses and the lower/upper links, group bridges with their ports, and
    derive the findings."""
    by_name = {i.name: i for i in interfaces}
    lower: dict[str, set[str]] = {n: set(i.lower) for n, i in by_name.items()}
    upper: dict[str, set[str]] = {n: set(i.upper) for n, i in by_name.items()}
    for i in interfaces:
        if i.master and i.master in by_name:
            upper[i.name].add(i.master)
            lower[i.master].add(i.name)
        if i.parent and i.parent in by_name:
            lower[i.name].add(i.parent)
            upper[i.parent].add(i.name)
    filled: list[Interface] = []
    for i in sorted(interfaces, key=lambda i: (i.ifindex is None, i.ifindex or 0, i.name)):
        addrs = addresses.get(i.name, i.addresses) if addresses is not None else i.addresses
        filled.append(_with(i, addresses=addrs, lower=tuple(sorted(lower[i.name])),
                            upper=tuple(sorted(upper[i.name]))))
    by_name = {i.name: i for i in filled}
    bridges: list[Bridge] = []
    for i in filled:
        if i.kind is not IfKind.BRIDGE:
            continue
        ports = i.lower  # a bridge's lower devices are its ports
        pv = tuple((p, port_vlans[p]) for p in (i.name, *ports) if p in port_vlans)
        bridges.append(Bridge(name=i.name, ports=ports, port_vlans=pv))
    view = NetworkView(interfaces=tuple(filled), bridges=tuple(bridges), source=source,
                       taken_at=taken_at, problems=tuple(problems), notes=tuple(notes))
    return NetworkView(interfaces=view.interfaces, bridges=view.bridges, source=source,
                       taken_at=taken_at, findings=tuple(analyse(view)),
                       problems=view.problems, notes=view.notes)


# ------------------------------------------------------------------------------ findings


def _problem(i: Interface) -> str:
    """Why a device does not carry traffic, in a few words."""
    if i.admin_up is False:
        return "is administratively down"
    if i.carrier is False:
        return "has no carrier"
    if i.carrier is None:
        return f"has carrier unknown (operstate {i.operstate})"
    return f"is {i.state}"


def _working(view: NetworkView, name: str) -> bool:
    i = view.get(name)
    return i is not None and i.working


def why_not_working(view: NetworkView, name: str, seen: frozenset[str] = frozenset()) -> str:
    """A sentence fragment explaining why `name` carries no traffic, following VLANs to
    their lower device and bridges to their ports."""
    i = view.get(name)
    if i is None:
        return f"{name} is missing"
    if name in seen:
        return f"{name} {_problem(i)}"
    seen = seen | {name}
    if i.kind is IfKind.BRIDGE:
        b = next((b for b in view.bridges if b.name == name), None)
        if b is not None and not b.ports:
            return f"{name} has no ports"
        if b is not None and not any(_working(view, p) for p in b.ports):
            return f"{name} has no working port: " + "; ".join(
                why_not_working(view, p, seen) for p in b.ports)
        return f"{name} {_problem(i)}"
    text = f"{name} {_problem(i)}"
    if i.kind is IfKind.VLAN and i.parent:
        p = view.get(i.parent)
        if p is not None and not p.working:
            text += f" (its lower device {why_not_working(view, i.parent, seen)})"
    return text


def analyse(view: NetworkView) -> list[Finding]:
    out: list[Finding] = []
    for b in view.bridges:
        br = view.get(b.name)
        if br is None:
            continue
        ports = [p for p in (view.get(n) for n in b.ports) if p is not None]
        if not ports:
            addrs = ", ".join(str(a) for a in br.addresses if a.scope != "link")
            out.append(Finding(KIND, Severity.INFO, b.name,
                               f"bridge {b.name} has no ports"
                               + (f": its address {addrs} reaches nothing beyond this host"
                                  if addrs else "")))
            continue
        dead = [p for p in ports if not p.working]
        if len(dead) == len(ports):
            simple = all(p.kind not in (IfKind.VLAN, IfKind.BOND, IfKind.BRIDGE)
                         for p in ports)
            if simple and len(ports) > 1:
                msg = (f"bridge {b.name}: all {len(ports)} ports lack carrier: "
                       + ", ".join(f"{p.name} {_problem(p)}" for p in ports))
            else:
                msg = f"{b.name} has no working port: " + "; ".join(
                    why_not_working(view, p.name) for p in ports)
            out.append(Finding(KIND, Severity.WARNING,
                               b.name, msg, evidence=tuple(f"{p.name}: {p.state}"
                                                           for p in ports)))
        elif dead:
            out.append(Finding(KIND, Severity.INFO, b.name,
                               f"bridge {b.name}: " + ", ".join(
                                   f"port {p.name} {_problem(p)}" for p in dead)
                               + f" ({len(ports) - len(dead)} of {len(ports)} ports work)"))
        if br.mtu is not None:
            small = [p for p in ports if p.mtu is not None and p.mtu < br.mtu]
            if small:
                low = min(p.mtu for p in small if p.mtu is not None)
                names = " and ".join(p.name for p in small)
                which = f"its port {names} has" if len(small) == 1 else f"its ports {names} have"
                sizes = sorted({p.mtu for p in small if p.mtu is not None})
                out.append(Finding(KIND, Severity.WARNING, b.name,
                                   f"MTU mismatch: bridge {b.name} has MTU {br.mtu} but {which} "
                                   f"MTU {'/'.join(str(m) for m in sizes)}: frames larger than "
                                   f"{low} bytes are dropped there"))
            big = [p for p in ports if p.mtu is not None and p.mtu > br.mtu]
            if big:
                out.append(Finding(KIND, Severity.INFO, b.name,
                                   "MTU mismatch: " + ", ".join(
                                       f"{p.name} has MTU {p.mtu}" for p in big)
                                   + f", larger than bridge {b.name} (MTU {br.mtu})"))
    for i in view.interfaces:
        if i.kind is IfKind.VLAN and i.parent and i.mtu is not None:
            p = view.get(i.parent)
            if p is not None and p.mtu is not None and i.mtu > p.mtu:
                out.append(Finding(KIND, Severity.WARNING, i.name,
                                   f"MTU mismatch: VLAN {i.name} has MTU {i.mtu}, larger than "
                                   f"its lower device {p.name} (MTU {p.mtu})"))
    order = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}
    return sorted(out, key=lambda f: order[f.severity])
