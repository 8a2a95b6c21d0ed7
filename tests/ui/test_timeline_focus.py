"""The Timeline by keyboard at 80x24 (issue 29): the page is its list, it has the focus and keeps
it (Tab, the `/` and since fields give it back), the arrows and pages scroll it, and `w` wraps
each entry whole, so an entry cut to the width ("zpool create … mirror ata-…") can be read."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from tests.ui.conftest import make_app
from tests.ui.test_focus_kept import arrive
from zconsole.ui.kit.footer import ZFooter
from zconsole.ui.kit.text import Hanging
from zconsole.ui.screens.timeline.panel import TimelinePanel
from zconsole.ui.screens.timeline.screen import TimelineScreen

CREATE = ("zpool create -o ashift=12 tank mirror ata-ST4000VN008-2DR166_ZGY8A1B2 "
          "ata-ST4000VN008-2DR166_ZGY8C3D4 mirror")  # the degraded demo's first history record


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice or audit log."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


async def timeline(app: Any, pilot: Any) -> TimelineScreen:
    screen = await arrive(app, pilot, "7")
    assert isinstance(screen, TimelineScreen)
    return screen


def page(screen: TimelineScreen) -> VerticalScroll:
    return screen.query_one(".body", VerticalScroll)


def footer(screen: TimelineScreen) -> set[str]:
    return {k.description for k in screen.query_one(ZFooter).keys}


def drawn(screen: TimelineScreen) -> list[str]:
    """The entries' lines as drawn at the widget's width."""
    entries = screen.query_one("#tl-entries", Static)
    visual = entries.render()
    if isinstance(visual, Hanging):
        return [line.plain for line in visual.lines(entries.content_size.width)]
    return str(visual).splitlines()


async def scrolls_down(pilot: Any, screen: TimelineScreen, key: str = "down") -> bool:
    """Whether `key` moves the page down (from the top)."""
    body = page(screen)
    body.scroll_home(animate=False, immediate=True)
    await pilot.pause()
    await pilot.press(key)
    await pilot.pause()
    return body.scroll_offset.y > 0


async def test_the_page_has_the_focus_tab_keeps_it_and_the_keys_scroll_it() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await timeline(app, pilot)
        body = page(screen)
        assert screen.focused is body and body.max_scroll_y > 0
        keys = footer(screen)
        for tab in ("tab", "shift+tab"):
            await pilot.press(tab)
            await pilot.pause()
            assert screen.focused is body, tab  # the one list: Tab never leaves it unfocused
        assert await scrolls_down(pilot, screen, "down")
        assert await scrolls_down(pilot, screen, "pagedown")
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_offset.y == body.max_scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert body.scroll_offset.y < body.max_scroll_y
        assert footer(screen) == keys and {"Since", "Clear"} <= keys


@pytest.mark.parametrize("typed", [("escape",), ("e", "r", "r", "enter")],
                         ids=["escape", "words-enter"])
async def test_the_find_field_gives_the_focus_back_to_the_page(typed: tuple[str, ...]) -> None:
    """`/` then escape (or words and enter): the page has the focus again at once, and the
    arrows scroll it (they did nothing until the next refresh put the focus back)."""
    app = make_app("degraded")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await timeline(app, pilot)
        keys = footer(screen)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(screen.focused, Input)
        for key in typed:
            await pilot.press(key)
        await pilot.pause()
        assert screen.focused is page(screen)
        assert footer(screen) == keys
        panel = screen.query_one(TimelinePanel)
        if panel.words.active:  # "err": the error entries; escape on the page clears it
            assert all("err" in line for line in drawn(screen) if line[:2].isdigit())
            await pilot.press("escape")
            await pilot.pause()
            assert not panel.words.active and screen.focused is page(screen)
        assert await scrolls_down(pilot, screen)


async def test_since_field_gives_the_focus_back_to_the_page() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await timeline(app, pilot)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(screen.focused, Input)
        await pilot.press("escape")
        await pilot.pause()
        assert screen.focused is page(screen)
        assert await scrolls_down(pilot, screen)


async def test_w_wraps_each_entry_whole_and_again_cuts_it() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await timeline(app, pilot)
        keys = footer(screen)
        width = screen.query_one("#tl-entries", Static).content_size.width
        cut = drawn(screen)
        assert all(len(line) <= width for line in cut)
        assert not any(CREATE in line for line in cut)
        assert any(line.rstrip().endswith("history") and "zpool create" in line
                   and "…" in line for line in cut)  # cut to the width
        await pilot.press("w")
        await pilot.pause()
        whole = drawn(screen)
        assert all(len(line) <= width for line in whole)
        assert len(whole) > len(cut)
        joined = " ".join(line.strip() for line in whole)
        assert CREATE in joined and "(by root on zdemo-degraded)  history" in joined
        # an event's raw class too, which one line has no room for
        assert "(ereport.fs.zfs.io)  event" in joined
        # wrapped lines start under the pool's column, not under the time
        first = next(i for i, line in enumerate(whole) if "zpool create" in line)
        assert whole[first + 1].startswith(" " * 18) and whole[first + 1].strip()
        # focus and footer unchanged; Down still scrolls the (longer) page
        assert screen.focused is page(screen) and footer(screen) == keys
        assert await scrolls_down(pilot, screen)
        await pilot.press("w")
        await pilot.pause()
        assert drawn(screen) == cut
