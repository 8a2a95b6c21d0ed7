"""The Network screen (key 5): Pilot tests on the demo host and on a ReplayHost built from
real captures, and snapshot pictures at 80x24 and 120x40."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from tests.paths import PARSERS
from tests.ui.conftest import make_app, settle
from zconsole.hosts.replay import ReplayHost
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.reading import PartFailed
from zconsole.ui.screens.network.screen import NetworkScreen

FIX = PARSERS / "iproute"
SIZES = [(80, 24), (120, 40)]


async def show_network(app: ZConsoleApp, pilot: Any, *, patience: float = 5.0) -> NetworkScreen:
    """Press 5 and wait (up to about `patience` seconds) until the Network screen has read the
    network; tests/integration/test_ui_network.py opens it on the guest this way too."""
    await pilot.press("5")
    screen = app.screen
    assert isinstance(screen, NetworkScreen)
    for _ in range(round(patience / 0.01)):
        if screen.reads:
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the network was never read")
    await pilot.pause()
    return screen


async def open_network(app: ZConsoleApp, pilot: Any, refreshes: int = 1) -> NetworkScreen:
    await settle(app, pilot, refreshes=refreshes)
    return await show_network(app, pilot)


def text_of(screen: NetworkScreen, selector: str) -> str:
    return "\n".join(str(w.render()) for w in screen.query(selector).results(Static))


async def test_showcase_bridge_tree() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_network(app, pilot)
        bridges = text_of(screen, ".net-bridge")
        lines = bridges.splitlines()
        assert lines[0].startswith("br0  bridge  ✔ UP  MTU 1500  carrier yes")
        assert "192.168.10.20/24" in lines[1]
        assert lines[2].startswith("├─ ← eno1     ✔ UP")
        assert lines[3].startswith("└─ → br0.100  ✔ UP")
        assert "VLAN 100 · port of br100" in lines[3]
        assert "br100  bridge  ✔ UP" in bridges
        assert "└─ ← br0.100  ✔ UP          MTU 1500   VLAN 100 on br0" in bridges
        others = text_of(screen, "#net-others")
        assert "lo     loopback ✔ UP          65536 yes     UNKNOWN" in others
        assert "eno2   physical ○ DOWN        1500  ?       DOWN" in others
        assert "every bridge has a working port" in text_of(screen, "#net-findings")
        summary = text_of(screen, "#net-summary")
        assert summary == "6 interfaces · 2 bridges · read with ip -j 0 s ago"


async def test_all_ports_down_is_pointed_out() -> None:
    app = make_app("netdown")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_network(app, pilot)
        findings = text_of(screen, "#net-findings").replace("\n", " ")
        assert "▲ bridge br0: all 2 ports lack carrier: eno1 has no carrier, eno2 has no " \
               "carrier" in findings
        assert "▲ br100 has no working port: br0.100 has no carrier (its lower device br0 " \
               "has no working port" in findings
        bridges = text_of(screen, ".net-bridge")
        assert "├─ ← eno1     ✖ NO-CARRIER" in bridges
        assert "└─ → br0.100  ✖ NO-CARRIER" in bridges


async def test_replayed_real_capture() -> None:
    host = ReplayHost(str(FIX / "netns-bridges"))
    clock = host.now
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_network(app, pilot)
        findings = text_of(screen, "#net-findings")
        assert "▲ MTU mismatch: bridge br0 has MTU 9000 but its ports eno1 and eno2 have " \
               "MTU 1500" in findings
        assert "▲ bridge br9: all 2 ports lack carrier" in findings
        assert "• bridge brempty has no ports: its address 203.0.113.5/24" in findings
        bridges = text_of(screen, ".net-bridge")
        assert "├─ ← eno1     ✔ UP          MTU 1500≠" in bridges
        assert "└─ ← eno5     ✔ UP          MTU 9000" in bridges
        assert "brempty  bridge  ✔ UP  MTU 1500  carrier yes  operstate UNKNOWN" in bridges
        assert "└─ no ports" in bridges
        assert "9 interfaces · 3 bridges" in text_of(screen, "#net-summary")


async def test_failed_read_keeps_old_data_and_says_so() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_network(app, pilot)
        screen.post_message(PartFailed("network", "HostUnreachable: ssh: connection refused",
                                       asked_at=app.clock()))
        await pilot.pause()
        problems = text_of(screen, "#net-problems")
        assert problems.splitlines() == [
            "✖ The network could not be read: HostUnreachable: ssh: connection refused "
            "(tried 0 s ago)",
            "  The data below is from 0 s ago.",
        ]
        assert "br0" in text_of(screen, ".net-bridge")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", ["showcase", "netdown"])
def test_network_pictures(snap_compare: Any, size: tuple[int, int], scenario: str) -> None:
    app = make_app(scenario)

    async def run_before(pilot: Any) -> None:
        await open_network(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
