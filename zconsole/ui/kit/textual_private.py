"""Every use zconsole makes of Textual's private internals, and only here.

Textual's public API has no way to do these; each is here for a measured reason (the first
frame, a refresh of a big pool, a leak), written against Textual 8.2.8. `PRIVATE_NAMES` lists
every private name used below with what relies on it. `tests/ui/test_textual_private.py` has a
test per name that fails loudly, naming the name and the installed Textual version, when an
upgrade removes or changes it, and a test that no other module of zconsole uses one: no
private Textual module (one whose name starts with an underscore), none of these attributes.

What stays public elsewhere: `ZScreen` finds its app with `self.app`; the app sets its first
theme with `set_reactive`, `set_class` and `stylesheet.set_variables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import Column, ColumnKey, RowKey

if TYPE_CHECKING:
    from textual.cache import LRUCache
    from textual.color import Color
    from textual.css.model import RuleSet
    from textual.css.styles import RenderStyles
    from textual.css.stylesheet import Stylesheet
    from textual.geometry import Region, Size
    from textual.strip import Strip

__all__ = ["PRIVATE_NAMES", "FastCellsTable", "css_variables", "laid_out_size", "parse_cache",
           "quiet_toast_rack", "refresh_truecolor_filter", "relayout", "styled_as_of"]

# name -> (whose, what relies on it). The tests check each of them against Textual.
PRIVATE_NAMES: dict[str, tuple[str, str]] = {
    "_layout_updates": ("Widget", "a widget whose text changed its height is measured again "
                        "(kit/text.py update_if_changed)"),
    "_compositor": ("Screen", "the size the screen was last laid out at (laid_out_size)"),
    "textual-toastrack": ("Screen", "the screen's toast rack, hidden before the first frame "
                          "(quiet_toast_rack)"),
    "_css_update_count": ("App, Screen", "a new screen is styled as of the app's CSS now"),
    "_refresh_truecolor_filter": ("App", "the first theme is set without the theme watcher"),
    "_watch_theme": ("App", "what the first theme must set, as the watcher does"),
    "_render_cell": ("DataTable", "FastCellsTable draws a plain one-line cell itself"),
    "_cell_render_cache": ("DataTable", "drawn cells: kept for rows that did not change"),
    "_row_render_cache": ("DataTable", "drawn rows: kept for rows that did not change"),
    "_row_renderable_cache": ("DataTable", "rows' renderables: kept for rows unchanged"),
    "_line_cache": ("DataTable", "drawn lines: emptied after an in-place update"),
    "_update_count": ("DataTable", "the caches' generation: kept over an in-place update"),
    "_on_resize": ("DataTable", "FastCellsTable forgets its drawn rows only when its width "
                   "changed"),
    "_require_update_dimensions": ("DataTable", "FastCellsTable.dimensions_now: rows added "
                                   "since the table's size was last worked out"),
    "_new_rows": ("DataTable", "the same: the rows added since"),
    "_update_dimensions": ("DataTable", "the same: the table's size worked out now, as its "
                           "idle handler would"),
    "_header_row_key": ("DataTable", "the header row's key (a cell's cache key)"),
    "_row_locations": ("DataTable", "row index <-> key (a cell's cache key)"),
    "_column_locations": ("DataTable", "column index <-> key (a cell's cache key)"),
    "_show_hover_cursor": ("DataTable", "part of a cell's cache key and of its style"),
    "_pseudo_class_state": ("DOMNode", "part of a cell's cache key"),
    "_get_row_renderables": ("DataTable", "a row's cells as DataTable formats them"),
    "_get_styles_to_render_cell": ("DataTable", "a cell's component and cursor styles"),
    "_parse_cache": ("Stylesheet", "what Textual parsed, kept for the next run "
                     "(kit/css_cache.py)"),
    "_variables": ("Stylesheet", "the theme's variables a parse depends on: part of the "
                   "kept CSS's key (kit/css_cache.py)"),
}

_LINES = Text("\n")  # what Rich joins a Text's lines with


# -- CSS -------------------------------------------------------------------------------------
def parse_cache(stylesheet: Stylesheet) -> LRUCache[tuple[Any, ...], list[RuleSet]]:
    """What `stylesheet` parsed: (CSS text, where it was read from, default rules or not, tie
    breaker, scope) -> its rules. Textual 8.2's stylesheet asks it before it parses a source
    again, and empties it when the variables change."""
    cache: LRUCache[tuple[Any, ...], list[RuleSet]] = stylesheet._parse_cache
    return cache


def css_variables(stylesheet: Stylesheet) -> dict[str, str]:
    """The variables `stylesheet` parses with (a rule's `$primary` is its colour once parsed)."""
    variables: dict[str, str] = stylesheet._variables
    return variables


# -- layout ----------------------------------------------------------------------------------
def relayout(widget: Widget) -> None:
    """Lay `widget` out again at the screen's next layout, measured again. Textual 8.2 keys a
    widget's measured size on its count of layout updates, counted only when a layout is
    asked for the first time since the widget's last idle: when the screen was laid out in
    between (measuring the widget's first change), a second change kept that measure. The
    Fleet screen's detail grew from four lines to five and stayed cut at four."""
    widget._layout_updates += 1
    widget.refresh(layout=True)


def laid_out_size(screen: Screen[Any]) -> Size | None:
    """The size `screen` was last laid out at (None before its first layout). Its `size` is
    the app's size now, which a Resize has already changed when it reaches the screen."""
    size: Size = screen._compositor.size
    return size if size else None


def quiet_toast_rack(screen: Screen[Any]) -> None:
    """Hide the screen's toast rack now, as the app will: the app shows its notifications on
    a new screen's rack a moment after the screen is up (none: the rack is hidden, as its CSS
    has it already), and hiding it then set its display, which lays the whole screen out
    again after its first frame. Set before the first layout, it is laid out with it, and
    the app's later hiding changes nothing. A notification still shows it."""
    rack = next(iter(screen.query("#textual-toastrack")), None)
    if rack is not None and not rack.children:
        rack.display = False


# -- styles and themes -----------------------------------------------------------------------
def styled_as_of(screen: Screen[Any], app: App[Any]) -> None:
    """Mark `screen` as styled with the app's stylesheet as it is now: Textual 8.2 starts a
    screen at -1, which makes the app restyle everything for each mode's first screen."""
    screen._css_update_count = app._css_update_count


def refresh_truecolor_filter(app: App[Any]) -> None:
    """The ANSI colour filter's share of the theme watcher (`App._watch_theme`), for a theme
    set before the first stylesheet parse."""
    refresh = getattr(app, "_refresh_truecolor_filter", None)
    if refresh is not None:
        refresh(app.ansi_theme)


# -- DataTable -------------------------------------------------------------------------------
class _CellFacts(NamedTuple):
    """What drawing a cell reads of its table, the same for every cell of a drawing pass."""

    fixed: bool  # fixed rows or columns (DataTable draws the cells then)
    pad: int
    header_height: int
    show_cursor: bool
    foreground_css: bool  # the cursor's colours: the CSS's over the cell's own
    background_css: bool
    console: Console


def _width(cell: Text | str) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


class FastCellsTable(DataTable[Text | str]):
    """A DataTable that updates a few cells without forgetting every drawn row, and draws a
    plain one-line cell without Rich's generic passes (see `update_cells`, `_render_cell`)."""

    # Textual's DataTable forgets every drawn cell and line when one cell changes (its caches
    # are keyed by a table-wide update count): on a refresh where one disk's figure moved,
    # every visible row was rendered again. A few changed rows are forgotten one by one
    # instead; a column that must grow, many changes, or a Textual whose caches are not the
    # ones expected here take the ordinary path.
    _ROW_CACHES = ("_cell_render_cache", "_row_render_cache", "_row_renderable_cache")
    IN_PLACE_MAX_ROWS = 8

    in_place_updates = 0  # cells updated without redrawing the other rows (tests read it)
    _plain_cells: bool | None = None  # `_render_cell` may draw cells itself
    # What DataTable asks again for every line it draws, although none of it can change
    # while the lines of one drawing pass (`render_lines`) are made: the table's style (a
    # walk of all its ancestors' styles), its background colours (another walk), its
    # component styles (each a new styles object with its rules merged) and its columns in
    # order. Worked out once per pass: a third of drawing the pools' two tables of the first
    # frame, ~6 ms on Python 3.10 (issue 28). Outside a pass, as DataTable works them out.
    _drawing: dict[object, Any] | None = None

    # DataTable forgets every drawn row at each resize (`_on_resize` counts an update): a
    # row is drawn to the table's width (its background carried to the right edge) and its
    # columns' widths (which a screen may set again on a resize). A new table's first
    # Resize comes after its first drawing, at the width it was drawn at: every row was
    # drawn a second time for nothing, ~15 ms of the first frame's two pool tables on
    # Python 3.10 (issue 28). The rows are forgotten when the widths they are drawn at
    # change, checked at each drawing and at a Resize, and not otherwise.
    _rows_width: tuple[int, ...] | None = None

    def _widths(self, width: int) -> tuple[int, ...]:
        return (width, *(c.get_render_width(self) for c in self.ordered_columns))

    def render_lines(self, crop: Region) -> list[Strip]:
        widths = self._widths(self.size.width)
        if self._rows_width is not None and widths != self._rows_width:
            self._update_count += 1  # rows drawn at other widths: not these
        self._rows_width = widths
        self._drawing = {}
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = None

    def _on_resize(self, event: events.Resize) -> None:
        # Textual calls DataTable's handler after this one unless its default is prevented
        if self._widths(event.size.width) == self._rows_width and self._caches_known():
            event.prevent_default()

    @property
    def rich_style(self) -> Style:
        drawing = self._drawing
        if drawing is None:
            return super().rich_style
        style: Style | None = drawing.get("rich_style")
        if style is None:
            style = drawing["rich_style"] = super().rich_style
        return style

    @property
    def background_colors(self) -> tuple[Color, Color]:
        drawing = self._drawing
        if drawing is None:
            return super().background_colors
        colors: tuple[Color, Color] | None = drawing.get("background_colors")
        if colors is None:
            colors = drawing["background_colors"] = super().background_colors
        return colors

    @property
    def ordered_columns(self) -> list[Column]:
        drawing = self._drawing
        if drawing is None:
            return super().ordered_columns
        columns: list[Column] | None = drawing.get("ordered_columns")
        if columns is None:
            columns = drawing["ordered_columns"] = super().ordered_columns
        return columns

    def get_component_styles(self, *names: str) -> RenderStyles:
        drawing = self._drawing
        if drawing is None:
            return super().get_component_styles(*names)
        styles: RenderStyles | None = drawing.get(names)
        if styles is None:
            styles = drawing[names] = super().get_component_styles(*names)
        return styles

    def update_cells(self, changed: Sequence[tuple[str, str, Text | str]]) -> None:
        """Set each (row key, column key, value) of `changed`."""
        rows = {key for key, _, _ in changed}
        grows = any(_width(new) > self.columns[ColumnKey(col)].content_width
                    for _, col, new in changed)
        if grows or len(rows) > self.IN_PLACE_MAX_ROWS or not self._caches_known():
            for key, col, new in changed:
                self.update_cell(key, col, new, update_width=True)
            return
        count = self._update_count
        for key, col, new in changed:
            self.update_cell(key, col, new)  # stores the value, checks the keys, refreshes
        self._update_count = count  # ...and the other rows keep what was drawn for them
        self._forget_rows({RowKey(key) for key in rows})
        self.in_place_updates += len(changed)

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> list[list[Segment]]:
        """A cell of one line whose text fits its column, drawn as Textual's DataTable
        draws it (`Styled(Padding(cell))` through Rich's console: the padding, the text's
        segments, the padding to the column's width, the row's and the cursor's styles
        around them) without the console's generic passes over every cell: a third of
        the first frame's drawing of two pool tables. Anything else (row labels, fixed
        rows, wrapped or aligned text, a Textual whose caches are not the ones expected
        here) is drawn by DataTable itself."""
        plain = self._plain_cells
        if plain is None:  # the same for every cell: worked out once
            plain = self._plain_cells = self._caches_known() and \
                self.app.console_options.justify in (None, "default")
        facts = self._cell_facts()
        if row_index < -1 or column_index < 0 or facts.fixed or not plain:
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        header = row_index == -1
        row_key = self._header_row_key if header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        cache_key = (row_key, column_key, base_style, cursor, hover,
                     self._show_hover_cursor, self._update_count, self._pseudo_class_state)
        cache = self._cell_render_cache
        if cache_key in cache:
            return cache[cache_key]
        row = None if header else self.rows.get(row_key)
        height = facts.header_height if header else row.height if row is not None else 0
        cell = self._get_row_renderables(row_index).cells[column_index]
        pad = facts.pad
        room = width - 2 * pad
        if (height != 1 or not isinstance(cell, Text)
                or cell.justify not in (None, "default")
                or room < 0 or cell.cell_len > room
                or "\n" in cell.plain or "\t" in cell.plain):
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        base_style += Style.from_meta({"row": row_index, "column": column_index})
        component_style, post_style = self._get_styles_to_render_cell(
            header, False, False, hover, cursor, facts.show_cursor, self._show_hover_cursor,
            facts.foreground_css, facts.background_css)
        # Rich renders a Text through a copy joined into lines: its own style becomes a span
        # (one text in one style, most cells: that style, as Rich combines it with none)
        line = [Segment(" " * pad)] if pad else []
        if not cell.spans:
            if cell.plain:
                line.append(Segment(cell.plain, facts.console.get_style(
                    cell.style, default=Style.null()) if cell.style else None))
        else:
            line += [s for s in _LINES.join([cell]).render(facts.console) if s.text]
        if cell.cell_len < room:
            line.append(Segment(" " * (room - cell.cell_len)))
        if pad:
            line.append(Segment(" " * pad))
        lines = [list(Segment.apply_style(line, base_style + component_style, post_style))]
        cache[cache_key] = lines
        return lines

    def _cell_facts(self) -> _CellFacts:
        """What `_render_cell` reads of the table for every cell (reactives, the app's
        console): once per drawing pass."""
        drawing = self._drawing
        facts: _CellFacts | None = drawing.get("cell") if drawing is not None else None
        if facts is None:
            facts = _CellFacts(
                bool(self.fixed_rows or self.fixed_columns), self.cell_padding,
                self.header_height, self.show_cursor,
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css", self.app.console)
            if drawing is not None:
                drawing["cell"] = facts
        return facts

    def dimensions_now(self) -> None:
        """Work out the table's size (its rows' heights, its virtual size) now, as its idle
        handler would once the app's queue is empty (LevelTable.sync calls it after adding
        rows). A pool's table gets its rows in its `on_mount`; left to its idle, the first
        layout that had the table in it laid it out without its rows, and the next laid out
        and drew the whole screen again (10-15 ms of the first frame on Python 3.11, issue
        28). Nothing to do when no row was added since, or before the table is mounted; a
        Textual whose DataTable keeps no such state is left to its idle handler."""
        if not self.is_attached or \
                getattr(self, "_require_update_dimensions", None) is not True or \
                not isinstance(getattr(self, "_new_rows", None), set):
            return
        self._require_update_dimensions = False
        new_rows = self._new_rows.copy()
        self._new_rows.clear()
        self._update_dimensions(new_rows)

    def _caches_known(self) -> bool:
        return isinstance(getattr(self, "_update_count", None), int) and all(
            hasattr(getattr(self, name, None), "keys") for name in
            (*self._ROW_CACHES, "_line_cache"))

    def _forget_rows(self, keys: set[RowKey]) -> None:
        indexes = {self._row_locations.get(k) for k in keys}
        cell, row, renderables = (getattr(self, name) for name in self._ROW_CACHES)
        for cache, gone in ((cell, lambda k: k[0] in keys), (row, lambda k: k[0] in keys),
                            (renderables, lambda k: k[1] in indexes)):
            for k in [k for k in cache.keys() if gone(k)]:
                cache.discard(k)
        self._line_cache.clear()  # lines are cheap to join again from the rows kept
