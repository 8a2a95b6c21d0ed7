"""Force: a check would have ZFS refuse unless forced (`-f`); the operator must say so
explicitly (f), after reading why."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.widgets import Static

from zconsole.model.plan import Plan
from zconsole.ui.wizards import render
from zconsole.ui.wizards.phases.base import PhaseView


class ForcePhase(PhaseView):
    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-text", id="wz-force")

    def show_plan(self, plan: Plan, names: Mapping[str, str]) -> None:
        self.query_one("#wz-force", Static).update(render.force_text(plan, names))
