"""Issue 32 §1 through the screens: the same-bay replace rehearsed on `zconsole --demo`'s host
(a rehearsal: `pace`, no fast-forward). The watching step waits for the operator's hands,
given from the palette ("Demo: pull the disk", "Demo: insert a new disk"), and the resilver's
progress and ETA move on the run page as the (fake) wall clock goes on."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakes import Clock
from tests.ui.conftest import FROZEN
from tests.ui.test_replace_wizard import (
    open_on_the_faulted_disk,
    progress,
    replace_plan_shown,
    same_bay_to_the_swap,
)
from tests.ui.test_wizards import body_text, until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.host import REHEARSAL_PACE
from zconsole.ui.demo_hands import hands_commands
from zconsole.ui.wizards.screen import Phase

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
