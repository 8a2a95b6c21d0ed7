"""The pools view: per pool its health, capacity and scan, then the vdev tree as a table."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import Pool, PoolUsage, ScanState, Section, Vdev
from zconsole.model.snapshot import HostSnapshot, PoolEntry
from zconsole.ui.widgets import human_bytes, state_level, state_text

COLUMNS = ("NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "NOTE")
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
            h, rem = divmod(scan.eta_seconds, 3600)
            s += f", zpool estimates {h}:{rem // 60:02d} h left"
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
        t.append(f"  {u.capacity if u.capacity is not None else '?'}% used of "
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
        t.append(f"\n  status: {entry.status.status}")
    if entry.status.errors and entry.status.errors != "No known data errors":
        t.append(f"\n  errors: {entry.status.errors}", style=colours.get("health-bad", ""))
    return t


class PoolBlock(Vertical):
    def __init__(self, name: str) -> None:
        super().__init__(classes="pool")
        self.pool_name = name
        self.summary = Static(classes="pool-summary")
        self.table: DataTable[Text | str] = DataTable(cursor_type="row", zebra_stripes=False,
                                                      classes="vdevs")
        self.findings = Static(classes="findings")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.summary
        yield self.table
        yield self.findings

    def on_mount(self) -> None:
        self.table.add_columns(*COLUMNS)


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
                self.call_after_refresh(self._fill, block, entry, findings)
            else:
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
        table.add_row(Text(pool.name, style="bold"), state_text(pool.state, colours),
                      "", "", "", human_bytes(sizes.get(pool.name)),
                      "", key=f"{pool.name}")
        for section in Section:
            tops = pool.section(section)
            if not tops:
                continue
            if section in SECTION_TITLE:
                table.add_row(Text(SECTION_TITLE[section], style="italic"), "", "", "", "", "",
                              "", key=f"{pool.name}:{section.value}")
            for top in tops:
                for depth, v in top.walk(1):
                    table.add_row(*self._row(v, depth, sizes, slow, colours),
                                  key=f"{pool.name}:{section.value}:{depth}:{v.name}")
        pool_findings = [f for f in findings if f.subject in {v.name for _, _, v in pool.walk()}]
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

    def _row(self, v: Vdev, depth: int, sizes: dict[str, int | None],
             slow: dict[str, Finding], colours: dict[str, str]) -> tuple[Text | str, ...]:
        name = Text("  " * depth + v.name)
        note = v.note or ""
        if v.name in slow:
            f = slow[v.name]
            factor = next((e for e in f.evidence if e.endswith("× slower")), "")
            note = ("▲ SLOW " + factor + " " + note).strip()
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
