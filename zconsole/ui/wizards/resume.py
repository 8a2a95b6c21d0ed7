"""At start-up: plans left in flight on this host (the console was closed or killed mid-way),
offered for continuing. Reconciling saved progress with what ZFS shows now is
`services.resume.find_resumable`; this is only the question and the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zconsole.ui.kit.footer import ZFooter
from zconsole.ui.kit.text import plain

if TYPE_CHECKING:
    from zconsole.hosts.base import Host
    from zconsole.services.fleet import Member
    from zconsole.services.ops.engine.resume import Resumable
    from zconsole.ui.app import ZConsoleApp


class ResumeScreen(ModalScreen[int | None]):
    """Dismisses with the index of the plan to continue, or None (not now: it stays saved
    and is offered again next time)."""

    DEFAULT_CSS = """
    ResumeScreen { align: center middle; }
    ResumeScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $health-warn; background: $panel; padding: 0 1;
    }
    ResumeScreen .rs-title { text-style: bold; color: $health-warn; }
    ResumeScreen OptionList { height: auto; max-height: 12; }
    ResumeScreen .rs-note { color: $muted; }
    """

    BINDINGS = [Binding("escape", "not_now", "Not now")]

    def __init__(self, found: list[Resumable], problems: list[str] | None = None,
                 where: str = "this host") -> None:
        super().__init__()
        self.found = found
        self.problems = problems or []
        self.where = where  # "this host", or the fleet host's name

    def compose(self) -> ComposeResult:
        with Vertical():
            n = len(self.found)
            yield Static(plain(f"▲ {n} operation{'s' if n != 1 else ''} in flight on "
                               f"{self.where}"), classes="rs-title")
            yield Static("zconsole was closed or stopped while a plan ran. ZFS carried on "
                         "by itself; here is what it shows now.", classes="rs-note")
            ol = OptionList(id="rs-list")
            for i, r in enumerate(self.found):
                prompt = Content.assemble(
                    plain(r.sentence, "bold"),
                    plain(f"\n   {r.plan.title} · plan {r.plan.id[:8]} · "
                          f"step {min(r.next_index + 1, len(r.plan.steps))} of "
                          f"{len(r.plan.steps)}", "dim"))
                ol.add_option(Option(prompt, id=f"r{i}"))
            yield ol
            if self.problems:
                yield Static(plain("Saved plans zconsole could not read (left in place): " +
                                   "; ".join(self.problems)), classes="rs-note")
            yield Static("Enter: continue (you see the plan first) · Escape: not now (it is "
                         "offered again at the next start)", classes="rs-note")
        yield ZFooter()

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        ol.highlighted = 0
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_not_now(self) -> None:
        self.dismiss(None)


def offer(app: ZConsoleApp, found: list[Resumable], problems: list[str],
          member: Member | None = None, where: str = "this host") -> None:
    """Push the question; on "continue", open the wizard on the saved plan (on a fleet, the
    screens first switch to the host the plan is on)."""

    def answered(index: int | None) -> None:
        if index is None:
            return
        if member is not None and member is not app.current:
            app.switch_host(member)
        continue_plan(app, found[index])

    app.push_screen(ResumeScreen(found, problems, where), answered)


def continue_plan(app: ZConsoleApp, r: Resumable) -> None:
    from zconsole.ui.wizards.screen import WizardScreen

    screen = WizardScreen(host=app.host, reading=app.reading,
                          resume=(r.plan, r.outcomes, r.next_index, r.sentence),
                          resume_operator=(r.next_index - 1 if r.phase == "operator"
                                           else None))
    app.push_screen(screen)


def find(app: ZConsoleApp, host: Host | None = None) -> tuple[list[Resumable], list[str]]:
    """Worker-thread side: read the saved plans of `host` (default: the one on screen) and
    reconcile them with it."""
    from zconsole.services.ops.engine.resume import find_resumable
    from zconsole.ui.wizards.backend import store_for

    host = host if host is not None else app.host
    store = store_for(app, host)
    found = find_resumable(host, store)
    return found, list(store.problems)


def announce(app: ZConsoleApp, found: list[Resumable], problems: list[str], m: Member) -> None:
    """Plans left in flight on `m`'s host, found at start: offered to continue (or, with
    --read-only, only named), and what could not be read said."""
    where = "this host" if len(app.members) == 1 else m.name
    if found and app.read_only:
        app.notify_plain(f"{len(found)} operation(s) in flight on {where} (started by "
                         "zconsole). Start without --read-only to continue them.",
                         title="In flight", severity="warning", timeout=15)
        return
    if found:
        offer(app, found, problems, m, where)
    elif problems:
        app.notify_plain("; ".join(problems), title="Saved plans", severity="warning")
