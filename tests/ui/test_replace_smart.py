"""Issue 30 in the replace wizard, on the showcase at 80x24: the failing disk's SMART is the
plan's evidence (the console's own reading, with its figures) and the bad new disk from the
shelf (8 pending, 16 reallocated sectors) is warned about before anything is written to it;
both without scrolling past the fold (issue 29). The good disk's preview says its SMART is
clean; the bad disk's warning is acknowledged like the others (the run goes on only after
the typed serial)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.ui.conftest import settle
from tests.ui.test_disks_smart import commands_run, first_smart_poll
from tests.ui.test_pool_columns import screen_lines
from tests.ui.test_wizards import body_text, until, wizard_app
from zconsole.model.finding import Finding, Severity
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.wizards import open_wizard, smart_words
from zconsole.ui.wizards.choices import Selection
from zconsole.ui.wizards.flows import make_flow
from zconsole.ui.wizards.screen import Phase, WizardScreen

DYING = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # sdb, tank mirror-0, 48 pending sectors
GOOD = "sdh"  # the WD80EFZX among the spare disks, fine
BAD = "sdm"  # the other WD80EFZX, from the shelf: 8 pending, 16 reallocated sectors


async def preview_with(app: ZConsoleApp, pilot: Any, disk: str,
                       slow: Finding | None = None) -> WizardScreen:
    """The dying disk's replace by `disk` (a free bay, then a scrub), at its preview, once
    the console has read every disk's SMART (`slow`: the console's slow-disk finding)."""
    await settle(app, pilot)
    smart = app.session.smart
    await until(pilot, lambda: smart.polled_at is not None and not smart.pending,
                "the first SMART poll", tries=1500)
    if slow is None:
        screen = open_wizard(app, "replace-failed",
                             Selection("tank", path=("mirror-0", DYING)))
    else:
        screen = WizardScreen(make_flow("replace-failed", findings=(slow,),
                                        smart=smart_words(app)),
                              host=app.host, reading=app.reading)
        app.push_screen(screen)
    await pilot.pause()
    for value in (f"tank\t{DYING}", "free", disk, "scrub"):
        await until(pilot, lambda: screen.phase is Phase.CHOOSE, "a choice")
        screen.choose(value)
        await pilot.pause()
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
    await pilot.pause()
    return screen


def flat(lines: list[str]) -> str:
    """The screen's words, wrapped lines joined (the check column's hanging indent gone)."""
    return " ".join(" ".join(line.split()) for line in lines)


async def test_the_dying_disks_evidence_and_the_bad_new_disks_warning_above_the_fold(
        tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await preview_with(app, pilot, BAD)
        shown = flat(screen_lines(app))
        # sdb's SMART, as the console read it, is why it is failing (not "looks HEALTHY")
        assert ("PN2334PBJ4K7XT is failing by its own SMART, though ZFS counts no error yet: "
                "48 pending sectors; 24 reallocated sectors; 8 offline uncorrectable "
                "sectors; extended self-test failed (Completed: read failure); SMART overall "
                "PASSED.") in shown
        assert "looks HEALTHY" not in body_text(screen)
        # the new disk's warning, whole, on the same first screen
        assert ("▲ WARNING SMART of VK2GHJ3K (sdm now): 8 pending sectors; 16 reallocated "
                "sectors; SMART overall PASSED. A new disk should have none, and the resilver "
                "writes every block of the vdev onto it: return it, or run a long self-test "
                "(smartctl -t long) first.") in shown
        assert screen.plan is not None and not screen.plan.blocked  # a warning, not a block
        fit = next(p for s in screen.plan.steps for p in s.prechecks
                   if p.kind == "new_disk_still_fit")
        params = dict(fit.params)  # read again right before the write, knowing the preview
        assert params["smart"] == "yes"
        assert params["smart_seen"] == "smart-counters:ata-197=8\nsmart-counters:ata-5=16"


async def test_a_good_new_disk_says_its_smart_is_clean(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await preview_with(app, pilot, GOOD)
        text = " ".join(body_text(screen).split())
        assert ("SMART of VK1ABCDE (sdh now): SMART overall PASSED, "
                "no reallocated, pending or uncorrectable sectors, no failed self-test.") in text
        assert "48 pending sectors" in text  # the old disk's evidence does not depend on it


async def test_slow_and_failing_by_smart_is_one_check_and_the_warning_stays_in_view(
        tmp_path: Path) -> None:
    """With the latency samples in (the live demo), the disk is failing for ZFS's own reason
    and SMART agrees: one check says both, and the new disk's warning is still on the first
    screen."""
    slow = Finding("slow-disk", Severity.WARNING, DYING,
                   f"{DYING} is 9.8x slower than its mirror peers (r_await 81 ms vs 8 ms)",
                   pool="tank")
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await preview_with(app, pilot, BAD, slow)
        shown = flat(screen_lines(app))
        assert ("✔ OK PN2334PBJ4K7XT is failing: PN2334PBJ4K7XT is 9.8x slower than its "
                "mirror peers (r_await 81 ms vs 8 ms). Its SMART: 48 pending sectors;") in shown
        assert "· NOTE" not in shown
        assert "(smartctl -t long) first." in shown


def row(lines: list[str], disk: str) -> str:
    """The words of `disk`'s row in a drawn choice list: its label line and the detail
    lines under it, up to the next disk's label."""
    start = next(i for i, line in enumerate(lines) if line.strip("│ ").startswith(f"{disk} · "))
    out = [lines[start]]
    for line in lines[start + 1:]:
        if re.match(r"^│?\s*(sd[a-z]+|nvme[0-9]+n[0-9]+) · ", line) or "╰" in line:
            break
        out.append(line)
    return flat([line.replace("│", " ").replace("▅", " ") for line in out])


async def test_the_new_disk_list_marks_a_disk_whose_smart_is_failing(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Choosing the new disk for sdb at 80x24: the shelf disk sdm says its SMART in its row
    ("SMART: 8 pending sectors", the console's reading), the healthy sdh says nothing of
    SMART, and drawing the list runs no smartctl (the marks are the session's)."""
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await first_smart_poll(app, pilot)
        ran = commands_run(app, monkeypatch)
        screen = open_wizard(app, "replace-failed", Selection("tank", path=("mirror-0", DYING)))
        await pilot.pause()
        for value in (f"tank\t{DYING}", "free"):
            await until(pilot, lambda: screen.phase is Phase.CHOOSE, "a choice")
            screen.choose(value)
            await pilot.pause()
        await until(pilot, lambda: screen.stage is not None and screen.stage.key == "disk",
                    "the new disk's list")
        await pilot.pause()
        lines = screen_lines(app)
        bad, good = row(lines, BAD), row(lines, GOOD)
        assert bad.startswith("sdm · 8.00 TB (7.3T) · WDC_WD80EFZX-68UW8N0 · serial VK2GHJ3K")
        assert bad.endswith("▲ SMART: 8 pending sectors"), bad
        assert good.startswith("sdh · 8.00 TB") and "SMART" not in good, good
        assert [a for a in ran if a and a[0] == "smartctl"] == []
