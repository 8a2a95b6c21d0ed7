"""Preview: what the plan does to redundancy, every check with its verdict, every command
exactly as it will run, and the steps in plain words. Nothing has run yet."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.widgets import Static

from zconsole.model.plan import Plan
from zconsole.ui.wizards import render
from zconsole.ui.wizards.phases.base import CommandsBox, PhaseView


class PreviewPhase(PhaseView):
    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-text", id="wz-preview")
        yield CommandsBox("", id="wz-commands")
        yield Static("", classes="wz-text", id="wz-detail")

    def show_plan(self, plan: Plan, *, start_at: int = 0, names: Mapping[str, str],
                  resuming: str | None = None) -> None:
        """The plan from step `start_at` on; `resuming` is the saved plan's sentence;
        `names` shortens by-id names after their first mention (not in the commands)."""
        short = render.ShortNames(names)
        self.query_one("#wz-preview", Static).update(
            render.preview_text(plan, short=short, resuming=resuming))
        commands = self.query_one(CommandsBox)
        commands.update(render.commands_text(plan, start_at=start_at))
        commands.display = True
        commands.border_subtitle = "y: copy a command"
        self.query_one("#wz-detail", Static).update(
            render.steps_detail(plan, start_at=start_at, short=short))

    def show_nothing(self) -> None:
        """No plan (it could not be built): the screen's message says why."""
        self.query_one("#wz-preview", Static).update("")
        self.query_one(CommandsBox).display = False
