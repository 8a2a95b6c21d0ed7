"""Choose: the flow's question and its options; while the plan is built, only a sentence
saying so.

A refused option is listed dim with its reason, wrapped (never cut), and takes the cursor like
any other: Enter on it opens its whole reason in place and never selects it. The list is as
tall as the room the screen gives it (`fit`), not a fixed height."""

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
            ol.add_option(Option(_prompt(c), id=f"o{i}"))
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
            return
        # a refused option: its whole reason, in place; nothing is chosen
        ol = self.options
        ol.replace_option_prompt_at_index(event.option_index, _prompt(choice, whole=True))
        self.call_after_refresh(ol.scroll_to_highlight)

    def fit(self, room: int, width: int) -> None:
        """The list as tall as `room` lines less the question (at least 5), the question
        wrapped at `width` (worked out here: its laid-out height may be a stage old)."""
        question = self.query_one("#wz-question", Static)
        lines = (len(plain(self.stage.question).wrap(max(1, width)))
                 if self.stage is not None else 1)
        self.options.styles.max_height = max(5, room - lines - question.styles.padding.top)


def _prompt(c: Choice, *, whole: bool = False) -> Hanging:
    """An option: its label, and its detail wrapping under itself (not under the label's
    first column); a refused one dim, with a hint that Enter opens its whole reason, or
    (`whole`) that reason."""
    if c.enabled:
        return Hanging(plain(c.label), *([para(c.detail, "   ", "dim")] if c.detail else []))
    if whole:
        return Hanging(plain(c.label, "dim"), para(c.why, "   "),
                       para("refused: this one cannot be chosen", "   ", "dim"))
    hint = " (Enter: the whole reason)" if c.reason and c.reason != c.detail else ""
    return Hanging(plain(c.label, "dim"),
                   *([para(c.detail + hint, "   ", "dim")] if c.detail else []))
