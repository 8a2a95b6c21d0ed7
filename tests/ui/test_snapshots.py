"""Snapshot pictures of the console on demo scenarios, at 80x24 and 120x40, frozen clock.

Regenerate deliberately with `pytest tests/ui --snapshot-update` and look at the report.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import make_app, settle

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario,version,refreshes", [
    ("showcase", "2.3", 6),
    ("healthy", "2.1", 1),
    ("degraded", "2.3", 6),
    ("resilvering", "2.1", 1),
])
def test_console_pictures(snap_compare: Any, size: tuple[int, int], scenario: str,
                          version: str, refreshes: int) -> None:
    app = make_app(scenario, version)

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=refreshes)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("theme", ["light", "high-contrast"])
def test_themes_picture(snap_compare: Any, theme: str) -> None:
    app = make_app("degraded", "2.3", theme=theme, read_only=True)

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=6)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_performance_columns_picture(snap_compare: Any, size: tuple[int, int]) -> None:
    app = make_app("showcase", "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=6)
        await pilot.press("m")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_hundred_disks_last_vdev_picture(snap_compare: Any, size: tuple[int, int]) -> None:
    """big100 (tank: 10 raidz2 x 10) with the keyboard on tank's last row: the page has
    scrolled to it and the last raidz2 and its disks are drawn (issue 11)."""
    from zconsole.ui.screens.pools.pool_block import PoolBlock

    app = make_app("big100", "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        blocks = list(app.screen.query(PoolBlock))
        blocks[-1].table.focus()
        await pilot.press("ctrl+end")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
