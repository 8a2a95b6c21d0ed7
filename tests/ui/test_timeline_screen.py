"""The Timeline screen (key 7): Pilot tests on the demo host (the summary line, the sources,
filters, the since marker, a replace appearing) and pictures at 80x24 and 120x40."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, Static

from tests.ui.conftest import FROZEN, make_app, settle
from zconsole.model.timeline import Kind, Source
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.timeline.screen import TimelineScreen

SIZES = [(80, 24), (120, 40)]
FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"


async def show_timeline(app: ZConsoleApp, pilot: Any, *, reads: int = 1) -> TimelineScreen:
    await pilot.press("7")
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    for _ in range(500):
        if screen.reads >= reads:
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the timeline was never read")
    await pilot.pause()
    return screen


async def open_timeline(app: ZConsoleApp, pilot: Any) -> TimelineScreen:
    await settle(app, pilot)
    return await show_timeline(app, pilot)


def text(screen: TimelineScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_degraded_summary_sources_and_entries_newest_first() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        assert screen.summary == [
            "✖ CRITICAL tank DEGRADED since 2026-11-18 18:43 (3 d 4 h): "
            f"{FAULTED} FAULTED after 117 write and 3 read errors; "
            "ata-ST4000VN008-2DR166_ZGY8L1M2 UNAVAIL"]
        sources = text(screen, "#tl-sources")
        assert "zpool events: 11 entries, back to 2026-11-18 18:43 (a ring buffer in the " \
               "kernel module, lost at reboot" in sources.replace("\n", " ")
        assert "times in the host's time zone (UTC+00:00 UTC)" in sources
        lines = text(screen, "#tl-entries").splitlines()
        assert lines[0] == "── 2026-11-21 Sat ──"
        assert "tank DEGRADED (first seen; already so at zconsole's first reading)" in lines[1]
        assert f"{FAULTED} FAULTED (was ONLINE)" in lines[2] and lines[2].startswith(
            "22:13:10 state")
        times = [e.at for e in screen.shown]
        assert times == sorted(times)  # kept oldest first, drawn newest first


async def test_filters_cycle_with_keys_and_clear() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        everything = len(screen.shown)
        await pilot.press("k")  # kind: state
        assert screen.filters.kind is Kind.STATE
        assert screen.shown and all(e.kind is Kind.STATE for e in screen.shown)
        await pilot.press("k")  # kind: error
        assert {e.words for e in screen.shown} == {f"write I/O error on {FAULTED} (EIO)",
                                                   f"read I/O error on {FAULTED} (EIO)"} \
            or all(e.kind is Kind.ERROR for e in screen.shown)
        await pilot.press("x")
        assert len(screen.shown) == everything
        await pilot.press("o")
        assert screen.filters.pool == "tank"
        await pilot.press("v")  # the first vdev of tank's entries, sorted
        vdev = screen.filters.vdev
        assert vdev and all(e.vdev == vdev for e in screen.shown)
        assert f"pool tank · vdev {vdev} · kind all" in text(screen, "#tl-filters")
        await pilot.press("p")  # the console's pause is still p
        assert app.paused
        footer = " ".join(f"{b.binding.key_display or b.binding.key} {b.binding.description}"
                          for b in screen.active_bindings.values() if b.binding.show)
        assert len(footer) + len("^p palette") + 2 <= 80, footer


async def test_since_marker_shows_what_changed_since_a_time() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        await pilot.press("s")
        box = screen.query_one("#tl-since", Input)
        assert box.has_focus
        for ch in "22:00":
            await pilot.press(ch)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.filters.since == FROZEN - 3610
        assert screen.shown and all(e.at >= FROZEN - 3610 for e in screen.shown)
        lines = text(screen, "#tl-entries").splitlines()
        assert lines[-1].startswith("── since 22:00: ") and "older entries hidden ──" in \
            lines[-1]
        assert not box.has_class("open")
        # a word that is not a time changes nothing
        assert not screen.set_since("lunch")
        assert screen.filters.since == FROZEN - 3610
        assert screen.set_since("")
        assert screen.filters.since is None


async def test_a_replace_done_in_the_demo_appears_after_ctrl_r() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        app.host.run(["zpool", "replace", "tank", FAULTED,
                      "ata-ST4000VN008-2DR166_ZGY8Q5R6"])
        await pilot.press("ctrl+r")
        await settle(app, pilot, refreshes=1)
        for _ in range(500):
            if screen.reads >= 2:
                break
            await pilot.pause(0.01)
        words = [(e.source, e.words) for e in screen.entries()]
        assert (Source.EVENTS, "resilver started") in words
        assert (Source.HISTORY, f"zpool replace tank {FAULTED} "
                                "ata-ST4000VN008-2DR166_ZGY8Q5R6") in words
        assert "resilver of ata-ST4000VN008-2DR166_ZGY8Q5R6" in screen.summary[0]


async def test_hostile_names_are_shown_as_text() -> None:
    app = make_app("hostile")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        entries = text(screen, "#tl-entries")
        assert "\x1b" not in entries  # escapes are shown as \x1b, never sent


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_timeline_pictures(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app("degraded")

    async def run_before(pilot: Any) -> None:
        await open_timeline(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_more_than_a_page_of_entries_is_paged_with_brackets() -> None:
    """400 entries a page, newest first: `[` shows the 400 before them, `]` comes back; the
    lines above and below say how many each other page holds; a new filter goes back to
    the newest page."""
    from dataclasses import replace

    from zconsole.model.timeline import Entry

    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        assert screen.timeline is not None
        many = tuple(Entry(FROZEN + i, Kind.INTERNAL, "tank", "", f"entry {i:04d}",
                           Source.EVENTS, seq=i) for i in range(1000))  # the newest
        screen.timeline = replace(screen.timeline, entries=many)
        screen._redraw()
        await pilot.pause()
        older = len(screen.shown) - 400  # the session's own observations are older
        assert older >= 600
        first = text(screen, "#tl-entries").splitlines()
        assert sum("entry " in line for line in first) == 400
        assert "entry 0999" in first[1] and not any("entry 0599" in x for x in first)
        assert f"{older} older entries on the next pages ([ older; page 1 of 3)" in first[-1]
        await pilot.press("left_square_bracket")
        second = text(screen, "#tl-entries").splitlines()
        assert "400 newer entries on the pages before (] newer; page 2 of 3)" in second[0]
        assert any("entry 0599" in x for x in second) and any("entry 0200" in x for x in second)
        assert not any("entry 0600" in x or "entry 0199" in x for x in second)
        await pilot.press("left_square_bracket", "left_square_bracket")  # the last page
        third = text(screen, "#tl-entries").splitlines()
        assert "800 newer entries on the pages before (] newer; page 3 of 3)" in third[0]
        assert sum("entry " in line for line in third) == 200
        assert "older entr" not in third[-1]
        await pilot.press("right_square_bracket")
        assert any("entry 0599" in x for x in text(screen, "#tl-entries").splitlines())
        await pilot.press("k")  # another filter: the newest page again
        assert screen.page == 0
