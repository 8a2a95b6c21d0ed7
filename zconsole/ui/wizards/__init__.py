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
                     smart=smart_words(app), smart_mark=smart_marks(app))
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


def smart_marks(app: ZConsoleApp) -> Callable[[str], str]:
    """A disk's failing SMART in a short phrase for its row in a wizard's disk list ("SMART:
    8 pending sectors", `smart_words.choice_mark`), from the session's last reading and
    findings; "" when fine, never read, asleep or without SMART. Reads nothing."""
    session = app.session

    def mark(disk: str) -> str:
        follow = session.smart
        state = follow.state(disk)
        if state is None or state.reading is None:
            return ""  # no reading: nothing to say, and SMART's modules stay unloaded
        from zconsole.services.health.smart_words import choice_mark

        return choice_mark(state.reading, follow.of_disk(disk))

    return mark


__all__ = ["Selection", "open_wizard"]
