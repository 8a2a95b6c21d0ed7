"""Fleet: every host the console follows, one row each, worst state first (the fleet's
order among equals).

Each host has its own session and refresh loop (the app's `members`): a host that does not
answer holds only its own row, which says since when ("no answer for 2 min"), never its last
ONLINE. A row sums the host up as `services.fleet.fleet_row` judges it: the worst of the
console's own findings, pools, the fullest pool's capacity, scrubs and resilvers running,
slow disks, the reading's age. `enter` shows that host on every screen (the Pools screen
first); the line under the table is the highlighted host's highest finding on the one scale
(`services.health.severity`): the pool that lost its redundancy before a slow disk.
`/` narrows the rows to those whose text holds every word typed (`kit/filter.py`): the
words hold across refreshes, escape clears them.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from zconsole.model.finding import Severity
from zconsole.services.fleet import FleetRow, fleet_row, worst_first
from zconsole.ui.kit.filter import ListFilter, open_filter, row_text
from zconsole.ui.kit.levels import SEVERITY_LEVEL, LevelTable
from zconsole.ui.kit.text import plain, update_if_changed
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState

COLUMNS = ("Host", "State", "Reading", "Pools", "Full", "Slow", "Scrub / resilver", "Tags")
# Under WIDE columns the scans column shows their progress alone (the line under the table
# names them for the highlighted host) and the tags are left out: a row fits 80 columns.
NARROW = ("Host", "State", "Reading", "Pools", "Full", "Slow", "Scan")
WIDE = 100


class FleetTable(LevelTable):
    """The hosts, one row each (keyed by their place in the fleet). Its enter is the
    footer's "Show host": the table has the focus (the screen's main list), and a binding
    of the screen's own for the same key was hidden by the table's unshown "Select"."""

    BINDINGS = [Binding("enter", "select_cursor", "Show host")]


class FleetScreen(ZScreen):
    MAIN = "#fleet-table"

    BINDINGS = [Binding("slash", "filter", "Find", show=False)]

    DEFAULT_CSS = """
    FleetScreen FleetTable {
        height: auto;
        max-height: 20;
    }
    FleetScreen #fleet-detail {
        height: auto;
        padding: 0 1;
        color: $muted;
    }
    """

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.rows: list[FleetRow] = []  # in the fleet's order
        self.order: list[int] = []  # the rows' places as shown: worst state first
        self.filter = ListFilter()  # `/`: the hosts whose row holds the words typed

    def compose_body(self) -> ComposeResult:
        yield FleetTable(cursor_type="row", zebra_stripes=False, id="fleet-table")
        yield Static("", id="fleet-detail")

    def on_mount(self) -> None:
        self._redraw(self.console_app.mono())
        table = self.query_one(FleetTable)
        table.focus()
        current = self.console_app.current
        at = next((i for i, m in enumerate(self.console_app.members) if m is current), 0)
        self.call_after_refresh(self._cursor_on, at)  # once the table holds its rows

    def _cursor_on(self, member: int) -> None:
        """The cursor on the row of the fleet's `member`-th host, wherever it is sorted."""
        if member in self.order:
            self.query_one(FleetTable).move_cursor(row=self.order.index(member))
            self._detail()

    def show_state(self, state: ViewState) -> None:
        self._redraw(state.mono)

    def member_refreshed(self, state: ViewState) -> None:
        self._redraw(state.mono)

    def refresh_frame(self, state: ViewState) -> None:
        super().refresh_frame(state)
        self._redraw(state.mono)  # the ages move every second

    def _redraw(self, now: float) -> None:
        tables = list(self.query(FleetTable)) if self.is_mounted else []
        if not tables:  # the frame's tick can come between the mount and the compose
            return
        app = self.console_app
        was = self.highlighted()
        self.rows = [fleet_row(m, now, app.stale_after) for m in app.members]
        table = tables[0]
        current = app.current
        wide = app.size.width >= WIDE
        cells = self.filter.keep(
            ((str(i), self._cells(table, self.rows[i], app.members[i] is current, wide))
             for i in worst_first(self.rows)), self._text_of)
        self.order = [int(key) for key, _ in cells]
        if table.sync(COLUMNS if wide else NARROW, cells) and was in self.order:
            table.move_cursor(row=self.order.index(was))  # the same host stays highlighted
        self._detail()

    def _text_of(self, row: tuple[str, list[Text | str]]) -> str:
        """What `/` searches: the row's text and the host's tags (not shown at 80 columns)."""
        return " ".join((row_text(row[1]), *self.rows[int(row[0])].tags))

    def _cells(self, table: FleetTable, r: FleetRow, current: bool, wide: bool
               ) -> list[Text | str]:
        """One host's cells; the host on screen in bold (the header names it too)."""
        level = SEVERITY_LEVEL[r.state]
        full = f"{r.capacity} %" if r.capacity is not None else "-"
        if wide:
            scans = ", ".join(r.scans) or "-"
        else:  # "37 %", or how many run
            scans = (r.scans[0].rsplit(" ", 2)[-2] + " %" if len(r.scans) == 1
                     and r.scans[0].endswith(" %") else
                     f"{len(r.scans)} run" if r.scans else "-")
        cells: list[Text | str] = [
            table.level_text(r.name, bold=current),
            table.level_text(f"{r.state.symbol} {r.state.name}", level),
            table.level_text(r.age, "" if r.answering else "bad"),
            str(r.pools) if r.pools is not None else "-",
            table.level_text(full, "warn" if r.capacity is not None and r.capacity >= 80
                             else ""),
            table.level_text(str(r.slow) if r.pools is not None else "-",
                             "warn" if r.slow else ""),
            table.level_text(scans),
        ]
        if wide:
            cells.append(table.level_text(" ".join(r.tags), "muted"))
        return cells

    def highlighted(self) -> int | None:
        table = self.query_one(FleetTable)
        if not self.order or table.cursor_row < 0 or table.cursor_row >= len(self.order):
            return None
        return self.order[table.cursor_row]

    def _detail(self) -> None:
        i = self.highlighted()
        if i is None:
            text = (f"No host matches “{' '.join(self.filter.words)}” (escape in the filter "
                    "shows every host)." if self.filter.active and not self.order else "")
        else:
            r = self.rows[i]
            said = r.problem or ("nothing to report" if r.state is Severity.OK else "")
            parts = [f"{r.name}: {said}" if said else r.name]
            if r.scans:
                parts.append("running: " + ", ".join(r.scans))
            if r.tags:
                parts.append("tags: " + " ".join(r.tags))
            text = " · ".join(parts) + "\n(enter: show this host on every screen)"
        update_if_changed(self.query_one("#fleet-detail", Static), text,
                          lambda: plain(text))

    def action_filter(self) -> None:
        open_filter(self.filter, anchor=self.query_one(FleetTable),
                    redraw=lambda: self._redraw(self.console_app.mono()))

    def on_key(self, event: events.Key) -> None:
        """Escape on the table clears the `/` words, as escape in their bar does."""
        if event.key == "escape" and self.filter.clear():
            event.stop()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_show_host()

    def action_show_host(self) -> None:
        """Every screen shows the highlighted host from now on (the Pools screen first)."""
        i = self.highlighted()
        if i is None:
            return
        self.console_app.switch_host(self.console_app.members[i])
