"""Muting a finding: the operator says why it is fine on this host; the reason is kept
(`hosts.journal.MuteStore`) and shown beside the muted finding. Asked by the Advice screen
(`m` on a finding) and the Disks screen (`m` on a disk with a SMART finding)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from zconsole.ui.kit.footer import ZFooter
from zconsole.ui.kit.text import plain


class MuteScreen(ModalScreen[str | None]):
    """Dismisses with the reason (never empty), or None (escape: nothing muted)."""

    DEFAULT_CSS = """
    MuteScreen { align: center middle; }
    MuteScreen > Vertical {
        width: 90%; max-width: 100; height: auto;
        border: round $primary; background: $panel; padding: 0 1;
    }
    MuteScreen .mute-title { text-style: bold; }
    MuteScreen .mute-note { color: $muted; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, what: str) -> None:
        """`what`: the finding (or findings) muted, in the words the screen shows them."""
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"Mute: {self.what}"), classes="mute-title")
            yield Static("Why is this fine on this host? The reason is kept and shown beside "
                         "the muted finding; zconsole check leaves it out too.",
                         classes="mute-note")
            yield Input(placeholder="the reason", id="mute-reason")
            yield Static("Enter: mute · Escape: cancel", classes="mute-note")
        yield ZFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = " ".join(event.value.split())
        if reason:
            self.dismiss(reason)
        else:
            self.notify("Give a reason: it is what the next admin reads.", severity="warning")

    def action_cancel(self) -> None:
        self.dismiss(None)
