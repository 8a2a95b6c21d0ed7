"""One fix-it panel (slow SSH logins, or the boot waiting for the network): the verdict in
one line, the evidence read, the fixes narrowest first with what each costs, and what could
not be read (and why: "needs root" only when that is the reason).

Plain text built from a `Diagnosis`: every line that quotes the host (file names, values,
journal lines) goes through `kit.text.plain`, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.model.finding import Severity
from zconsole.model.fixit import Diagnosis
from zconsole.services import fmt
from zconsole.ui.kit.levels import LEVEL_STYLE, SEVERITY_LEVEL
from zconsole.ui.kit.text import Hanging, Para, para, plain

MUTED = LEVEL_STYLE["muted"]


def verdict_text(d: Diagnosis) -> Hanging:
    v = d.verdict
    style = "" if v.severity is Severity.INFO else LEVEL_STYLE[SEVERITY_LEVEL[v.severity]]
    return Hanging(para(v.message, f"{v.severity.symbol} ", style))


def evidence_text(d: Diagnosis) -> Hanging:
    items: list[Para | Content] = []
    for f in d.findings:
        if f is not d.verdict:
            style = "" if f.severity in (Severity.INFO, Severity.OK) else \
                LEVEL_STYLE[SEVERITY_LEVEL[f.severity]]
            items.append(para(f.message, f"{f.severity.symbol} ", style))
        items += [para(e, "  · ", MUTED) for e in f.evidence]
    return Hanging(*items)


def fixes_text(d: Diagnosis) -> Hanging:
    items: list[Para | Content] = []
    for n, fix in enumerate(d.fixes, 1):
        items.append(para(plain(fix.title, "bold"), f"{n}. "))
        items.append(para(fix.change, "   "))
        items.append(para(f"costs: {fix.cost}", "   ", MUTED))
    return Hanging(*items)


class FixitPanel(Vertical):
    """A titled panel for one Diagnosis."""

    DEFAULT_CSS = """
    FixitPanel {
        height: auto;
        margin: 0 0 1 0;
    }
    FixitPanel .fix-title {
        text-style: bold;
        color: $primary;
        height: 1;
    }
    FixitPanel .fix-verdict, FixitPanel .fix-evidence, FixitPanel .fix-fixes,
    FixitPanel .fix-unread, FixitPanel .fix-advice {
        height: auto;
    }
    FixitPanel .fix-heading {
        text-style: bold;
        height: 1;
        margin: 1 0 0 0;
    }
    FixitPanel .fix-unread {
        color: $health-warn;
    }
    FixitPanel .fix-offer {
        height: auto;
        color: $accent;
    }
    FixitPanel .fix-advice, FixitPanel .fix-summary {
        color: $muted;
        height: auto;
    }
    """

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="fix-title")
        yield Static("reading…", classes="fix-summary")
        yield Static(classes="fix-verdict")
        yield Static("Evidence", classes="fix-heading fix-evidence-heading")
        yield Static(classes="fix-evidence")
        yield Static("Fixes, narrowest first (nothing changes unless you run one)",
                     classes="fix-heading fix-fixes-heading")
        yield Static(classes="fix-fixes")
        yield Static(classes="fix-offer")
        yield Static(classes="fix-unread")
        yield Static(classes="fix-advice")

    def show(self, d: Diagnosis | None, error: str | None, read_at: float | None,
             now: float, offers: Sequence[str] = ()) -> None:
        """`offers`: the keys that run a fix or its undo as a plan ("f: …"), shown under the
        fixes whether or not the panel could be read (an undo stays offered)."""
        offer = self.query_one(".fix-offer", Static)
        offer.update(Hanging(*(para(o, "▶ ") for o in offers)))
        offer.display = bool(offers)
        summary = self.query_one(".fix-summary", Static)
        if d is None:
            summary.update(plain(f"could not be read: {error}") if error else "reading…")
            for sel in (".fix-verdict", ".fix-evidence", ".fix-fixes", ".fix-unread",
                        ".fix-advice"):
                self.query_one(sel, Static).update("")
            for sel in (".fix-evidence-heading", ".fix-fixes-heading"):
                self.query_one(sel).display = False
            return
        age = fmt.age(now - read_at) if read_at is not None else ""
        # the error carries the host's own words: plain text, escapes made visible
        summary.update(plain(f"read {age}" + (f" · last read failed: {error}" if error else "")))
        self.query_one(".fix-verdict", Static).update(verdict_text(d))
        has_evidence = any(f.evidence or f is not d.verdict for f in d.findings)
        self.query_one(".fix-evidence-heading").display = has_evidence
        self.query_one(".fix-evidence", Static).update(evidence_text(d) if has_evidence
                                                       else "")
        self.query_one(".fix-fixes-heading").display = bool(d.fixes)
        self.query_one(".fix-fixes", Static).update(fixes_text(d) if d.fixes else "")
        unread = self.query_one(".fix-unread", Static)
        unread.update(Hanging(*(para(u, "? not read: ") for u in d.unread)))
        unread.display = bool(d.unread)
        advice = self.query_one(".fix-advice", Static)
        advice.update(Hanging(*(para(a, "• ") for a in d.advice)))
        advice.display = bool(d.advice)
