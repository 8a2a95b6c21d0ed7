"""The wizard screen: choose → preview → (force) → typed confirmation → run → result.

Pushed over the current screen. Nothing touches the host until the operator has read every
command exactly as it will run and confirmed; a plan a check blocks cannot be run at all.
Escape goes back a stage before anything ran; once the plan runs, leaving only stops
watching: ZFS carries on (a resilver is not stopped by closing zconsole), the saved plan is
offered again at the next start, and the screen says so before it closes.

Each phase is one widget (`phases/`) in a ContentSwitcher; `phase` is reactive, its watcher
shows the phase's widget, bar and keys. Plans are built and run in workers; the runner's
events come back as messages. The on-site steps' keys (`o`, `i`) are in operator.py.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import ContentSwitcher

from zconsole.hosts.base import Host
from zconsole.model.plan import Confirmation, Plan, StepOutcome, StepStatus
from zconsole.model.reading import HostReading
from zconsole.services.ops.engine.runner import NeedsOperator, RunResult
from zconsole.services.ops.engine.runner import RunEvent as RunnerEvent
from zconsole.ui.kit.text import plain
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState
from zconsole.ui.wizards import events, render
from zconsole.ui.wizards.flows import Flow, Stage
from zconsole.ui.wizards.operator import OperatorSteps
from zconsole.ui.wizards.phases import (
    ChoosePhase,
    ConfirmPhase,
    ForcePhase,
    PreviewPhase,
    ResultPhase,
    RunLog,
    RunPhase,
)
from zconsole.ui.wizards.phases.base import PHASE_ACTIONS, PHASE_VIEW, Phase, PhaseBar
from zconsole.ui.wizards.phases.run import RunnerFactory, RunnerLike
from zconsole.ui.wizards.view import Said, WizardView


class WizardScreen(WizardView, OperatorSteps, ZScreen):
    """One wizard run. Build with a Flow (fresh wizard) or with `resume=` (a saved plan)."""

    TITLE = "Wizard"

    DEFAULT_CSS = """
    WizardScreen .wz-message { height: auto; color: $health-warn; text-style: bold; }
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
        Binding("y", "copy", "Copy"),
    ]

    phase: reactive[Phase] = reactive(Phase.CHOOSE, always_update=True, init=False)

    # --- messages from the worker threads ------------------------------------------------------
    @dataclass
    class PlanBuilt(Message):
        plan: Plan | None
        error: str | None = None

    @dataclass
    class RunEvent(Message):
        event: RunnerEvent

    @dataclass
    class RunEnded(Message):
        result: RunResult | None
        error: str | None = None

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
        # what was chosen (the flow's stages)
        self.chosen: dict[str, str] = {}
        self.asked: list[str] = []  # stage keys the operator answered here, for Escape
        self.stage: Stage | None = None
        # the plan and its confirmations
        self.plan: Plan | None = None
        self.force = False
        self.pending: list[Confirmation] = []
        # the run (a saved plan resumes where it stopped)
        self.run = RunLog(names=render.short_names(reading))
        self.runner: RunnerLike | None = None
        self.cancel = threading.Event()
        self.ran = self.leaving = self.finished = False
        # resuming a saved plan: the sentence saying where it stands, and (when an on-site
        # step waits for the operator) that step, asked again before anything runs
        self.resume_sentence: str | None = None
        self.resume_operator = resume_operator
        self.bar = PhaseBar(classes="wz-phases", id="wz-phases")
        if resume is not None:
            self.plan, outcomes, next_index, self.resume_sentence = resume
            self.run.resume(outcomes, next_index)

    @property
    def status(self) -> dict[str, StepStatus]:  # each step's status as the run reported it
        return self.run.status

    @property
    def operator_step(self) -> int | None:  # the on-site step waiting for the operator
        return self.run.operator_step

    # -- layout -------------------------------------------------------------------------------
    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="choose"):
            yield ChoosePhase(id="choose")
            yield PreviewPhase(id="preview")
            yield ForcePhase(id="force")
            yield ConfirmPhase(id="confirm")
            yield RunPhase(id="run")
            yield ResultPhase(id="result")
        yield Said("", classes="wz-message", id="wz-message")

    def on_mount(self) -> None:
        # the title and the steps above the scrolling body: always on screen (issue 29)
        self.mount(self.bar, before=self.query_one(".body"))
        if self.plan is not None:  # resuming a saved plan
            self._show_preview()
            return
        assert self.flow is not None
        self.chosen = self.flow.start(self.reading)
        self._next_stage()

    def show_state(self, state: ViewState) -> None:
        """The wizard works on the snapshot it started with; choices re-check nothing live.
        (The plan builder reads the host afresh.) Except while a question has nothing to
        offer: the snapshot may lack what it needs (the disk read failed, or had not answered
        when the wizard opened, as on a loaded host guest): a newer reading is taken and the
        question asked again, so the list fills in by itself."""
        if (self.phase is Phase.CHOOSE and self.stage is not None and not self.stage.options
                and state.reading is not None and state.reading is not self.reading):
            self.reading = state.reading
            self._next_stage()

    def watch_phase(self, phase: Phase) -> None:
        title = (self.flow.TITLE if self.flow is not None else
                 f"resuming: {self.plan.kind}" if self.plan is not None else "")
        self.bar.show(phase, title)
        self.query_one(ContentSwitcher).current = PHASE_VIEW[phase]
        self.refresh_bindings()

    # -- bindings per phase ---------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in PHASE_ACTIONS:
            return True
        if self.phase not in PHASE_ACTIONS[action]:
            return False
        if action == "proceed":
            return self.plan is not None and not self.plan.blocked
        if action == "copy":
            return self.plan is not None
        if action in ("operator_done", "identify"):
            return self.operator_step is not None and (
                action == "operator_done" or self._identify_command() is not None)
        return True

    # -- choose ---------------------------------------------------------------------------------
    def _next_stage(self) -> None:
        assert self.flow is not None
        self.stage = self.flow.next_stage(self.reading, self.chosen)
        if self.stage is None:
            self._build()
            return
        self.phase = Phase.CHOOSE
        if self.query_one(ChoosePhase).show_stage(self.stage):
            self._message("")
        elif self.reading is not None and self.reading.disks.error:
            self._message(f"{self.stage.empty} The disk list was not read "
                          f"({self.reading.disks.error}): it fills in here after the next "
                          "refresh (ctrl+r reads now).")
        else:
            self._message(self.stage.empty)

    def on_choose_phase_picked(self, message: ChoosePhase.Picked) -> None:
        if self.phase is not Phase.CHOOSE or self.stage is None:
            return
        self.chosen[self.stage.key] = message.choice.value
        self.asked.append(self.stage.key)
        self._next_stage()

    def choose(self, value: str) -> None:
        """Pick an option by value (tests and the palette)."""
        self.query_one(ChoosePhase).choose(value)

    # -- build ----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.phase = Phase.BUILDING
        self.query_one(ChoosePhase).show_building()
        assert self.flow is not None
        self._build_plan(self.flow, dict(self.chosen), self.force)

    @work(thread=True, exclusive=True, exit_on_error=False, group="wizard-build")
    def _build_plan(self, flow: Flow, chosen: dict[str, str], force: bool) -> None:
        try:
            plan = flow.build(self.host, self.reading, chosen, force)
        except Exception as e:  # noqa: BLE001 - the operator must see why, not a crash
            self.post_message(self.PlanBuilt(None, f"{type(e).__name__}: {e}"))
            return
        self.post_message(self.PlanBuilt(plan))

    def on_wizard_screen_plan_built(self, message: PlanBuilt) -> None:
        if message.plan is None:
            self.phase = Phase.CHOOSE
            self.query_one(ChoosePhase).show_options()
            if self.stage is None:  # nothing was asked here: no list to go back to
                self.phase = Phase.PREVIEW
                self.query_one(PreviewPhase).show_nothing()
            self._message(f"✖ The plan could not be built: {message.error}. Nothing was run.")
            return
        self.plan = message.plan
        self._show_preview()

    # -- preview and force ----------------------------------------------------------------------
    def _show_preview(self) -> None:
        assert self.plan is not None
        self.phase = Phase.PREVIEW
        self.query_one(PreviewPhase).show_plan(self.plan, start_at=self.run.start_at,
                                               names=self.run.names,
                                               resuming=self.resume_sentence)
        if self.plan.blocked:
            self._message("Escape to go back. Nothing has been run.", reveal=False)
        elif self.plan.needs_force and not self.force:
            self._message("Enter: continue (a second confirmation follows) · Escape: back",
                          reveal=False)
        else:
            self._message("Read every command above. Enter: continue · y: copy a command · "
                          "Escape: back", reveal=False)
        self._body_home()

    def action_proceed(self) -> None:
        if self.phase is Phase.RESULT:
            self.action_close()
            return
        if self.phase is not Phase.PREVIEW or self.plan is None or self.plan.blocked:
            return
        if self.plan.needs_force and not self.force:
            self.phase = Phase.FORCE
            self.query_one(ForcePhase).show_plan(self.plan, self.run.names)
            self._message("")
            self.query_one(".body").focus()
            return
        self.pending = render.confirmations(self.plan, self.run.start_at)
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
        assert self.plan is not None
        self.phase = Phase.CONFIRM
        self.query_one(ConfirmPhase).ask(self.plan, self.run.start_at, self.pending[0])
        self._message("")
        self._reveal(self.query_one("#wz-input"))  # below a long command box at 80x24

    def on_confirm_phase_typed(self, message: ConfirmPhase.Typed) -> None:
        if self.phase is not Phase.CONFIRM or not self.pending:
            return
        if message.value != self.pending[0].expected:
            shown = message.value or "nothing"
            self._message(f"✖ You typed {shown!r}, which does not match. Nothing was run.")
            self.query_one(ConfirmPhase).clear()
            return
        self.pending.pop(0)
        self._ask_confirmation()

    # -- run ------------------------------------------------------------------------------------
    def _start_run(self) -> None:
        assert self.plan is not None
        self.ran = True
        if self.resume_operator is not None:
            step = self.plan.steps[self.resume_operator]
            self.resume_operator = None
            self._enter_run()
            self.on_wizard_screen_run_event(self.RunEvent(NeedsOperator(
                step.id, step.operator_action or step.title,
                step.command.display() if step.command else None)))
            return
        self.run.operator_step = None
        self.run.failure = None
        self._enter_run()
        self._render_run()
        self._message("Running. Escape stops watching; ZFS carries on.", reveal=False)
        self.query_one(".body").focus()
        if self.runner is None:
            from zconsole.ui.wizards import backend

            try:
                factory = self.runner_factory or backend.runner_factory(self.console_app)
                self.runner = factory(self.host, self.plan)
            except Exception as e:  # noqa: BLE001 - e.g. the journal directory is unusable
                self.run.failure = plain(f"zconsole could not start the plan: "
                                         f"{type(e).__name__}: {e}. Nothing was run.")
                self._show_result("failed")
                return
        self._run_plan(self.runner, self.run.start_at, list(self.run.outcomes))

    def _enter_run(self) -> None:
        self.phase = Phase.RUN
        self.query_one(RunPhase).start(self.run)

    @work(thread=True, exclusive=True, exit_on_error=False, group="wizard-run")
    def _run_plan(self, runner: RunnerLike, start_at: int, outcomes: list[StepOutcome]
                  ) -> None:
        try:
            result = runner.run(self._post_run_event, cancel=self.cancel, start_at=start_at,
                                outcomes=outcomes)
        except Exception as e:  # noqa: BLE001 - shown on screen, never swallowed
            self.post_message(self.RunEnded(None, f"{type(e).__name__}: {e}"))
            return
        self.post_message(self.RunEnded(result))

    def _post_run_event(self, event: RunnerEvent) -> None:
        """The runner's callback (on the worker thread)."""
        self.post_message(self.RunEvent(event))

    def _render_run(self) -> None:
        if self.plan is not None:
            self.query_one(RunPhase).show(self.plan, self.run)

    def on_wizard_screen_run_event(self, message: RunEvent) -> None:
        ev = events.view(message.event)
        self.run.apply(ev, self.plan)
        phase = self.query_one(RunPhase)
        if ev.kind == "progress":
            phase.progress(ev.text, ev.percent, bar=ev.bar, ok=ev.ok)
        elif ev.kind == "step-done" and ev.outcome is not None:
            if ev.outcome.status in (StepStatus.DONE, StepStatus.SKIPPED):
                phase.hide_progress()
        elif ev.kind == "operator" and ev.step_id:
            phase.ask_operator(ev.text, self._identify_command_display() or None)
            self.refresh_bindings()
        self._render_run()

    def on_wizard_screen_run_ended(self, message: RunEnded) -> None:
        if message.error is not None or message.result is None:
            self.run.failure = plain(f"zconsole could not run the plan: {message.error}")
            self._show_result("failed")
            return
        result = message.result
        self.run.ended(result)
        if result.status == "awaiting-operator":
            step = (self.plan.steps[self.operator_step]
                    if self.plan is not None and self.operator_step is not None else None)
            what = step.title if step is not None else "the step above"
            self._message(f"✋ Waiting for you on site: {what}. o: done"
                          + (" · i: identify" if self._identify_command() else "")
                          + ". ZFS is not waiting for anything.",
                          reveal=False)  # the on-site box above is in view
            return
        if self.leaving:
            return
        self._show_result(events.result_status(result))

    def _show_result(self, status: str) -> None:
        assert self.plan is not None
        if status == "done" and self._follow_up():
            return
        self.finished = True
        self.phase = Phase.RESULT
        self.query_one(ResultPhase).show(self.plan, self.run, done=status == "done",
                                         audit=self._audit_label())
        self._message("Enter or Escape: close", reveal=False)
        self._body_home(focus=False)

    def _follow_up(self) -> bool:
        """A finished plan with a second part (the same-bay replace after the bay plan):
        build that plan from a fresh reading and show its preview; nothing runs before the
        operator confirms it like any other plan."""
        from zconsole.ui.wizards.flows import follow_up

        assert self.plan is not None
        nxt = follow_up(self.plan, self.flow.findings if self.flow is not None else (),
                        self.flow.smart if self.flow is not None else None)
        if nxt is None:
            return False
        done = self.plan.title
        self.flow = nxt
        self.plan = None
        self.force = False
        self.pending = []
        self.runner = None
        self.ran = self.leaving = False
        self.cancel = threading.Event()
        self.run = RunLog(names=self.run.names)
        self.resume_sentence = None
        self.run.log(f"✔ {done}: done")
        self.chosen = nxt.start(self.reading)
        self.asked = []
        self._next_stage()
        self._message("The new disk is in: reading the host afresh and building the "
                      "replace plan…")
        return True

    def _audit_label(self) -> str | None:
        """Where the audit log is, as the operator reads it (~ for home)."""
        from zconsole.ui.wizards import backend

        try:
            audit = self.audit_path or backend.audit_path_for(self.console_app)
        except Exception:  # noqa: BLE001 - only a label
            return None
        return backend.shown_path(audit)

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
