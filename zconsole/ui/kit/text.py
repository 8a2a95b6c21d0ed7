"""Text every screen shares: host text shown literally, cutting to a width, sparklines.

Figures (sizes, ages, durations, latencies, counts) are `zconsole.services.fmt`'s, used as
they are: the UI has no formatter of its own, so a value reads the same on every screen, in
a plan and in a report.

Host-provided text (pool, vdev, disk, dataset and interface names, serials, models, paths,
error text) reaches the screen only through `plain()`: it is never read as markup, so a
dataset named `[b]x` or an error quoting `[/]` shows as it is. Colours are theme variables
in constant styles (`"$health-warn"`), never values looked up in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rich.style import Style
from rich.text import Text
from textual.content import Content

SPARK = "▁▂▃▄▅▆▇█"
NO_DATA = "·"  # a sparkline cell for an interval without a value


def plain(text: object, style: str = "") -> Content:
    """Host-provided text as literal Content, never parsed as markup (control codes are
    dropped). The one place host text becomes something the screen shows: every name,
    serial, model, path and error text passes here. `style` is a constant style such as
    `"$health-bad"` or `"bold"`."""
    s = str(text)
    return Content.styled(s, style) if style else Content(s)


def plain_text(text: object, style: Style | str = "") -> Text:
    """`plain()` for places that take Rich Text (DataTable cells, Line-API rows)."""
    return Text(plain(text).plain, style=style)


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
