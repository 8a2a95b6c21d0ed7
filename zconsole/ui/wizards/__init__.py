"""Guided disk work: attach, detach, replace to grow, dedup off (see screen.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zconsole.ui.wizards.choices import Selection

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.wizards.screen import WizardScreen


def open_wizard(app: ZConsoleApp, kind: str, selection: Selection | None = None
                ) -> WizardScreen:
    """Push the wizard for `kind` (attach, detach, replace-grow, dedup-off) over the
    current screen, starting from what the Pools cursor selects."""
    from zconsole.ui.wizards.flows import make_flow
    from zconsole.ui.wizards.screen import WizardScreen

    flow = make_flow(kind, selection=selection, findings=tuple(app.findings),
                     smart=smart_words(app))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen


def smart_words(app: ZConsoleApp) -> Callable[[str], tuple[str, bool] | None]:
    """A disk's SMART as the console's session follows it, in the replace plan's evidence
    words (and whether it says the disk is failing), asked when the plan is built (its
    history up to that moment)."""
    session = app.session

    def words(disk: str) -> tuple[str, bool] | None:
        from zconsole.services.ops.zfs.new_disk_smart import state_words

        return state_words(session.smart.state(disk), session.clock())

    return words


__all__ = ["Selection", "open_wizard"]
