"""What the phases share: the phases themselves (the wizard's states, the bar that names them,
the keys each offers), the container a phase is, and the boxes more than one shows."""

from __future__ import annotations

from enum import Enum

from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from zconsole.ui.kit.text import fit_words


class Phase(str, Enum):
    CHOOSE = "choose"
    BUILDING = "building"
    PREVIEW = "preview"
    FORCE = "force"
    CONFIRM = "confirm"
    RUN = "run"
    RESULT = "result"


# The phase bar's words, and the phases each stands for.
PHASE_BAR = (("choose", (Phase.CHOOSE, Phase.BUILDING)), ("preview", (Phase.PREVIEW,)),
             ("confirm", (Phase.FORCE, Phase.CONFIRM)), ("run", (Phase.RUN,)),
             ("result", (Phase.RESULT,)))
# The widget (ContentSwitcher child id) that shows each phase.
PHASE_VIEW = {Phase.CHOOSE: "choose", Phase.BUILDING: "choose", Phase.PREVIEW: "preview",
              Phase.FORCE: "force", Phase.CONFIRM: "confirm", Phase.RUN: "run",
              Phase.RESULT: "result"}
# The actions each phase offers (any other wizard action is hidden and refused).
PHASE_ACTIONS = {"back": (Phase.CHOOSE, Phase.BUILDING, Phase.PREVIEW, Phase.FORCE,
                          Phase.CONFIRM),
                 "stop_watching": (Phase.RUN,), "close": (Phase.RESULT,),
                 "proceed": (Phase.PREVIEW,), "force": (Phase.FORCE,),
                 "operator_done": (Phase.RUN,), "identify": (Phase.RUN,),
                 "copy": (Phase.PREVIEW, Phase.FORCE, Phase.RESULT)}


def phase_bar(phase: Phase, title: str, width: int) -> Text:
    """`choose ›  preview  › confirm › run › result   Attach a disk`, the current phase
    highlighted; the title is cut between words to fit `width` (its aside in parentheses
    goes first)."""
    bar = Text()
    for i, (name, phases) in enumerate(PHASE_BAR):
        if i:
            bar.append(" › ")
        bar.append(f" {name} " if phase in phases else name,
                   style="bold reverse" if phase in phases else "")
    title = fit_words(title, width - bar.cell_len - 3)
    if title:
        bar.append(f"   {title}", style="bold")
    return bar


class PhaseBar(Static):
    """The wizard's phases, the current one highlighted, and the wizard's title."""

    DEFAULT_CSS = """
    PhaseBar {
        height: 1;
        padding: 0 1;
        color: $muted;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.phase = Phase.CHOOSE
        self.title = ""

    def show(self, phase: Phase, title: str) -> None:
        self.phase, self.title = phase, title
        self.refresh()

    def render(self) -> Text:
        return phase_bar(self.phase, self.title, self.content_size.width)


def bottom_in_view(widget: Widget) -> None:
    """Scroll the wizard's body so that `widget` ends at the body's bottom edge: what is above
    it (the step it is about) shows as far as it fits. A minimal scroll would depend on where
    a line added below it a moment earlier had left the body: the on-site request at 80x24
    showed its step one run and hid it the next (tests/ui/test_wizard_snapshots.py)."""
    body = next((a for a in widget.ancestors if isinstance(a, Widget) and a.has_class("body")),
                None)
    if body is None or not widget.display or not widget.is_attached:
        return
    bottom = widget.region.bottom - body.scrollable_content_region.y + body.scroll_y
    body.scroll_to(y=max(0, bottom - body.scrollable_content_region.height), animate=False,
                   immediate=True)


class PhaseView(Vertical):
    """One phase of the wizard: as tall as its content, inside the screen's scrolling body."""

    DEFAULT_CSS = """
    PhaseView {
        height: auto;
    }
    PhaseView .wz-text {
        height: auto;
    }
    """


class CommandsBox(Static):
    """Every command of the plan exactly as it will run, in a box that says so."""

    DEFAULT_CSS = """
    CommandsBox {
        height: auto;
        border: round $primary;
        padding: 0 1;
        background: $panel;
    }
    """

    def on_mount(self) -> None:
        self.border_title = "exactly as it will run"


class RefusalBox(Static):
    """What ZFS said when it refused, verbatim, and what it means."""

    DEFAULT_CSS = """
    RefusalBox {
        height: auto;
        border: round $health-bad;
        padding: 0 1;
    }
    """

    def on_mount(self) -> None:
        self.border_title = "ZFS refused"
