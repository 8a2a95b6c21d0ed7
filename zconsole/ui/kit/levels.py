"""How bad something is, as the screen shows it: a word, a symbol, and a colour.

The judgement is `services.health.levels`'; here a `Severity` or a level word (`ok`, `warn`,
`bad`, `off`) only gets its symbol and its colour. Colours are theme variables: in Content
they are constant styles (`LEVEL_STYLE`); in a DataTable, whose cells are Rich Text, they are
the same styles resolved against the app's stylesheet (`LevelTable.level_style`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from rich.style import Style
from rich.text import Text
from textual.content import Content

from zconsole.model.finding import Severity
from zconsole.services.health.levels import state_severity
from zconsole.ui.kit.text import plain, plain_text
from zconsole.ui.kit.textual_private import FastCellsTable

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


def labels(columns: Sequence[str], widths: Mapping[str, int] | None) -> list[str]:
    """The columns' headers, each padded to its width in `widths` (a column is as wide as
    its widest cell or header: a padded header is its least width)."""
    return [c.ljust(widths.get(c, 0)) if widths else c for c in columns]

# a table row given lazily: (key, signature of what it shows, a function making its cells)
LazyRow = tuple[str, Hashable, Callable[[], Sequence[Text | str]]]


class LevelTable(FastCellsTable):
    """A DataTable whose cells can be coloured by level (theme variables: Rich Text in a
    cell cannot name a theme variable itself, `level_style` resolves them), updated in
    place (`sync`, `sync_rows`; the in-place update and the cells' drawing are
    `textual_private.FastCellsTable`'s)."""

    def sync_rows(self, columns: Sequence[str], rows: Sequence[LazyRow],
                  widths: Mapping[str, int] | None = None) -> bool:
        """`sync`, with each row given as (key, signature, make_cells): a row whose
        signature (a hashable summary of what its cells show) equals the one it had when
        last shown is not built or compared at all. A big pool's table has hundreds of
        rows and, on most refreshes, none of them changed: building and comparing every
        cell cost ~25 ms a refresh at 100 disks. The signatures are forgotten whenever the
        table is filled another way or its styles change."""
        sigs = self._row_sigs
        if sigs is None or labels(columns, widths) != self._sig_columns \
                or len(rows) != len(sigs) or any(key not in sigs for key, _, _ in rows):
            rebuilt = self.sync(columns, [(key, make()) for key, _, make in rows], widths)
            self._row_sigs = {key: sig for key, sig, _ in rows}
            self._sig_columns = labels(columns, widths)
            return rebuilt
        if [str(k.value) for k in self.rows] != [key for key, _, _ in rows]:
            self._row_sigs = None  # the same keys in another order (or cleared elsewhere)
            return self.sync_rows(columns, rows, widths)
        changed: list[tuple[str, str, Text | str]] = []
        for key, sig, make in rows:
            if sigs[key] == sig:
                continue
            sigs[key] = sig
            shown = self.get_row(key)
            changed += [(key, col, new) for col, old, new
                        in zip(columns, shown, make(), strict=True) if not same_cell(old, new)]
        if changed:
            self.update_cells(changed)
        return False

    _row_sigs: dict[str, Hashable] | None = None
    _sig_columns: list[str] = []

    def sync(self, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[Text | str]]],
             widths: Mapping[str, int] | None = None) -> bool:
        """Show `rows` ((key, cells) in order) under `columns`, changing only what differs:
        while the columns and the row keys are those shown, the rows are kept and only the
        cells whose text or style changed are updated (nothing at all when nothing did);
        other columns or other keys rebuild the table. True when it was rebuilt.
        `widths`: the least width of some columns (their headers are padded to it)."""
        self._row_sigs = None
        heads = labels(columns, widths)
        if [str(c.value) for c in self.columns] != list(columns) \
                or [c.label.plain for c in self.columns.values()] != heads:
            self.clear(columns=True)
            for c, head in zip(columns, heads, strict=True):
                # a str label would be parsed as Rich markup (and its first parse loads
                # Rich's emoji table: 6 ms of the first frame); a name is plain text
                self.add_column(Text(head), key=c)
        if [str(k.value) for k in self.rows] != [key for key, _ in rows]:
            self.clear()
            # clear() keeps each column's width (DataTable widths only grow): measure afresh,
            # or a note that has gone keeps its column wide (and a picture depends on which
            # rows happened to be shown before)
            for column in self.columns.values():
                column.content_width = column.label.cell_len
            for key, cells in rows:
                self.add_row(*cells, key=key)
            self.dimensions_now()  # laid out with its rows, not once without them first
            return True
        changed: list[tuple[str, str, Text | str]] = []
        for key, cells in rows:
            shown = self.get_row(key)
            changed += [(key, col, new) for col, old, new
                        in zip(columns, shown, cells, strict=True) if not same_cell(old, new)]
        if changed:
            self.update_cells(changed)
        return False

    def level_style(self, level: str) -> Style:
        """The colour of `level` (a key of LEVEL_STYLE) as a Rich style; none for "".
        The level's Content style (`$health-ok`...) resolved with the theme's variables
        now, as Content resolves it (the same colour a component class `color: $health-ok`
        gave: tests/ui/test_levels.py). Once these were six component classes: each
        styling of a table (its mount, each focus change) styled six more virtual nodes,
        ~9 ms of the first frame on Python 3.10 (issue 28). Worked out once per level
        until the styles change (a theme switch, a CSS reload: `notify_style_update`): a
        big pool's table asks for thousands of cells' levels on every refresh."""
        if not level:
            return _NO_STYLE
        style = self._level_styles.get(level)
        if style is None:
            style = self._level_styles[level] = self.app.stylesheet.parse_style(
                LEVEL_STYLE[level]).rich_style
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
