"""The pools view: per pool its health, capacity and scan, then the vdev tree as a table.

Two column sets share the tree: **health** (state, READ/WRITE/CKSUM errors, size, notes) and
**performance** (busy time, kernel r/w await, ZFS disk_wait, a latency trend), toggled with
`m`; at 80 columns both fit, side by side they would not. The slow disk of a vdev stands out
in both, and its sentence is printed above the table.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, PoolUsage, ScanState, Section, Vdev
from zconsole.model.reading import PoolEntry
from zconsole.services.read.pools import LeafMetrics
from zconsole.services.read.progress import ScanEstimate
from zconsole.ui.kit.widgets import human_bytes, human_duration, state_level, state_text
from zconsole.ui.state import ViewState

HEALTH_COLUMNS = ("NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "NOTE")
PERF_COLUMNS = ("NAME", "STATE", "BUSY", "R AWAIT", "W AWAIT", "ZFS R/W", "TREND")
WIDE_PERF_COLUMNS = ("DISK", "SERIAL")
# Width of everything but NAME, cell padding (1 each side) included, plus NAME's own padding
# (2) and the screen's margins and scrollbar (3).
#   health: STATE 12, READ 6, WRITE 7, CKSUM 7, SIZE 8, NOTE 17 ("too many errors")
#   performance: STATE 12, BUSY 6, R AWAIT 9, W AWAIT 9, ZFS R/W 11, TREND 10
HEALTH_FIXED = 12 + 6 + 7 + 7 + 8 + 17 + 2 + 3
PERF_FIXED = 12 + 6 + 9 + 9 + 11 + 10 + 2 + 3
WIDE_EXTRA = 10 + 18  # DISK, SERIAL: shown when the terminal is at least this much wider
MIN_NAME_WIDTH = 18
SPARK = "▁▂▃▄▅▆▇█"
TREND_WIDTH = 8

SECTION_TITLE = {Section.LOGS: "logs", Section.CACHE: "cache", Section.SPARES: "spares",
                 Section.SPECIAL: "special", Section.DEDUP: "dedup"}


def tree_rows(top: Vdev, last: bool) -> list[tuple[str, tuple[str, ...], Vdev]]:
    """(guide prefix, vdev path, vdev) for a top-level vdev and its children, drawn like
    tree(1): the guides survive copy-paste and any renderer, unlike leading spaces."""
    out: list[tuple[str, tuple[str, ...], Vdev]] = []

    def visit(v: Vdev, lead: str, is_last: bool, path: tuple[str, ...]) -> None:
        here = (*path, v.name)
        out.append((lead + ("└─ " if is_last else "├─ "), here, v))
        child_lead = lead + ("   " if is_last else "│  ")
        for j, c in enumerate(v.children):
            visit(c, child_lead, j == len(v.children) - 1, here)

    visit(top, "", last, ())
    return out


def fit_name(indent: str, name: str, width: int) -> str:
    """Shorten a long by-id name in the middle, keeping its start (bus, model) and its end
    (the serial, which is what is printed on the disk's label)."""
    room = width - len(indent)
    if len(name) <= room or room < 12:
        return indent + name
    tail = max(8, room // 2)
    head = room - tail - 1
    return indent + name[:head] + "…" + name[-tail:]


def sparkline(values: tuple[float, ...], top: float, width: int = TREND_WIDTH) -> str:
    """Text sparkline of the last `width` values on a shared scale (`top` = full height), so
    peers of one pool compare at a glance."""
    vals = values[-width:]
    if not vals or top <= 0:
        return ""
    return "".join(SPARK[min(len(SPARK) - 1, int(v / top * (len(SPARK) - 1) + 0.5))]
                   for v in vals)


def capacity_bar(pct: int, width: int = 10) -> str:
    filled = max(0, min(width, round(pct / 100 * width)))
    return "█" * filled + "░" * (width - filled)


def scan_sentence(pool: Pool, estimate: ScanEstimate | None = None) -> str | None:
    scan = pool.scan
    if scan is None or scan.function is None:
        return None
    what = scan.function.value
    if scan.state is ScanState.IN_PROGRESS:
        s = f"{what} in progress"
        if scan.percent_done is not None:
            s += f", {scan.percent_done:.1f}% done"
        if estimate is not None and estimate.eta_seconds is not None:
            s += (f"; at the pace of the last {human_duration(int(estimate.span_s))} "
                  f"({estimate.pace_pct_per_min:.2f}%/min) done in about "
                  f"{human_duration(estimate.eta_seconds)}")
        elif estimate is not None and estimate.stalled:
            s += f"; no progress in the last {human_duration(int(estimate.span_s))}"
        else:
            s += "; zconsole's own estimate after the next refresh"
        if scan.eta_seconds is not None:
            s += f" (zpool says {human_duration(scan.eta_seconds)})"
        return s
    if scan.state is ScanState.FINISHED:
        return f"last {what} finished" + (f" with {scan.errors} errors"
                                          if scan.errors else ", no errors")
    if scan.state is ScanState.CANCELED:
        return f"{what} canceled"
    return scan.raw or None


def pool_summary(entry: PoolEntry, colours: Mapping[str, str],
                 estimate: ScanEstimate | None = None) -> Text:
    t = Text()
    t.append(entry.name, style="bold")
    t.append("  ")
    t.append_text(state_text(entry.health, colours))
    u: PoolUsage | None = entry.usage
    if u is not None and u.size:
        cap = u.capacity if u.capacity is not None else None
        t.append(" · ")
        if cap is not None:
            level = "bad" if cap >= 90 else "warn" if cap >= 80 else "ok"
            t.append(capacity_bar(cap), style=colours.get(f"health-{level}", ""))
            t.append(f" {cap}% of {human_bytes(u.size)}")
        else:
            t.append(f"{human_bytes(u.size)}")
        if u.fragmentation is not None:
            t.append(f", frag {u.fragmentation}%")
        if u.dedupratio is not None and u.dedupratio != 1.0:
            t.append(f", dedup {u.dedupratio:.2f}x")
        if u.expandsize:
            t.append(f", {human_bytes(u.expandsize)} unclaimed (EXPANDSZ)")
    if entry.status is None:
        t.append("\n  health unknown: zpool status could not be read",
                 style=colours.get("health-warn", ""))
        return t
    scan = scan_sentence(entry.status, estimate)
    if scan:
        t.append(f"\n  {scan}")
    if entry.status.status:
        t.append(f"\n  status: {' '.join(entry.status.status.split())}")
    if entry.status.errors and entry.status.errors != "No known data errors":
        t.append(f"\n  errors: {entry.status.errors}", style=colours.get("health-bad", ""))
    return t


def _cursor_key(table: DataTable[Text | str]) -> str | None:
    if table.row_count == 0:
        return None
    try:
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    except Exception:  # noqa: BLE001 - no cursor row (empty or being rebuilt)
        return None
    return str(key) if key is not None else None


def _ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


class PoolBlock(Vertical):
    def __init__(self, name: str) -> None:
        super().__init__(classes="pool")
        self.pool_name = name
        self.summary = Static(classes="pool-summary")
        self.table: DataTable[Text | str] = DataTable(cursor_type="row", zebra_stripes=False,
                                                      show_cursor=False, classes="vdevs")
        self.findings = Static(classes="findings")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.summary
        yield self.findings
        yield self.table


class PoolsView(Vertical):
    """One block per pool. Blocks are kept and updated in place across refreshes.

    Unless the console is read-only, each table shows a row cursor (Tab moves between
    pools): the wizards act on the row it selects, and the cursor stays on the same vdev
    across refreshes (rows are found again by key, not by position).
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.performance = False
        self._state: ViewState | None = None
        self._last_key: str | None = None  # row key of the last selected row

    def selected_key(self) -> str | None:
        """Row key under the cursor of the focused pool table (or the last one focused)."""
        focused = self.screen.focused
        for block in self.query(PoolBlock):
            if block.table is focused:
                key = _cursor_key(block.table)
                if key is not None:
                    self._last_key = key
                return key
        if self._last_key is not None:
            for block in self.query(PoolBlock):
                if self._last_key in {k.value for k in block.table.rows}:
                    return self._last_key
        blocks = list(self.query(PoolBlock))
        return _cursor_key(blocks[0].table) if blocks else None

    def toggle_columns(self) -> None:
        self.performance = not self.performance
        if self._state is not None:
            self.show(self._state)

    def show(self, state: ViewState) -> None:
        self._state = state
        reading = state.reading
        if reading is None:
            return
        entries = reading.pools
        if not reading.zfs.present:
            self._message(reading.zfs.message)
            return
        if not entries:
            if reading.pool_status.ok:
                self._message("No pools are imported on this host.")
            else:
                self._message(f"Pools could not be read: {reading.pool_status.error}")
            return
        self._message(None)
        blocks = {b.pool_name: b for b in self.query(PoolBlock)}
        for entry in entries:
            block = blocks.pop(entry.name, None)
            if block is None:
                block = PoolBlock(entry.name)
                self.mount(block)
            self._fill(block, entry, state)
        for stale in blocks.values():
            stale.remove()
        self._show_cursor()

    def _show_cursor(self) -> None:
        """One cursor on screen: on the focused pool table (the first one when none has
        the focus); none at all when read-only (no wizard acts on a selection then)."""
        read_only = self._state is None or self._state.read_only
        tables = [b.table for b in self.query(PoolBlock)]
        focused = next((t for t in tables if t.has_focus), None)
        for i, t in enumerate(tables):
            t.show_cursor = not read_only and (t is focused or (focused is None and i == 0))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._show_cursor()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._show_cursor()

    def _message(self, text: str | None) -> None:
        existing = self.query("#pools-message")
        if text is None:
            existing.remove()
            return
        for b in self.query(PoolBlock):
            b.remove()
        if existing:
            existing.first(Static).update(text)
        else:
            self.mount(Static(text, id="pools-message"))

    def _columns(self) -> tuple[tuple[str, ...], int]:
        if not self.performance:
            return HEALTH_COLUMNS, HEALTH_FIXED
        if self.app.size.width >= PERF_FIXED + WIDE_EXTRA + 30:
            return PERF_COLUMNS[:2] + WIDE_PERF_COLUMNS + PERF_COLUMNS[2:], \
                PERF_FIXED + WIDE_EXTRA
        return PERF_COLUMNS, PERF_FIXED

    def _fill(self, block: PoolBlock, entry: PoolEntry, state: ViewState) -> None:
        colours = self.app.get_css_variables()
        findings = state.findings
        block.summary.update(pool_summary(entry, colours, state.scan_estimates.get(entry.name)))
        table = block.table
        keep = _cursor_key(table)
        columns, fixed = self._columns()
        table.clear(columns=True)
        table.add_columns(*columns)
        slow = {f.subject: f for f in findings
                if f.kind == "slow-disk" and f.pool in (None, entry.name)}
        sizes: dict[str, int | None] = {}
        if entry.usage is not None:
            sizes = {v.name: v.size for v in entry.usage.vdevs}
            sizes[entry.name] = entry.usage.size
        pool = entry.status
        if pool is None:
            block.findings.update("")
            block.findings.display = False
            return
        name_width = self._name_width(pool, fixed)
        leaves = {path: m for (p, path), m in state.leaves.items() if p == pool.name}
        top = max((x for m in leaves.values() for x in m.trend), default=0.0)
        blank = ("",) * (len(columns) - 2)
        pool_cells = (self._counters(pool.root) + (human_bytes(sizes.get(pool.name)), "")
                      if not self.performance else blank)
        table.add_row(Text(pool.name, style="bold"), state_text(pool.state, colours),
                      *pool_cells, key=pool.name)
        for section in Section:
            tops = pool.section(section)
            if not tops:
                continue
            if section in SECTION_TITLE:
                table.add_row(Text(SECTION_TITLE[section], style="italic"), "", *blank,
                              key=f"{pool.name}:{section.value}")
            for i, tv in enumerate(tops):
                for prefix, path, v in tree_rows(tv, last=(i == len(tops) - 1)):
                    name = Text(fit_name(prefix, v.name, name_width))
                    if v.name in slow:
                        name.stylize(f"bold {colours.get('health-warn', '')}", len(prefix))
                    cells = (self._perf_cells(v, leaves.get(path), top, slow, columns)
                             if self.performance
                             else self._health_cells(v, sizes, slow, colours))
                    table.add_row(name, state_text(v.state, colours), *cells,
                                  key=f"{pool.name}:{section.value}:{'/'.join(path)}")
        if keep is not None and keep in {k.value for k in table.rows}:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        pool_findings = [f for f in findings
                         if f.pool == pool.name
                         or (f.pool is None and f.subject in {v.name for _, _, v in pool.walk()})]
        block.findings.update(Text("\n".join(
            f"{'✖' if f.severity is Severity.CRITICAL else '▲'} {f.message}"
            for f in pool_findings), style=colours.get("health-warn", "")))
        block.findings.display = bool(pool_findings)

    def _name_width(self, pool: Pool, fixed: int) -> int:
        """Room for the NAME column: the longest name with its tree guides, but never so wide
        that the other columns fall off the terminal (80 columns included)."""
        longest = max(len("   " * (d + 1) + v.name) for _, d, v in pool.walk())
        room = max(MIN_NAME_WIDTH, self.app.size.width - fixed)
        return min(longest, room)

    @staticmethod
    def _counters(v: Vdev | None) -> tuple[str, str, str]:
        if v is None:
            return ("", "", "")

        def c(x: int | None) -> str:
            return "-" if x is None else str(x)

        return (c(v.read_errors), c(v.write_errors), c(v.checksum_errors))

    def _health_cells(self, v: Vdev, sizes: dict[str, int | None],
                      slow: dict[str, Finding], colours: Mapping[str, str]
                      ) -> tuple[Text | str, ...]:
        note = v.note or ""
        if v.name in slow:
            f = slow[v.name]
            factor = f"{f.factor:.1f}×" if f.factor is not None else ""
            note = (f"▲ SLOW {factor} " + note).strip()
        if v.resilvering and "resilvering" not in note:
            note = ("(resilvering) " + note).strip()
        counters = tuple(
            Text(x, style=colours.get("health-bad", "")) if x not in ("0", "-", "") else x
            for x in self._counters(v))
        level = state_level(v.state)
        note_text = Text(note, style=colours.get("health-warn", "")
                         if (v.name in slow or level != "ok") else "")
        return (*counters, human_bytes(sizes.get(v.name)), note_text)

    @staticmethod
    def _perf_cells(v: Vdev, m: LeafMetrics | None, top: float, slow: dict[str, Finding],
                    columns: tuple[str, ...]) -> tuple[Text | str, ...]:
        wide = "SERIAL" in columns
        if v.children or m is None:
            return ("",) * (len(columns) - 2)
        busy = "-" if m.busy_pct is None else f"{m.busy_pct:.0f}%"
        zfs = (f"{_ms(m.zfs_wait_read_ms)}/{_ms(m.zfs_wait_write_ms)}"
               if (m.zfs_wait_read_ms is not None or m.zfs_wait_write_ms is not None) else "-")
        trend = sparkline(m.trend, top)
        if v.name in slow:
            trend = trend or "▲"
        cells: tuple[str, ...] = (busy, _ms(m.r_await_ms), _ms(m.w_await_ms), zfs, trend)
        if wide:
            cells = (m.disk or "-", m.serial or "-", *cells)
        return cells
