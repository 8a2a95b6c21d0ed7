"""Confirm: the commands once more, and a word to type exactly (the pool name, the new disk's
serial) before anything runs. A mismatch runs nothing."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from zconsole.model.plan import Confirmation, Plan
from zconsole.ui.kit.text import plain
from zconsole.ui.wizards import render
from zconsole.ui.wizards.phases.base import CommandsBox, PhaseView


class ConfirmPhase(PhaseView):
    DEFAULT_CSS = """
    ConfirmPhase .wz-input {
        width: 60;
        max-width: 100%;
    }
    """

    @dataclass
    class Typed(Message):
        """The operator pressed Enter on `value` (stripped)."""

        value: str

    def compose(self) -> ComposeResult:
        yield CommandsBox("", id="wz-confirm-commands")
        yield Static("", classes="wz-text", id="wz-prompt")
        yield Input(classes="wz-input", id="wz-input")

    def ask(self, plan: Plan, start_at: int, confirmation: Confirmation) -> None:
        self.query_one(CommandsBox).update(render.commands_text(plan, start_at=start_at))
        self.query_one("#wz-prompt", Static).update(Content.assemble(
            plain(confirmation.prompt, "bold"),
            "\nType it exactly and press Enter; Escape goes back."))
        self.clear()
        inp = self.query_one(Input)
        inp.placeholder = "type here"
        inp.focus()

    def clear(self) -> None:
        self.query_one(Input).value = ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Typed(event.value.strip()))
