#!/usr/bin/env python3
"""Regenerate screenshots/ from the demo host (never edit those files by hand).

    python tools/screenshots.py            # every theme, 120x40 and 80x24
    python tools/screenshots.py --check    # exit 1 if a file would change

Each picture runs the real app on DemoHost with a frozen clock and a fixed seed, so a rerun on
unchanged code gives byte-identical SVG files.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import sys
import uuid
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ui.conftest import FROZEN, at_rest, make_app, settle  # noqa: E402
from tests.ui.test_host_screen import panels_read  # noqa: E402
from zconsole.hosts.demo import DemoHost  # noqa: E402
from zconsole.ui.app import ZConsoleApp  # noqa: E402
from zconsole.ui.screens.advice.screen import AdviceScreen  # noqa: E402
from zconsole.ui.screens.host.screen import HostScreen  # noqa: E402
from zconsole.ui.screens.timeline.screen import TimelineScreen  # noqa: E402

SHOTS: list[tuple[str, str, str, str, tuple[int, int], int, str]] = [
    # (file stem, scenario, zfs version, theme, size, refreshes, keys pressed after them)
    ("showcase-dark-120x40", "showcase", "2.3", "dark", (120, 40), 6, ""),
    ("showcase-light-120x40", "showcase", "2.3", "light", (120, 40), 6, ""),
    ("showcase-high-contrast-120x40", "showcase", "2.3", "high-contrast", (120, 40), 6, ""),
    ("degraded-dark-80x24", "degraded", "2.3", "dark", (80, 24), 6, ""),
    ("resilvering-2.1-dark-120x40", "resilvering", "2.1", "dark", (120, 40), 1, ""),
    # the fix-it panels (Host screen, key 6)
    ("fixit-slow-ssh-dark-120x40", "slow-ssh", "2.3", "dark", (120, 40), 1, "6"),
    ("fixit-slow-boot-dark-120x40", "slow-boot", "2.3", "dark", (120, 40), 1, "6"),
    ("fixit-slow-session-dark-120x40", "slow-session", "2.3", "dark", (120, 40), 1, "6"),
    ("fixit-ssh-auth-dark-120x40", "ssh-auth", "2.3", "dark", (120, 40), 1, "6"),
    # the Timeline (key 7) of the degraded demo
    ("timeline-degraded-dark-120x40", "degraded", "2.3", "dark", (120, 40), 1, "7"),
    # a wizard at 80x24 (issue 29): the fix-ssh plan's commands and its typed confirmation,
    # typed, Enter not yet pressed (Host screen, f, Enter; see `wizard_confirm`)
    ("wizard-fix-ssh-confirm-dark-80x24", "slow-ssh", "2.3", "dark", (80, 24), 1, "6"),
    # what sets zconsole apart (issue 32): Disks, Advice, Fleet, the on-site replace's
    # preview and its "find the disk" step (see DRIVEN)
    ("disks-dark-120x40", "showcase", "2.3", "dark", (120, 40), 6, "2"),
    ("advice-dark-120x40", "advice", "2.3", "dark", (120, 40), 1, "8"),
    ("fleet-dark-120x40", "fleet", "2.3", "dark", (120, 40), 1, ""),
    ("wizard-replace-bay-preview-dark-120x40", "degraded", "2.3", "dark", (120, 40), 1, ""),
    ("wizard-replace-find-disk-dark-120x40", "degraded", "2.3", "dark", (120, 40), 1, ""),
]
# pictures of I/O figures need readings some seconds apart: their clock moves this many
# seconds before each refresh (the same steps in every run, so the same picture)
TICKING = {"disks-dark-120x40": 5.0}
WIZARD_CONFIRM = {"wizard-fix-ssh-confirm-dark-80x24": ("f", "UseDNS no")}
# the replace of the degraded demo's faulted disk into the same bay (no free bay), driven as
# tests/ui/test_wizard_snapshots.py drives it: its preview, and the on-site step after `i`
SAME_BAY = {"wizard-replace-bay-preview-dark-120x40": "preview",
            "wizard-replace-find-disk-dark-120x40": "run"}


class Ticking:
    """A clock that stands still but for the steps the picture's driver makes."""

    def __init__(self) -> None:
        self.t = FROZEN

    def __call__(self) -> float:
        return self.t


async def ticked(app: Any, pilot: Any, clock: Ticking, step: float, refreshes: int) -> None:
    """`refreshes` more refreshes on the screen shown, the clock `step` seconds on before each."""
    for _ in range(refreshes):
        before = app.reading
        clock.t += step
        app.action_refresh()
        for _ in range(2000):
            if app.reading is not before and app.refresh_started is None:
                break
            await pilot.pause(0.01)
        else:
            raise SystemExit("a refresh never finished")
        await settle(app, pilot)


async def shoot(stem: str, scenario: str, version: str, theme: str, size: tuple[int, int],
                refreshes: int, keys: str) -> str:
    if scenario == "fleet":
        return await shoot_fleet(size, theme)
    app, clock = make_app(scenario, version, theme=theme), None
    if stem in TICKING:
        clock = Ticking()
        app = ZConsoleApp(DemoHost(scenario, zfs_version=version, clock=clock, seed=0),
                          clock=clock, refresh_interval=3600, theme_name=theme)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, refreshes=1 if clock else refreshes)
        for key in keys:
            await pilot.press(key)
        if clock:
            await ticked(app, pilot, clock, TICKING[stem], refreshes)
        if stem in SAME_BAY:
            await same_bay(app, pilot, SAME_BAY[stem])
        screen = app.screen
        if isinstance(screen, AdviceScreen):
            for _ in range(1500):
                if screen.reads and screen.settled():
                    break
                await pilot.pause(0.01)
            else:
                raise SystemExit(f"{stem}: the advice was never read")
        if isinstance(screen, HostScreen) and not await panels_read(screen, pilot):
            raise SystemExit(f"{stem}: the fix-it panels were never read")
        if isinstance(screen, TimelineScreen):
            for _ in range(500):
                if screen.reads:
                    break
                await pilot.pause(0.01)
            else:
                raise SystemExit(f"{stem}: the timeline was never read")
        if stem in WIZARD_CONFIRM:
            # a plan's id names files in its commands (a fix-it's backup): fixed here, so
            # a rerun gives the same picture
            ids = itertools.count(1)
            uuid4, uuid.uuid4 = uuid.uuid4, lambda: uuid.UUID(int=next(ids))
            try:
                await wizard_confirm(app, pilot, *WIZARD_CONFIRM[stem])
            finally:
                uuid.uuid4 = uuid4
        if keys or stem in SAME_BAY:
            await at_rest(app, pilot)
        return app.export_screenshot(title=f"zconsole — demo {scenario} ({theme})")


async def same_bay(app: Any, pilot: Any, page: str) -> None:
    """The degraded demo's faulted disk replaced in its own bay: `preview`, the bay plan;
    `run`, its serial typed, the disk offlined and the on-site box asking to find it, `i`
    (identify) pressed and finished."""
    from tests.ui.test_wizard_snapshots import FAULTED, _same_bay_page, redraw_scrollbar, to_phase
    from zconsole.ui.wizards.choices import Selection
    from zconsole.ui.wizards.screen import Phase, WizardScreen

    app.wizard_poll_interval = 0.01
    app.wizard_fast_forward = False  # the operator's hands pull and insert, not the demo
    if page == "preview":
        await to_phase(app, pilot, "replace-failed", Selection("tank", path=("mirror-0", FAULTED)),
                       ["same", "scrub"], Phase.PREVIEW)
    else:
        await _same_bay_page(app, pilot, page)
    screen = app.screen
    assert isinstance(screen, WizardScreen)
    await redraw_scrollbar(screen, pilot)


async def shoot_fleet(size: tuple[int, int], theme: str) -> str:
    """`zconsole --demo-fleet` on the Fleet screen (key 9), the silent host 40 s unanswered,
    as tests/ui/test_fleet_screen.py pictures it; in the default theme (dark) only."""
    if theme != "dark":
        raise SystemExit("the fleet picture is drawn in the default theme, dark")
    from tests.ui.test_fleet_screen import Clock, fleet_app, open_fleet
    from zconsole.hosts.silent import SilentHost

    clock = Clock()
    app = fleet_app(clock)
    try:
        async with app.run_test(size=size) as pilot:
            await open_fleet(app, pilot, clock)
            await at_rest(app, pilot)
            return app.export_screenshot(title=f"zconsole — demo fleet ({theme})")
    finally:
        for m in app.members:
            if isinstance(m.host, SilentHost):
                m.host.wake()


async def wizard_confirm(app: Any, pilot: Any, key: str, typed: str) -> None:
    """`key` opens a wizard; Enter on its preview; `typed` in its confirmation field."""
    from zconsole.ui.wizards.screen import Phase, WizardScreen

    await pilot.press(key)
    for _ in range(1500):
        screen = app.screen
        if isinstance(screen, WizardScreen) and screen.phase is Phase.PREVIEW:
            break
        await pilot.pause(0.01)
    else:
        raise SystemExit(f"{key}: the wizard's preview never came")
    await pilot.press("enter")
    for _ in range(500):
        if screen.phase is Phase.CONFIRM:
            break
        await pilot.pause(0.01)
    else:
        raise SystemExit(f"{key}: the wizard's confirmation never came")
    await pilot.press(*typed)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report changes, write nothing")
    args = ap.parse_args()
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    changed = []
    for stem, scenario, version, theme, size, refreshes, keys in SHOTS:
        svg = asyncio.run(shoot(stem, scenario, version, theme, size, refreshes, keys))
        # Rich derives the SVG's element-id prefix from run-specific data; pin it per file so
        # unchanged pictures stay byte-identical.
        svg = re.sub(r"terminal-\d+", f"terminal-{zlib.crc32(stem.encode())}", svg)
        path = out / f"{stem}.svg"
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            changed.append(path.name)
            if not args.check:
                path.write_text(svg, encoding="utf-8")
    print(("would change: " if args.check else "written: ") + (", ".join(changed) or "nothing"))
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
