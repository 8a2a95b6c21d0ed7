"""The Disks view: a table of whole disks (role, size, media, I/O) and the selected disk's
identity, partitions, holders and I/O history.

Rows come from `services.disks_view.build_rows`; nothing here reads the host.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Label, Sparkline, Static

from zconsole.model.disk import DiskIo
from zconsole.model.reading import DiskInventory, DiskState
from zconsole.services import fmt
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
from zconsole.ui.kit.text import fit, spark
from zconsole.ui.state import ViewState

WIDE = 110  # from this terminal width on, the table also shows r/s, w/s and busy history
HISTORY_CELLS = 12

LEVEL_VAR = {"ok": "health-ok", "warn": "health-warn", "bad": "health-bad",
             "off": "muted", "free": "primary"}


def role_cell(row: DiskRow, colours: dict[str, str], width: int) -> Text:
    style = colours.get(LEVEL_VAR.get(row.role_level, ""), "")
    t = Text()
    if row.slow is not None:
        factor = f" {row.slow.factor:.1f}×" if row.slow.factor is not None else ""
        slow = f"▲ SLOW{factor} "
        t.append(slow, style=colours.get("health-warn", "") + " bold")
        t.append(fit(row.role_detail, width - len(slow)), style=style)
        return t
    t.append(row.role_symbol + " ", style=style)
    t.append(fit(row.role_sentence, width - 2), style=style)
    return t


def io_cells(io: DiskIo | None, wide: bool, history: Sequence[float]) -> list[str | Text]:
    if io is None:
        cells: list[str | Text] = ["-", "-", "-"]
        if wide:
            cells += ["-", "-"]
    else:
        cells = [f"{io.util_pct:.0f}%", f"{fmt.ms(io.r_await_ms)}/{fmt.ms(io.w_await_ms)}",
                 f"{io.aqu_sz:.2f}"]
        if wide:
            cells += [f"{io.r_s:.0f}", f"{io.w_s:.0f}"]
    if wide:
        cells.append(spark(history, HISTORY_CELLS, 100.0) or "-")
    return cells


class DisksTable(DataTable[str | Text]):
    """The table; enter toggles the partitions of the disk under the cursor."""


class DiskDetail(VerticalScroll, can_focus=True):
    """Everything known about the selected disk."""

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield Label("", id="spark-empty", classes="spark-note")
        with Horizontal(classes="spark-row"):
            yield Label("busy %", classes="spark-label")
            yield Sparkline([], id="spark-busy")
            yield Label("", id="spark-busy-note", classes="spark-note")
        with Horizontal(classes="spark-row"):
            yield Label("r_await ms", classes="spark-label")
            yield Sparkline([], id="spark-r")
            yield Label("", id="spark-r-note", classes="spark-note")
        with Horizontal(classes="spark-row"):
            yield Label("w_await ms", classes="spark-label")
            yield Sparkline([], id="spark-w")
            yield Label("", id="spark-w-note", classes="spark-note")
        yield Static(id="detail-text")


def _unknown(what: str, source: str) -> str:
    return f"- ({what} not reported by {source})"


def detail_head(row: DiskRow, colours: dict[str, str]) -> Text:
    """Title, slow-disk sentence, role reasons and the newest I/O figures."""
    level = colours.get(LEVEL_VAR.get(row.role_level, ""), "")
    muted = colours.get("muted", "")
    t = Text()
    t.append(row.name, style="bold")
    if row.preferred_id:
        t.append(f" ({row.preferred_id})")
    t.append("  ")
    t.append(f"{row.role_symbol} {row.role_word}", style=level + " bold")
    if row.state is DiskState.IN_POOL:
        t.append(f"  {row.pool}, {row.vdev}")
    if row.slow is not None:
        t.append(f"\n▲ {row.slow.message}", style=colours.get("health-warn", "") + " bold")
    for i, reason in enumerate(row.reasons):
        t.append("\n" + ("role       " if i == 0 else " " * 11), style=muted)
        t.append(reason)
    io = row.io
    t.append("\nI/O        ", style=muted)
    if io is None:
        t.append(f"- ({(row.io_missing or 'unknown').split(':')[0]})")
    else:
        t.append(f"over {io.interval_s:.0f} s: busy {io.util_pct:.0f}%  r_await "
                 f"{fmt.ms(io.r_await_ms)} ms  w_await {fmt.ms(io.w_await_ms)} ms  "
                 f"aqu-sz {io.aqu_sz:.2f}")
        t.append("\n" + " " * 11, style=muted)
        t.append(f"{io.r_s:.1f} r/s  {io.w_s:.1f} w/s  {io.rkb_s:.0f} kB/s read  "
                 f"{io.wkb_s:.0f} kB/s written")
    return t


def detail_text(row: DiskRow, colours: dict[str, str], source: str) -> Text:
    """Identity, partitions and holders of one disk."""
    t = Text()

    def line(label: str, value: str, style: str = "") -> None:
        t.append(f"{label:<11}", style=colours.get("muted", ""))
        t.append(value + "\n", style=style)

    if row.by_id:
        line("by-id", row.by_id[0])
        for other in row.by_id[1:]:
            line("", other)
    else:
        line("by-id", "- (no /dev/disk/by-id link for this disk)")
    line("by-path", ", ".join(row.by_path) if row.by_path else
         "- (no /dev/disk/by-path link for this disk)")
    line("serial", row.serial or _unknown("serial", source))
    model = row.model or _unknown("model", source)
    if row.model and row.vendor and row.vendor.strip() and row.vendor.strip() != "ATA":
        model = f"{row.model} (vendor {row.vendor.strip()})"
    line("model", model)
    if row.wwn:
        line("wwn", row.wwn)
    size = (f"{fmt.size(row.size_bytes, short=True)} ({row.size_bytes:,} bytes)"
            if row.size_bytes is not None else _unknown("size", source))
    line("size", size)
    if row.rotational is None:
        media = _unknown("queue/rotational", source)
    else:
        media = (f"{row.media} (kernel: rotational)" if row.rotational else
                 f"{row.media} (kernel: non-rotational)")
    if row.transport:
        media += f", transport {row.transport}"
    line("media", media)
    if row.logical_sector is None or row.physical_sector is None:
        line("sectors", _unknown("sector size", source))
    else:
        line("sectors", f"{row.logical_sector} B logical / {row.physical_sector} B physical "
             f"({row.sector_format})")
    if row.state is DiskState.IN_POOL and row.leaf:
        line("zpool name", row.leaf)
    if row.partitions:
        for i, p in enumerate(row.partitions):
            line("partitions" if i == 0 else "",
                 f"{p.name:<10} {fmt.size(p.size_bytes, short=True):>7}  {p.use}")
    else:
        line("partitions", "none")
    own = []
    if row.fs_type:
        own.append(f"signature {row.fs_type} on the whole disk")
    if row.mountpoints:
        own.append("mounted at " + ", ".join(row.mountpoints))
    if own:
        line("whole disk", "; ".join(own))
    line("holders", ", ".join(row.holders) if row.holders else "none (no dm/md on the disk)")
    t.rstrip()
    return t


class DisksView(Vertical):
    """Summary, slow-disk sentences, the table, the I/O footnote and the detail panel."""

    class Changed(Message):
        """Filter or sort changed (the screen re-renders from the last state)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
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

    def compose(self) -> ComposeResult:
        yield Static(id="disks-summary")
        table: DisksTable = DisksTable(cursor_type="row", zebra_stripes=False,
                                       id="disks-table")
        yield table
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
                           f"(tried {fmt.age(part.age(state.now))})")
            self._render_rows()
            return
        self._error = None
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
        colours = self.app.get_css_variables()
        rows = sort_rows(filter_rows(self.rows, self.filter), self.sort)
        self.shown = rows
        self._summary(colours)
        table = self.query_one(DisksTable)
        wide = self.app.size.width >= WIDE
        if wide != self._wide:
            table.clear(columns=True)
            self._keys = []
            cols = ["DISK", "ROLE", "SIZE", "TYPE", "BUSY", "AWAIT r/w", "AQU"]
            if wide:
                cols += ["R/S", "W/S", "BUSY HISTORY"]
            for c in cols:
                table.add_column(c, key=c)
            self._wide = wide
        role_width = self._role_width(wide)
        wanted: list[tuple[str, list[str | Text]]] = []
        for r in rows:
            cells: list[str | Text] = [
                r.name, role_cell(r, colours, role_width), fmt.size(r.size_bytes, short=True),
                r.media or "-", *io_cells(r.io, wide, r.busy_series)]
            marker = "▾ " if r.name in self.expanded else ("▸ " if r.partitions else "  ")
            cells[0] = marker + r.name
            wanted.append((r.name, cells))
            if r.name in self.expanded:
                for i, p in enumerate(r.partitions):
                    lead = "└ " if i == len(r.partitions) - 1 else "├ "
                    use = Text(fit(p.use, role_width), style=colours.get("muted", ""))
                    pcells: list[str | Text] = ["  " + lead + p.name, use,
                                                fmt.size(p.size_bytes, short=True), "", "", "", ""]
                    if wide:
                        pcells += ["", "", ""]
                    wanted.append((f"part:{p.name}", pcells))
        keys = [k for k, _ in wanted]
        if keys == self._keys:
            for key, cells in wanted:
                for col, value in zip(table.columns, cells, strict=True):
                    table.update_cell(key, col, value)
        else:
            selected = self._selected
            table.clear()
            for key, cells in wanted:
                table.add_row(*cells, key=key)
            self._keys = keys
            if selected in keys:
                table.move_cursor(row=keys.index(selected), animate=False)
        self._fit_height(table, len(keys))
        self._io_note(colours)
        self._show_detail()

    def _fit_height(self, table: DisksTable, rows: int) -> None:
        """Half the body for the table on tall terminals, a bit less on 24 lines; the
        detail panel takes the rest."""
        body = self.app.size.height - 3  # header 2, footer 1
        limit = max(6, int(body * (0.5 if body >= 33 else 0.45)))
        height = min(rows + 1, limit)
        current = table.styles.height
        if current is None or current.value != height:
            table.styles.height = height

    def _role_width(self, wide: bool) -> int:
        # Cells plus 2 padding each: DISK 9, SIZE 6, TYPE 4, BUSY 4, AWAIT 9, AQU 4; ROLE's
        # own padding 2; body padding and scrollbars 4. Wide adds R/S 5, W/S 5, history 12.
        fixed = (9 + 6 + 4 + 4 + 9 + 4) + 6 * 2 + 2 + 4
        if wide:
            fixed += 5 + 5 + 12 + 3 * 2
        return max(20, min(48, self.app.size.width - fixed))

    def _summary(self, colours: dict[str, str]) -> None:
        if self._error is not None:
            self.query_one("#disks-summary", Static).update(
                Text(self._error, style=colours.get("health-bad", "")))
            return
        counts: dict[DiskState | None, int] = {}
        for r in self.rows:
            counts[r.state] = counts.get(r.state, 0) + 1
        t = Text()
        n_rows = len(self.rows)
        t.append(f"{n_rows} disk{'' if n_rows == 1 else 's'}", style="bold")
        for state in (DiskState.IN_POOL, DiskState.FREE, DiskState.IN_USE, DiskState.HAS_DATA,
                      None):
            n = counts.get(state)
            if n:
                word, symbol, level = ROLE_LOOK[state]
                t.append(" · ")
                t.append(f"{symbol} {n} {word.lower()}",
                         style=colours.get(LEVEL_VAR.get(level, ""), ""))
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
        t.append("\n" + " · ".join(extra), style=colours.get("muted", ""))
        self.query_one("#disks-summary", Static).update(t)

    def _io_note(self, colours: dict[str, str]) -> None:
        missing = sorted({r.io_missing for r in self.shown if r.io_missing})
        lines = [f"I/O - {m}" for m in missing]
        lines.append(BUSY_FOOTNOTE)
        if not self.shown:
            lines.insert(0, f"No disk matches the filter “{self.filter.value}” (f: next filter).")
        self.query_one("#disks-io-note", Static).update(
            Text("\n".join(lines), style=colours.get("muted", "")))

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
        if row is None:
            detail.display = False
            return
        detail.display = True
        colours = self.app.get_css_variables()
        self.query_one("#detail-head", Static).update(detail_head(row, colours))
        self.query_one("#detail-text", Static).update(
            detail_text(row, colours, self.source or "the host"))
        empty = not (row.busy_series or row.r_await_series or row.w_await_series)
        self.query_one("#spark-empty", Label).update(
            "history    - (no intervals yet)" if empty else "")
        self.query_one("#spark-empty", Label).display = empty
        for spark_row in self.query(".spark-row"):
            spark_row.display = not empty
        for sid, series, unit in (("spark-busy", row.busy_series, "%"),
                                  ("spark-r", row.r_await_series, " ms"),
                                  ("spark-w", row.w_await_series, " ms")):
            spark = self.query_one(f"#{sid}", Sparkline)
            note = self.query_one(f"#{sid}-note", Label)
            if series:
                spark.data = list(series)
                spark.styles.width = min(len(series), 48)
                spark.display = True
                top = max(series)
                top_text = f"{top:.0f}%" if unit == "%" else f"{fmt.ms(top)}{unit}"
                note.update(f"{len(series)} intervals, max {top_text}, "
                            f"now {series[-1]:.0f}{unit}" if unit == "%" else
                            f"{len(series)} intervals, max {top_text}, "
                            f"now {fmt.ms(series[-1])}{unit}")
            else:
                spark.data = []
                spark.display = False
                note.update("- (no history yet)")

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
