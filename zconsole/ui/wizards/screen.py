"""The wizard screen: choose → preview → (force) → typed confirmation → run → result.

Pushed over the current screen. Nothing touches the host until the operator has read every
command exactly as it will run and confirmed; a plan a check blocks cannot be run at all.
Escape goes back a stage before anything ran; once the plan runs, leaving only stops
watching: ZFS carries on (a resilver is not stopped by closing zconsole), the saved plan is
offered again at the next start, and the screen says so before it closes.

The run happens in a worker thread calling `PlanRunner.run`; its events come back as
messages and update the step list, the progress bar and the log of checks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.plan import Confirmation, Plan, StepOutcome, StepStatus
from zconsole.model.reading import HostReading
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState
from zconsole.ui.wizards import render
from zconsole.ui.wizards.flows import Flow, Stage

OUTPUT_LINES = 24  # of a read-only command's output (the proof: zpool list, status -D)
LOG_LINES = 40  # log lines kept on screen (everything is in the audit log)


class Phase(str, Enum):
    CHOOSE = "choose"
    BUILDING = "building"
    PREVIEW = "preview"
    FORCE = "force"
    CONFIRM = "confirm"
    RUN = "run"
    RESULT = "result"


PHASE_BAR = (("choose", (Phase.CHOOSE, Phase.BUILDING)), ("preview", (Phase.PREVIEW,)),
             ("confirm", (Phase.FORCE, Phase.CONFIRM)), ("run", (Phase.RUN,)),
             ("result", (Phase.RESULT,)))


class RunnerLike(Protocol):
    """What the wizard needs of services.runner.PlanRunner."""

    def run(self, on_event: Callable[[Any], None], *, cancel: threading.Event | None = None,
            start_at: int = 0, outcomes: Sequence[StepOutcome] | None = None) -> Any: ...

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Any: ...


RunnerFactory = Callable[[Host, Plan], RunnerLike]


# --- messages from worker threads ------------------------------------------------------------

class PlanBuilt(Message):
    def __init__(self, plan: Plan | None, error: str | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.error = error


class RunEvent(Message):
    def __init__(self, event: object) -> None:
        super().__init__()
        self.event = event


class RunEnded(Message):
    def __init__(self, result: object, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class IdentifyEnded(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class WizardScreen(ZScreen):
    """One wizard run. Build with a Flow (fresh wizard) or with `resume=` (a saved plan)."""

    TITLE = "Wizard"

    DEFAULT_CSS = """
    WizardScreen .wz-phases { height: 1; padding: 0 1; color: $muted; }
    WizardScreen .wz-question { height: auto; text-style: bold; padding: 1 0 0 0; }
    WizardScreen .wz-options { height: auto; max-height: 16; border: round $panel; }
    WizardScreen .wz-options:focus { border: round $primary; }
    WizardScreen .wz-text { height: auto; }
    WizardScreen .wz-commands {
        height: auto; border: round $primary; padding: 0 1; background: $panel;
    }
    WizardScreen .wz-input { width: 60; max-width: 100%; }
    WizardScreen .wz-message {
        dock: bottom; height: auto; color: $health-warn; text-style: bold; background: $panel;
    }
    WizardScreen .wz-refusal {
        height: auto; border: round $health-bad; padding: 0 1;
    }
    WizardScreen .wz-progress { height: 1; }
    WizardScreen .wz-operator {
        height: auto; border: round $health-warn; padding: 0 1; text-style: bold;
    }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("escape", "stop_watching", "Stop watching"),
        Binding("escape", "close", "Close"),
        Binding("enter", "proceed", "Continue"),
        Binding("enter", "close", "Close"),
        Binding("f", "force", "Override (-f)"),
        Binding("o", "operator_done", "Done on site"),
        Binding("i", "identify", "Identify disk"),
    ]

    def __init__(self, flow: Flow | None = None, *, host: Host,
                 reading: HostReading | None,
                 runner_factory: RunnerFactory | None = None,
                 audit_path: str | None = None,
                 resume: tuple[Plan, Sequence[StepOutcome], int, str] | None = None,
                 resume_operator: int | None = None) -> None:
        super().__init__()
        self.flow = flow
        self.host = host
        self.reading = reading
        self.runner_factory = runner_factory
        self.audit_path = audit_path
        self.phase = Phase.CHOOSE
        self.chosen: dict[str, str] = {}
        self.asked: list[str] = []  # stage keys the operator answered here, for Escape
        self.stage: Stage | None = None
        self.plan: Plan | None = None
        self.force = False
        self.pending: list[Confirmation] = []
        self.start_at = 0
        self.outcomes: list[StepOutcome] = []
        self.status: dict[str, StepStatus] = {}
        self.step_msgs: dict[str, str] = {}
        self.log_lines: list[Text] = []
        self.operator_step: int | None = None
        self.failure: Text | None = None
        self.ran = False
        self.leaving = False
        self.finished = False
        self.result_status = ""
        self.resume_sentence: str | None = None
        self.cancel = threading.Event()
        self.runner: RunnerLike | None = None
        self.helper: str | None = None  # display of the identify reads, when offered
        # resuming while an on-site step waits for the operator: ask again before running
        self.resume_operator = resume_operator
        if resume is not None:
            plan, outcomes, next_index, sentence = resume
            self.plan = plan
            self.outcomes = list(outcomes)
            self.start_at = next_index
            self.resume_sentence = sentence
            for o in outcomes:
                self.status[o.step_id] = o.status
                if o.message:
                    self.step_msgs[o.step_id] = o.message

    # -- layout -------------------------------------------------------------------------------
    def compose_body(self) -> ComposeResult:
        yield Static("", classes="wz-phases", id="wz-phases")
        yield Static("", classes="wz-question", id="wz-question")
        yield OptionList(classes="wz-options", id="wz-options")
        yield Static("", classes="wz-text", id="wz-text")
        yield Static("", classes="wz-commands", id="wz-commands")
        yield Static("", classes="wz-text", id="wz-detail")
        yield Static("", classes="wz-text", id="wz-prompt")
        yield Input(classes="wz-input", id="wz-input")
        yield Static("", classes="wz-operator", id="wz-operator")
        yield ProgressBar(total=100, show_eta=False, classes="wz-progress", id="wz-bar")
        yield Static("", classes="wz-text", id="wz-progress-text")
        yield Static("", classes="wz-refusal", id="wz-refusal")
        yield Static("", classes="wz-text", id="wz-log")
        yield Static("", classes="wz-message", id="wz-message")

    def on_mount(self) -> None:
        self.query_one("#wz-commands", Static).border_title = "exactly as it will run"
        self.query_one("#wz-refusal", Static).border_title = "ZFS refused"
        if self.plan is not None:  # resuming a saved plan
            self._show_preview()
            return
        assert self.flow is not None
        self.chosen = self.flow.start(self.reading)
        self._next_stage()

    def show_state(self, state: ViewState) -> None:
        """The wizard works on the snapshot it started with; choices re-check nothing live.
        (The plan builder reads the host afresh.)"""

    @property
    def colours(self) -> Mapping[str, str]:
        return self.app.get_css_variables()

    @property
    def title_text(self) -> str:
        if self.plan is not None:
            return self.plan.title
        assert self.flow is not None
        return self.flow.title(self.chosen)

    def _set_phase(self, phase: Phase) -> None:
        self.phase = phase
        bar = Text()
        for i, (name, phases) in enumerate(PHASE_BAR):
            if i:
                bar.append(" › ")
            bar.append(f" {name} " if phase in phases else name,
                       style="bold reverse" if phase in phases else "")
        if self.flow is not None:
            bar.append(f"   {self.flow.TITLE}", style="bold")
        elif self.plan is not None:
            bar.append(f"   resuming: {self.plan.kind}", style="bold")
        self.query_one("#wz-phases", Static).update(bar)
        shown = {
            Phase.CHOOSE: {"wz-question", "wz-options", "wz-message"},
            Phase.BUILDING: {"wz-question"},
            Phase.PREVIEW: {"wz-text", "wz-commands", "wz-detail", "wz-message"},
            Phase.FORCE: {"wz-text", "wz-message"},
            Phase.CONFIRM: {"wz-commands", "wz-prompt", "wz-input", "wz-message"},
            Phase.RUN: {"wz-text", "wz-operator", "wz-bar", "wz-progress-text", "wz-refusal",
                        "wz-log", "wz-message"},
            Phase.RESULT: {"wz-text", "wz-refusal", "wz-log", "wz-message"},
        }[phase]
        for w in self.query(".wz-question, .wz-options, .wz-text, .wz-commands, .wz-input, "
                            ".wz-operator, .wz-progress, .wz-refusal, .wz-message"):
            if w.id == "wz-message":
                continue  # shown while it has something to say
            if w.id in shown:
                w.display = True
            else:
                w.display = False
        if phase is Phase.RUN:
            self.query_one("#wz-operator").display = self.operator_step is not None
            self.query_one("#wz-bar").display = False
            self.query_one("#wz-progress-text").display = False
            self.query_one("#wz-refusal").display = self.failure is not None
        if phase is Phase.RESULT:
            self.query_one("#wz-refusal").display = self.failure is not None
        self.refresh_bindings()

    def _message(self, text: str | Text = "") -> None:
        w = self.query_one("#wz-message", Static)
        w.update(text)
        w.display = bool(str(text))

    # -- bindings per phase ---------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        p = self.phase
        if action == "back":
            return p in (Phase.CHOOSE, Phase.BUILDING, Phase.PREVIEW, Phase.FORCE,
                         Phase.CONFIRM)
        if action == "stop_watching":
            return p is Phase.RUN
        if action == "close":
            return p is Phase.RESULT
        if action == "proceed":
            return p is Phase.PREVIEW and self.plan is not None and not self.plan.blocked
        if action == "force":
            return p is Phase.FORCE
        if action in ("operator_done", "identify"):
            if p is not Phase.RUN or self.operator_step is None:
                return False
            return action == "operator_done" or self._identify_command() is not None
        return True

    # -- choose ---------------------------------------------------------------------------------
    def _next_stage(self) -> None:
        assert self.flow is not None
        self.stage = self.flow.next_stage(self.reading, self.chosen)
        if self.stage is None:
            self._build()
            return
        self._set_phase(Phase.CHOOSE)
        self.query_one("#wz-question", Static).update(self.stage.question)
        ol = self.query_one("#wz-options", OptionList)
        ol.clear_options()
        for i, c in enumerate(self.stage.options):
            prompt = Text(c.label, style="" if c.enabled else "dim")
            if c.detail:
                prompt.append("\n   " + c.detail, style="dim")
            ol.add_option(Option(prompt, id=f"o{i}", disabled=not c.enabled))
        if not self.stage.options:
            self._message(self.stage.empty)
        else:
            self._message("")
            first = next((i for i, c in enumerate(self.stage.options) if c.enabled), None)
            if first is not None:
                ol.highlighted = first
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.phase is not Phase.CHOOSE or self.stage is None:
            return
        event.stop()
        idx = event.option_index
        choice = self.stage.options[idx]
        if not choice.enabled:
            return
        self.chosen[self.stage.key] = choice.value
        self.asked.append(self.stage.key)
        self._next_stage()

    def choose(self, value: str) -> None:
        """Pick an option by value (tests and the palette)."""
        assert self.stage is not None
        for i, c in enumerate(self.stage.options):
            if c.value == value:
                ol = self.query_one("#wz-options", OptionList)
                ol.highlighted = i
                ol.action_select()
                return
        raise KeyError(value)

    # -- build ----------------------------------------------------------------------------------
    def _build(self) -> None:
        self._set_phase(Phase.BUILDING)
        self.query_one("#wz-question", Static).update(
            "Reading the host afresh and building the plan…")
        flow, host, reading, chosen, force = (self.flow, self.host, self.reading,
                                               dict(self.chosen), self.force)
        assert flow is not None

        def work() -> None:
            try:
                plan = flow.build(host, reading, chosen, force)
            except Exception as e:  # noqa: BLE001 - the operator must see why, not a crash
                self.post_message(PlanBuilt(None, f"{type(e).__name__}: {e}"))
                return
            self.post_message(PlanBuilt(plan))

        self.run_worker(work, thread=True, exclusive=True, group="wizard-build")

    def on_plan_built(self, message: PlanBuilt) -> None:
        if message.plan is None:
            self._set_phase(Phase.CHOOSE)
            if self.stage is None:
                self._set_phase(Phase.PREVIEW)
                self.query_one("#wz-text", Static).update("")
                self.query_one("#wz-commands").display = False
            self._message(f"✖ The plan could not be built: {message.error}. Nothing was run.")
            return
        self.plan = message.plan
        self._show_preview()

    # -- preview --------------------------------------------------------------------------------
    def _show_preview(self) -> None:
        assert self.plan is not None
        self._set_phase(Phase.PREVIEW)
        text = Text()
        if self.resume_sentence:
            text.append(f"Resuming: {self.resume_sentence}\n\n", style="bold")
        text.append_text(render.preview_text(self.plan, self.colours, start_at=self.start_at))
        self.query_one("#wz-text", Static).update(text)
        self.query_one("#wz-commands", Static).update(
            render.commands_text(self.plan, start_at=self.start_at))
        self.query_one("#wz-detail", Static).update(
            render.steps_detail(self.plan, start_at=self.start_at))
        if self.plan.blocked:
            self._message("Escape to go back. Nothing has been run.")
        elif self.plan.needs_force and not self.force:
            self._message("Enter: continue (a second confirmation follows) · Escape: back")
        else:
            self._message("Read every command above. Enter: continue · Escape: back")
        self.query_one(".body").scroll_home(animate=False)
        self.query_one(".body").focus()

    def action_proceed(self) -> None:
        if self.phase is Phase.RESULT:
            self.action_close()
            return
        if self.phase is not Phase.PREVIEW or self.plan is None or self.plan.blocked:
            return
        if self.plan.needs_force and not self.force:
            self._set_phase(Phase.FORCE)
            self.query_one("#wz-text", Static).update(render.force_text(self.plan,
                                                                         self.colours))
            self._message("")
            self.query_one(".body").focus()
            return
        self.pending = render.confirmations(self.plan, self.start_at)
        self._ask_confirmation()

    def action_force(self) -> None:
        if self.phase is not Phase.FORCE:
            return
        self.force = True
        if self.flow is not None:
            self._build()  # the plan is rebuilt with the flag, and shown again
        else:
            self._show_preview()

    # -- typed confirmation ---------------------------------------------------------------------
    def _ask_confirmation(self) -> None:
        if not self.pending:
            self._start_run()
            return
        c = self.pending[0]
        self._set_phase(Phase.CONFIRM)
        self.query_one("#wz-prompt", Static).update(Text.assemble(
            (c.prompt, "bold"), "\nType it exactly and press Enter; Escape goes back."))
        self._message("")
        inp = self.query_one("#wz-input", Input)
        inp.value = ""
        inp.placeholder = "type here"
        inp.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.phase is not Phase.CONFIRM or not self.pending:
            return
        event.stop()
        typed = event.value.strip()
        c = self.pending[0]
        if typed != c.expected:
            shown = typed or "nothing"
            self._message(f"✖ You typed {shown!r}, which does not match. Nothing was run.")
            self.query_one("#wz-input", Input).value = ""
            return
        self.pending.pop(0)
        self._ask_confirmation()

    # -- run ------------------------------------------------------------------------------------
    def _runner_factory(self) -> RunnerFactory:
        if self.runner_factory is not None:
            return self.runner_factory
        from zconsole.ui.wizards import backend

        return backend.runner_factory(self.zapp)

    def _start_run(self) -> None:
        assert self.plan is not None
        if self.resume_operator is not None:
            step = self.plan.steps[self.resume_operator]
            self.resume_operator = None
            self.ran = True
            self._set_phase(Phase.RUN)
            self.on_run_event(RunEvent(_Operator(step.id, step.operator_action or step.title,
                                                 step.command.display() if step.command
                                                 else None)))
            return
        self.ran = True
        self.operator_step = None
        self.failure = None
        self._set_phase(Phase.RUN)
        self._render_steps()
        self._message("Running. Escape stops watching; ZFS carries on.")
        self.query_one(".body").focus()
        plan, start_at, outcomes = self.plan, self.start_at, list(self.outcomes)
        if self.runner is None:
            try:
                self.runner = self._runner_factory()(self.host, plan)
            except Exception as e:  # noqa: BLE001 - e.g. the journal directory is unusable
                self.failure = Text(f"zconsole could not start the plan: "
                                    f"{type(e).__name__}: {e}. Nothing was run.")
                self._show_result("failed")
                return
        runner, cancel = self.runner, self.cancel

        def emit(ev: object) -> None:
            self.post_message(RunEvent(ev))

        def work() -> None:
            try:
                result = runner.run(emit, cancel=cancel, start_at=start_at, outcomes=outcomes)
            except Exception as e:  # noqa: BLE001 - shown on screen, never swallowed
                self.post_message(RunEnded(None, f"{type(e).__name__}: {e}"))
                return
            self.post_message(RunEnded(result))

        self.run_worker(work, thread=True, exclusive=True, group="wizard-run")

    def _render_steps(self) -> None:
        if self.plan is None:
            return
        self.query_one("#wz-text", Static).update(
            render.steps_text(self.plan, self.status, self.step_msgs, self.colours))
        log = Text("\n").join(self.log_lines[-LOG_LINES:]) if self.log_lines else Text("")
        self.query_one("#wz-log", Static).update(log)

    def _log(self, line: str, level: str = "") -> None:
        style = self.colours.get(f"health-{level}", "") if level else ""
        self.log_lines.append(Text(line, style=style))

    def on_run_event(self, message: RunEvent) -> None:
        from zconsole.ui.wizards import events

        ev = events.view(message.event)
        if ev.kind == "step-started" and ev.step_id:
            self.status[ev.step_id] = StepStatus.RUNNING
        elif ev.kind == "command":
            self._log(ev.text, "ok" if ev.ok else "bad")
            found = render.step_by_id(self.plan, ev.step_id) if self.plan and ev.step_id \
                else None
            cmd = found[1].command if found else None
            if cmd is not None and not cmd.writes and ev.output.strip():
                lines = ev.output.rstrip().splitlines()
                shown = lines[:OUTPUT_LINES]
                if len(lines) > OUTPUT_LINES:
                    shown.append(f"… {len(lines) - OUTPUT_LINES} more lines in the audit log")
                self.log_lines.append(Text("\n".join(shown), style="dim"))
        elif ev.kind == "check":
            self._log(("✔ " if ev.ok else "✖ ") + ev.text, "ok" if ev.ok else "warn")
        elif ev.kind == "progress":
            if ev.step_id:
                self.status[ev.step_id] = StepStatus.WAITING
            bar = self.query_one("#wz-bar", ProgressBar)
            bar.display = True
            if ev.percent is not None:
                bar.update(total=100, progress=ev.percent)
            pt = self.query_one("#wz-progress-text", Static)
            pt.display = True
            pt.update(ev.text)
        elif ev.kind == "step-done" and ev.outcome is not None:
            o = ev.outcome
            self.status[o.step_id] = o.status
            self.outcomes = [x for x in self.outcomes if x.step_id != o.step_id] + [o]
            if o.message:
                self.step_msgs[o.step_id] = o.message
            if o.status in (StepStatus.DONE, StepStatus.SKIPPED):
                self.query_one("#wz-bar").display = False
                self.query_one("#wz-progress-text").display = False
        elif ev.kind == "operator" and ev.step_id:
            found = render.step_by_id(self.plan, ev.step_id) if self.plan else None
            self.operator_step = found[0] if found else None
            self.helper = ev.helper
            self.status[ev.step_id] = StepStatus.WAITING
            op = self.query_one("#wz-operator", Static)
            hint = "\nPress o once it is done."
            if self._identify_command() is not None:
                hint += (f"\nPress i to identify the disk: steady reads make its activity LED "
                         f"blink ({self._identify_command_display()}; reads only).")
            op.update(Text.assemble(("✋ On site: ", "bold"), ev.text, hint))
            self.call_after_refresh(op.scroll_visible, animate=False)
            op.display = True
            self.refresh_bindings()
        elif ev.kind == "failed":
            if ev.step_id:
                self.status[ev.step_id] = StepStatus.FAILED
            self.failure = refusal_text(ev.text, ev.stderr, ev.explanation)
        self._render_steps()

    def on_run_ended(self, message: RunEnded) -> None:
        from zconsole.ui.wizards import events

        if message.error is not None:
            self.failure = Text(f"zconsole could not run the plan: {message.error}")
            self._show_result("failed")
            return
        status = events.result_status(message.result)
        result = message.result
        if isinstance(result, events.RunResult):
            self.outcomes = list(result.outcomes)
            self.start_at = result.next_index
            for o in result.outcomes:
                if o.status is not StepStatus.PENDING:
                    self.status[o.step_id] = o.status
        if status == "awaiting-operator":
            step = (self.plan.steps[self.operator_step]
                    if self.plan is not None and self.operator_step is not None else None)
            what = step.title if step is not None else "the step above"
            self._message(f"✋ Waiting for you on site: {what}. o: done"
                          + (" · i: identify" if self._identify_command() else "")
                          + ". ZFS is not waiting for anything.")
            return
        if self.leaving:
            return
        self._show_result(status)

    def _show_result(self, status: str) -> None:
        assert self.plan is not None
        self.finished = True
        self.result_status = status
        self._set_phase(Phase.RESULT)
        t = Text()
        ok = status == "done" and self.failure is None
        t.append("✔ Done. " if ok else "✖ Stopped. ", style="bold " + self.colours.get(
            "health-ok" if ok else "health-bad", ""))
        t.append("What was proven:\n" if ok else "What happened:\n")
        t.append_text(render.steps_text(self.plan, self.status, self.step_msgs, self.colours))
        t.append("\n\n")
        audit = self.audit_path or self._audit_from_app()
        if audit:
            from zconsole.ui.wizards.backend import shown_path

            t.append(f"Audit log (every command, exit code, output, duration): "
                     f"{shown_path(audit)}\n")
        self.query_one("#wz-text", Static).update(t)
        self.query_one("#wz-refusal", Static).update(self.failure or "")
        self._message("Enter or Escape: close")
        self.query_one(".body").scroll_home(animate=False)

    def _audit_from_app(self) -> str | None:
        from zconsole.ui.wizards import backend

        try:
            return backend.audit_path_for(self.zapp)
        except Exception:  # noqa: BLE001 - only a label
            return None

    # -- operator steps -------------------------------------------------------------------------
    def _identify_command(self) -> Command | None:
        if self.plan is None or self.operator_step is None:
            return None
        return identify_command(self.plan, self.operator_step)

    def _identify_command_display(self) -> str:
        cmd = self._identify_command()
        return self.helper or (cmd.display() if cmd is not None else "")

    def action_operator_done(self) -> None:
        if self.operator_step is None or self.plan is None:
            return
        step = self.plan.steps[self.operator_step]
        self._log(f"✔ you confirmed: {step.operator_action or step.title}", "ok")
        self.start_at = self.operator_step + 1
        self.operator_step = None
        self.query_one("#wz-operator").display = False
        self._start_run()

    def action_identify(self) -> None:
        cmd = self._identify_command()
        if cmd is None or self.plan is None or self.operator_step is None:
            return
        step = self.plan.steps[self.operator_step]
        helper_step = step.id if step.command is cmd else next(
            s.id for s in self.plan.steps if s.command is cmd)
        self._log(f"identify: {cmd.display()} (reads only; the disk's LED blinks while it runs)")
        self._render_steps()
        runner = self.runner
        host = self.host

        def work() -> None:
            t0 = time.monotonic()
            try:
                if runner is not None:
                    r = runner.run_helper(helper_step)
                else:
                    r = host.run(list(cmd.argv), timeout=900, check=False)
                text = (f"identify finished after {time.monotonic() - t0:.0f} s "
                        f"(exit {r.returncode})")
            except Exception as e:  # noqa: BLE001 - shown, never fatal
                text = f"identify failed: {type(e).__name__}: {e}"
            self.post_message(IdentifyEnded(text))

        self.run_worker(work, thread=True, group="wizard-identify")

    def on_identify_ended(self, message: IdentifyEnded) -> None:
        self._log(message.text)
        self._render_steps()

    # -- leaving --------------------------------------------------------------------------------
    def action_back(self) -> None:
        if self.phase is Phase.CONFIRM or self.phase is Phase.FORCE:
            self.force = self.force and self.phase is not Phase.FORCE
            self._show_preview()
            return
        if self.phase is Phase.PREVIEW and self.flow is not None and self.asked:
            self.plan = None
            self.force = False
            self.chosen.pop(self.asked.pop(), None)
            self._next_stage()
            return
        if self.phase is Phase.CHOOSE and self.asked:
            self.chosen.pop(self.asked.pop(), None)
            self._next_stage()
            return
        self.dismiss_wizard()

    def action_stop_watching(self) -> None:
        if self.leaving:
            self.cancel.set()
            self.dismiss_wizard()
            return
        self.leaving = True
        self._message("Press Escape again to stop watching. ZFS keeps going (a resilver is not "
                      "stopped); the plan is saved and offered again when zconsole starts.")

    def action_close(self) -> None:
        self.dismiss_wizard()

    def dismiss_wizard(self) -> None:
        self.cancel.set()
        if self.ran and not self.finished:
            self.app.notify("Stopped watching. ZFS continues; the plan is saved and will be "
                            "offered at the next start.", title="Wizard", timeout=8)
        self.app.pop_screen()

    def on_unmount(self) -> None:
        self.cancel.set()


def _Operator(step_id: str, text: str, helper: str | None) -> object:
    from zconsole.services.ops.engine.runner import NeedsOperator

    return NeedsOperator(step_id, text, helper)


def refusal_text(message: str, stderr: str, explanation: str | None) -> Text:
    """ZFS's words verbatim, then what they mean."""
    t = Text()
    first = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "")
    if first and first in message:  # the runner quotes ZFS's first line: show it once
        message = message.split(first, 1)[0].rstrip(" :") + ", ZFS's own words:"
    if message:
        t.append(message + "\n", style="bold")
    if stderr.strip():
        t.append(stderr.rstrip() + "\n")
    if explanation:
        t.append("\nWhat this means: ", style="bold")
        t.append(explanation)
    t.rstrip()
    return t


def identify_command(plan: Plan, operator_index: int) -> Command | None:
    """The read-only command that makes the disk of an on-site step blink: the step's own
    read-only command, or a read-only step named identify next to it."""
    step = plan.steps[operator_index]
    if step.command is not None and not step.command.writes:
        return step.command
    for j in (operator_index - 1, operator_index + 1):
        if 0 <= j < len(plan.steps):
            s = plan.steps[j]
            if s.command is not None and not s.command.writes and "identify" in s.id:
                return s.command
    return None
