"""Every screen on every named demo scenario, at 80x24 and 120x40, with the frozen clock.

The per-screen test modules test behaviour and a few pictures each; this matrix makes sure no
screen falls apart on a scenario its author did not picture (a degraded pool on the Disks
screen, thousands of snapshots on the ARC screen, ...).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import make_app, settle

SIZES = [(80, 24), (120, 40)]
SCENARIOS = ["healthy", "degraded", "resilvering", "snapshots"]
SCREENS = {"1": "pools", "2": "disks", "3": "datasets", "4": "arc", "5": "network", "6": "host",
           "7": "timeline"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("key", sorted(SCREENS), ids=lambda k: SCREENS[k])
def test_screen_on_scenario(snap_compare: Any, key: str, scenario: str,
                            size: tuple[int, int]) -> None:
    app = make_app(scenario, "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press(key)
        await settle(app, pilot)  # the screen's own reads too (Network, Datasets)
        assert app.current_mode == SCREENS[key]

    assert snap_compare(app, terminal_size=size, run_before=run_before)
