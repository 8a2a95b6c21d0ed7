"""Issue 30's operation on the Disks screen at 80x24: `T` opens the self-test wizard for the
selected disk (a registry wizard on this screen, no hand-made dispatch), the short test is
chosen, its plan previewed and run through the engine to its result on the demo (which lets
the drive's time pass), the command and the result in the audit log; a running test's
progress shows in the disk's detail and is read again while it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.conftest import make_app
from tests.ui.test_disks_screen import open_disks, select
from tests.ui.test_disks_smart import (
    commands_run,
    counted_smart_reads,
    first_smart_poll,
    smart_text,
)
from tests.ui.test_wizards import audit, body_text, until, wizard_app
from zconsole.services.ops import registry
from zconsole.ui.screens.disks import disk_smart
from zconsole.ui.screens.disks.screen import DisksScreen
from zconsole.ui.wizards.screen import Phase, WizardScreen

SDB = "/dev/disk/by-id/ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"


async def test_t_opens_the_wizard_on_the_selected_disk_and_runs_it(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        await select(app, pilot, "sdb")
        await pilot.press("T")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
        screen = app.screen
        assert isinstance(screen, WizardScreen)
        await until(pilot, lambda: screen.stage is not None, "the first question")
        assert screen.stage is not None and screen.stage.key == "test"  # the disk was given
        assert "Which SMART self-test of sdb?" in body_text(screen)
        await pilot.press("enter")  # the first choice: short
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview")
        text = body_text(screen)
        assert "smartctl -t short" in text and "2 minutes" in text
        assert audit(tmp_path) == []  # nothing ran before the operator said so
        await pilot.press("enter")  # continue: no typed confirmation for a self-test
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
        text = body_text(screen)
        assert "FAILED: Completed: read failure" in text and "5,112,093,184" in text
        records = audit(tmp_path)
        cmd = [r for r in records if r["event"] == "command"]
        assert [c["argv"] for c in cmd] == [["smartctl", "-t", "short", SDB]]
        end = next(r for r in records if r["event"] == "wait-end")
        assert "read failure at LBA 5,112,093,184" in end["detail"]


async def test_read_only_has_no_self_test_key(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        assert [c.title for c in app.screen.system_commands()] == [
            "Mute or unmute SMART (m)",  # zconsole's own state only: read-only too
            "Wizard: " + registry.get("self-test").help]  # the palette's entry
    app = wizard_app(tmp_path, read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        assert app.screen.check_action("wizard", ("self-test",)) is False
        assert [c.title for c in app.screen.system_commands()] == [
            "Mute or unmute SMART (m)"]
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, DisksScreen)


async def test_a_running_test_shows_its_progress_and_is_read_again(monkeypatch: Any) -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        await select(app, pilot, "sdb")
        app.host.run(["smartctl", "-t", "short", "/dev/sdb"])  # started outside zconsole
        smart = app.session.smart
        read = counted_smart_reads(app, monkeypatch)
        await pilot.press("h")
        await until(pilot, lambda: read and not smart.pending, "the read asked for")
        await until(pilot, lambda: "% done" in smart_text(app), "the progress")
        assert "self-test  10 % done (running in the drive" in smart_text(app)
        read.clear()
        # a reading older than RUNNING_REREAD_S is asked again at the next refresh (the
        # clock is frozen here: the age is made negative for one refresh)
        monkeypatch.setattr(disk_smart, "RUNNING_REREAD_S", -1.0)
        app.action_refresh()
        await until(pilot, lambda: bool(read), "the re-read")
        monkeypatch.setattr(disk_smart, "RUNNING_REREAD_S", 30.0)
        await until(pilot, lambda: not smart.pending, "the re-read's end")
        assert set(read) == {"sdb"}


async def test_the_disk_list_says_what_each_disk_serves_and_its_failing_smart(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The self-test wizard opened with no disk chosen (the palette) at 80x24: each disk
    says what it serves (the pool and vdev a test slows a little) and, like the replace
    wizard's list, a failing SMART as the console last read it; drawing the list runs no
    smartctl."""
    from tests.ui.conftest import settle
    from tests.ui.test_pool_columns import screen_lines
    from zconsole.ui.wizards import open_wizard

    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await first_smart_poll(app, pilot)
        ran = commands_run(app, monkeypatch)
        screen = open_wizard(app, "self-test")
        await until(pilot, lambda: screen.stage is not None and screen.stage.key == "disk",
                    "the disk list")
        await pilot.pause()
        assert screen.stage is not None
        detail = {c.value: c.detail for c in screen.stage.options}
        assert detail["nvme1n1"] == "serves tank as its cache · ▲ SMART: 93 % worn"
        assert detail["sdg"] == "serves tank as a spare"
        assert detail["sdb"] == ("serves tank (mirror-0) · ▲ SMART: 48 pending sectors, "
                                 "extended self-test failed")
        assert detail["sdm"] == "in no imported pool · ▲ SMART: 8 pending sectors"
        assert detail["sdh"] == "in no imported pool"  # fine: nothing said of SMART
        assert detail["sda"] == "serves tank (mirror-0)"
        shown = " ".join(" ".join(line.replace("│", " ").split()) for line in screen_lines(app))
        assert "serves tank (mirror-0) · ▲ SMART: 48 pending sectors" in shown
        assert [a for a in ran if a and a[0] == "smartctl"] == []
