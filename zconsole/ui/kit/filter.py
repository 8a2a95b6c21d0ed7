"""`/`: narrow a list to the rows whose visible text holds every word typed (htop, k9s).

Two pieces, for any list of any screen:

- `ListFilter`, owned by the widget that draws the list: the words typed (kept across
  refreshes: each new reading is narrowed by the same words), `keep` / `keep_tree` to narrow
  the rows as they are drawn, and how many were shown of how many (`shown`, `total`).
- `FilterBar`, the one-line input `open_filter` mounts right above the list the first time
  `/` is pressed: it says "N of M shown"; typing narrows at once; enter keeps the filter
  and gives the focus back to the list; escape (in the bar, or on the list: `clear`)
  clears it, closes the bar and gives the focus back.

A list widget wires it like this (Pools, Disks, Datasets, Timeline, Advice, Fleet do):

    self.filter = ListFilter()                       # in __init__
    rows = self.filter.keep(rows, text_of)           # where the rows are drawn
    def action_filter(self):                         # the screen's `/` binding
        open_filter(self.filter, anchor=list_widget, redraw=self.redraw_rows)
    def on_key(self, event):                         # escape on the list clears it too
        if event.key == "escape" and self.filter.clear():
            event.stop()

`redraw` draws the rows again from what was last read (no host read): the bar calls it on
every key. The match is case-insensitive, on the text as the row shows it (`row_text`).
`back` may be a function that names the widget when the bar is done: a list of widgets
rebuilt since `/` was pressed (Advice's findings) is not the one it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static

T = TypeVar("T")
Back = Widget | Callable[[], Widget | None]  # the widget, or what names it when it is needed


def words_of(query: str) -> tuple[str, ...]:
    """The words of what was typed, case-folded (`"Tank  FAULT"` -> ("tank", "fault"))."""
    return tuple(query.casefold().split())


def matches(text: str, words: Sequence[str]) -> bool:
    """Every word is in `text`, whatever the case (no words: everything matches)."""
    folded = text.casefold()
    return all(w in folded for w in words)


def row_text(cells: Iterable[object]) -> str:
    """A table row's visible text: its cells' plain text, one space apart."""
    return " ".join(c.plain if isinstance(c, Text) else str(c) for c in cells)


def with_ancestors(hits: Sequence[bool], depths: Sequence[int]) -> list[bool]:
    """`hits` (rows of a tree in order, each with its depth) and the ancestors of each hit:
    a disk kept stays under its mirror and pool, so it reads as before."""
    keep = list(hits)
    # walking up from the end: a row less deep than the last row kept is its parent
    need: int | None = None
    for i in range(len(keep) - 1, -1, -1):
        if not keep[i] and need is not None and depths[i] < need:
            keep[i] = True
        if keep[i]:
            need = depths[i]
    return keep


def tree_keep(texts: Sequence[str], depths: Sequence[int], words: Sequence[str],
              ) -> tuple[list[bool], int]:
    """Which rows of a tree stay: those whose text matches and their ancestors; and how
    many rows matched."""
    hits = [matches(t, words) for t in texts]
    return with_ancestors(hits, depths), sum(hits)


def counted(shown: int, total: int) -> str:
    return f"{shown} of {total} shown"


class ListFilter:
    """The words a list is narrowed by, and what they let through at its last drawing."""

    def __init__(self) -> None:
        self.words: tuple[str, ...] = ()
        self.shown = 0
        self.total = 0
        self.bar: FilterBar | None = None

    @property
    def active(self) -> bool:
        return bool(self.words)

    def keep(self, items: Iterable[T], text_of: Callable[[T], str]) -> list[T]:
        """The items whose text matches the words (all of them with no words)."""
        every = list(items)
        kept = [x for x in every if matches(text_of(x), self.words)] if self.words else every
        self.count(len(kept), len(every))
        return kept

    def clear(self) -> bool:
        """Escape on the list itself: the words cleared and the bar closed, as escape in
        the bar does. False when there was nothing to clear (the key is someone else's)."""
        bar = self.bar
        if bar is None or not (self.words or bar.has_class("open")):
            return False
        bar.action_close()
        return True

    def count(self, shown: int, total: int) -> None:
        """What the last drawing showed (the bar, when open, says it)."""
        self.shown, self.total = shown, total
        if self.bar is not None:
            self.bar.say_counts()


class FilterBar(Horizontal):
    """`/ [words…]  N of M shown`: one line above the list it narrows."""

    DEFAULT_CSS = """
    FilterBar {
        height: 1;
        width: 1fr;
        display: none;
    }
    FilterBar.open {
        display: block;
    }
    FilterBar > .filter--slash {
        width: 2;
        color: $primary;
        text-style: bold;
    }
    FilterBar > Input {
        width: 1fr;
    }
    FilterBar > .filter--count {
        width: auto;
        color: $muted;
        padding: 0 1;
    }
    """

    BINDINGS = [Binding("escape", "close", "Clear filter", show=False)]

    def __init__(self, flt: ListFilter, redraw: Callable[[], None], back: Back) -> None:
        super().__init__(classes="filter-bar")
        self.flt = flt
        self.redraw = redraw
        # what has the focus after enter or escape: the list (or what gives it, at that
        # moment: a list of widgets that a refresh may have rebuilt since)
        self.back = back
        self.input = Input(placeholder="filter: words in the row (escape clears)",
                           compact=True, select_on_focus=False)
        self.count = Static(classes="filter--count")

    def compose(self) -> ComposeResult:
        yield Static("/", classes="filter--slash")
        yield self.input
        yield self.count

    def on_mount(self) -> None:
        self.say_counts()

    def say_counts(self) -> None:
        if self.is_mounted:
            self.count.update(counted(self.flt.shown, self.flt.total)
                              if self.flt.active else "")

    def open(self) -> None:
        self.add_class("open")
        self.input.focus()

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        words = words_of(event.value)
        if words != self.flt.words:
            self.flt.words = words
            self.redraw()
        self.say_counts()

    @on(Input.Submitted)
    def _done(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.flt.active:
            self.remove_class("open")
        self._focus_back()

    def action_close(self) -> None:
        """Clear the words, show every row again, close the bar."""
        self.input.value = ""
        if self.flt.words:
            self.flt.words = ()
            self.redraw()
        self.remove_class("open")
        self._focus_back()

    def _focus_back(self) -> None:
        back = self.back if isinstance(self.back, Widget) else self.back()
        if back is not None and back.is_attached and back.focusable:
            back.focus()
        else:
            self.screen.set_focus(None)


def open_filter(flt: ListFilter, *, anchor: Widget, redraw: Callable[[], None],
                back: Back | None = None) -> FilterBar:
    """Open the list's filter bar (mounted just above `anchor` the first time) and focus
    its input. `back` (default: `anchor`) gets the focus when the bar is done with."""
    bar = flt.bar
    if bar is None or not bar.is_attached:
        bar = flt.bar = FilterBar(flt, redraw, back or anchor)
        parent = anchor.parent
        assert isinstance(parent, Widget)
        parent.mount(bar, before=anchor)
        bar.call_after_refresh(bar.open)
    else:
        bar.open()
    return bar
