"""One pool: its health, capacity and scan, the findings about it, then its vdev table."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.model.finding import Severity
from zconsole.model.pool import Pool, ScanState
from zconsole.model.reading import PoolEntry
from zconsole.services import fmt
from zconsole.services.health import replace as replace_health
from zconsole.services.read.progress import ScanEstimate
from zconsole.ui.kit.levels import LEVEL_STYLE, state_content
from zconsole.ui.kit.text import Hanging, Para, para, plain
from zconsole.ui.screens.pools.vdev_table import VdevTable, columns_for, name_width
from zconsole.ui.state import ViewState

REPLACE_KEY = "r"  # the replace wizard's key (services/ops/registry.py, replace-failed)


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
            s += (f"; at the pace of the last {fmt.duration(estimate.span_s)} "
                  f"({estimate.pace_pct_per_min:.2f}%/min) done in about "
                  f"{fmt.duration(estimate.eta_seconds)}")
        elif estimate is not None and estimate.stalled:
            s += f"; no progress in the last {fmt.duration(estimate.span_s)}"
        else:
            s += "; zconsole's own estimate after the next refresh"
        if scan.eta_seconds is not None:
            s += f" (zpool says {fmt.duration(scan.eta_seconds)})"
        return s
    if scan.state is ScanState.FINISHED:
        return f"last {what} finished" + (f" with {scan.errors} errors"
                                          if scan.errors else ", no errors")
    if scan.state is ScanState.CANCELED:
        return f"{what} canceled"
    return scan.raw or None


def usage_line(entry: PoolEntry) -> Content:
    """`tank  ✔ ONLINE · ████░░░░░░ 46% of 7.2T, frag 11%, dedup 1.46x`."""
    line = Content.assemble(plain(entry.name, "bold"), "  ", state_content(entry.health))
    u = entry.usage
    if u is None or not u.size:
        return line
    line += " · "
    cap = u.capacity
    if cap is not None:
        level = "bad" if cap >= 90 else "warn" if cap >= 80 else "ok"
        line += Content.styled(capacity_bar(cap), LEVEL_STYLE[level])
        line += f" {cap}% of {fmt.size(u.size, short=True)}"
    else:
        line += fmt.size(u.size, short=True)
    if u.fragmentation is not None:
        line += f", frag {u.fragmentation}%"
    if u.dedupratio is not None and u.dedupratio != 1.0:
        line += f", dedup {u.dedupratio:.2f}x"
    if u.expandsize:
        line += f", {fmt.size(u.expandsize, short=True)} unclaimed (EXPANDSZ)"
    return line


def pool_summary(entry: PoolEntry, estimate: ScanEstimate | None = None, *,
                 todo: str | None = None) -> Hanging:
    """The usage line, then the scan, `status:`, `action:` and `errors:` of `zpool status`,
    each wrapping under its own text; then `todo`, zconsole's one line of what to do
    (`services.health.replace.advice`)."""
    if entry.status is None:
        return Hanging(usage_line(entry), para("health unknown: zpool status could not be read",
                                               "  ", LEVEL_STYLE["warn"]))
    items: list[Content | Para] = [usage_line(entry)]
    scan = scan_sentence(entry.status, estimate)
    if scan:
        items.append(para(scan, "  "))
    if entry.status.status:
        items.append(para(" ".join(entry.status.status.split()), "  status: "))
    if entry.status.action:
        items.append(para(" ".join(entry.status.action.split()), "  action: "))
    errors = entry.status.errors
    if errors and errors != "No known data errors":
        items.append(para(errors, "  errors: ", LEVEL_STYLE["bad"]))
    if todo:
        items.append(para(todo, "  ➜ to do: ", f"bold {LEVEL_STYLE['warn']}"))
    return Hanging(*items)


@dataclass(frozen=True)
class _Shown:
    entry: PoolEntry
    state: ViewState
    performance: bool


class PoolBlock(Vertical):
    """Summary, findings and the vdev table of one pool; kept and redrawn in place across
    refreshes (the table's cursor stays on its row)."""

    DEFAULT_CSS = """
    PoolBlock {
        height: auto;
        margin: 0 0 1 0;
    }
    PoolBlock > .pool-summary {
        height: auto;
    }
    PoolBlock > .findings {
        height: auto;
        color: $health-warn;
        text-style: bold;
    }
    """

    def __init__(self, name: str) -> None:
        super().__init__(classes="pool")
        self.pool_name = name
        self.summary = Static(classes="pool-summary")
        self.table = VdevTable()
        self.findings = Static(classes="findings")
        self._shown: _Shown | None = None
        self._composed = False

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.findings
        yield self.table

    def on_mount(self) -> None:
        self._composed = True  # the table exists: its colours (component classes) resolve
        self._draw()

    def show(self, entry: PoolEntry, state: ViewState, performance: bool) -> None:
        self._shown = _Shown(entry, state, performance)
        if self._composed:
            self._draw()

    def _draw(self) -> None:
        if self._shown is None:
            return
        entry, state, performance = (self._shown.entry, self._shown.state,
                                     self._shown.performance)
        todo = None
        if entry.status is not None:
            cands = replace_health.candidates(entry.status, state.findings)
            todo = replace_health.advice(entry.status, cands,
                                         key=None if state.read_only else REPLACE_KEY)
        self.summary.update(pool_summary(entry, state.scan_estimates.get(entry.name),
                                         todo=todo))
        width = self.app.size.width
        columns, fixed = columns_for(performance, width)
        pool = entry.status
        if pool is None:
            self.table.clear(columns=True)
            self.table.add_columns(*columns)
            self.findings.update("")
            self.findings.display = False
            return
        sizes: dict[str, int | None] = {}
        if entry.usage is not None:
            sizes = {v.name: v.size for v in entry.usage.vdevs}
            sizes[entry.name] = entry.usage.size
        self.table.show(
            pool, performance=performance, columns=columns,
            name_room=name_width(pool, fixed, width), sizes=sizes,
            slow={f.subject: f for f in state.findings
                  if f.kind == "slow-disk" and f.pool in (None, entry.name)},
            leaves={path: m for (p, path), m in state.leaves.items() if p == pool.name})
        names = {v.name for _, _, v in pool.walk()}
        found = [f for f in state.findings
                 if f.pool == pool.name or (f.pool is None and f.subject in names)]
        self.findings.update(Hanging(*(
            para(f.message, "✖ " if f.severity is Severity.CRITICAL else "▲ ",
                 LEVEL_STYLE["warn"]) for f in found)))
        self.findings.display = bool(found)
