"""collect_network on real captures (ReplayHost), on this machine (LocalHost), on the demo
host, and with reads failing one at a time (FakeHost)."""

from __future__ import annotations

import os

import pytest

from tests.paths import PARSERS
from tests.unit.test_services_fakehost import FakeHost, fixture
from zconsole.hosts.base import CommandFailed, CommandNotFound, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.local import LocalHost
from zconsole.hosts.replay import ReplayHost
from zconsole.model.finding import Severity
from zconsole.model.network import IfKind
from zconsole.services.read.network import (
    BRIDGE_VLAN,
    IP_ADDR,
    IP_LINK,
    collect_network,
)

FIX = PARSERS / "iproute"


def replay(name: str) -> ReplayHost:
    return ReplayHost(str(FIX / name))


@pytest.mark.parametrize("use_ip", [True, False], ids=["ip", "sysfs"])
def test_netns_bridges_both_ways(use_ip: bool) -> None:
    v = collect_network(replay("netns-bridges"), use_ip=use_ip)
    assert v.source == ("ip" if use_ip else "sysfs")
    assert v.problems == ()
    assert {b.name: b.ports for b in v.bridges} == {
        "br0": ("eno1", "eno2", "eno5"), "br9": ("eno3", "eno4"), "brempty": ()}
    states = {i.name: i.state for i in v.interfaces}
    assert states == {"lo": "UP", "eno1": "UP", "eno2": "NO-CARRIER", "eno3": "NO-CARRIER",
                      "eno4": "NO-CARRIER", "eno5": "UP", "br0": "UP", "br9": "NO-CARRIER",
                      "brempty": "UP"}
    assert [i.name for i in v.interfaces][:3] == ["lo", "eno1", "eno2"]  # ifindex order
    msgs = [f.message for f in v.findings]
    assert msgs[:2] == [
        "MTU mismatch: bridge br0 has MTU 9000 but its ports eno1 and eno2 have MTU 1500: "
        "frames larger than 1500 bytes are dropped there",
        "bridge br9: all 2 ports lack carrier: eno3 has no carrier, eno4 has no carrier",
    ]
    assert "bridge br0: port eno2 has no carrier (2 of 3 ports work)" in msgs
    assert any(m.startswith("bridge brempty has no ports") for m in msgs)
    assert [f.severity for f in v.findings][:2] == [Severity.WARNING, Severity.WARNING]
    if use_ip:
        assert [str(a) for a in v.get("br0").addresses][0] == "192.0.2.20/24"  # type: ignore[union-attr]
    else:
        assert v.notes == ("addresses are not shown: only `ip` reports them",)


def test_capture_machine_replayed() -> None:
    v = collect_network(replay("host-eth0"))
    assert [i.name for i in v.interfaces] == ["lo", "ifb0", "ifb1", "eth0"]
    assert v.bridges == () and v.findings == () and v.problems == ()
    s = collect_network(replay("host-eth0"), use_ip=False)
    assert {i.name: (i.kind, i.state, i.carrier) for i in s.interfaces} == {
        "lo": (IfKind.LOOPBACK, "UP", True), "eth0": (IfKind.PHYSICAL, "UP", True),
        "ifb0": (IfKind.OTHER, "DOWN", None), "ifb1": (IfKind.OTHER, "DOWN", None)}
    assert s.problems == ()  # carrier of a down device is not read (it answers EINVAL)


def test_this_machine() -> None:
    names = set(os.listdir("/sys/class/net"))
    for use_ip in (True, False):
        v = collect_network(LocalHost(), use_ip=use_ip)
        got = {i.name for i in v.interfaces}
        assert "lo" in got
        assert names <= got, (names, got, v.problems)
        assert v.get("lo").kind is IfKind.LOOPBACK  # type: ignore[union-attr]


def test_demo_netplan_pattern() -> None:
    v = collect_network(DemoHost("showcase", clock=lambda: 0.0))
    assert {b.name: b.ports for b in v.bridges} == {"br0": ("eno1",), "br100": ("br0.100",)}
    vlan = v.get("br0.100")
    assert vlan is not None
    assert (vlan.vlan_id, vlan.parent, vlan.upper, vlan.lower) == (100, "br0", ("br100",),
                                                                   ("br0",))
    assert v.findings == ()


@pytest.mark.parametrize("use_ip", [True, False], ids=["ip", "sysfs"])
def test_demo_all_ports_down(use_ip: bool) -> None:
    v = collect_network(DemoHost("netdown", clock=lambda: 0.0), use_ip=use_ip)
    assert [f.message for f in v.findings] == [
        "bridge br0: all 2 ports lack carrier: eno1 has no carrier, eno2 has no carrier",
        "br100 has no working port: br0.100 has no carrier (its lower device br0 has no "
        "working port: eno1 has no carrier; eno2 has no carrier)",
    ]
    assert v.get("br0.100").operstate == "LOWERLAYERDOWN"  # type: ignore[union-attr]


def _ip_answers() -> dict[tuple[str, ...], object]:
    base = FIX / "netns-bridges"
    return {IP_LINK: fixture("iproute/netns-bridges/cmd/001.out"),
            IP_ADDR: fixture("iproute/netns-bridges/cmd/002.out"),
            BRIDGE_VLAN: (base / "cmd/003.out").read_text()}


def test_ip_missing_falls_back_to_sysfs_and_says_so() -> None:
    real = replay("netns-bridges")
    h = FakeHost("box", commands={}, files={}, dirs={})
    h.read_text = real.read_text  # type: ignore[method-assign]
    h.list_dir = real.list_dir  # type: ignore[method-assign]
    h.realpath = real.realpath  # type: ignore[method-assign]
    v = collect_network(h)
    assert v.source == "sysfs"
    assert v.notes[0] == "`ip` (iproute2) is not installed on box: read from /sys/class/net " \
                         "instead"
    assert "per-port VLANs are not shown: the `bridge` tool is not installed" in v.notes
    assert {b.name for b in v.bridges} == {"br0", "br9", "brempty"}


def test_each_failed_read_is_reported() -> None:
    answers = _ip_answers()
    failed = Result(IP_ADDR, 1, "", "Cannot open netlink socket", 0.0)
    answers[IP_ADDR] = CommandFailed(failed)
    answers[BRIDGE_VLAN] = "{not json"
    v = collect_network(FakeHost(commands=answers))  # type: ignore[arg-type]
    assert v.source == "ip"
    assert v.problems[0].startswith("addresses unknown: ip -j addr show failed: ")
    assert "Cannot open netlink socket" in v.problems[0]
    assert v.problems[1].startswith("per-port VLANs unknown: bridge -j vlan show failed: ")
    assert all(i.addresses == () for i in v.interfaces)


def test_ip_output_unreadable_falls_back() -> None:
    real = replay("host-eth0")
    h = FakeHost(commands={IP_LINK: "garbage"})
    h.read_text = real.read_text  # type: ignore[method-assign]
    h.list_dir = real.list_dir  # type: ignore[method-assign]
    h.realpath = real.realpath  # type: ignore[method-assign]
    v = collect_network(h)
    assert v.source == "sysfs"
    assert v.problems[0].startswith("ip -j -d link show failed: ip -j -d link show: not JSON")
    assert {i.name for i in v.interfaces} == {"lo", "eth0", "ifb0", "ifb1"}


def test_sysfs_unlistable() -> None:
    h = FakeHost(commands={IP_LINK: CommandNotFound(IP_LINK)},
                 dirs={"/sys/class/net": PermissionError("denied")})
    v = collect_network(h)
    assert v.interfaces == ()
    assert v.problems == ("/sys/class/net could not be listed: denied",)


def test_unreadable_attribute_of_an_up_device() -> None:
    real = replay("host-eth0")
    h = FakeHost(commands={IP_LINK: CommandNotFound(IP_LINK)})
    h.list_dir = real.list_dir  # type: ignore[method-assign]
    h.realpath = real.realpath  # type: ignore[method-assign]

    def read(path: str) -> str:
        if path == "/sys/class/net/eth0/carrier":
            raise OSError(5, "Input/output error")
        return real.read_text(path)

    h.read_text = read  # type: ignore[method-assign]
    v = collect_network(h)
    eth0 = v.get("eth0")
    assert eth0 is not None and eth0.carrier is None and eth0.state == "UP"
    assert any(p.startswith("/sys/class/net/eth0/carrier could not be read") for p in v.problems)
