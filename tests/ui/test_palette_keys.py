"""The command palette's keys entry (issue 29): ctrl+p lists "Keys of this screen", which opens
zconsole's own list of the screen's keys (the one `?` and F1 open), and not Textual's generic
"Keys" (its help panel: Textual's scroll keys, and a drawing artefact at 80x24)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.screen import Screen

from tests.ui.conftest import make_app
from tests.ui.test_focus_kept import arrive
from tests.ui.test_help_keys import listed
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.help import PALETTE_TITLE, KeysScreen, groups


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice or audit log."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


async def until(pilot: Any, ready: Any) -> None:
    for _ in range(500):
        if ready():
            return
        await pilot.pause(0.01)
    raise AssertionError("never came")


async def palette_offers(app: ZConsoleApp, pilot: Any, typed: str) -> list[str]:
    """Open the palette, type `typed`, and read the titles it offers (as drawn)."""
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    palette = app.screen
    for ch in typed:
        await pilot.press("space" if ch == " " else ch)
    results = palette.query_one(CommandList)

    def titles() -> list[str]:
        return [str(results.get_option_at_index(i).prompt).split("\n")[0]
                for i in range(results.option_count)]

    await until(pilot, lambda: any(PALETTE_TITLE in t for t in titles()))
    await pilot.pause(0.2)  # every provider has answered
    return titles()


async def test_palette_at_80x24_offers_this_screens_keys_not_textuals() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(80, 24)) as pilot:
        pools = await arrive(app, pilot, "1")
        offered = await palette_offers(app, pilot, "keys")
        assert "Keys" not in offered  # Textual's own help panel
        assert any(t.startswith(PALETTE_TITLE) for t in offered)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, KeysScreen) and app.screen.is_mounted)
        keys = app.screen
        assert isinstance(keys, KeysScreen)
        assert keys.title_text == "Pools"
        assert keys.found == groups(pools, "Pools")  # the list `?` shows
        assert listed(keys)["Pools"]["Attach"] == "a"
        assert not app.screen.query("HelpPanel") and not pools.query("HelpPanel")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is pools)


async def test_every_screens_palette_lists_its_keys_once_and_no_textual_keys() -> None:
    """The palette as the app builds it, on each screen: one keys entry, zconsole's."""
    from zconsole.ui.screens.registry import SCREENS

    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        for entry in SCREENS:
            screen = await arrive(app, pilot, entry.key)
            commands = [c for c in app.get_system_commands(screen) if "Keys" in c.title]
            assert [c.title for c in commands] == [PALETTE_TITLE], entry.mode
            commands[0].callback()
            await until(pilot, lambda: isinstance(app.screen, KeysScreen))
            shown = app.screen
            assert isinstance(shown, KeysScreen) and shown.title_text == entry.title
            await pilot.press("escape")
            await until(pilot, lambda s=screen: app.screen is s)


async def test_a_screen_without_its_keys_list_gets_no_keys_entry() -> None:
    """Where `?` shows nothing (a screen that is not zconsole's), the palette offers nothing
    in its place, and still not Textual's panel."""
    app = make_app("showcase")
    async with app.run_test(size=(80, 24)) as pilot:
        await arrive(app, pilot, "1")
        other: Screen[None] = Screen()
        await app.push_screen(other)
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(other)]
        assert not [t for t in titles if "Keys" in t]
        assert "Quit" in titles  # Textual's other entries stay
