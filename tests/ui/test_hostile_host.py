"""Everything a host says is hostile input (issue 'trust', items 1 and 2).

The demo scenario `hostile` puts an OSC 52 clipboard write, an OSC 0 title, a screen clear,
markup (`[/b][@click=app.quit]`) and a right-to-left override into the kernel release, disk
models and serials, pool, dataset, snapshot and interface names. Walking every screen (and
the palette, a wizard, the typed confirmation) must not crash, must not quit, and what is on
screen must hold no control character: the escapes are shown as visible text (`\\x1b`).
"""

from __future__ import annotations

import html
import re

import pytest

from tests.ui.conftest import frozen, settle
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def hostile_app(tmp_path: object = None, **kw: object) -> ZConsoleApp:
    from zconsole.hosts.demo import DemoHost

    host = DemoHost("hostile", zfs_version="2.3", clock=frozen, seed=0)
    return ZConsoleApp(host, clock=frozen, refresh_interval=3600, **kw)  # type: ignore[arg-type]


def screen_text(app: ZConsoleApp) -> str:
    """What the terminal would show: the text of the exported screenshot."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")


def assert_literal(text: str, where: str) -> None:
    bad = CONTROL.findall(text)
    assert not bad, f"{where}: control characters reached the screen: {bad[:5]!r}"


@pytest.mark.parametrize("key,expect", [
    ("1", "\\x1b]0;owned\\x07"),            # the pool name, escapes shown
    ("2", "[/b][@click=app.quit]"),          # a disk model with markup, literal
    ("3", "/\\x1b]52;c;Y3Vyb"),              # a dataset named with an OSC 52 write
    ("4", "ARC"),
    ("5", "br\\x1b[2J9"),                    # an interface name
])
async def test_every_screen_shows_hostile_names_literally(key: str, expect: str) -> None:
    app = hostile_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press(key)
        await settle(app, pilot)
        text = screen_text(app)
        assert_literal(text, f"screen {key}")
        assert expect in text, f"screen {key} does not show {expect!r}"
        assert app.is_running  # [@click=app.quit] did not quit anything
        header = app.screen.query_one(HeaderBar).render().plain
        assert "[@click=app.quit]" in header and "\\x1b]0;owned" in header


async def test_header_click_does_not_run_host_markup() -> None:
    app = hostile_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.click(HeaderBar)
        await pilot.pause()
        assert app.is_running


async def test_typed_confirmation_with_markup_does_not_crash(tmp_path: object) -> None:
    """Typing `[/b]` at the typed confirmation ended the console with a MarkupError (the
    'you typed ...' sentence was markup)."""
    from tests.ui.test_wizards import type_a_mismatch, wizard_app

    app = wizard_app(tmp_path)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        _, msg = await type_a_mismatch(app, pilot, "[/b]")
        assert app.is_running
        assert "You typed '[/b]', which does not match. Nothing was run." in msg


async def test_notifications_carry_host_text_literally() -> None:
    app = hostile_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.notify_plain("could not read tank\x1b]0;owned\x07: [/oops] failed",
                         title="Saved plans", severity="warning")
        await pilot.pause()
        assert app.is_running  # a markup error in a toast ended the console before
        [note] = list(app._notifications)
        assert note.markup is False
        assert note.message == "could not read tank\\x1b]0;owned\\x07: [/oops] failed"


async def test_a_wizard_over_hostile_names_shows_them_literally() -> None:
    """The wizard's choices, preview and exact commands name the hostile disks and pool."""
    from zconsole.ui.wizards.screen import WizardScreen

    app = hostile_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        for _ in range(300):
            if isinstance(app.screen, WizardScreen):
                break
            await pilot.pause(0.01)
        screen = app.screen
        assert isinstance(screen, WizardScreen)
        seen = []
        for _ in range(4):  # choose the first offer at each question, up to the preview
            await pilot.pause(0.2)
            seen.append(screen_text(app))
            await pilot.press("enter")
        await pilot.pause(0.3)
        seen.append(screen_text(app))
        for i, text in enumerate(seen):
            assert_literal(text, f"wizard step {i}")
        assert any("\\x1b" in t for t in seen)
        assert app.is_running


async def test_disk_details_of_hostile_disks_show_them_literally() -> None:
    app = hostile_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        await settle(app, pilot)
        for _ in range(6):  # the cursor over every disk: the detail pane shows each
            await pilot.press("down")
            await pilot.pause(0.05)
            assert_literal(screen_text(app), "disk detail")
        assert app.is_running
