"""Guided disk work: attach, detach, replace to grow, dedup off (see screen.py)."""

from __future__ import annotations

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

    flow = make_flow(kind, selection=selection, findings=tuple(app.findings))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen


__all__ = ["Selection", "open_wizard"]
