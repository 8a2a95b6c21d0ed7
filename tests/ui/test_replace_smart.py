"""Issue 30 in the replace wizard, on the showcase at 80x24: the failing disk's SMART is the
plan's evidence (the console's own reading, with its figures) and the bad new disk from the
shelf (8 pending, 16 reallocated sectors) is warned about before anything is written to it;
both without scrolling past the fold (issue 29). The good disk's preview says its SMART is
clean; the bad disk's warning is acknowledged like the others (the run goes on only after
the typed serial)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.conftest import settle
from tests.ui.test_pool_columns import screen_lines
from tests.ui.test_wizards import body_text, until, wizard_app
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.wizards import open_wizard
from zconsole.ui.wizards.choices import Selection
from zconsole.ui.wizards.screen import Phase, WizardScreen

DYING = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # sdb, tank mirror-0, 48 pending sectors
GOOD = "sdh"  # the WD80EFZX among the spare disks, fine
BAD = "sdm"  # the other WD80EFZX, from the shelf: 8 pending, 16 reallocated sectors


async def preview_with(app: ZConsoleApp, pilot: Any, disk: str) -> WizardScreen:
    """The dying disk's replace by `disk` (a free bay, then a scrub), at its preview, once
    the console has read every disk's SMART."""
    await settle(app, pilot)
    smart = app.session.smart
    await until(pilot, lambda: smart.polled_at is not None and not smart.pending,
                "the first SMART poll", tries=1500)
    screen = open_wizard(app, "replace-failed", Selection("tank", path=("mirror-0", DYING)))
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
