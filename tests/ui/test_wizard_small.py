"""Wizards at 80x24 (issue 29): the steps stay on screen, the focused field and the newest
message are in view, refused options can be read whole, commands never break inside an
argument and `y` copies one exactly."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static

from tests.ui.conftest import frozen, settle
from tests.ui.test_host_screen import open_host
from tests.ui.test_wizards import until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.model.command import Command
from zconsole.ui.wizards import open_wizard
from zconsole.ui.wizards.argv import CommandText, command_lines
from zconsole.ui.wizards.choices import Selection
from zconsole.ui.wizards.phases.base import CommandsBox, PhaseBar
from zconsole.ui.wizards.screen import Phase, WizardScreen

SMALL = (80, 24)
FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # the degraded demo's faulted tank member


def in_view(screen: WizardScreen, w: Widget) -> bool:
    """`w` is displayed whole inside the part of the wizard's body on screen."""
    body = screen.query_one(".body")
    return w.region.height > 0 and body.region.contains_region(w.region)


def bar_in_view(screen: WizardScreen) -> bool:
    """The title and the steps on screen, right above the body (never scrolled away)."""
    bar = screen.query_one(PhaseBar)
    text = str(bar.render())
    return (bar.region.height == 1 and screen.region.contains_region(bar.region)
            and bar.region.bottom == screen.query_one(".body").region.y
            and "choose" in text and "result" in text)


async def same_bay_preview(pilot: Any, app: Any) -> WizardScreen:
    """The degraded demo's same-bay replace (then a scrub), at its preview."""
    await settle(app, pilot)
    screen = open_wizard(app, "replace-failed", Selection("tank", path=("mirror-0", FAULTED)))
    await pilot.pause()
    for value in ("same", "scrub"):
        await until(pilot, lambda: screen.phase is Phase.CHOOSE, "a choice")
        screen.choose(value)
        await pilot.pause()
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
    return screen


async def fix_ssh_preview(app: Any, pilot: Any) -> WizardScreen:
    """The slow-ssh demo's Host screen, `f`: the fix-ssh wizard at its preview."""
    await open_host(app, pilot)
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
    screen = app.screen
    assert isinstance(screen, WizardScreen)
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
    return screen


async def same_bay_confirm(tmp: Path, pilot: Any, app: Any) -> WizardScreen:
    """The degraded demo's same-bay replace, at its typed confirmation (the new serial)."""
    screen = await same_bay_preview(pilot, app)
    await pilot.press("enter")
    await until(pilot, lambda: screen.phase is Phase.CONFIRM, "the confirmation")
    await pilot.pause(0.1)
    return screen


async def test_fix_ssh_typed_confirmation_is_in_view_at_80x24(tmp_path: Path) -> None:
    app = wizard_app(tmp_path, "slow-ssh")
    async with app.run_test(size=SMALL) as pilot:
        wz = await fix_ssh_preview(app, pilot)
        assert bar_in_view(wz)
        await pilot.press("enter")
        await until(pilot, lambda: wz.phase is Phase.CONFIRM, "the confirmation")
        await pilot.pause(0.1)
        field = wz.query_one("#wz-input", Input)
        assert app.focused is field
        assert in_view(wz, field), (field.region, wz.query_one(".body").region)
        assert bar_in_view(wz)
        await pilot.press(*"UseDNS", "enter")  # short of the word: refused, said by the field
        await pilot.pause(0.1)
        message = wz.query_one("#wz-message", Static)
        assert "does not match" in str(message.render())
        b = wz.query_one(".body")
        assert in_view(wz, message) and in_view(wz, field), (
            message.region, field.region, b.region, b.scroll_y, b.max_scroll_y, b.virtual_size, b.scrollable_content_region)
        assert message.region.y - field.region.bottom <= 1  # right under it, not far below
        assert bar_in_view(wz)


@pytest.mark.parametrize("size", [SMALL, (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_same_bay_serial_and_wrong_serial_message_in_view(
        tmp_path: Path, size: tuple[int, int]) -> None:
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app.run_test(size=size) as pilot:
        wz = await same_bay_confirm(tmp_path, pilot, app)
        field = wz.query_one("#wz-input", Input)
        assert app.focused is field and in_view(wz, field)
        await pilot.press(*"ZGY8C3D", "enter")
        await pilot.pause(0.1)
        message = wz.query_one("#wz-message", Static)
        assert "does not match" in str(message.render())
        assert in_view(wz, message) and in_view(wz, field)
        assert message.region.y - field.region.bottom <= 1  # right under the field
        assert bar_in_view(wz)


async def test_refused_disk_takes_the_cursor_and_shows_its_whole_reason(tmp_path: Path
                                                                       ) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        screen = open_wizard(app, "attach", Selection("tank", path=("mirror-0",)))
        await until(pilot, lambda: screen.phase is Phase.CHOOSE and screen.stage is not None
                    and screen.stage.key == "disk", "the disk list")
        assert screen.stage is not None
        values = [c.value for c in screen.stage.options]
        sdj = screen.stage.options[values.index("sdj")]
        assert not sdj.enabled and len(sdj.why) > len(sdj.detail)
        assert "…" not in sdj.detail  # the first sentence whole, wrapped
        ol = screen.query_one("#wz-options", OptionList)
        assert not ol.get_option_at_index(values.index("sdj")).disabled
        for _ in range(values.index("sdj") - (ol.highlighted or 0)):
            await pilot.press("down")
        assert ol.highlighted == values.index("sdj")  # the cursor is on the refused disk
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.phase is Phase.CHOOSE and "disk" not in screen.chosen  # not selected
        prompt = str(ol.get_option_at_index(values.index("sdj")).prompt)
        assert sdj.why.removeprefix("✖ ") in prompt.replace("\n", " ")  # the whole reason
        assert "512-byte logical sectors (512n or 512e)" in prompt  # its last sentence
        assert bar_in_view(screen)
        # the list takes the room there is (no fixed height) and stays on screen
        assert in_view(screen, ol)
        assert ol.region.bottom >= screen.query_one(".body").region.bottom - 1


async def test_choice_list_uses_the_height_it_has(tmp_path: Path) -> None:
    """At 120x50 a long list is as tall as the screen allows, not ~16 lines."""
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(app, pilot)
        screen = open_wizard(app, "attach", Selection("tank", path=("mirror-0",)))
        await until(pilot, lambda: screen.stage is not None and screen.stage.key == "disk",
                    "the disk list")
        await pilot.pause(0.1)
        ol = screen.query_one("#wz-options", OptionList)
        body = screen.query_one(".body")
        assert ol.region.height > 20
        assert in_view(screen, ol) and ol.region.bottom >= body.region.bottom - 1 \
            or ol.max_scroll_y == 0


async def test_y_copies_one_command_as_one_shell_line(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        screen = open_wizard(app, "attach", Selection("tank", path=("mirror-0",)))
        await until(pilot, lambda: screen.stage is not None and screen.stage.key == "disk",
                    "the disk list")
        screen.choose("sdh")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert screen.plan is not None
        commands = [s.command for s in screen.plan.steps if s.command is not None]
        await pilot.press("y")
        assert app.clipboard == shlex.join(commands[0].argv)
        assert "\n" not in app.clipboard
        said = [n.message for n in app._notifications]
        assert any("Copied step" in m and shlex.join(commands[0].argv) in m for m in said)
        if len(commands) > 1:
            await pilot.press("y")
            assert app.clipboard == commands[1].display()


def test_command_lines_break_only_between_arguments() -> None:
    argv = ("zpool", "replace", "tank", "15712766684991486900",
            "/dev/disk/by-id/ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE", "-o", "ashift=12")
    lines = command_lines(Command(argv, "replace"), 60)
    assert all(len(line) <= 60 for line in lines)
    assert len(lines) > 1 and all(line.endswith(" \\") for line in lines[:-1])
    units = [u for line in lines for u in line.removesuffix(" \\").split()]
    assert units == list(argv)  # every argument whole, on one line, in order
    # a copy of the screen's lines is the command again (the shell joins ` \` lines)
    assert shlex.split(" ".join(line.removesuffix(" \\") for line in lines)) == list(argv)


def test_an_argument_longer_than_the_line_is_cut_visibly() -> None:
    long = "/dev/disk/by-id/" + "x" * 100
    lines = command_lines(Command(("zpool", "attach", "tank", long), "attach"), 40)
    assert any(line.rstrip(" \\").endswith("…") for line in lines)
    assert all(len(line) <= 40 for line in lines)


def test_host_text_in_a_command_is_shown_escaped() -> None:
    text = CommandText([Command(("zpool", "online", "tank", "evil\x1b[2J"), "online")])
    shown = "".join(c.plain for c in text.lines(80))
    assert "\x1b" not in shown and "\\x1b" in shown


async def test_command_box_at_80_columns_never_splits_an_argument(tmp_path: Path) -> None:
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await same_bay_preview(pilot, app)
        await pilot.pause(0.1)
        box = screen.query_one("#wz-commands", CommandsBox)
        text = box.render()
        assert isinstance(text, CommandText)
        rendered = [c.plain for c in text.lines(box.content_region.width)]
        assert all(len(line) <= box.content_region.width for line in rendered)
        assert screen.plan is not None
        for step in screen.plan.steps:
            if step.command is None:
                continue
            for arg in step.command.argv:  # each argument whole on one rendered line
                quoted = shlex.quote(arg)
                if len(quoted) < box.content_region.width - 6:
                    assert any(quoted in line for line in rendered), (quoted, rendered)


async def test_identify_result_is_said_in_the_on_site_box_in_view(tmp_path: Path) -> None:
    """Same bay at 80x24: `i` on the find step says its end in the on-site box, on screen
    (not only in the log, below the fold)."""
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app.run_test(size=SMALL) as pilot:
        wz = await same_bay_confirm(tmp_path, pilot, app)
        await pilot.press(*"ZGY8C3D4", "enter")
        await until(pilot, lambda: wz.operator_step is not None, "the find step", tries=1500)
        await pilot.press("i")
        box = wz.query_one("#wz-operator", Static)
        await until(pilot, lambda: "identify finished" in str(box.render()), "identify's end")
        await pilot.pause(0.1)
        assert in_view(wz, box), (box.region, wz.query_one(".body").region)
        assert bar_in_view(wz)


async def test_a_reveal_asked_before_the_next_page_does_not_scroll_it(tmp_path: Path) -> None:
    """The same-bay replace's second preview came up scrolled to its bottom now and then (CI,
    2026-11-30, `test_replace_failed_pictures[replace-preview-80x24]`): "The new disk is in…"
    asked to be scrolled into view after the next refresh, the preview was shown from its top
    before that refresh, and the reveal then scrolled it to where the message sits now. A
    reveal asked before a page is shown from its top is void; one asked after still works."""
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await same_bay_preview(pilot, app)
        await pilot.pause(0.1)
        body = screen.query_one(".body")
        assert body.max_scroll_y > 0 and body.scroll_y == 0  # longer than 24 lines, at its top
        screen._message("The new disk is in: reading the host afresh…")  # revealed later
        screen._show_preview()  # the next page, from its top, before that refresh
        await pilot.pause(0.1)
        assert body.scroll_y == 0, body.scroll_y
        screen._message("a message asked for now")
        await pilot.pause(0.1)
        message = screen.query_one("#wz-message", Static)
        assert body.scroll_y > 0 and in_view(screen, message), (body.scroll_y, message.region)
