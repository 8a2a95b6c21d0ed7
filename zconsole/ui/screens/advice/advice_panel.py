"""The Advice screen's body: the advisor's findings grouped by severity, each one line that
opens on enter (or a click) into its reason, what fixing costs, the command and the evidence.

`/` narrows the findings to those whose line (its severity, its sentence, a mute's reason)
holds every word typed (`kit/filter.py`); the headings count what is shown.

Every name in a finding is host text: it is shown through `kit.text.plain`, never as markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.model.advice import Advice, Mute
from zconsole.model.finding import Severity
from zconsole.ui.kit.filter import ListFilter, matches
from zconsole.ui.kit.levels import LEVEL_STYLE, SEVERITY_LEVEL
from zconsole.ui.kit.text import Hanging, para, plain

GROUPS = ((Severity.WARNING, "Worth fixing"), (Severity.INFO, "Worth knowing"))
MUTED = LEVEL_STYLE["muted"]


def heading(severity: Severity, title: str, count: int) -> Content:
    style = LEVEL_STYLE[SEVERITY_LEVEL[severity]] if severity is Severity.WARNING else "bold"
    return Content.assemble(plain(f"{severity.symbol} {severity.name}  ", style),
                            plain(f"{title} ({count})", "bold"))


def finding_text(advice: Advice, muted: Mute | None = None) -> str:
    """What `/` searches: a finding's line as it shows closed, and its severity's name."""
    reason = f" muted {muted.reason}" if muted is not None else ""
    return f"{advice.severity.name} {advice.message}{reason}"


class AdviceItem(Static, can_focus=True):
    """One finding: its sentence; opened, the why, the cost, the command and the evidence."""

    BINDINGS = [Binding("enter,space", "why", "Why", show=True),
                Binding("m", "screen.mute", "Mute/unmute", show=True),
                Binding("x", "screen.run_advice", "Run as a plan", show=True),
                Binding("down", "move(1)", "Next finding", show=False),
                Binding("up", "move(-1)", "Previous finding", show=False)]

    DEFAULT_CSS = """
    AdviceItem { height: auto; padding: 0 1; }
    AdviceItem:focus { background: $primary 25%; }
    """

    def __init__(self, advice: Advice, *, open: bool = False, muted: Mute | None = None
                 ) -> None:
        super().__init__(classes="advice-item")
        self.advice = advice
        self.open = open
        self.muted = muted

    def on_mount(self) -> None:
        self.redraw()

    @property
    def key(self) -> tuple[str, str, bool]:
        """Which finding this is, across a rebuild of the list."""
        return (self.advice.kind, self.advice.subject, self.muted is not None)

    def action_move(self, step: int) -> None:
        """The next (or previous) finding; the first and the last stay where they are."""
        items = list(self.screen.query(AdviceItem))
        at = items.index(self) + step if self in items else -1
        if 0 <= at < len(items):
            items[at].focus()

    def action_why(self) -> None:
        self.open = not self.open
        self.redraw()

    def on_click(self) -> None:
        self.action_why()

    def redraw(self) -> None:
        self.update(self.body(), layout=True)

    def body(self) -> Hanging:
        a = self.advice
        sev = a.severity
        style = LEVEL_STYLE[SEVERITY_LEVEL[sev]] if sev is Severity.WARNING else ""
        if self.muted is not None:
            style = MUTED
        marker = "▾ " if self.open else "▸ "
        items = [para(plain(a.message), marker + sev.symbol + " ", style)]
        if self.muted is not None:
            items.append(para(plain(self.muted.reason), "  muted  ", MUTED))
        if self.open:
            items.append(para(plain(a.why), "    why  ", MUTED))
            items.append(para(plain(a.cost), "   cost  ", MUTED))
            if a.command:
                hint = "" if getattr(self.app, "read_only", True) else \
                    "  (x: preview, confirm, run)"
                items.append(para(Content.assemble(plain(a.command, "bold"), plain(hint)),
                                  "    run  ", MUTED))
            for e in a.evidence:
                items.append(para(plain(e), "   read  ", MUTED))
        return Hanging(*items)


class AdvicePanel(Vertical):
    """Headings and items. The same findings in the same groups (a refresh moved only their
    figures) are updated in place: the focus, the page's scroll and a key pressed meanwhile
    stay where they are. Other changes rebuild the list, keeping what was open and the
    focused finding (or the one now in its place). `filter` (`/`) narrows the findings shown:
    other words are another list."""

    DEFAULT_CSS = """
    AdvicePanel { height: auto; }
    AdvicePanel > .advice-heading { margin-top: 1; padding: 0 1; }
    AdvicePanel > .advice-note { padding: 0 1; color: $text-muted; }
    """

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.shown: tuple[object, ...] | None = None
        self.note = ""
        self.filter = ListFilter()
        self._lock = asyncio.Lock()  # one rebuild at a time (a refresh, a mute, a key typed)

    def compose(self) -> ComposeResult:
        yield Static(plain("Reading the host's settings…"), classes="advice-note")

    async def show(self, advice: Sequence[Advice] | None, note: str,
                   muted: Sequence[tuple[Advice, Mute]] = ()) -> None:
        async with self._lock:
            await self._show(*self._narrowed(advice, muted), note)

    def _narrowed(self, advice: Sequence[Advice] | None, muted: Sequence[tuple[Advice, Mute]]
                  ) -> tuple[list[Advice] | None, list[tuple[Advice, Mute]]]:
        """The findings the `/` words let through (all of them without words), counted."""
        words = self.filter.words
        said = [a for a in advice or () if matches(finding_text(a), words)]
        quiet = [(a, m) for a, m in muted if matches(finding_text(a, m), words)]
        self.filter.count(len(said) + len(quiet), len(advice or ()) + len(muted))
        return (said if advice is not None else None), quiet

    async def _show(self, advice: Sequence[Advice] | None, muted: Sequence[tuple[Advice, Mute]],
                    note: str) -> None:
        key = (tuple(advice) if advice is not None else None, tuple(muted),
               self.filter.words)
        if key == self.shown and note == self.note:
            return
        before = list(self.query(AdviceItem))
        if note == self.note and self._update_in_place(before, advice, muted):
            self.shown = key
            return
        opened = {(i.advice.kind, i.advice.subject) for i in self.query(AdviceItem) if i.open}
        self.shown, self.note = key, note
        focused = self.screen.focused
        # the finding that had the focus, else its place: the list is rebuilt under it
        chosen = (focused.key, before.index(focused)) if isinstance(focused, AdviceItem) \
            and focused in before else None
        await self.remove_children()
        widgets: list[Static] = []
        if note:
            widgets.append(Static(plain(note), classes="advice-note"))
        if self.filter.active and advice is not None and not advice and not muted:
            widgets.append(Static(plain(f"No finding matches “{' '.join(self.filter.words)}” "
                                        "(escape in the filter shows every finding)."),
                                  classes="advice-note"))
        elif advice is not None and not advice and not muted and not note:
            widgets.append(Static(plain("✔ Nothing to advise: the pools, datasets and caches "
                                        "are set up the way an experienced admin would."),
                                  classes="advice-note"))
        for severity, title in GROUPS:
            mine = [a for a in advice or () if a.severity is severity]
            if not mine:
                continue
            widgets.append(Static(heading(severity, title, len(mine)),
                                  classes="advice-heading"))
            widgets.extend(AdviceItem(a, open=(a.kind, a.subject) in opened) for a in mine)
        if muted:
            widgets.append(Static(Content.assemble(plain("○ MUTED  ", MUTED),
                                                   plain(f"Muted here ({len(muted)})", "bold")),
                                  classes="advice-heading"))
            widgets.extend(AdviceItem(a, open=(a.kind, a.subject) in opened, muted=m)
                           for a, m in muted)
        await self.mount_all(widgets)
        if chosen is not None:
            self._focus_again(*chosen)

    def _update_in_place(self, items: list[AdviceItem], advice: Sequence[Advice] | None,
                         muted: Sequence[tuple[Advice, Mute]]) -> bool:
        """Each item takes its finding's new text when the list would be the same list
        (same findings, severities and mutes, in the same order); False otherwise."""
        if advice is None or not items:
            return False
        wanted: list[tuple[Advice, Mute | None]] = [
            (a, None) for severity, _ in GROUPS for a in advice if a.severity is severity]
        wanted.extend(muted)
        same = [(a.kind, a.subject, a.severity, m is not None) for a, m in wanted] == \
            [(*i.key[:2], i.advice.severity, i.muted is not None) for i in items]
        if not same:
            return False
        for item, (a, m) in zip(items, wanted, strict=True):
            if (item.advice, item.muted) != (a, m):
                item.advice, item.muted = a, m
                item.redraw()
        return True

    def _focus_again(self, key: tuple[str, str, bool], place: int) -> None:
        """The focus back on the finding it was on, or on the one now in its place. Also
        when a new finding has it already: Textual gives the focus of a removed widget to
        another one, which may be the new list's first (a loaded CI run, 2026-12-01); the
        focus somewhere else than the list (the `/` field) stays where it is."""
        items = list(self.query(AdviceItem))
        focused = self.screen.focused
        if not items or (focused is not None and focused not in items):
            return
        again = next((i for i in items if i.key == key), items[min(place, len(items) - 1)])
        self.screen.set_focus(again, scroll_visible=False)
