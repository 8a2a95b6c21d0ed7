"""Issue 30 §1: on the console, the demo's dying sdb gains pending sectors as demo time
passes; the SMART poll after a later refresh finds the counter higher and the Timeline
shows "sdb: pending sectors 48 → 51 (ata-…)" among zconsole's observations. A self-test
zconsole ran is listed once, though its audit log and the drive's log both hold it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.fakes import Clock
from tests.ui.conftest import FROZEN, settle
from tests.ui.test_disks_screen import open_disks, select
from tests.ui.test_timeline_screen import show_timeline
from tests.ui.test_wizards import audit, until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.model.timeline import Kind, Source
from zconsole.services.read.smart import INTERVAL_S
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.wizards.screen import Phase, WizardScreen


async def test_a_counter_that_grew_is_on_the_timeline() -> None:
    clock = Clock(FROZEN)
    app = ZConsoleApp(DemoHost("showcase", clock=clock, seed=0), clock=clock,
                      refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        smart = app.session.smart
        for _ in range(500):
            if smart.polled_at is not None and not smart.pending:
                break
            await pilot.pause(0.01)
        assert smart.polled_at is not None and smart.entries == ()  # the baseline
        clock.t += INTERVAL_S
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        for _ in range(500):
            if smart.entries and not smart.pending:
                break
            await pilot.pause(0.01)
        screen = await show_timeline(app, pilot)
        [grew] = [e for e in screen.shown if e.words.startswith("sdb: pending sectors")]
        assert grew.words.startswith("sdb: pending sectors 48 → 51 (ata-HGST_")
        assert grew.source is Source.OBSERVED


async def test_a_self_test_zconsole_ran_is_listed_once(tmp_path: Path) -> None:
    """The self-test plan run on sdb from the Disks screen (`T`): its result is in the audit
    log (the wait's end) and, at the next SMART poll, in the drive's own log. The Timeline
    lists it once: the drive log's words (sdb, the hour, the first bad LBA, its place in
    tank) with the audit's link (its plan, the operator). A test started outside zconsole
    (sda's) is in the drive's log only, and listed as the poll saw it."""
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        smart = app.session.smart
        await until(pilot, lambda: smart.polled_at is not None and not smart.pending,
                    "the first poll (the baseline)")
        await select(app, pilot, "sdb")
        await pilot.press("T")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
        wizard = app.screen
        assert isinstance(wizard, WizardScreen)
        await until(pilot, lambda: wizard.stage is not None, "the first question")
        await pilot.press("enter")  # short
        await until(pilot, lambda: wizard.phase is Phase.PREVIEW, "the preview")
        await pilot.press("enter")
        await until(pilot, lambda: wizard.phase is Phase.RESULT, "the result", tries=1500)
        await pilot.press("escape")
        app.host.run(["smartctl", "-t", "short", "/dev/sda"])  # not zconsole's
        app.host.run(["sleep", "600"])  # the demo's drives finish it
        smart.request("sdb")
        smart.request("sda")
        app.action_refresh()
        await until(pilot, lambda: len(smart.entries) >= 2 and not smart.pending,
                    "the poll that reads both logs")
        screen = await show_timeline(app, pilot)
        about_sdb = [e for e in screen.shown if "5,112,093,184" in e.words]
        assert len(about_sdb) == 1, [(e.source, e.words) for e in about_sdb]
        [one] = about_sdb
        assert one.words.startswith("sdb: short self-test: Completed: read failure at ")
        assert one.words.endswith(", first bad LBA 5,112,093,184 (ata-HGST_HUS724040ALE640_"
                                  "PN2334PBJ4K7XT)")
        end = next(r for r in audit(tmp_path) if r["event"] == "wait-end")
        assert one.source is Source.AUDIT and one.kind is Kind.ERROR
        assert one.detail == (f"zconsole watched it to its end; plan: Short self-test of "
                              f"sdb, by {end['operator']}")
        assert (one.pool, one.vdev) == ("tank", "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT")
        # the plan's start and its command stay, each once
        assert sum(e.words == "zconsole plan started: Short self-test of sdb"
                   for e in screen.shown) == 1
        outside = [e for e in screen.shown if e.words.startswith("sda: short self-test: ")]
        assert [(e.source, e.kind) for e in outside] == [(Source.OBSERVED, Kind.OTHER)]
        assert "Completed without error" in outside[0].words
        # the count of what zconsole observed is of what it lists: the folded result is not
        # counted again (it was: one change more than the list held)
        observed = sum(e.source is Source.OBSERVED for e in screen.entries())
        text = " ".join(" ".join(str(w.render()) for w in screen.query(Static)).split())
        assert f"zconsole observed: {observed} change" in text, text[:2000]
