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

from tests.ui.conftest import at_rest, make_app, settle  # noqa: E402
from tests.ui.test_host_screen import panels_read  # noqa: E402
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
]
WIZARD_CONFIRM = {"wizard-fix-ssh-confirm-dark-80x24": ("f", "UseDNS no")}


async def shoot(stem: str, scenario: str, version: str, theme: str, size: tuple[int, int],
                refreshes: int, keys: str) -> str:
    app = make_app(scenario, version, theme=theme)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, refreshes=refreshes)
        for key in keys:
            await pilot.press(key)
        screen = app.screen
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
        if keys:
            await at_rest(app, pilot)
        return app.export_screenshot(title=f"zconsole — demo {scenario} ({theme})")


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
