"""Commands shown so that a line break never falls inside an argument (issue 29).

A command box at 80 columns used to wrap `zpool replace tank 1571276668… /dev/disk/by-id/…`
wherever the width ran out, so a copy from the screen came out broken. Here every argument
is one unbreakable unit, shell-quoted as `shlex.join` would (what `y` copies): a line breaks
only between arguments, the broken line ends with ` \\` and the next one is indented, so even
a copy made with the mouse is one valid shell command. An argument longer than the line is
cut visibly with "…" (its full text is what `y` copies). Host text throughout: every unit
goes through `visible()` (a control character shows as `\\x1b`), never markup.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.css.styles import RulesMap

from zconsole.model.command import Command
from zconsole.model.hosttext import visible
from zconsole.ui.kit.text import Wrapped

INDENT = "    "  # a continuation line of one command
BREAK = " \\"  # the end of a line the command goes on after


def copy_text(command: Command) -> str:
    """The command as one shell line, exactly as it runs: `shlex.join(argv)` (a pipeline's
    parts joined by `|`)."""
    return command.display()


def units(command: Command) -> list[str]:
    """The unbreakable units of a command as shown: each argument shell-quoted and made
    visible; a pipeline's `|` between its parts."""
    out: list[str] = []
    for i, argv in enumerate(command.pipeline):
        if i:
            out.append("|")
        out += [visible(shlex.quote(a)) for a in argv]
    return out


def _cut(unit: str, room: int) -> str:
    """`unit` in at most `room` cells, cut visibly with "…" (only an argument longer than a
    whole line is)."""
    if cell_len(unit) <= room:
        return unit
    out = ""
    for ch in unit:
        if cell_len(out + ch) > room - 1:
            break
        out += ch
    return out + "…"


def command_lines(command: Command, width: int) -> list[str]:
    """The command in lines of at most `width` cells, broken only between units."""
    width = max(width, len(INDENT) + len(BREAK) + 2)
    lines: list[str] = []
    line = ""
    for unit in units(command):
        if not line:
            line = _cut(unit, width - len(BREAK))
        elif cell_len(line) + 1 + cell_len(unit) + len(BREAK) <= width:
            line += " " + unit
        else:
            lines.append(line + BREAK)
            line = INDENT + _cut(unit, width - len(INDENT) - len(BREAK))
    if line:
        lines.append(line)
    return lines


class CommandText(Wrapped):
    """Text lines (Content: the comments, a file's diff, wrapped as usual) and commands
    (broken only between arguments), in order, at the widget's width; one blank line when
    there is nothing."""

    def __init__(self, items: Sequence[Content | Command]) -> None:
        self.items = list(items)

    def lay_out(self, width: int) -> list[Content]:
        out: list[Content] = []
        for item in self.items:
            if isinstance(item, Command):
                out += [Content(line) for line in command_lines(item, width)]
            else:
                out += item.wrap(max(1, width))
        return out or [Content("")]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max((c.cell_length for c in self.lines(container_width)), default=0)

    @property
    def plain(self) -> str:
        """Every command as one line (copy_text) and the text lines, unwrapped."""
        return "\n".join(copy_text(i) if isinstance(i, Command) else i.plain
                          for i in self.items)
