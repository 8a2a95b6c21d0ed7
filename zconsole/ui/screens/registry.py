"""Every screen of the console, in key order (1..9). The app builds its modes from this.

A screen's module is imported when its screen is first shown, not before the first frame:
each entry names the module and class, and holds the screen's mode, key and title (the tab
strip, the bindings and the palette need them at start-up). The screen classes do not
repeat them: `ZScreen` takes its `MODE`, `KEY` and `TITLE` from its entry here
(`entry_for`) when the class is made.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.ui.screens.base import ZScreen


class ScreenEntry:
    """One screen: its mode, key and title, and where its class is (`module` under
    zconsole.ui.screens, `cls`); `tab`: shown in the header's tab strip (every screen is
    today). A plain class, not a frozen dataclass: made at start-up, where a dataclass costs
    ~1 ms on Python 3.10 (issue 28)."""

    __slots__ = ("cls", "key", "mode", "module", "tab", "title")

    def __init__(self, mode: str, key: str, title: str, module: str, cls: str,
                 tab: bool = True) -> None:
        self.mode, self.key, self.title, self.module, self.cls = mode, key, title, module, cls
        self.tab = tab

    def __repr__(self) -> str:
        return f"ScreenEntry({self.mode!r}, {self.key!r}, {self.title!r})"

    def load(self) -> type[ZScreen]:
        screen: type[ZScreen] = getattr(import_module(f"zconsole.ui.screens.{self.module}"),
                                        self.cls)
        return screen

    def __call__(self) -> ZScreen:
        """A new screen (Textual calls a mode's entry to make its screen when first shown)."""
        return self.load()()


SCREENS: tuple[ScreenEntry, ...] = (
    ScreenEntry("pools", "1", "Pools", "pools.screen", "PoolsScreen"),
    ScreenEntry("disks", "2", "Disks", "disks.screen", "DisksScreen"),
    ScreenEntry("datasets", "3", "Datasets", "datasets.screen", "DatasetsScreen"),
    ScreenEntry("arc", "4", "ARC", "arc.screen", "ArcScreen"),
    ScreenEntry("network", "5", "Network", "network.screen", "NetworkScreen"),
    ScreenEntry("host", "6", "Host", "host.screen", "HostScreen"),
    ScreenEntry("timeline", "7", "Timeline", "timeline.screen", "TimelineScreen"),
    ScreenEntry("advice", "8", "Advice", "advice.screen", "AdviceScreen"),
    ScreenEntry("fleet", "9", "Fleet", "fleet.screen", "FleetScreen"),
)


def entry_for(module: str, cls: str) -> ScreenEntry | None:
    """The entry of the screen class `cls` of the module `module` (its `__module__`), or
    None for a screen that is not one of the nine (the wizard)."""
    return next((e for e in SCREENS
                 if e.cls == cls and f"zconsole.ui.screens.{e.module}" == module), None)
