"""How bad something is, as the screen shows it: a word, a symbol, and a colour.

The judgement is `services.health.levels`'; here a `Severity` or a level word (`ok`, `warn`,
`bad`, `off`) only gets its symbol and its colour. Colours are theme variables: in Content
they are constant styles (`LEVEL_STYLE`); in a DataTable, whose cells are Rich Text, they are
`LevelTable`'s component classes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from zconsole.model.finding import Severity
from zconsole.services.health.levels import state_severity
from zconsole.ui.kit.text import plain, plain_text

# Every state is a word AND a symbol; colour only reinforces it.
SEVERITY_LEVEL = {Severity.OK: "ok", Severity.INFO: "off", Severity.WARNING: "warn",
                  Severity.CRITICAL: "bad", Severity.UNKNOWN: "warn"}
LEVEL_SYMBOL = {"ok": "✔", "warn": "▲", "bad": "✖", "off": "○"}
# The colour of each level (and of muted and highlighted text), as a Content style.
LEVEL_STYLE = {"ok": "$health-ok", "warn": "$health-warn", "bad": "$health-bad",
               "off": "$health-off", "muted": "$muted", "primary": "$primary"}


def state_level(state: str) -> str:
    """ONLINE -> ok, DEGRADED -> warn, FAULTED -> bad (services.health.levels judges)."""
    return SEVERITY_LEVEL[state_severity(state)]


def state_label(state: str) -> str:
    """`✔ ONLINE`, `▲ DEGRADED`, `✖ FAULTED`, `? UNKNOWN`: the symbol, then the word."""
    severity = state_severity(state)
    symbol = severity.symbol if severity is Severity.UNKNOWN else \
        LEVEL_SYMBOL[SEVERITY_LEVEL[severity]]
    return f"{symbol} {state}"


def state_content(state: str) -> Content:
    """A pool or vdev state with its symbol, in its level's colour."""
    return plain(state_label(state), LEVEL_STYLE[state_level(state)])


def same_cell(a: object, b: object) -> bool:
    """Two table cells look the same: the same text with the same styles (Rich's Text
    equality looks at the text and its spans only, not the style of the whole)."""
    if isinstance(a, Text) and isinstance(b, Text):
        return (a.plain == b.plain and a.spans == b.spans and a.style == b.style
                and a.justify == b.justify)
    return type(a) is type(b) and a == b


_NO_STYLE = Style()
_LINES = Text("\n")  # what Rich joins a Text's lines with

# a table row given lazily: (key, signature of what it shows, a function making its cells)
LazyRow = tuple[str, Hashable, Callable[[], Sequence[Text | str]]]


def _width(cell: Text | str) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


class LevelTable(DataTable[Text | str]):
    """A DataTable whose cells can be coloured by level (theme variables, via component
    classes: Rich Text in a cell cannot name a theme variable itself)."""

    COMPONENT_CLASSES = {f"level--{name}" for name in LEVEL_STYLE}

    DEFAULT_CSS = """
    LevelTable > .level--ok { color: $health-ok; }
    LevelTable > .level--warn { color: $health-warn; }
    LevelTable > .level--bad { color: $health-bad; }
    LevelTable > .level--off { color: $health-off; }
    LevelTable > .level--muted { color: $muted; }
    LevelTable > .level--primary { color: $primary; }
    """

    def sync_rows(self, columns: Sequence[str], rows: Sequence[LazyRow]) -> bool:
        """`sync`, with each row given as (key, signature, make_cells): a row whose
        signature (a hashable summary of what its cells show) equals the one it had when
        last shown is not built or compared at all. A big pool's table has hundreds of
        rows and, on most refreshes, none of them changed: building and comparing every
        cell cost ~25 ms a refresh at 100 disks. The signatures are forgotten whenever the
        table is filled another way or its styles change."""
        sigs = self._row_sigs
        if sigs is None or list(columns) != self._sig_columns \
                or len(rows) != len(sigs) or any(key not in sigs for key, _, _ in rows):
            rebuilt = self.sync(columns, [(key, make()) for key, _, make in rows])
            self._row_sigs = {key: sig for key, sig, _ in rows}
            self._sig_columns = list(columns)
            return rebuilt
        if [str(k.value) for k in self.rows] != [key for key, _, _ in rows]:
            self._row_sigs = None  # the same keys in another order (or cleared elsewhere)
            return self.sync_rows(columns, rows)
        changed: list[tuple[str, str, Text | str]] = []
        for key, sig, make in rows:
            if sigs[key] == sig:
                continue
            sigs[key] = sig
            shown = self.get_row(key)
            changed += [(key, col, new) for col, old, new
                        in zip(columns, shown, make(), strict=True) if not same_cell(old, new)]
        if changed:
            self._update_cells(changed)
        return False

    _row_sigs: dict[str, Hashable] | None = None
    _sig_columns: list[str] = []

    def sync(self, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[Text | str]]],
             ) -> bool:
        """Show `rows` ((key, cells) in order) under `columns`, changing only what differs:
        while the columns and the row keys are those shown, the rows are kept and only the
        cells whose text or style changed are updated (nothing at all when nothing did);
        other columns or other keys rebuild the table. True when it was rebuilt."""
        self._row_sigs = None
        if [str(c.value) for c in self.columns] != list(columns):
            self.clear(columns=True)
            for c in columns:
                # a str label would be parsed as Rich markup (and its first parse loads
                # Rich's emoji table: 6 ms of the first frame); a name is plain text
                self.add_column(Text(c), key=c)
        if [str(k.value) for k in self.rows] != [key for key, _ in rows]:
            self.clear()
            # clear() keeps each column's width (DataTable widths only grow): measure afresh,
            # or a note that has gone keeps its column wide (and a picture depends on which
            # rows happened to be shown before)
            for column in self.columns.values():
                column.content_width = column.label.cell_len
            for key, cells in rows:
                self.add_row(*cells, key=key)
            return True
        changed: list[tuple[str, str, Text | str]] = []
        for key, cells in rows:
            shown = self.get_row(key)
            changed += [(key, col, new) for col, old, new
                        in zip(columns, shown, cells, strict=True) if not same_cell(old, new)]
        if changed:
            self._update_cells(changed)
        return False

    # Textual's DataTable forgets every drawn cell and line when one cell changes (its caches
    # are keyed by a table-wide update count): on a refresh where one disk's figure moved,
    # every visible row was rendered again. A few changed rows are forgotten one by one
    # instead; a column that must grow, many changes, or a Textual whose caches are not the
    # ones expected here take the ordinary path.
    _ROW_CACHES = ("_cell_render_cache", "_row_render_cache", "_row_renderable_cache")
    IN_PLACE_MAX_ROWS = 8

    def _update_cells(self, changed: Sequence[tuple[str, str, Text | str]]) -> None:
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

    in_place_updates = 0  # cells updated without redrawing the other rows (tests read it)
    _plain_cells: bool | None = None  # `_render_cell` may draw cells itself

    # -- drawing a cell ---------------------------------------------------------------------
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
        if row_index < -1 or column_index < 0 or self.fixed_rows or self.fixed_columns \
                or not plain:
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
        height = self.header_height if header else row.height if row is not None else 0
        cell = self._get_row_renderables(row_index).cells[column_index]
        pad = self.cell_padding
        room = width - 2 * pad
        if (height != 1 or not isinstance(cell, Text)
                or cell.justify not in (None, "default")
                or room < 0 or cell.cell_len > room
                or "\n" in cell.plain or "\t" in cell.plain):
            return super()._render_cell(row_index, column_index, base_style, width,
                                        cursor, hover)
        base_style += Style.from_meta({"row": row_index, "column": column_index})
        component_style, post_style = self._get_styles_to_render_cell(
            header, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        # Rich renders a Text through a copy joined into lines: its own style becomes a span
        line = [Segment(" " * pad)] if pad else []
        line += [s for s in _LINES.join([cell]).render(self.app.console) if s.text]
        if cell.cell_len < room:
            line.append(Segment(" " * (room - cell.cell_len)))
        if pad:
            line.append(Segment(" " * pad))
        lines = [list(Segment.apply_style(line, base_style + component_style, post_style))]
        cache[cache_key] = lines
        return lines

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

    def level_style(self, level: str) -> Style:
        """The colour of `level` (a key of LEVEL_STYLE) as a Rich style; none for "".
        Worked out once per level until the styles change (a theme switch, a CSS reload:
        `notify_style_update`): Textual blends the colours anew on every call, and a big
        pool's table asks for thousands of cells' levels on every refresh."""
        if not level:
            return _NO_STYLE
        style = self._level_styles.get(level)
        if style is None:
            style = self._level_styles[level] = self.get_component_rich_style(
                f"level--{level}", partial=True)
        return style

    @property
    def _level_styles(self) -> dict[str, Style]:
        cache: dict[str, Style] | None = self.__dict__.get("_zc_level_styles")
        if cache is None:
            cache = self.__dict__["_zc_level_styles"] = {}
        return cache

    def notify_style_update(self) -> None:
        self._level_styles.clear()
        self._row_sigs = None  # the cells' colours change: compare every cell next time
        super().notify_style_update()

    def level_text(self, text: object, level: str = "", *, bold: bool = False) -> Text:
        """A cell: `text` (host text allowed: it goes through `plain`) in `level`'s colour."""
        style = self.level_style(level)
        if bold:
            style += Style(bold=True)
        return plain_text(text, style)

    def state_cell(self, state: str) -> Text:
        """A pool or vdev state with its symbol, in its level's colour."""
        return self.level_text(state_label(state), state_level(state))
