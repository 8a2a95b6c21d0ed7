"""The floor of bench/budgets.py's CPU figures: a bare Textual app doing the least a console
must do at each refresh, measured in the same run as zconsole.

Issue 11 set the running CPU budgets as absolute figures (2 % of a core at `--refresh 1`). On
the machine of 2026-11-29 a bare Textual app that redraws one label and one table cell once a
second uses 5-9 % of a core (Textual 8.2.8; 0.2 % when it redraws nothing), so no Textual app
can meet an absolute 2 % there, and the same zconsole measured 1.2 % on 2026-11-27. As the
project's rule has it, the budget is a ratio against a floor measured in the same run: this
app, with a table as long as the screen's (16 or 103 disks, 10 000 snapshots), updating its
age line and one cell at zconsole's refresh interval, for the same window.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

SIZE = (120, 40)
COLUMNS = ("NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "SLOW", "NOTE")


def _app(rows: int, interval: float) -> Any:
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Static

    class Floor(App[None]):
        """A header line and a table; each tick redraws the age and one cell."""

        ticks = 0

        def compose(self) -> ComposeResult:
            yield Static("read 0 s ago", id="age")
            yield DataTable(id="rows")

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns(*COLUMNS)
            table.add_rows([(f"disk{i:05d}", "ONLINE", "0", "0", "0", "3.64T", "1.0x", "")
                            for i in range(rows)])
            table.focus()
            self.set_interval(interval, self.tick)

        def tick(self) -> None:
            self.ticks += 1
            self.query_one("#age", Static).update(f"read {self.ticks} s ago")
            table = self.query_one(DataTable)
            table.update_cell_at((self.ticks % min(rows, 30), 2), str(self.ticks))

    return Floor()


async def floor_cpu_run(rows: int, seconds: float, interval: float) -> dict[str, Any]:
    """Process CPU of the floor app over `seconds` of wall time, after it has settled."""
    import gc

    app = _app(rows, interval)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await pilot.pause(interval + 0.5)  # the first tick is drawn
        # what start-up made frozen, as zconsole's console freezes its own (bench/budgets.py
        # measures it started as `zconsole` starts it): the same collector work on both sides
        gc.collect()
        gc.freeze()
        try:
            ticks0, cpu0, t0 = app.ticks, time.process_time(), time.perf_counter()
            await asyncio.sleep(seconds)
            wall = time.perf_counter() - t0
            cpu = time.process_time() - cpu0
            ticks = app.ticks - ticks0
        finally:
            gc.unfreeze()
    return {"rows": rows, "interval_s": interval, "wall_s": wall, "cpu_s": cpu,
            "ticks": ticks, "core_pct": 100 * cpu / wall}
