"""Result: done or stopped, what was proven (each step's status and message), ZFS's refusal if
it refused, the log, and where the audit log is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from zconsole.model.plan import Plan
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import plain
from zconsole.ui.wizards.phases.base import PhaseView, RefusalBox
from zconsole.ui.wizards.phases.run import RunLog


class ResultPhase(PhaseView):
    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-text", id="wz-result")
        yield RefusalBox("", id="wz-refusal")
        yield Static("", classes="wz-text", id="wz-result-log")

    def show(self, plan: Plan, run: RunLog, *, done: bool, audit: str | None) -> None:
        ok = done and run.failure is None
        parts: list[Content | str] = [
            Content.styled("✔ Done. " if ok else "✖ Stopped. ",
                           f"bold {LEVEL_STYLE['ok' if ok else 'bad']}"),
            "What was proven:\n" if ok else "What happened:\n",
            run.steps(plan), "\n\n"]
        if audit:
            parts.append(plain(f"Audit log (every command, exit code, output, duration): "
                               f"{audit}\n"))
        self.query_one("#wz-result", Static).update(Content.assemble(*parts))
        refusal = self.query_one(RefusalBox)
        refusal.update(run.failure or "")
        refusal.display = run.failure is not None
        self.query_one("#wz-result-log", Static).update(run.tail())
