"""Text every screen shares: host text shown literally, cutting to a width, sparklines,
and paragraphs whose wrapped lines hang under their text.

Figures (sizes, ages, durations, latencies, counts) are `zconsole.services.fmt`'s, used as
they are: the UI has no formatter of its own, so a value reads the same on every screen, in
a plan and in a report.

Host-provided text (pool, vdev, disk, dataset and interface names, serials, models, paths,
error text) reaches the screen only through `plain()`: it is never read as markup, so a
dataset named `[b]x` or an error quoting `[/]` shows as it is. Colours are theme variables
in constant styles (`"$health-warn"`), never values looked up in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import RenderOptions, Visual, VisualType
from textual.widgets import Static

from zconsole.model.hosttext import visible
from zconsole.ui.kit.textual_private import relayout

SPARK = "▁▂▃▄▅▆▇█"
NO_DATA = "·"  # a sparkline cell for an interval without a value


_SHOWN = "_zconsole_shown"


def update_if_changed(widget: Static, key: object, make: Callable[[], VisualType], *,
                      layout: bool | None = None) -> bool:
    """`widget.update(make())` unless what it shows was made from an equal `key` last time:
    an update may lay the whole screen out again, a refresh that changed nothing must not.
    `layout=None` (the default): lay out again only when the new text takes another number
    of lines at the widget's width (a figure that changed in place moves nothing, only the
    widget is drawn again); `False` for a widget whose size its CSS fixes; `True` always.
    True when it updated."""
    if getattr(widget, _SHOWN, _NOTHING) == key:
        return False
    setattr(widget, _SHOWN, key)
    if layout is not None or not widget.is_mounted:
        widget.update(make(), layout=False)
        if layout is not False:
            relayout(widget)
        return True
    width, height = widget.content_size
    widget.update(make(), layout=False)
    if not width or widget.get_content_height(widget.size, widget.app.size, width) != height:
        relayout(widget)
    return True


_NOTHING = object()


def plain(text: object, style: str = "", *, multiline: bool = True) -> Content:
    """Host-provided text as literal Content, never parsed as markup, with every control
    character and escape sequence shown as a visible escape (`\\x1b`) by
    `model.hosttext.visible()`, never sent to the terminal. The one place host text becomes
    something the screen shows: every name, serial, model, path and error text passes here.
    `style` is a constant style such as `"$health-bad"` or `"bold"`; line breaks are kept
    (callers build paragraphs with them; ZFS names cannot hold one), `multiline=False` shows
    them as `\\x0a` too (a table cell)."""
    s = visible(text, multiline=multiline)
    return Content.styled(s, style) if style else Content(s)


def plain_text(text: object, style: Style | str = "") -> Text:
    """`plain()` for places that take Rich Text (DataTable cells, Line-API rows)."""
    return Text(visible(text), style=style)


def fit(text: str, width: int, where: Literal["end", "middle"] = "end") -> str:
    """`text` in at most `width` cells, cut with "…".

    `end` keeps the start (a sentence, an address). `middle` keeps the start and the end: a
    by-id name keeps its bus and model and, when there is room for four characters of the
    start, at least eight of the end (the serial, which is what is printed on the disk's
    label); below 8 cells it cuts the end.
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:max(0, width)]
    if where == "middle" and width >= 8:
        tail = max(width // 2, min(8, width - 4))
        head = width - tail - 1
        return text[:head] + "…" + text[-tail:]
    return text[:width - 1] + "…"


def fit_words(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut between words, never inside one: a trailing
    aside in parentheses goes first ("Attach a disk (make or widen a mirror)" -> "Attach a
    disk"), then words from the end, marked with "…"; "" when not even one word fits."""
    if len(text) <= width:
        return text
    head = text.split(" (", 1)[0]
    if len(head) <= width:
        return head
    out = ""
    for word in head.split():
        longer = f"{out} {word}" if out else word
        if len(longer) + 1 > width:
            break
        out = longer
    return out + "…" if out else ""


def spark(values: Sequence[float | None], cells: int, top: float | None = None) -> str:
    """The newest `cells` values as block characters on the scale 0..`top` (the largest of
    those values when None); `·` for an interval without a value.

    Each character stands for an eighth of the scale: a value in (k/8, (k+1)/8] of `top`
    draws the k-th block, so `top` itself is a full block, 0 the lowest one, and a 97.1 ->
    97.4 % wobble does not look like a change. Nothing to scale by (`top` <= 0): the lowest
    block for every value.
    """
    tail = list(values)[-cells:] if cells > 0 else []
    known = [v for v in tail if v is not None]
    hi = top if top is not None else max(known, default=0.0)
    out = []
    for v in tail:
        if v is None:
            out.append(NO_DATA)
        elif hi <= 0:
            out.append(SPARK[0])
        else:
            r = min(max(v, 0.0), hi) / hi
            out.append(SPARK[min(len(SPARK) - 1, max(0, int(r * len(SPARK) - 1e-9)))])
    return "".join(out)


# -- paragraphs with a hanging indent ---------------------------------------------------------

HANG_MIN = 20  # narrower than this beside its lead, a paragraph wraps under the lead instead


class Para(NamedTuple):
    """A paragraph: its lead (`"status: "`, `"▲ "`, `"  "`) and its body, whose wrapped
    lines start under the body's first character, not under the lead."""

    lead: Content
    body: Content


def para(body: Content | str, lead: Content | str = "", style: str = "") -> Para:
    """A paragraph. A str body is host text (shown through `plain`); a str lead is
    constant text; `style` colours both."""
    lead_c = lead if isinstance(lead, Content) else Content.styled(lead, style)
    body_c = body if isinstance(body, Content) else plain(body, style)
    return Para(lead_c, body_c)


class Wrapped(Visual):
    """A Visual whose lines depend on the width only: laid out once for each width
    (`lay_out`), drawn, measured and read (`plain`) from those lines."""

    _cache: tuple[int, list[Content]] | None = None

    def lay_out(self, width: int) -> list[Content]:
        raise NotImplementedError

    def lines(self, width: int) -> list[Content]:
        """The lines at `width` cells."""
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, self.lay_out(width))
        return self._cache[1]

    def render_strips(self, width: int, height: int | None, style: VisualStyle,
                      options: RenderOptions) -> list[Strip]:
        return Content("\n").join(self.lines(width)).render_strips(width, height, style,
                                                                    options)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    @property
    def plain(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.plain


class Hanging(Wrapped):
    """Paragraphs (and plain lines) wrapped to the widget's width with a hanging indent:

        status: One or more devices are faulted in response to persistent
                errors. Sufficient replicas exist for the pool to continue.
        ✖ ata-ST4000VN008-2DR166_ZGY8E5F6 answers 10.8× slower than its
          mirror peer ata-ST4000VN008-2DR166_ZGY8G7H8

    Works wherever Textual takes a Visual (Static.update, OptionList prompts). A Content
    item is a paragraph without a lead.
    """

    def __init__(self, *items: Para | Content) -> None:
        self.paras = [p if isinstance(p, Para) else Para(Content(), p) for p in items]

    def lay_out(self, width: int) -> list[Content]:
        out: list[Content] = []
        for p in self.paras:
            indent = p.lead.cell_length
            longest = max((len(w) for w in p.body.plain.split()), default=0)
            if width - indent < max(HANG_MIN, longest):  # a word would be cut: no hanging
                out.extend((p.lead + p.body).wrap(max(1, width)))
                continue
            for i, line in enumerate(p.body.wrap(width - indent)):
                out.append((p.lead if i == 0 else Content(" " * indent)) + line)
        return out

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max((p.lead.cell_length + p.body.get_optimal_width(rules, container_width)
                    for p in self.paras), default=0)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return max((p.lead.cell_length + p.body.get_minimal_width(rules)
                    for p in self.paras), default=0)

    @property
    def plain(self) -> str:
        """The text without its wrapping (tests read what the operator reads)."""
        return "\n".join(p.lead.plain + p.body.plain for p in self.paras)

