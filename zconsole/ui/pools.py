"""The pools view: per pool its health, capacity and scan, then the vdev tree as a table."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, PoolUsage, ScanState, Section, Vdev
from zconsole.model.snapshot import HostSnapshot, PoolEntry
from zconsole.ui.widgets import human_bytes, human_duration, state_level, state_text

COLUMNS = ("NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "NOTE")
# Everything but NAME, cell padding (1 each side) included: STATE 12, READ 6, WRITE 7,
# CKSUM 7, SIZE 8, NOTE 17 (room for "too many errors"), NAME's own padding 2, the screen's
# margins and scrollbar 3.
FIXED_COLUMNS_WIDTH = 12 + 6 + 7 + 7 + 8 + 17 + 2 + 3
MIN_NAME_WIDTH = 18


def tree_rows(top: Vdev, last: bool) -> list[tuple[str, int, Vdev]]:
    """(guide prefix, depth, vdev) for a top-level vdev and its children, drawn like tree(1):
    the guides survive copy-paste and any renderer, unlike leading spaces."""
    out: list[tuple[str, int, Vdev]] = []

    def visit(v: Vdev, lead: str, is_last: bool, depth: int) -> None:
        out.append((lead + ("└─ " if is_last else "├─ "), depth, v))
        child_lead = lead + ("   " if is_last else "│  ")
        for j, c in enumerate(v.children):
            visit(c, child_lead, j == len(v.children) - 1, depth + 1)

    visit(top, "", last, 1)
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
SECTION_TITLE = {Section.LOGS: "logs", Section.CACHE: "cache", Section.SPARES: "spares",
                 Section.SPECIAL: "special", Section.DEDUP: "dedup"}


def scan_sentence(pool: Pool) -> str | None:
    scan = pool.scan
    if scan is None or scan.function is None:
        return None
    what = scan.function.value
    if scan.state is ScanState.IN_PROGRESS:
        s = f"{what} in progress"
        if scan.percent_done is not None:
            s += f", {scan.percent_done:.1f}% done"
        if scan.eta_seconds is not None:
            s += f", about {human_duration(scan.eta_seconds)} left (zpool's estimate)"
        return s
    if scan.state is ScanState.FINISHED:
        return f"last {what} finished" + (f" with {scan.errors} errors"
                                          if scan.errors else "")
    if scan.state is ScanState.CANCELED:
        return f"{what} canceled"
    return scan.raw or None


def pool_summary(entry: PoolEntry, colours: dict[str, str]) -> Text:
    t = Text()
    t.append(entry.name, style="bold")
    t.append("  ")
    t.append_text(state_text(entry.health, colours))
    u: PoolUsage | None = entry.usage
    if u is not None and u.size:
        t.append(f" · {u.capacity if u.capacity is not None else '?'}% used of "
                 f"{human_bytes(u.size)}")
        if u.fragmentation is not None:
            t.append(f", frag {u.fragmentation}%")
        if u.dedupratio is not None and u.dedupratio != 1.0:
            t.append(f", dedup {u.dedupratio:.2f}x")
        if u.expandsize:
            t.append(f", {human_bytes(u.expandsize)} unclaimed (EXPANDSZ)")
    if entry.status is None:
        t.append("  health unknown: zpool status could not be read",
                 style=colours.get("health-warn", ""))
        return t
    scan = scan_sentence(entry.status)
    if scan:
        t.append(f"\n  {scan}")
    if entry.status.status:
        t.append(f"\n  status: {' '.join(entry.status.status.split())}")
    if entry.status.errors and entry.status.errors != "No known data errors":
        t.append(f"\n  errors: {entry.status.errors}", style=colours.get("health-bad", ""))
    return t


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
    """One block per pool. Blocks are kept and updated in place across refreshes."""

    def show(self, snapshot: HostSnapshot, findings: tuple[Finding, ...]) -> None:
        entries = snapshot.pools
        if not snapshot.zfs.present:
            self._message(snapshot.zfs.message)
            return
        if not entries:
            if snapshot.pool_status.ok:
                self._message("No pools are imported on this host.")
            else:
                self._message(f"Pools could not be read: {snapshot.pool_status.error}")
            return
        self._message(None)
        blocks = {b.pool_name: b for b in self.query(PoolBlock)}
        for entry in entries:
            block = blocks.pop(entry.name, None)
            if block is None:
                block = PoolBlock(entry.name)
                self.mount(block)
            self._fill(block, entry, findings)
        for stale in blocks.values():
            stale.remove()

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

    def _fill(self, block: PoolBlock, entry: PoolEntry, findings: tuple[Finding, ...]) -> None:
        colours = self.app.get_css_variables()
        block.summary.update(pool_summary(entry, colours))
        table = block.table
        table.clear()
        if not table.columns:
            table.add_columns(*COLUMNS)
        slow = {f.subject: f for f in findings if f.kind == "slow-disk"}
        sizes: dict[str, int | None] = {}
        if entry.usage is not None:
            sizes = {v.name: v.size for v in entry.usage.vdevs}
            sizes[entry.name] = entry.usage.size
        pool = entry.status
        if pool is None:
            block.findings.update("")
            return
        name_width = self._name_width(pool)
        table.add_row(Text(pool.name, style="bold"), state_text(pool.state, colours),
                      *self._counters(pool.root), human_bytes(sizes.get(pool.name)),
                      "", key=f"{pool.name}")
        for section in Section:
            tops = pool.section(section)
            if not tops:
                continue
            if section in SECTION_TITLE:
                table.add_row(Text(SECTION_TITLE[section], style="italic"), "", "", "", "", "",
                              "", key=f"{pool.name}:{section.value}")
            for i, top in enumerate(tops):
                for prefix, depth, v in tree_rows(top, last=(i == len(tops) - 1)):
                    table.add_row(*self._row(v, prefix, sizes, slow, colours, name_width),
                                  key=f"{pool.name}:{section.value}:{depth}:{v.name}")
        pool_findings = [f for f in findings
                         if f.pool == pool.name
                         or (f.pool is None and f.subject in {v.name for _, _, v in pool.walk()})]
        block.findings.update(Text("\n".join(
            f"{'✖' if f.severity is Severity.CRITICAL else '▲'} {f.message}"
            for f in pool_findings), style=colours.get("health-warn", "")))
        block.findings.display = bool(pool_findings)

    @staticmethod
    def _counters(v: Vdev | None) -> tuple[str, str, str]:
        if v is None:
            return ("", "", "")

        def c(x: int | None) -> str:
            return "-" if x is None else str(x)

        return (c(v.read_errors), c(v.write_errors), c(v.checksum_errors))

    def _name_width(self, pool: Pool) -> int:
        """Room for the NAME column: the longest indented name, but never so wide that the
        STATE..NOTE columns fall off an 80-column terminal."""
        longest = max(len("   " * (d + 1) + v.name) for _, d, v in pool.walk())
        room = max(MIN_NAME_WIDTH, self.app.size.width - FIXED_COLUMNS_WIDTH)
        return min(longest, room)

    def _row(self, v: Vdev, prefix: str, sizes: dict[str, int | None],
             slow: dict[str, Finding], colours: dict[str, str],
             name_width: int) -> tuple[Text | str, ...]:
        name = Text(fit_name(prefix, v.name, name_width))
        note = v.note or ""
        if v.name in slow:
            f = slow[v.name]
            factor = f"{f.factor:.1f}×" if f.factor is not None else ""
            note = (f"▲ SLOW {factor} " + note).strip()
        state = state_text(v.state, colours)
        if v.resilvering and "resilvering" not in note:
            note = ("(resilvering) " + note).strip()
        errors = self._counters(v)
        counters = tuple(
            Text(x, style=colours.get("health-bad", "")) if x not in ("0", "-", "") else x
            for x in errors)
        level = state_level(v.state)
        note_text = Text(note, style=colours.get("health-warn", "")
                         if (v.name in slow or level != "ok") else "")
        return (name, state, *counters, human_bytes(sizes.get(v.name)), note_text)
