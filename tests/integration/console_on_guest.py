"""The console driven on a guest host by the test_ui_* tests: refreshes over ssh on an emulated
guest are slow, so each one is run and waited for, with a generous deadline."""

from __future__ import annotations

import time
from typing import Any

from textual.screen import Screen

from zconsole.ui.app import ZConsoleApp


async def refreshed(app: ZConsoleApp, pilot: Any, count: int, timeout: float = 180.0) -> None:
    """Run `count` refreshes, one after the other, waiting for each (ssh + TCG are slow)."""
    for _ in range(count):
        before = app.refreshes
        app.action_refresh()
        deadline = time.monotonic() + timeout
        while app.refreshes == before or app.refresh_started is not None:
            assert app.last_error is None, app.last_error
            assert time.monotonic() < deadline, "refresh did not finish"
            await pilot.pause(0.1)
    await pilot.pause()


async def open_screen(app: ZConsoleApp, pilot: Any, key: str, refreshes: int) -> Screen[Any]:
    """After a first refresh, the screen on `key`, then `refreshes` more on it."""
    await refreshed(app, pilot, 1)
    await pilot.press(key)
    await pilot.pause()
    await refreshed(app, pilot, refreshes)
    return app.screen
