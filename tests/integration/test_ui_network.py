"""The Network screen against a real kernel: a bridge with a veth port whose peer is down,
a VLAN on that bridge and a bridge on the VLAN (the netplan br0 / br0.100 / br100 pattern),
built in the QEMU guest with `ip link add`. Needs ZCONSOLE_VM=1.

The guest's own virtio NIC is never touched (it carries the ssh session): the bridge's only
port is a veth whose far end stays down, so the kernel reports NO-CARRIER all the way up.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from tests.ui.test_network_screen import show_network, text_of
from zconsole.services.read.network import collect_network
from zconsole.ui.app import ZConsoleApp

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = [pytest.mark.zfsvm,
              pytest.mark.zfs_flavours("2.3", why="the network read (ip -j, the links) has nothing of OpenZFS in it")]

DEVICES = ("zcbr100", "zcbr0.100", "zcbr0", "zcport0")


def _cleanup(g: ZfsGuest) -> None:
    for dev in DEVICES:
        g.exec(["ip", "link", "del", dev], check=False)


@pytest.fixture
def topology(zfs_guest: ZfsGuest) -> Any:
    g = zfs_guest
    if g.exec(["sh", "-c", "command -v ip"], check=False).returncode != 0:
        pytest.skip("the guest has no `ip` (iproute2): cannot build a bridge there")
    _cleanup(g)
    veth = g.exec(["ip", "link", "add", "zcport0", "type", "veth", "peer", "name", "zcpeer0"],
                  check=False)
    if veth.returncode != 0:
        pytest.skip(f"the guest kernel cannot create a veth pair: {veth.stderr.strip()}")
    try:
        g.exec(["ip", "link", "add", "zcbr0", "type", "bridge"])
        g.exec(["ip", "link", "set", "zcport0", "master", "zcbr0"])
        vlan = g.exec(["ip", "link", "add", "link", "zcbr0", "name", "zcbr0.100", "type",
                       "vlan", "id", "100"], check=False)
        if vlan.returncode != 0:
            pytest.skip(f"the guest kernel cannot create a VLAN (8021q): {vlan.stderr.strip()}")
        g.exec(["ip", "link", "add", "zcbr100", "type", "bridge"])
        g.exec(["ip", "link", "set", "zcbr0.100", "master", "zcbr100"])
        for dev in ("zcport0", "zcbr0", "zcbr0.100", "zcbr100"):
            g.exec(["ip", "link", "set", dev, "up"])
        g.exec(["ip", "addr", "add", "198.51.100.7/24", "dev", "zcbr100"])
        yield g
    finally:
        _cleanup(g)


def test_collect_matches_the_guests_ip(topology: ZfsGuest) -> None:
    truth = {o["ifname"]: o for o in json.loads(
        topology.exec(["ip", "-j", "link", "show"]).stdout)}
    view = collect_network(topology.host())
    assert view.problems == (), view.problems
    got = {i.name: i for i in view.interfaces}
    assert set(got) == set(truth)
    for name, o in truth.items():
        i = got[name]
        assert (i.mtu, i.operstate, i.master) == (o["mtu"], o["operstate"], o.get("master")), name
    bridges = {b.name: b.ports for b in view.bridges}
    assert bridges["zcbr0"] == ("zcport0",) and bridges["zcbr100"] == ("zcbr0.100",)
    vlan = got["zcbr0.100"]
    assert (vlan.vlan_id, vlan.parent, vlan.state) == (100, "zcbr0", "NO-CARRIER")
    assert got["zcport0"].state == "NO-CARRIER"
    msgs = [f.message for f in view.findings]
    assert "zcbr0 has no working port: zcport0 has no carrier" in msgs
    assert ("zcbr100 has no working port: zcbr0.100 has no carrier (its lower device zcbr0 "
            "has no working port: zcport0 has no carrier)") in msgs
    # the sysfs fallback sees the same devices, states and stacking
    sysfs = collect_network(topology.host(), use_ip=False)
    assert {i.name: (i.state, i.master, i.vlan_id) for i in sysfs.interfaces} == {
        i.name: (i.state, i.master, i.vlan_id) for i in view.interfaces}


async def test_screen_on_the_guest(topology: ZfsGuest) -> None:
    app = ZConsoleApp(topology.host(), refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(3000):
            if app.refreshes or app.last_error:
                break
            await pilot.pause(0.05)
        screen = await show_network(app, pilot, patience=30.0)
        bridges = text_of(screen, ".net-bridge")
        assert "├─ ← zcport0" in bridges or "└─ ← zcport0" in bridges
        assert "└─ → zcbr0.100" in bridges and "VLAN 100 · port of zcbr100" in bridges
        assert "198.51.100.7/24" in bridges
        findings = text_of(screen, "#net-findings")
        assert "zcbr100 has no working port" in findings.replace("\n", " ")
