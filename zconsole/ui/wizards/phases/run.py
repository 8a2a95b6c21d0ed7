"""Run: the steps with their status, the on-site request when a step waits for the operator,
the progress of a wait, and the log of commands and checks.

`RunLog` is what the run has shown so far; the result phase shows it too, with ZFS's refusal
when it refused (a refusal ends the run).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import ProgressBar, Static

from zconsole.hosts.base import Host, Result
from zconsole.model.plan import Plan, StepOutcome, StepStatus
from zconsole.services.ops.engine.runner import RunEvent, RunResult
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, Para, para, plain
from zconsole.ui.wizards import render
from zconsole.ui.wizards.events import EventView
from zconsole.ui.wizards.phases.base import PhaseView, bottom_in_view

LOG_LINES = 40  # log lines kept on screen (everything is in the audit log)
OUTPUT_LINES = 24  # of a read-only command's output (the proof: zpool list, status -D)


class RunnerLike(Protocol):
    """What the wizard needs of services.ops.engine.runner.PlanRunner."""

    def run(self, on_event: Callable[[RunEvent], None], *,
            cancel: threading.Event | None = None, start_at: int = 0,
            outcomes: Sequence[StepOutcome] | None = None) -> RunResult: ...

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Result: ...


RunnerFactory = Callable[[Host, Plan], RunnerLike]


@dataclass
class RunLog:
    """The run as the operator follows it: each step's status and last message, the log of
    commands and checks, the on-site step waiting for the operator, ZFS's refusal."""

    status: dict[str, StepStatus] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    lines: list[Content] = field(default_factory=list)
    operator_step: int | None = None  # index of the on-site step waiting for the operator
    helper: str | None = None  # display of the identify reads, when offered
    failure: Content | None = None
    names: Mapping[str, str] = field(default_factory=dict)  # by-id name -> serial
    outcomes: list[StepOutcome] = field(default_factory=list)  # of the steps run so far
    start_at: int = 0  # the step a run (again) starts at
    watching: str = ""  # the last thing a watch of the disks said (logged when it changes)

    def resume(self, outcomes: Sequence[StepOutcome], next_index: int) -> None:
        """A saved plan: what its steps did, and where it goes on."""
        self.outcomes = list(outcomes)
        self.start_at = next_index
        for o in outcomes:
            self.status[o.step_id] = o.status
            if o.message:
                self.messages[o.step_id] = o.message

    def ended(self, result: RunResult) -> None:
        """A run stopped (done, failed, cancelled or waiting for the operator)."""
        self.outcomes = list(result.outcomes)
        self.start_at = result.next_index
        for o in result.outcomes:
            if o.status is not StepStatus.PENDING:
                self.status[o.step_id] = o.status

    def log(self, line: str, level: str = "") -> None:
        self.lines.append(plain(line, LEVEL_STYLE.get(level, "")))

    def log_output(self, text: str) -> None:
        """A read-only command's output (the proof), muted."""
        self.lines.append(plain(text, "dim"))

    def apply(self, ev: EventView, plan: Plan | None) -> None:
        """Record one of the runner's events (as events.view shows it)."""
        if ev.kind == "step-started" and ev.step_id:
            self.status[ev.step_id] = StepStatus.RUNNING
        elif ev.kind == "command":
            self._command(ev, plan)
        elif ev.kind == "check":
            self.log(("✔ " if ev.ok else "✖ ") + ev.text, "ok" if ev.ok else "warn")
        elif ev.kind == "progress" and ev.step_id:
            self.status[ev.step_id] = StepStatus.WAITING
            if not ev.bar and ev.text != self.watching:  # what the disks did: into the log
                self.watching = ev.text
                self.log(ev.text, "ok" if ev.ok else "bad")
        elif ev.kind == "step-done" and ev.outcome is not None:
            o = ev.outcome
            self.status[o.step_id] = o.status
            self.outcomes = [x for x in self.outcomes if x.step_id != o.step_id] + [o]
            if o.message:
                self.messages[o.step_id] = o.message
        elif ev.kind == "operator" and ev.step_id:
            found = render.step_by_id(plan, ev.step_id) if plan is not None else None
            self.operator_step = found[0] if found else None
            self.helper = ev.helper
            self.status[ev.step_id] = StepStatus.WAITING
        elif ev.kind == "failed":
            if ev.step_id:
                self.status[ev.step_id] = StepStatus.FAILED
            self.failure = render.refusal_text(ev.text, ev.stderr, ev.explanation)

    def _command(self, ev: EventView, plan: Plan | None) -> None:
        """A command's exit; a read-only command's output too (the proof)."""
        self.log(ev.text, "ok" if ev.ok else "bad")
        found = render.step_by_id(plan, ev.step_id) if plan and ev.step_id else None
        cmd = found[1].command if found else None
        if cmd is not None and not cmd.writes and ev.output.strip():
            lines = ev.output.rstrip().splitlines()
            shown = lines[:OUTPUT_LINES]
            if len(lines) > OUTPUT_LINES:
                shown.append(f"… {len(lines) - OUTPUT_LINES} more lines in the audit log")
            self.log_output("\n".join(shown))

    def steps(self, plan: Plan) -> list[Content | Para]:
        return render.steps_text(plan, self.status, self.messages, self.names)

    def tail(self) -> Content:
        return Content("\n").join(self.lines[-LOG_LINES:])


class RunPhase(PhaseView):
    _asked: list[Content | Para] = []  # the on-site request shown
    DEFAULT_CSS = """
    RunPhase .wz-progress {
        height: 1;
    }
    RunPhase .wz-operator {
        height: auto;
        border: round $health-warn;
        padding: 0 1;
        text-style: bold;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-text", id="wz-steps")
        yield Static("", classes="wz-operator", id="wz-operator")
        yield ProgressBar(total=100, show_eta=False, classes="wz-progress", id="wz-bar")
        yield Static("", classes="wz-text", id="wz-progress-text")
        yield Static("", classes="wz-text", id="wz-log")

    def start(self, run: RunLog) -> None:
        """Entering the phase: no progress yet; the on-site request only when there is one."""
        self.query_one("#wz-operator").display = run.operator_step is not None
        self.hide_progress()

    def show(self, plan: Plan, run: RunLog) -> None:
        self.query_one("#wz-steps", Static).update(Hanging(*run.steps(plan)))
        self.query_one("#wz-log", Static).update(run.tail())

    def progress(self, text: str, percent: float | None, *, bar: bool = True,
                 ok: bool = True) -> None:
        """A wait's progress: the bar (a scan) and its line; `bar=False` only the line (a
        watch of the disks), said loudly when `ok` is False (a wrong disk pulled)."""
        shown = self.query_one(ProgressBar)
        shown.display = bar
        if percent is not None and bar:
            shown.update(total=100, progress=percent)
        line = self.query_one("#wz-progress-text", Static)
        line.display = True
        line.update(plain(text, "" if ok else f"bold {LEVEL_STYLE['bad']}"))

    def hide_progress(self) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#wz-progress-text").display = False

    def ask_operator(self, text: str, identify: str | None) -> None:
        """The on-site request; `identify` is what `i` runs to make the disk blink."""
        items: list[Content | Para] = [para(text, Content.styled("✋ On site: ", "bold")),
                                       Content("Press o once it is done.")]
        if identify:
            items.append(plain(f"Press i to identify the disk: steady reads make its activity "
                               f"LED blink ({identify}; reads only)."))
        self._asked = items
        self._show_operator(items)

    def operator_note(self, text: str) -> None:
        """What `i` did (started, finished), in the on-site box, under the request: the
        operator reads it where they pressed the key, not below the fold."""
        self._show_operator([*self._asked, plain(text, "dim")])

    def _show_operator(self, items: list[Content | Para]) -> None:
        op = self.query_one("#wz-operator", Static)
        op.update(Hanging(*items))
        op.display = True
        self.call_after_refresh(bottom_in_view, op)

    def operator_done(self) -> None:
        self.query_one("#wz-operator").display = False
