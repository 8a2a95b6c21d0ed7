"""Snapshot pictures compared by what a person sees, not by how Textual cut the line.

Textual's compositor cuts a line into segments at widget edges and wherever two styles differ
only in invisible metadata (click handlers, offsets). Which cuts a frame has can depend on
what was on screen a frame earlier, so two renders of the same screen can produce the same
cells (characters, colours) as different runs of ``<rect>``/``<text>`` elements: a picture
that fails although nothing visible changed (CI saw this on 2026-11-23:
showcase-2.3-6-80x24 differed only in where the background rects were split).

:func:`merge_runs` joins adjacent elements of the same line that carry the same fill (rects)
or the same class and clip path (text), then cuts text at its blanks: a blank in a class
without underline or strike-through shows nothing but its background (a rect), so whether it
was bold (a table header Textual drew from its cache at the old column width: CI, the same
day) cannot be seen and is not compared. A change of character, colour, weight, decoration or
position still shows, so the comparison stays as strict as the picture is.
"""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

_NUM = r"-?[0-9.]+"
_ELEMENT = re.compile(
    r'<rect fill="(?P<fill>[^"]*)" x="(?P<rx>' + _NUM + r')" y="(?P<ry>' + _NUM + r')" '
    r'width="(?P<rw>' + _NUM + r')" height="(?P<rh>' + _NUM + r')" '
    r'shape-rendering="crispEdges"/>'
    r'|<text class="(?P<cls>[^"]*)" x="(?P<tx>' + _NUM + r')" y="(?P<ty>' + _NUM + r')" '
    r'textLength="(?P<tl>' + _NUM + r')" clip-path="(?P<clip>[^"]*)">(?P<body>[^<]*)</text>'
)


def _num(v: float) -> str:
    return f"{round(v, 2):g}"


class _Run:
    """One run of adjacent elements being merged."""

    def __init__(self, m: re.Match[str]) -> None:
        self.rect = m.group("fill") is not None
        if self.rect:
            self.key: tuple[str, ...] = (m["fill"], m["ry"], m["rh"])
            self.x, self.w = float(m["rx"]), float(m["rw"])
        else:
            self.key = (m["cls"], m["ty"], m["clip"])
            self.x, self.w = float(m["tx"]), float(m["tl"])
            self.body = m["body"]

    def extend(self, other: _Run) -> bool:
        if other.rect != self.rect or other.key != self.key:
            return False
        if abs(self.x + self.w - other.x) > 0.05:
            return False
        self.w += other.w
        if not self.rect:
            self.body += other.body
        return True

    def render(self, decorated: set[str]) -> str:
        if self.rect:
            fill, y, h = self.key
            return (f'<rect fill="{fill}" x="{_num(self.x)}" y="{y}" width="{_num(self.w)}" '
                    f'height="{h}" shape-rendering="crispEdges"/>')
        cls, y, clip = self.key
        text = html.unescape(self.body).replace("\xa0", " ")
        if cls in decorated:
            words = [(0, text)]
        else:
            words, col = [], 0
            for word in re.split(r"( +)", text):
                if word and not word.isspace():
                    words.append((col, word))
                col += cell_len(word)
        cell = self.w / max(cell_len(text), 1)
        return "".join(
            f'<text class="{cls}" x="{_num(self.x + col * cell)}" y="{y}" '
            f'textLength="{_num(cell_len(word) * cell)}" clip-path="{clip}">'
            f'{html.escape(word).replace(" ", "&#160;")}</text>'
            for col, word in words)


_DECORATED = re.compile(r"\.([\w-]+) \{[^}]*text-decoration")


def merge_runs(svg: str) -> str:
    decorated = set(_DECORATED.findall(svg))
    out: list[str] = []
    run: _Run | None = None
    pos = 0
    for m in _ELEMENT.finditer(svg):
        between = svg[pos:m.start()]
        pos = m.end()
        item = _Run(m)
        if run is not None and not between.strip() and run.extend(item):
            continue
        if run is not None:
            out.append(run.render(decorated))
        out.append(between)
        run = item
    if run is not None:
        out.append(run.render(decorated))
    out.append(svg[pos:])
    return "".join(out)
