"""Disks: every block device that matters, its identity and I/O.

The body (`DisksView`) is a summary, the table (`disk_table.py`), the I/O footnote and the
selected disk's panel (`disk_detail.py`). Rows come from `services.read.disks.build_rows`;
each disk's SMART (its HEALTH word, the detail's SMART part) from the session's
`SmartFollow`, read by the console's own SMART poll (ui/smart_poll.py; `h` asks for the
selected disk now). Nothing here reads the host.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import Key, Resize
from textual.widgets import DataTable, Static

from zconsole.model.advice import Mute
from zconsole.model.finding import Severity
from zconsole.model.hosttext import visible
from zconsole.model.reading import DiskInventory, DiskState
from zconsole.services import fmt
from zconsole.services.health.smart_words import disk_word
from zconsole.services.read.disks import (
    BUSY_FOOTNOTE,
    ROLE_LOOK,
    DiskRow,
    RoleFilter,
    SortKey,
    build_rows,
    filter_rows,
    ignored_summary,
    io_missing_reason,
    sort_rows,
)
from zconsole.ui.kit.filter import ListFilter, open_filter
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import plain
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.disks.disk_detail import DiskDetail
from zconsole.ui.screens.disks.disk_smart import reread_due, smart_items
from zconsole.ui.screens.disks.disk_table import (
    ROLE_COLOUR,
    SPARK_COLUMNS,
    WIDE,
    DisksTable,
    columns,
    health_width,
    role_width,
    serial_width,
)
from zconsole.ui.screens.disks.mute import MUTED_WORD, live, toggle_mute
from zconsole.ui.state import ViewState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.smart_follow import SmartFollow

MUTED = LEVEL_STYLE["muted"]
# (kind, key, footer label) of every registry entry whose wizard is on this screen
# (`Wizard.screen == "disks"`), a copy tests/unit/test_registry.py holds equal to the
# registry's, as the Pools screen's WIZARD_KEYS: the first frame imports no domain
WIZARD_KEYS: tuple[tuple[str, str, str], ...] = (
    ("self-test", "T", "Self-test"),
)


class DisksView(Vertical):
    """Summary, slow-disk sentences, the table, the I/O footnote and the detail panel."""

    DEFAULT_CSS = """
    DisksView {
        height: 1fr;
        min-height: 16;
    }
    DisksView > #disks-summary {
        height: auto;
    }
    DisksView > #disks-table {
        height: auto;
        overflow-x: hidden;
    }
    DisksView > #disks-io-note {
        height: auto;
        color: $muted;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.filter = RoleFilter.ALL
        self.sort = SortKey.NAME
        self.expanded: set[str] = set()
        self.rows: list[DiskRow] = []
        self.shown: list[DiskRow] = []
        self.source = ""
        self._wide: bool | None = None
        self._keys: list[str] = []
        self._selected: str | None = None
        self._error: str | None = None
        self._inventory: DiskInventory | None = None
        self._smart: SmartFollow | None = None
        self._mutes: tuple[Mute, ...] = ()  # the operator's (`m`): judged out, shown dimmed
        self._now = 0.0
        self.words = ListFilter()  # `/`: the rows whose text holds the words typed

    def compose(self) -> ComposeResult:
        yield Static(id="disks-summary")
        yield DisksTable(cursor_type="row", zebra_stripes=False, id="disks-table")
        yield Static(id="disks-io-note")
        yield DiskDetail(id="disk-detail")

    # -- data ----------------------------------------------------------------------------
    def show(self, state: ViewState) -> None:
        snap = state.reading
        if snap is None:
            return
        part = snap.disks
        inv: DiskInventory | None = part.value
        if inv is None:
            self.rows = []
            self._error = (f"✖ Disks could not be listed: {part.error} "
                           f"(tried {fmt.age(part.age(state.mono))})")
            self._render_rows()
            return
        self._error = None
        self._smart, self._now, self._mutes = state.smart, state.now, state.mutes
        self.source = inv.source
        sample = state.sample
        diskstats_error = snap.diskstats.error if not snap.diskstats.ok else None
        reason = io_missing_reason(sample is not None,
                                   sample.errors if sample is not None else (),
                                   diskstats_error)
        self.rows = build_rows(
            inv,
            latest=sample.disks if sample is not None else None,
            history=state.sampler,
            findings=state.findings,
            io_missing=reason,
        )
        self._inventory = inv
        self._render_rows()

    def _render_rows(self) -> None:
        table = self.query_one(DisksTable)
        wide = self.app.size.width >= WIDE
        self._wide = wide
        width = self.app.size.width
        table.sparks = SPARK_COLUMNS[0] in columns(width)
        smart = self._smart
        table.health = {r.name: self._health(smart, r.name)
                        for r in self.rows} if smart is not None else {}
        health = health_width(table.health_words(r.name)[1] for r in self.rows)
        table.serial_room = serial_width(
            width, max((len(visible(r.disk.serial or "")) for r in self.rows), default=0),
            health)
        room = role_width(width, table.serial_room, health)
        rows = self.words.keep(sort_rows(filter_rows(self.rows, self.filter), self.sort),
                               partial(table.row_words, wide=wide, room=room))
        self.shown = rows
        self.query_one("#disks-summary", Static).update(self._summary())
        wanted = []
        for r in rows:
            expanded = r.name in self.expanded
            wanted.append((r.name, table.disk_cells(r, wide=wide, room=room,
                                                     expanded=expanded)))
            if expanded:
                wanted.extend(table.partition_rows(r, wide=wide, room=room))
        keys = [k for k, _ in wanted]
        selected = self._selected
        # rows kept and only changed cells updated while the same disks are listed
        if table.sync(columns(width), wanted):
            if selected in keys:
                table.move_cursor(row=keys.index(selected), animate=False)
        self._keys = keys
        self._fit_height(table, len(keys))
        self.query_one("#disks-io-note", Static).update(self._io_note())
        self._show_detail()

    def _health(self, smart: SmartFollow, disk: str) -> tuple[Severity | None, str]:
        """The HEALTH column: the disk's worst finding the operator has not muted ("muted"
        when they muted every one)."""
        found = smart.of_disk(disk)
        judged = live(found, self._mutes)
        if found and not judged:
            return None, MUTED_WORD
        return disk_word(smart.state(disk), judged)

    def _fit_height(self, table: DisksTable, rows: int) -> None:
        """Half the body for the table on tall terminals, a bit less on 24 lines; the
        detail panel takes the rest."""
        body = self.app.size.height - 3  # header 2, footer 1
        limit = max(6, int(body * (0.5 if body >= 33 else 0.45)))
        height = min(rows + 1, limit)
        current = table.styles.height
        if current is None or current.value != height:
            table.styles.height = height

    def _summary(self) -> Content:
        if self._error is not None:
            return plain(self._error, LEVEL_STYLE["bad"])
        counts: dict[DiskState | None, int] = {}
        for r in self.rows:
            counts[r.state] = counts.get(r.state, 0) + 1
        parts: list[Content | str] = [Content.styled(fmt.plural(len(self.rows), "disk"),
                                                     "bold")]
        for state in (DiskState.IN_POOL, DiskState.FREE, DiskState.IN_USE, DiskState.HAS_DATA,
                      None):
            n = counts.get(state)
            if n:
                word, symbol, level = ROLE_LOOK[state]
                parts.append(" · ")
                parts.append(Content.styled(f"{symbol} {n} {word.lower()}",
                                            LEVEL_STYLE.get(ROLE_COLOUR.get(level, ""), "")))
        inv = self._inventory
        extra = [f"filter: {self.filter.value} (f)", f"sort: {self.sort.value} (s)",
                 "enter: partitions"]
        if inv is not None:
            if not any("identity from" in note for note in inv.notes):
                extra.append(f"identity from {inv.source}")
            extra.extend(inv.notes)
            ign = ignored_summary(inv)
            if ign:
                extra.append(ign)
        parts.append(plain("\n" + " · ".join(extra), MUTED))
        return Content.assemble(*parts)

    def _io_note(self) -> Content:
        missing = sorted({r.io_missing for r in self.shown if r.io_missing})
        lines = [f"I/O - {m}" for m in missing]
        lines.append(BUSY_FOOTNOTE)
        if not self.shown and self.words.active:
            lines.insert(0, f"No disk matches “{' '.join(self.words.words)}” (escape in the "
                            "filter shows every disk).")
        elif not self.shown:
            lines.insert(0, f"No disk matches the filter “{self.filter.value}” (f: next filter).")
        return plain("\n".join(lines), MUTED)

    # -- selection -----------------------------------------------------------------------
    def _current_row(self) -> DiskRow | None:
        table = self.query_one(DisksTable)
        if not self._keys or table.cursor_row < 0 or table.cursor_row >= len(self._keys):
            return None
        key = self._keys[table.cursor_row]
        name = key.removeprefix("part:")
        for r in self.shown:
            if r.name == name or any(p.name == name for p in r.partitions):
                return r
        return None

    def _show_detail(self) -> None:
        row = self._current_row()
        detail = self.query_one(DiskDetail)
        detail.display = row is not None
        if row is not None:
            detail.show(row, self.source or "the host",
                        smart_items(self._smart, row.name, self._now, self._mutes))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._selected = str(event.row_key.value)
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self._selected = str(event.row_key.value)
        self.toggle_partitions()

    # -- actions -------------------------------------------------------------------------
    def toggle_partitions(self) -> None:
        row = self._current_row()
        if row is None or not row.partitions:
            return
        if row.name in self.expanded:
            self.expanded.discard(row.name)
        else:
            self.expanded.add(row.name)
        self._selected = row.name
        self._render_rows()

    def on_key(self, event: Key) -> None:
        """Escape on the table clears the `/` words, as escape in their bar does."""
        if event.key == "escape" and self.words.clear():
            event.stop()

    def open_filter(self) -> None:
        table = self.query_one(DisksTable)
        open_filter(self.words, anchor=table, redraw=self._render_rows)

    def selected_disk(self) -> str | None:
        """The whole disk of the selected row (a partition's row: its disk)."""
        row = self._current_row()
        return row.name if row is not None else None

    def reread_running(self) -> str | None:
        """Ask again for the selected disk's SMART when a self-test runs on it and its
        reading is `RUNNING_REREAD_S` old (the progress moves); the disk asked for."""
        row = self._current_row()
        if row is None or self._smart is None or not reread_due(self._smart, row.name,
                                                                   self._now):
            return None
        self._smart.request(row.name)
        return row.name

    def read_smart(self) -> str | None:
        """`h`: ask for the selected disk's SMART (read by the poll the screen starts);
        the disk asked for."""
        row = self._current_row()
        if row is None or self._smart is None:
            return None
        self._smart.request(row.name)
        self._render_rows()
        return row.name

    def cycle_filter(self) -> None:
        self.filter = self.filter.next()
        self._render_rows()

    def cycle_sort(self) -> None:
        self.sort = self.sort.next()
        self._render_rows()

    def relayout(self) -> None:
        """Size the table and the detail panel to the terminal (called on resize)."""
        if self._wide is not None:
            self._render_rows()


class DisksScreen(ZScreen):
    MAIN = "#disks-table"

    BINDINGS = [
        Binding("f", "cycle_filter", "Filter"),
        Binding("s", "cycle_sort", "Sort"),
        # not in the footer (80 columns hold T, Refresh, Pause and Quit): enter does the
        # same, and the summary line says so
        Binding("x", "toggle_partitions", "Partitions", show=False),
        Binding("h", "read_smart", "SMART now"),
        Binding("m", "mute", "Mute SMART", show=False),
        Binding("slash", "filter", "Find", show=False),
        *(Binding(key, f"wizard('{kind}')", label) for kind, key, label in WIZARD_KEYS),
    ]

    DEFAULT_CSS = """
    DisksScreen .body {
        overflow-y: auto;
    }
    """

    def compose_body(self) -> ComposeResult:
        yield DisksView(classes="disks")

    def show_state(self, state: ViewState) -> None:
        if state.reading is not None:
            view = self.query_one(DisksView)
            view.show(state)
            if view.reread_running() is not None:
                from zconsole.ui.smart_poll import poll_if_due

                app = self.console_app
                poll_if_due(app, app.current)

    def on_resize(self, event: Resize) -> None:
        self.query_one(DisksView).relayout()

    def action_cycle_filter(self) -> None:
        self.query_one(DisksView).cycle_filter()

    def action_filter(self) -> None:
        self.query_one(DisksView).open_filter()

    def action_cycle_sort(self) -> None:
        self.query_one(DisksView).cycle_sort()

    def action_toggle_partitions(self) -> None:
        self.query_one(DisksView).toggle_partitions()

    def action_read_smart(self) -> None:
        from zconsole.ui.smart_poll import poll_if_due

        if self.query_one(DisksView).read_smart() is not None:
            app = self.console_app
            poll_if_due(app, app.current)

    def action_mute(self) -> None:
        """`m`: mute the selected disk's SMART findings with a reason, or unmute them."""
        disk = self.query_one(DisksView).selected_disk()
        if disk is not None:
            app = self.console_app
            toggle_mute(app, disk, lambda: self.show_state(app.view_state()))

    # -- wizards (the registry's entries whose wizard is on this screen) --------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "wizard":
            return not self.console_app.read_only
        return True

    def system_commands(self) -> Iterator[SystemCommand]:
        """The palette's entries for this screen: muting the selected disk's SMART (`m`),
        and one per wizard of the registry on it, none when the console is read-only."""
        yield SystemCommand("Mute or unmute SMART (m)",
                            "the selected disk's SMART findings, with a reason",
                            self.action_mute)
        if self.console_app.read_only:
            return
        from zconsole.services.ops import registry

        for op in registry.with_wizard("disks"):
            yield SystemCommand(f"Wizard: {op.help}", "on the selected disk",
                                partial(self.action_wizard, op.kind))

    def action_wizard(self, kind: str) -> None:
        """Open `kind`'s wizard on the selected disk (its `disk` answer given)."""
        disk = self.query_one(DisksView).selected_disk()
        if self.console_app.read_only or disk is None:
            return
        from zconsole.ui.wizards.flows import make_flow
        from zconsole.ui.wizards.screen import WizardScreen

        app = self.console_app
        flow = make_flow(kind, preset={"disk": disk}, findings=tuple(app.findings))
        app.push_screen(WizardScreen(flow, host=app.host, reading=app.reading))
