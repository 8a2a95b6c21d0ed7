"""iproute2 JSON and /proc/net/vlan/config parsers on real captures (tests/fixtures/parsers/
iproute/, see its SOURCES.md) and on the demo host's VLAN output."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.paths import PARSERS
from zconsole.model.network import IfKind, VlanRange
from zconsole.parsers.errors import ParseError
from zconsole.parsers.iproute import (
    parse_bridge_vlan,
    parse_ip_addr,
    parse_ip_link,
    parse_proc_net_vlan,
)

FIX = PARSERS / "iproute"


def cmd(capture: str, argv: list[str]) -> str:
    manifest = json.loads((FIX / capture / "manifest.json").read_text())
    entry = next(c for c in manifest["commands"] if c["argv"] == argv)
    return (FIX / capture / entry["stdout"]).read_text()


LINK = ["ip", "-j", "-d", "link", "show"]
ADDR = ["ip", "-j", "addr", "show"]
BRVLAN = ["bridge", "-j", "vlan", "show"]


def test_link_on_the_capture_machine() -> None:
    links = {i.name: i for i in parse_ip_link(cmd("host-eth0", LINK))}
    assert list(links) == ["lo", "ifb0", "ifb1", "eth0"]
    assert links["lo"].kind is IfKind.LOOPBACK and links["lo"].state == "UP"
    assert links["lo"].operstate == "UNKNOWN" and links["lo"].mtu == 65536
    eth0 = links["eth0"]
    assert (eth0.kind, eth0.mtu, eth0.carrier, eth0.state) == (IfKind.PHYSICAL, 1400, True, "UP")
    assert eth0.mac == "02:fc:00:00:00:01"
    ifb0 = links["ifb0"]
    # administratively down: ip prints neither LOWER_UP nor NO-CARRIER
    assert (ifb0.kind, ifb0.info_kind, ifb0.admin_up, ifb0.carrier, ifb0.state) == (
        IfKind.OTHER, "ifb", False, None, "DOWN")


def test_link_bridges_in_a_namespace() -> None:
    links = {i.name: i for i in parse_ip_link(cmd("netns-bridges", LINK))}
    assert {n for n, i in links.items() if i.kind is IfKind.BRIDGE} == {"br0", "br9", "brempty"}
    assert {n: i.master for n, i in links.items() if i.master} == {
        "eno1": "br0", "eno2": "br0", "eno5": "br0", "eno3": "br9", "eno4": "br9"}
    assert links["eno1"].kind is IfKind.VETH
    assert (links["eno2"].carrier, links["eno2"].state, links["eno2"].operstate) == (
        False, "NO-CARRIER", "DOWN")
    assert links["br9"].state == "NO-CARRIER"
    # a bridge without ports: operstate UNKNOWN, carrier up (kernel 6.18)
    assert (links["brempty"].operstate, links["brempty"].carrier, links["brempty"].state) == (
        "UNKNOWN", True, "UP")
    assert (links["br0"].mtu, links["eno1"].mtu, links["eno5"].mtu) == (9000, 1500, 9000)


def test_addr() -> None:
    addrs = parse_ip_addr(cmd("netns-bridges", ADDR))
    assert [str(a) for a in addrs["br0"]][:2] == ["192.0.2.20/24", "2001:db8:10::20/64"]
    assert addrs["br9"] == ()
    host = parse_ip_addr(cmd("host-eth0", ADDR))
    assert [(a.family, str(a), a.scope) for a in host["eth0"]] == [
        ("inet", "192.0.2.2/24", "global"), ("inet6", "fd00::2/64", "global"),
        ("inet6", "fe80::fc:ff:fe00:1/64", "link")]


def test_bridge_vlan_real_empty_and_both_shapes() -> None:
    assert parse_bridge_vlan(cmd("netns-bridges", BRVLAN)) == {}
    # shapes printed by iproute2 bridge/vlan.c: the array (>= 5.x) and the old object
    new = parse_bridge_vlan('[{"ifname":"eno1","vlans":[{"vlan":1,"flags":["PVID",'
                            '"Egress Untagged"]},{"vlan":10,"vlanEnd":20}]}]')
    assert new == {"eno1": (VlanRange(1, None, True, True), VlanRange(10, 20))}
    assert [str(v) for v in new["eno1"]] == ["1 (PVID, untagged)", "10-20"]
    old = parse_bridge_vlan('{"eno1":[{"vlan":100}]}')
    assert old == {"eno1": (VlanRange(100),)}


def test_demo_vlan_shapes() -> None:
    from zconsole.hosts.demo import DemoHost

    h = DemoHost("showcase", clock=lambda: 0.0)
    links = {i.name: i for i in parse_ip_link(h.run(LINK).stdout)}
    v = links["br0.100"]
    assert (v.kind, v.vlan_id, v.parent, v.master) == (IfKind.VLAN, 100, "br0", "br100")
    proc = parse_proc_net_vlan(h.read_text("/proc/net/vlan/config"))
    assert proc["br0.100"].vid == 100 and proc["br0.100"].lower == "br0"


@pytest.mark.parametrize("text", ["", "{}", "[1]", '[{"mtu": 1}]', "not json", "[{\"ifname\":"])
def test_link_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_ip_link(text)


def test_proc_vlan_garbage() -> None:
    with pytest.raises(ParseError):
        parse_proc_net_vlan("VLAN Dev name | VLAN ID\nbr0.100 | x | br0\n")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    for parser in (parse_ip_link, parse_ip_addr, parse_bridge_vlan, parse_proc_net_vlan):
        try:
            parser(text)
        except ParseError:
            pass


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_real_json_raises_only_parse_error(data: st.DataObject) -> None:
    base = json.loads(cmd("netns-bridges", LINK))
    i = data.draw(st.integers(0, len(base) - 1))
    key = data.draw(st.sampled_from(sorted(base[i])))
    base[i][key] = data.draw(st.one_of(st.none(), st.integers(), st.text(max_size=5),
                                       st.lists(st.integers(), max_size=2)))
    try:
        parse_ip_link(json.dumps(base))
    except ParseError:
        pass
