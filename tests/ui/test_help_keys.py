"""`?` and F1: the keys of the screen on top, grouped (the list's, the screen's, everywhere,
moving), built from the bindings Textual acts on, so the list and the keys never disagree;
Escape, `?` or F1 close it (issue 29)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from tests.ui.conftest import make_app
from tests.ui.test_focus_kept import arrive as on_screen
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.help import KeysScreen, groups
from zconsole.ui.screens.registry import SCREENS


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice or audit log."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


async def opened(app: ZConsoleApp, pilot: Any, key: str) -> KeysScreen:
    await pilot.press(key)
    for _ in range(200):
        if isinstance(app.screen, KeysScreen) and app.screen.is_mounted:
            break
        await pilot.pause(0.01)
    keys = app.screen
    assert isinstance(keys, KeysScreen), app.screen
    await pilot.pause()
    return keys


def listed(keys: KeysScreen) -> dict[str, dict[str, str]]:
    """Group title -> {description: its keys}, as the modal shows them."""
    return {g.title: {k.description: " ".join(k.keys) for k in g.keys} for g in keys.found}


def text(keys: KeysScreen) -> str:
    return str(keys.query_one("#keys-text", Static).render())


async def test_question_mark_on_pools_lists_the_pools_keys_and_escape_closes() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        pools = await on_screen(app, pilot, "1")
        keys = await opened(app, pilot, "question_mark")
        shown = listed(keys)
        assert {"Attach": "a", "Detach": "d", "Replace": "r", "Grow": "g", "Dedup": "D",
                "Columns": "m"}.items() <= shown["Pools"].items()
        everywhere = shown["Everywhere"]
        assert everywhere["Refresh"] == "^r f5" and everywhere["Pause"] == "p"
        assert everywhere["Keys of this screen"] == "? f1"
        assert everywhere["1 Pools, 2 Disks, 3 Datasets, 4 ARC, 5 Network, 6 Host, "
                          "7 Timeline, 8 Advice, 9 Fleet"] == "1-9"
        assert "Moving" in shown
        assert "  D            Dedup" in text(keys)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is pools


async def test_read_only_pools_lists_no_wizard_key() -> None:
    """A key whose action says no (the wizards of a read-only console) is not offered."""
    app = make_app("showcase", read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await on_screen(app, pilot, "1")
        keys = await opened(app, pilot, "question_mark")
        assert "Attach" not in listed(keys)["Pools"]
        assert "Columns" in listed(keys)["Pools"]


async def test_f1_on_advice_lists_m_and_f1_or_question_mark_close() -> None:
    app = make_app("advice")
    async with app.run_test(size=(120, 40)) as pilot:
        advice = await on_screen(app, pilot, "8")
        keys = await opened(app, pilot, "f1")
        the_list = listed(keys)["The list"]
        assert the_list["Mute/unmute"] == "m"
        assert the_list["Why"] == "⏎ space" and the_list["Run as a plan"] == "x"
        assert "Mute/unmute" in text(keys)
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen is advice
        await opened(app, pilot, "question_mark")
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is advice
        # the keys still act on the list underneath: nothing was lost on the way
        assert type(advice.focused).__name__ == "AdviceItem"


@pytest.mark.parametrize("entry", SCREENS, ids=lambda e: e.mode)
async def test_every_screen_lists_each_key_its_footer_shows(entry: Any) -> None:
    """Whatever the footer offers is in the list, under the same key and words."""
    from zconsole.ui.kit.footer import ZFooter

    app = make_app("advice" if entry.mode == "advice" else "showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await on_screen(app, pilot, entry.key)
        footer = {(k.display, k.description) for k in screen.query_one(ZFooter).keys}
        keys = await opened(app, pilot, "f1")
        assert keys.title_text == entry.title
        shown = {(key, g.description) for group in keys.found for g in group.keys
                 for key in g.keys}
        assert footer <= shown, footer - shown
        assert groups(screen, entry.title) == keys.found  # the screen's own, as it works


async def test_at_80x24_the_list_fits_and_scrolls() -> None:
    """The box stays inside 80x24; what does not fit scrolls (Pools has the most keys)."""
    app = make_app("showcase")
    async with app.run_test(size=(80, 24)) as pilot:
        await on_screen(app, pilot, "1")
        keys = await opened(app, pilot, "question_mark")
        box = keys.query_one("#keys-box")
        assert box.region.right <= 80 and box.region.bottom <= 24
        assert box.region.x >= 0 and box.region.y >= 0
        scroll = keys.query_one("#keys-list")
        assert scroll.has_focus
        if scroll.max_scroll_y:
            await pilot.press("end")
            await pilot.pause()
            assert scroll.scroll_offset.y == scroll.max_scroll_y


def test_keys_picture(snap_compare: Any) -> None:
    """F1 on the Advice screen at 80x24: borders whole, no stray cells."""
    app = make_app("advice")

    async def run_before(pilot: Any) -> None:
        await on_screen(app, pilot, "8")
        await opened(app, pilot, "f1")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
