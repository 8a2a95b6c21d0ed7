"""Every screen on every named demo scenario, at 80x24 and 120x40, with the frozen clock.

The per-screen test modules test behaviour and a few pictures each; this matrix makes sure no
screen falls apart on a scenario its author did not picture (a degraded pool on the Disks
screen, thousands of snapshots on the ARC screen, ...). The screens are the registry's, so a
new screen is in the matrix without anyone remembering to add it; Fleet here is the one-host
fleet of a console started on one host.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import make_app, settle
from zconsole.ui.screens.registry import SCREENS as REGISTRY

SIZES = [(80, 24), (120, 40)]
SCENARIOS = ["healthy", "degraded", "resilvering", "snapshots"]
SCREENS = {entry.key: entry.mode for entry in REGISTRY}


def test_the_matrix_covers_every_screen() -> None:
    """All nine screens, each under its own key."""
    assert sorted(SCREENS.values()) == sorted(
        ["pools", "disks", "datasets", "arc", "network", "host", "timeline", "advice",
         "fleet"])
    assert len(SCREENS) == len(REGISTRY)


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
