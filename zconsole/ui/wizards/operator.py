"""The wizard's on-site steps: the operator says a step is done (`o`), or asks to see the disk
(`i`: steady reads from it, read-only, so its activity LED blinks).

A mixin of `WizardScreen` (screen.py): it uses the screen's plan, run log and runner, and
goes on with the run through the screen. The identify command runs in a worker (through the
runner when there is one, so the journal records it) and its end comes back as a message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from zconsole.model.command import Command
from zconsole.ui.wizards import render
from zconsole.ui.wizards.part import WizardPart
from zconsole.ui.wizards.phases import RunPhase

if TYPE_CHECKING:
    from zconsole.hosts.base import Host
    from zconsole.ui.wizards.phases.run import RunnerLike


class OperatorSteps(WizardPart):
    """`o` (done on site) and `i` (identify the disk) for the step waiting for the operator."""

    if TYPE_CHECKING:  # provided by WizardScreen
        runner: RunnerLike | None
        host: Host

        @property
        def operator_step(self) -> int | None: ...

        def _start_run(self) -> None: ...

        def _render_run(self) -> None: ...

    @dataclass
    class IdentifyEnded(Message, namespace="wizard_screen"):
        text: str

    def _identify_command(self) -> Command | None:
        if self.plan is None or self.operator_step is None:
            return None
        return render.identify_command(self.plan, self.operator_step)

    def _identify_command_display(self) -> str:
        """What `i` runs to make the disk's LED blink ("" when nothing would)."""
        cmd = self._identify_command()
        if cmd is None:
            return ""
        return self.run.helper or cmd.display()

    def action_operator_done(self) -> None:
        if self.operator_step is None or self.plan is None:
            return
        step = self.plan.steps[self.operator_step]
        self.run.log(f"✔ you confirmed: {step.operator_action or step.title}", "ok")
        self.run.start_at = self.operator_step + 1
        self.run.operator_step = None
        self.query_one(RunPhase).operator_done()
        self._start_run()

    def action_identify(self) -> None:
        cmd = self._identify_command()
        if cmd is None or self.plan is None or self.operator_step is None:
            return
        step = self.plan.steps[self.operator_step]
        helper_step = step.id if step.command is cmd else next(
            s.id for s in self.plan.steps if s.command is cmd)
        started = (f"identify: {cmd.display()} (reads only; the disk's LED blinks while "
                   "it runs)")
        self.run.log(started)
        self._render_run()
        self.query_one(RunPhase).operator_note(started)
        self._identify(helper_step, cmd)

    def _identify(self, helper_step: str, cmd: Command) -> None:
        self._identify_in_worker(helper_step, cmd, self.console_app.mono)

    @work(thread=True, exit_on_error=False, group="wizard-identify")
    def _identify_in_worker(self, helper_step: str, cmd: Command,
                            mono: Callable[[], float]) -> None:
        """`cmd` run; its duration on the console's clock (frozen in the pictures)."""
        t0 = mono()
        try:
            if self.runner is not None:
                r = self.runner.run_helper(helper_step)
            else:
                r = self.host.run(list(cmd.argv), timeout=900, check=False)
            text = (f"identify finished after {mono() - t0:.0f} s "
                    f"(exit {r.returncode})")
        except Exception as e:  # noqa: BLE001 - shown, never fatal
            text = f"identify failed: {type(e).__name__}: {e}"
        self.post_message(self.IdentifyEnded(text))

    def on_wizard_screen_identify_ended(self, message: IdentifyEnded) -> None:
        self.run.log(message.text)
        self._render_run()
        if self.operator_step is not None:  # said where `i` was pressed, too
            self.query_one(RunPhase).operator_note(message.text)
