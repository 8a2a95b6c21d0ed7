"""Result: done or stopped, what was proven (each step's status and message), ZFS's refusal if
it refused, the log, and where the audit log is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from zconsole.model.plan import Plan
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, Para, plain
from zconsole.ui.wizards.phases.base import PhaseView, RefusalBox
from zconsole.ui.wizards.phases.run import RunLog


class ResultPhase(PhaseView):
    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-text", id="wz-result")
        yield RefusalBox("", id="wz-refusal")
        yield Static("", classes="wz-text", id="wz-result-log")

    def show(self, plan: Plan, run: RunLog, *, done: bool, audit: str | None) -> None:
        ok = done and run.failure is None
        items: list[Content | Para] = [
            Content.assemble(Content.styled("✔ Done. " if ok else "✖ Stopped. ",
                                            f"bold {LEVEL_STYLE['ok' if ok else 'bad']}"),
                             "What was proven:" if ok else "What happened:"),
            *run.steps(plan), Content("")]
        items.append(plain(f"Audit log (every command, exit code, output, duration): {audit}")
                     if audit else Content(""))
        items.append(Content(""))
        self.query_one("#wz-result", Static).update(Hanging(*items))
        refusal = self.query_one(RefusalBox)
        refusal.update(run.failure or "")
        refusal.display = run.failure is not None
        self.query_one("#wz-result-log", Static).update(run.tail())
