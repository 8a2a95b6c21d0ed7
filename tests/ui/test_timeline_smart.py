"""Issue 30 §1: on the console, the demo's dying sdb gains pending sectors as demo time
passes; the SMART poll after a later refresh finds the counter higher and the Timeline
shows "sdb: pending sectors 48 → 51 (ata-…)" among zconsole's observations."""

from __future__ import annotations

from tests.fakes import Clock
from tests.ui.conftest import FROZEN, settle
from tests.ui.test_timeline_screen import show_timeline
from zconsole.hosts.demo import DemoHost
from zconsole.model.timeline import Source
from zconsole.services.read.smart import INTERVAL_S
from zconsole.ui.app import ZConsoleApp


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
