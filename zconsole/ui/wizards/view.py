"""What the wizard screen keeps in view on a small terminal (issue 29), and its copy key.

A mixin of `WizardScreen` (screen.py), like `OperatorSteps`. At 80x24 the wizard's body
scrolls: the phase bar (title and steps) sits above it, so it never scrolls away; the
newest message sits right under the phase (under the typed confirmation's field, under the
choice list), and is scrolled into view with the focused field when it changes; the choice
list is as tall as the room left (no fixed height).

`y` copies one command of the plan as one shell line (`shlex.join` of its argv), the next
one at each press, and says which it copied: the command box on screen may break a command
between its arguments, the copy never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from zconsole.model.hosttext import visible
from zconsole.ui.kit.text import fit, plain
from zconsole.ui.wizards import argv, render
from zconsole.ui.wizards.part import WizardPart
from zconsole.ui.wizards.phases import ChoosePhase
from zconsole.ui.wizards.phases.base import Phase, bottom_in_view


class WizardView(WizardPart):
    """The message under the phase, what is scrolled into view, and `y` (copy)."""

    if TYPE_CHECKING:  # provided by WizardScreen
        phase: Phase

    _copy_next: tuple[object, int] = (None, 0)  # (the plan, the index `y` copies next)
    # pages shown from their top so far: a reveal asked before the latest is void (a message
    # of the page before, revealed after the next page was shown, scrolled that page to its
    # bottom: the same-bay replace's second preview, now and then in CI)
    _tops = 0

    def _message(self, text: str | Content = "", *, reveal: bool = True) -> None:
        """The newest message, right under the phase; `reveal` scrolls it into view (with
        the focused field above it), not when the phase has just been shown from its top."""
        w = self.query_one("#wz-message", Said)
        w.update(plain(text) if isinstance(text, str) else text)
        w.display = bool(text)
        if self.phase is Phase.CHOOSE:
            self.call_after_refresh(self._fit_choices)
        w.reveal = bool(text) and reveal
        if w.reveal:
            self._reveal(w)

    def _reveal(self, *widgets: Widget) -> None:
        """After the next layout: the focused widget, then each of `widgets`, into view."""

        asked_on = self._tops

        def scroll() -> None:
            if asked_on != self._tops or not self.is_attached or not self.query(".body"):
                return
            body = self.query_one(".body")
            for w in (self.focused, *widgets):
                if w is not None and w.display and w.is_attached:
                    body.scroll_to_widget(w, animate=False)
            for box in self.query("#wz-operator"):  # an on-site request stays in view
                bottom_in_view(box)

        self.call_after_refresh(scroll)

    def _body_home(self, *, focus: bool = True) -> None:
        """The page from its top (a reveal asked before is void)."""
        self._tops += 1
        body = self.query_one(".body")
        body.scroll_home(animate=False)
        if focus:
            body.focus()

    # -- the choice list uses the height there is ---------------------------------------------
    def _fit_choices(self) -> None:
        """The choice list as tall as the body less the bar, the question and the message."""
        if not self.is_attached or not self.query(ChoosePhase):
            return  # not composed yet (a resize comes first), or gone
        body = self.query_one(".body")
        message = self.query_one("#wz-message")
        area = body.scrollable_content_region
        said = (message.get_content_height(area.size, area.size, area.width)
                if message.display else 0)  # as it wraps now (its layout may be older)
        room = area.height - said
        self.query_one(ChoosePhase).fit(room, area.width)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_choices)

    # -- y: copy a command ----------------------------------------------------------------------
    def action_copy(self) -> None:
        if self.plan is None:
            return
        start = 0 if self.phase is Phase.RESULT else self.run.start_at  # ended: any of them
        commands = render.copyable(self.plan, start)
        if not commands:
            self.app.notify("This plan runs no command: nothing to copy.", title="Copy",
                            markup=False)
            return
        plan, index = self._copy_next
        index = index % len(commands) if plan is self.plan else 0
        step, command = commands[index]
        text = argv.copy_text(command)
        self.app.copy_to_clipboard(text)
        self._copy_next = (self.plan, index + 1)
        more = (f" · y again: step {commands[(index + 1) % len(commands)][0]}'s"
                if len(commands) > 1 else "")
        self.app.notify(f"Copied step {step}'s command as one shell line{more}:\n"
                        f"{fit(visible(text), 300)}", title="Copy", markup=False)


class Said(Static):
    """The wizard's newest message. Shown (or rewrapped) it is scrolled into view once more
    when its new size is laid out: only then has the body's scrolling range grown to it."""

    reveal = False

    def on_resize(self, event: events.Resize) -> None:
        screen = self.screen
        if self.reveal and self.display and isinstance(screen, WizardView):
            self.reveal = False
            screen._reveal(self)
