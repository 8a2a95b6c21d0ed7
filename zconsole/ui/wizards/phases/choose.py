"""Choose: the flow's question and its options (disabled ones say why); while the plan is
built, only a sentence saying so."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zconsole.ui.kit.text import Hanging, para, plain
from zconsole.ui.wizards.choices import Choice
from zconsole.ui.wizards.flows import Stage
from zconsole.ui.wizards.phases.base import PhaseView


class ChoosePhase(PhaseView):
    """The question, then the options; Enter on an enabled option posts `Picked`."""

    DEFAULT_CSS = """
    ChoosePhase .wz-question {
        height: auto;
        text-style: bold;
        padding: 1 0 0 0;
    }
    ChoosePhase .wz-options {
        height: auto;
        max-height: 16;
        border: round $panel;
    }
    ChoosePhase .wz-options:focus {
        border: round $primary;
    }
    """

    @dataclass
    class Picked(Message):
        """The operator chose `choice` (an enabled option of the stage shown)."""

        choice: Choice

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stage: Stage | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="wz-question", id="wz-question")
        yield OptionList(classes="wz-options", id="wz-options")

    @property
    def options(self) -> OptionList:
        return self.query_one("#wz-options", OptionList)

    def show_stage(self, stage: Stage) -> bool:
        """Ask `stage`'s question; False when it has nothing to choose from."""
        self.stage = stage
        self.query_one("#wz-question", Static).update(plain(stage.question))
        ol = self.options
        ol.display = True
        ol.clear_options()
        for i, c in enumerate(stage.options):
            # the detail wraps under itself, not under the option's first column
            prompt = Hanging(plain(c.label, "" if c.enabled else "dim"),
                             *([para(c.detail, "   ", "dim")] if c.detail else []))
            ol.add_option(Option(prompt, id=f"o{i}", disabled=not c.enabled))
        first = next((i for i, c in enumerate(stage.options) if c.enabled), None)
        first = next((i for i, c in enumerate(stage.options)
                      if c.enabled and stage.preselect and c.value == stage.preselect), first)
        if first is not None:
            ol.highlighted = first
        ol.focus()
        return bool(stage.options)

    def show_building(self) -> None:
        self.query_one("#wz-question", Static).update(
            "Reading the host afresh and building the plan…")
        self.options.display = False

    def show_options(self) -> None:
        """The last stage's options again (after a plan could not be built)."""
        self.options.display = True

    def choose(self, value: str) -> None:
        """Pick an option by value, as Enter on it would (tests and the palette)."""
        assert self.stage is not None
        for i, c in enumerate(self.stage.options):
            if c.value == value:
                self.options.highlighted = i
                self.options.action_select()
                return
        raise KeyError(value)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.stage is None:
            return
        choice = self.stage.options[event.option_index]
        if choice.enabled:
            self.post_message(self.Picked(choice))
