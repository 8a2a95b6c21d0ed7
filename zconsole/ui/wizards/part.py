"""A part of WizardScreen written in a module of its own (a mixin), and what it uses of the
screen: for the type checker only; at run time the part is a plain class the screen mixes in."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.model.plan import Plan
    from zconsole.ui.screens.base import ZScreen
    from zconsole.ui.wizards.phases import RunLog

    _Base = ZScreen
else:
    _Base = object


class WizardPart(_Base):
    """Mixed into WizardScreen, which provides these."""

    if TYPE_CHECKING:
        plan: Plan | None
        run: RunLog
