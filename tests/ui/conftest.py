"""UI tests run on the demo host with a frozen clock, so every picture is reproducible."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
import pytest_textual_snapshot

from tests.ui.svg_runs import merge_runs
from zconsole.ui import first_reading, smart_poll
from zconsole.ui.app import ZConsoleApp

# Compare pictures by their cells, not by where Textual happened to cut a line into segments
# (tests/ui/svg_runs.py says why). Both the stored and the new picture go through this.
_normalize_svg = pytest_textual_snapshot.normalize_svg
pytest_textual_snapshot.normalize_svg = lambda svg: merge_runs(_normalize_svg(svg))


async def at_rest(app: object, pilot: object, tries: int = 250) -> None:
    """Wait until the screen stops changing: two screenshots in a row, a few frames apart,
    are the same. A picture is then not taken while a late message (a focus change, the
    footer's bindings, a worker's answer) is still on its way, as a loaded machine showed.
    Text fields stop blinking first (their cursor stays drawn)."""
    from textual.app import App
    from textual.pilot import Pilot
    from textual.widgets import Input

    assert isinstance(pilot, Pilot) and isinstance(app, App)
    # A focused field's cursor blinks every 0.5 s from its last key: whether the picture has
    # it depended on how long a loaded machine took to get here (CI, twice: the attach
    # wizard's serial field). Stopped, the cursor is always drawn, as in every picture.
    for field in app.screen.query(Input):
        field.cursor_blink = False
    await pilot.wait_for_scheduled_animations()
    last = None
    for _ in range(tries):
        await pilot.pause(0.03)
        shot = app.export_screenshot()
        if shot == last:
            return
        last = shot
    raise AssertionError("the screen never came to rest")


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """pytest-textual-snapshot's `snap_compare`, whose picture waits for the screen to come
    to rest after the test's own `run_before` (see `at_rest`)."""

    def compare(app: object, *args: Any, run_before: Any = None, **kwargs: Any) -> bool:
        async def before(pilot: Any) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await at_rest(pilot.app, pilot)

        return snap_compare(app, *args, run_before=before, **kwargs)

    return compare


@pytest.fixture(autouse=True)
def _notifications_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A notification stays until the test ends: Textual drops one after 5 s of wall time,
    so whether a test (or a picture) still saw it depended on the machine's load (CI: the
    theme key's test found none left)."""
    monkeypatch.setattr(ZConsoleApp, "NOTIFICATION_TIMEOUT", 3600.0)


@pytest.fixture(autouse=True)
def _first_reading_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first screen is made with the first reading, whatever the machine's load: on_load
    waits for it up to `first_reading.WAIT_S` (0.1 s), and a loaded run that read the demo
    host more slowly made the first screen empty and filled it from the message, which left
    the Pools screen behind a wizard drawn otherwise (the wizard pictures of grow-pull and
    resume-offer failed one run in two with two workers). A test of the slow way sets the
    wait itself (test_first_reading.py)."""
    monkeypatch.setattr(first_reading, "WAIT_S", 60.0)


# 2026-11-21 23:00:10 UTC, the time of the real 2.3.2 capture in shared/fixtures.
FROZEN = 1795302010.0

# The first SMART poll starts at once, not a second after the first refresh (what keeps it
# off the first frame's path: test_first_frame_imports.py runs in a fresh interpreter).
smart_poll.FIRST_DELAY_S = 0.0


def frozen() -> float:
    return FROZEN


def make_app(scenario: str = "showcase", zfs_version: str = "2.3", *, read_only: bool = False,
             theme: str | None = None, notice: str | None = None) -> ZConsoleApp:
    from zconsole.hosts.demo import DemoHost

    host = DemoHost(scenario, zfs_version=zfs_version, clock=frozen, seed=0)
    return ZConsoleApp(host, clock=frozen, refresh_interval=3600, read_only=read_only,
                       theme_name=theme, notice=notice)


async def settle(app: ZConsoleApp, pilot: object, refreshes: int = 1) -> None:
    """Wait for `refreshes` completed refreshes (each runs in a worker thread), then for the
    active screen's own work (a screen that reads more itself says when it has settled)."""
    from textual.pilot import Pilot

    from zconsole.ui.screens.base import ZScreen

    assert isinstance(pilot, Pilot)
    done = 0
    seen = None
    for _ in range(2000):
        if app.reading is not None and app.reading is not seen and app.refresh_started is None:
            seen = app.reading
            done += 1
            if done >= refreshes:
                break
            app.action_refresh()
        await pilot.pause(0.01)
    else:
        raise AssertionError("the app never finished refreshing")
    for _ in range(2000):  # the SMART polls the refreshes started (ui/smart_poll.py)
        if not any(m.session.smart.pending for m in app.members):
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the SMART poll never ended")
    await pilot.pause()
    for _ in range(2000):
        screen = app.screen
        if not isinstance(screen, ZScreen) or screen.settled():
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError(f"{app.screen} never settled")
    # Let layout settle (tables size their columns after rows arrive): a few idle frames,
    # which matters on a loaded machine.
    await pilot.wait_for_scheduled_animations()
    for _ in range(3):
        await pilot.pause(0.02)


@pytest.fixture
def app_factory() -> Callable[..., ZConsoleApp]:
    return make_app
