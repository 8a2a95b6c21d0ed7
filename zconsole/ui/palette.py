"""The console's command palette (ctrl+p): Textual's own entries (its Keys made this
screen's), every screen and theme, the two fix-its, the demo host's reboot and hands, and the
entries of the screen on top. Imported when the palette is first opened, not before."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from zconsole.ui import demo_hands
from zconsole.ui.kit.help import palette_commands
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.registry import SCREENS

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp


def system_commands(app: ZConsoleApp, screen: Screen[object],
                    textuals: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """The palette's entries while `screen` is on top; `textuals`: Textual's own."""
    yield from palette_commands(textuals, screen)
    for s in SCREENS:
        yield SystemCommand(f"Screen: {s.title}", f"key {s.key}",
                            partial(app.switch_mode, s.mode))
    yield SystemCommand("Fix slow SSH logins", "why logins are slow, and the fixes "
                        "(Host screen, key 6)", partial(app.open_fixit, "ssh"))
    yield SystemCommand("Fix slow boot", "why the boot waits for the network, and the "
                        "fixes (Host screen, key 6)", partial(app.open_fixit, "boot"))
    if app.host.simulated and callable(getattr(app.host, "reboot", None)):
        yield SystemCommand("Demo: reboot the host", "the demo host boots again, so a boot "
                            "fix's next boot can be rehearsed (Host screen, key 6)",
                            partial(demo_reboot, app))
    yield from demo_hands.hands_commands(app)  # the same-bay swap's hands, on the demo
    for short, theme in app.theme_files.items():
        yield SystemCommand(f"Theme: {short}", f"switch to the {short} theme",
                            partial(setattr, app, "theme", theme.name))
    if isinstance(screen, ZScreen):
        yield from screen.system_commands()


def demo_reboot(app: ZConsoleApp) -> None:
    """The demo host boots again (`DemoHost.reboot`): wait-online waits, is quick or does
    not run, as its files now say; the Host screen reads its panels again."""
    from zconsole.ui.screens.host.screen import HostScreen

    reboot = getattr(app.host, "reboot", None)
    if not app.host.simulated or not callable(reboot):
        return
    how = reboot()
    said = {"hang": "wait-online waited its 2 min again", "quick": "wait-online was quick",
            "skipped": "wait-online did not run"}.get(str(how), str(how))
    app.notify_plain(f"The demo host rebooted: {said}.", title="Demo")
    app.switch_mode(HostScreen.MODE)
    screen = app.screen
    if isinstance(screen, HostScreen):
        app.call_after_refresh(screen.reread)
