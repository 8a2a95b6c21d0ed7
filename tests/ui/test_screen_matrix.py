"""Every screen on every named demo scenario, at 80x24 and 120x40, with the frozen clock.

The per-screen test modules test behaviour and a few pictures each; this matrix makes sure no
screen falls apart on a scenario its author did not picture (a degraded pool on the Disks
screen, thousands of snapshots on the ARC screen, ...).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import make_app, settle
from tests.ui.test_datasets_screen import open_screen as open_datasets
from tests.ui.test_datasets_screen import quiet as datasets_quiet
from tests.ui.test_network_screen import open_network

SIZES = [(80, 24), (120, 40)]
SCENARIOS = ["healthy", "degraded", "resilvering", "snapshots"]
SCREENS = {"1": "pools", "2": "disks", "3": "datasets", "4": "arc", "5": "network"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("key", sorted(SCREENS), ids=lambda k: SCREENS[k])
def test_screen_on_scenario(snap_compare: Any, key: str, scenario: str,
                            size: tuple[int, int]) -> None:
    app = make_app(scenario, "2.3")

    async def run_before(pilot: Any) -> None:
        if key == "5":
            await open_network(app, pilot)
        elif key == "3":
            await open_datasets(app, pilot)
            await datasets_quiet(app, pilot)
        else:
            await settle(app, pilot)
            await pilot.press(key)
            await app.workers.wait_for_complete()
            for _ in range(3):
                await pilot.pause(0.02)
        assert app.current_mode == SCREENS[key]

    assert snap_compare(app, terminal_size=size, run_before=run_before)
