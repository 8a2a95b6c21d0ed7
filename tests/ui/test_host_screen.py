"""The Host screen (key 6): the fix-it panels on the demo scenarios slow-ssh and slow-boot
(the verdict names the cause and the file:line), the palette entries that open it, a clean
host, a user who is not root; and pictures at 80x24 and 120x40 with a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from tests.ui.conftest import frozen, make_app, settle
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.host.screen import HostScreen

SIZES = [(80, 24), (120, 40)]


async def open_host(app: ZConsoleApp, pilot: Any) -> HostScreen:
    await settle(app, pilot)
    await pilot.press("6")
    screen = app.screen
    assert isinstance(screen, HostScreen)
    if not await panels_read(screen, pilot):
        raise AssertionError("the fix-it panels were never read")
    await pilot.pause()
    return screen


async def panels_read(screen: HostScreen, pilot: Any) -> bool:
    """Wait (10 s at the most) until both fix-it panels are read and settled."""
    for _ in range(1000):
        if screen.reads >= 2 and screen.settled():
            return True
        await pilot.pause(0.01)
    return False


def text_of(screen: HostScreen, selector: str) -> str:
    return "\n".join(str(w.render()) for w in screen.query(selector).results(Static))


def one_line(text: str) -> str:
    return " ".join(text.split())


async def read_panels(app: ZConsoleApp) -> tuple[dict[str, str], dict[str, str]]:
    """The ssh and boot fix-it panels at 120x40: each part's text (verdict, evidence, fixes,
    unread), on one line."""
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        ssh, boot = (
            {part: one_line(text_of(screen, f"#fix-{panel} .fix-{part}"))
             for part in ("verdict", "evidence", "fixes", "unread")}
            for panel in ("ssh", "boot")
        )
    return ssh, boot


async def test_slow_ssh_verdict_names_usedns_and_its_file_line() -> None:
    ssh, boot = await read_panels(make_app("slow-ssh"))
    assert ssh["verdict"] == ("▲ Logins wait 11 s for a reverse DNS lookup of the client "
                              "address")
    evidence = ssh["evidence"]
    assert ("UseDNS yes for this client (sshd -T); set at "
            "/etc/ssh/sshd_config.d/50-hardening.conf:3") in evidence
    assert "getent hosts 192.168.10.31: 6.0 s → ws-31.office.example" in evidence
    assert ("reverse mapping checking getaddrinfo for ws-31.office.example "
            "[192.168.10.31] failed.") in evidence
    fixes = ssh["fixes"]
    assert fixes.startswith("1. Remove `UseDNS yes` at "
                            "/etc/ssh/sshd_config.d/50-hardening.conf:3")
    assert "2. Override it with /etc/ssh/sshd_config.d/00-zconsole-usedns.conf" in fixes
    assert "costs: `from=\"hostname\"` patterns in authorized_keys" in fixes
    # the boot panel of the same host: nothing wrong
    assert boot["verdict"].startswith("✔ The boot did not wait for the network")


async def test_slow_boot_verdict_names_the_link() -> None:
    ssh, boot = await read_panels(make_app("slow-boot"))
    assert boot["verdict"] == ("▲ Boot waits 2 min for eno2, a port with no cable that asks "
                               "for DHCP")
    evidence = boot["evidence"]
    assert "networkctl: eno2 ether no-carrier configuring" in evidence
    assert "Timeout occurred while waiting for network connectivity." in evidence
    assert "netplan get: ethernets.eno2: dhcp4: true" in evidence
    fixes = boot["fixes"]
    assert fixes.startswith("1. Mark eno2 optional in netplan")
    assert fixes.index("2. Wait only for br0 and br100") < fixes.index("4. Mask wait-online")
    assert "offsite-backup.service" in fixes
    assert ssh["verdict"].startswith("✔ No cause of slow logins found")


@pytest.mark.parametrize("entry,panel", [("Fix slow SSH logins", "ssh"),
                                         ("Fix slow boot", "boot")])
async def test_palette_entries_open_the_screen(entry: str, panel: str) -> None:
    app = make_app("slow-boot")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert entry in commands
        commands[entry].callback()
        await pilot.pause()
        assert isinstance(app.screen, HostScreen)
        screen = app.screen
        await panels_read(screen, pilot)
        await pilot.pause()
        panel_widget = screen.query_one(f"#fix-{panel}")
        body = panel_widget.parent
        assert body is not None
        assert panel_widget.region.y <= 24  # scrolled into view


async def test_not_root_says_what_needs_root() -> None:
    from zconsole.hosts.demo import DemoHost

    host = DemoHost("slow-ssh", clock=frozen, seed=0, root=False)
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600)
    ssh, _ = await read_panels(app)
    assert ssh["verdict"].startswith("? Not judged")
    assert "(zconsole is not root)" in ssh["verdict"]
    unread = ssh["unread"]
    assert "sshd -T needs root" in unread and "(needs root)" in unread
    assert "the system journal needs root (or group adm or systemd-journal)" in unread


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", ["slow-ssh", "slow-boot", "ssh-auth"])
def test_host_pictures(snap_compare: Any, size: tuple[int, int], scenario: str) -> None:
    app = make_app(scenario)

    async def run_before(pilot: Any) -> None:
        await open_host(app, pilot)
        if scenario == "slow-boot":
            app.open_fixit("boot")
            await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        for _ in range(3):
            await pilot.pause(0.02)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
