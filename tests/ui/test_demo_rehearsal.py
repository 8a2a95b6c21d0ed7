"""Issue 32 §1 through the screens: the same-bay replace rehearsed on `zconsole --demo`'s host
(a rehearsal: `pace`, no fast-forward). The watching step waits for the operator's hands,
given from the palette ("Demo: pull the disk", "Demo: insert a new disk"), and the resilver's
progress and ETA move on the run page as the (fake) wall clock goes on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.fakes import Clock
from tests.ui.conftest import FROZEN
from tests.ui.test_replace_wizard import (
    open_on_the_faulted_disk,
    progress,
    replace_plan_shown,
    same_bay_to_the_swap,
)
from tests.ui.test_wizards import audit, body_text, until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.host import REHEARSAL_PACE
from zconsole.hosts.journal import DEMO_STATE_ENV, PlanStore, demo_machine_log
from zconsole.ui.demo_hands import hands_commands
from zconsole.ui.wizards.resume import ResumeScreen
from zconsole.ui.wizards.screen import Phase, WizardScreen

BAY = "pci-0000:00:17.0-ata-2"


def palette(app: object) -> dict[str, object]:
    return {c.title: c.callback for c in hands_commands(app)}  # type: ignore[arg-type]


async def test_the_watching_step_waits_for_the_hands_given_from_the_palette(
        tmp_path: Path) -> None:
    clock = Clock(FROZEN)
    host = DemoHost("degraded", zfs_version="2.3", clock=clock, seed=0, pace=REHEARSAL_PACE,
                    sleep=clock.sleep)
    app = wizard_app(tmp_path, host=host)  # the runner's default: no fast-forward here
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_on_the_faulted_disk(app, pilot)
        await same_bay_to_the_swap(app, pilot, screen)
        for _ in range(20):  # many polls of the watch: nobody pulled, nothing moves on
            await pilot.pause(0.02)
        assert screen.phase is Phase.RUN and "to be pulled" in progress(screen)
        hands = palette(app)
        assert "Demo: pull the disk sdb" in hands
        assert not any(t.endswith(BAY) for t in hands)  # the bay is not empty yet
        hands["Demo: pull the disk sdb"]()  # type: ignore[operator]
        await until(pilot, lambda: "sdb with serial ZGY8C3D4 is gone" in progress(screen),
                    "the pull seen")
        assert screen.phase is Phase.RUN
        palette(app)[f"Demo: insert a new disk into {BAY}"]()  # type: ignore[operator]
        await replace_plan_shown(pilot, screen)
        serial = re.search(r"ST4000VN008-2DR166_(ZNEW\d{4})", body_text(screen))
        assert serial is not None
        # the replace at a rehearsal's pace: the run page's progress and ETA move
        await pilot.press("enter", *serial.group(1), "enter")
        await until(pilot, lambda: "%" in progress(screen), "the resilver's progress",
                    tries=1500)
        clock.t += 20
        await until(pilot, lambda: re.search(r"zpool: \d+ min", progress(screen)) is not None,
                    "a percentage and zpool's ETA", tries=1500)
        first = progress(screen)
        clock.t += 60
        await until(pilot, lambda: progress(screen) != first, "the progress moving", tries=1500)
        m1 = re.search(r"resilver (\d+\.\d)%", first)
        m2 = re.search(r"resilver (\d+\.\d)%", progress(screen))
        assert m1 is not None and m2 is not None and float(m2.group(1)) > float(m1.group(1))
        assert screen.phase is Phase.RUN  # minutes of a resilver, not done at once


async def test_killed_at_the_find_step_and_resumed_on_the_rebuilt_demo_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--demo degraded --demo-state DIR`: the disk offlined and pulled, the console is killed
    while it waits for the new disk; the next console's demo machine is rebuilt from DIR (the
    disk still out, the offline in its history), the resume is offered and the watch goes on
    from there."""
    monkeypatch.setenv(DEMO_STATE_ENV, str(tmp_path))
    clock = Clock(FROZEN)

    def rehearsal_host() -> DemoHost:
        return DemoHost("degraded", zfs_version="2.3", clock=clock, seed=0,
                        pace=REHEARSAL_PACE, sleep=clock.sleep,
                        log=demo_machine_log("degraded", "2.3"))

    app = wizard_app(tmp_path, host=rehearsal_host())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_on_the_faulted_disk(app, pilot)
        await same_bay_to_the_swap(app, pilot, screen)
        palette(app)["Demo: pull the disk sdb"]()  # type: ignore[operator]
        await until(pilot, lambda: "is gone" in progress(screen), "the pull seen")
    assert PlanStore(tmp_path / "plans").in_flight()
    clock.t += 120
    host2 = rehearsal_host()  # a new console: a new demo machine, rebuilt from DIR
    assert host2.machine.disk_by_any("sdb") is None
    assert "zpool offline tank ata-ST4000VN008-2DR166_ZGY8C3D4" in host2.run(
        ["zpool", "history", "tank"]).stdout
    app2 = wizard_app(tmp_path, host=host2)
    async with app2.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app2.screen, ResumeScreen)
                    and bool(app2.screen.query(Static)), "the resume offer")
        await pilot.pause(0.05)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app2.screen, WizardScreen), "the wizard")
        w = app2.screen
        assert isinstance(w, WizardScreen)
        assert "ZGY8C3D4 is gone" in body_text(w)  # what the rebuilt machine's disks show
        await pilot.press("enter")  # the offline ran already: nothing asked again
        await until(pilot, lambda: "is gone" in progress(w), "watching again")
        assert not any(t.startswith("Demo: pull") for t in palette(app2))
        palette(app2)[f"Demo: insert a new disk into {BAY}"]()  # type: ignore[operator]
        await replace_plan_shown(pilot, w)
    offlines = [r for r in audit(tmp_path) if r["event"] == "command" and r["argv"][1] == "offline"]
    assert len(offlines) == 1  # never run twice
