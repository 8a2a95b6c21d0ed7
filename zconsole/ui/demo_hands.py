"""The demo rack's hands in the command palette: "Demo: pull the disk …" and "Demo: insert a
new disk into …" (`DemoHost.hands`), so that a rehearsal of the same-bay replace lives
through its watching step as at a real rack: the wizard waits, the operator pulls the old disk
and inserts the new one, the wizard sees each. Real hosts offer none."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp


def hands_commands(app: ZConsoleApp) -> Iterator[SystemCommand]:
    """One palette entry per thing the demo host's hands can do now."""
    hands = getattr(app.host, "hands", None)
    if not app.host.simulated or not callable(hands):
        return
    for hand in hands():
        yield SystemCommand(hand.title, hand.help, partial(_do, app, hand.act))


def _do(app: ZConsoleApp, act: Callable[[], str]) -> None:
    app.notify_plain(act(), title="Demo")
