"""One pool: its health, capacity and scan, the findings about it, then its vdev table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import visible
from zconsole.model.pool import CopyProgress, ExpandInfo, Pool, RemovalInfo, ScanInfo, ScanState
from zconsole.model.reading import PoolEntry
from zconsole.services import fmt
from zconsole.services.health import replace as replace_health
from zconsole.services.health.severity import pool_level
from zconsole.services.read.pools import vdev_io
from zconsole.services.read.progress import ScanEstimate
from zconsole.ui.kit.filter import matches
from zconsole.ui.kit.levels import LEVEL_STYLE, state_content
from zconsole.ui.kit.text import Hanging, Para, para, plain, update_if_changed
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.pools.vdev_table import (
    EVERYTHING,
    Shape,
    VdevTable,
    columns_for,
    shared_name_width,
)
from zconsole.ui.state import ViewState

REPLACE_KEY = "r"  # the replace wizard's key (services/ops/registry.py, replace-failed)


def capacity_bar(pct: int, width: int = 10) -> str:
    filled = max(0, min(width, round(pct / 100 * width)))
    return "█" * filled + "░" * (width - filled)


def _pace(estimate: ScanEstimate | None, tool_eta: int | None, paused: bool = False) -> str:
    """zconsole's own ETA (from the pace of the last readings), then zpool's in brackets."""
    if paused:
        s = "; paused"
    elif estimate is not None and estimate.eta_seconds is not None \
            and estimate.pace_pct_per_min is not None:
        s = (f"; at the pace of the last {fmt.duration(estimate.span_s)} "
             f"({estimate.pace_pct_per_min:.2f}%/min) done in about "
             f"{fmt.duration(estimate.eta_seconds)}")
    elif estimate is not None and estimate.stalled:
        s = f"; no progress in the last {fmt.duration(estimate.span_s)}"
    else:
        s = "; zconsole's own estimate after the next refresh"
    if tool_eta is not None and not paused:
        s += f" (zpool says {fmt.duration(tool_eta)})"
    return s


def _pct(done: float | None) -> str:
    return f", {done:.1f}% done" if done is not None else ""


def _copied(copied: int | None, total: int | None) -> str:
    if copied is None or total is None:
        return ""
    return f" ({fmt.size(copied, short=True)} of {fmt.size(total, short=True)} copied)"


def _find(estimates: Sequence[ScanEstimate], kind: str, vdev: str | None) -> ScanEstimate | None:
    return next((e for e in estimates if e.kind == kind and (e.vdev or "") == (vdev or "")),
                None)


def _scan_sentence(scan: ScanInfo, estimates: Sequence[ScanEstimate], first: bool) -> str | None:
    if scan.function is None:
        return None
    what = scan.function.value
    if scan.rebuild_vdev is not None:
        what = f"rebuild of {scan.rebuild_vdev}"
    if scan.state in (ScanState.IN_PROGRESS, ScanState.PAUSED):
        kind = "rebuild" if scan.rebuild_vdev is not None else scan.function.value
        paused = scan.state is ScanState.PAUSED
        return (f"{what} {'paused' if paused else 'in progress'}{_pct(scan.percent_done)}"
                + (_pace(_find(estimates, kind, scan.rebuild_vdev), scan.eta_seconds)
                   if not paused else ""))
    if not first:
        return None  # zpool's other lines of finished work: the first one says enough
    if scan.state is ScanState.FINISHED:
        return f"last {what} finished" + (f" with {scan.errors} errors"
                                          if scan.errors else ", no errors")
    if scan.state is ScanState.CANCELED:
        return f"{what} canceled"
    return scan.raw or None


def _copying(what: str, name: str, info: CopyProgress, estimate: ScanEstimate | None) -> str:
    """A running expansion or removal: zpool's figures, then the ETAs."""
    return (f"{what} of {name} in progress{_pct(info.percent_done)}"
            f"{_copied(info.copied_bytes, info.total_bytes)}"
            + _pace(estimate, None if info.slow else info.eta_seconds))


def _expand_sentence(ex: ExpandInfo, estimates: Sequence[ScanEstimate]) -> list[str]:
    name = ex.vdev or "a raidz vdev"
    if ex.state is ScanState.IN_PROGRESS:
        return [_copying("expansion", name, ex, _find(estimates, "expand", ex.vdev))]
    if ex.state is ScanState.PAUSED:
        return [f"expansion of {name} paused{_pct(ex.percent_done)}"
                + (" until the resilver ends (or zpool clear)" if ex.waiting_for_resilver
                   else "")]
    if ex.state is ScanState.FINISHED:
        return [f"expansion of {name} finished"
                + (f" in {fmt.duration(ex.duration_seconds)}"
                   if ex.duration_seconds is not None else "")]
    return []


def _removal_sentence(rm: RemovalInfo, estimates: Sequence[ScanEstimate]) -> list[str]:
    name = rm.vdev or (f"vdev {rm.vdev_index}" if rm.vdev_index is not None else "a vdev")
    if rm.state is ScanState.IN_PROGRESS:
        return [_copying("removal", name, rm, _find(estimates, "remove", rm.vdev))]
    if rm.state is ScanState.FINISHED:
        return [f"removal of {name} finished"
                + (f" ({fmt.size(rm.copied_bytes, short=True)} copied)"
                   if rm.copied_bytes is not None else "")]
    if rm.state is ScanState.CANCELED:
        return [f"removal of {name} canceled"]
    return []


def progress_sentences(pool: Pool, estimates: Sequence[ScanEstimate] = ()) -> list[str]:
    """One sentence per line of work `zpool status` reports (each scan and rebuild, the raidz
    expansion, the device removal), running ones with zconsole's own ETA beside zpool's."""
    out: list[str] = []
    scans = pool.scans or ((pool.scan,) if pool.scan is not None else ())
    for i, scan in enumerate(scans):
        s = _scan_sentence(scan, estimates, first=i == 0)
        if s:
            out.append(s)
    if pool.expand is not None:
        out += _expand_sentence(pool.expand, estimates)
    if pool.removal is not None:
        out += _removal_sentence(pool.removal, estimates)
    return out


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


def pool_summary(entry: PoolEntry, estimates: Sequence[ScanEstimate] = (), *,
                 todo: str | None = None, level: Severity | None = None) -> Hanging:
    """The usage line, then every line of work (scan, rebuild, expansion, removal), `status:`,
    `action:` and `errors:` of `zpool status`, each wrapping under its own text; then `todo`,
    zconsole's one line of what to do (`services.health.replace.advice`), headed by the
    pool's `level` on the one scale (`services.health.severity.pool_level`)."""
    if entry.status is None:
        return Hanging(usage_line(entry), para("health unknown: zpool status could not be read",
                                               "  ", LEVEL_STYLE["warn"]))
    items: list[Content | Para] = [usage_line(entry)]
    for sentence in progress_sentences(entry.status, estimates):
        items.append(para(sentence, "  "))
    if entry.status.status:
        items.append(para(" ".join(entry.status.status.split()), "  status: "))
    if entry.status.action:
        items.append(para(" ".join(entry.status.action.split()), "  action: "))
    errors = entry.status.errors
    if errors and errors != "No known data errors":
        items.append(para(errors, "  errors: ", LEVEL_STYLE["bad"]))
    if todo:
        if level is None:
            items.append(para(todo, "  ➜ to do: ", f"bold {LEVEL_STYLE['warn']}"))
        else:
            style = LEVEL_STYLE["bad" if level is Severity.CRITICAL else "warn"]
            items.append(para(todo, f"  ➜ {level.symbol} {level.name}, to do: ",
                              f"bold {style}"))
    return Hanging(*items)


class _Shown(NamedTuple):
    entry: PoolEntry
    state: ViewState
    performance: bool
    shape: Shape


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

    def __init__(self, name: str, counted: Callable[[], None] | None = None) -> None:
        super().__init__(classes="pool")
        self.pool_name = name
        self.counted = counted  # told when `matched` and `total` changed
        self.matched = 0  # rows that matched the words (or are problems) at the last drawing
        self.total = 0
        self.summary = Static(classes="pool-summary")
        self.table = VdevTable()
        # the findings line under the summary: made when the pool first has a finding (most
        # pools have none: a hidden line was a widget styled, mounted and laid out for
        # nothing, ~3 ms of the first frame each on Python 3.10, issue 28)
        self.findings: Static | None = None
        self._shown: _Shown | None = None
        self._composed = False

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.table

    def on_mount(self) -> None:
        self._composed = True  # the table exists: its colours (component classes) resolve
        self._draw()
        # The screen's main list is this table (the first pool's) when nothing has the focus
        # yet: focused now, before it is first drawn. Focused after the frame instead (the
        # screen's `keep_focus`), it was restyled, laid out and drawn again at once for its
        # focus colours: ~15 ms of the first frame on Python 3.10 (issue 28).
        screen = self.screen
        if isinstance(screen, ZScreen):
            screen.focus_main()

    def show(self, entry: PoolEntry, state: ViewState, performance: bool,
             shape: Shape = EVERYTHING) -> None:
        self._shown = _Shown(entry, state, performance, shape)
        if self._composed:
            self._draw()

    def _draw(self) -> None:
        if self._shown is None:
            return
        entry, state, performance, shape = self._shown
        estimates = state.scan_estimates.get(entry.name, ())
        todo = None
        smart = state.smart
        level = pool_level(entry, slow=state.findings, estimates=state.scan_estimates,
                           mutes=state.mutes, smart=smart.findings if smart else ())
        if entry.status is not None:
            cands = replace_health.candidates(entry.status, state.findings)
            todo = replace_health.advice(entry.status, cands,
                                         key=None if state.read_only else REPLACE_KEY)
        update_if_changed(self.summary, (entry.name, entry.health, entry.usage,
                                         entry.status, estimates, todo, level),
                          lambda: pool_summary(entry, estimates, todo=todo, level=level))
        width = self.app.size.width
        serial = max((len(visible(m.serial)) for m in state.leaves.values() if m.serial),
                     default=0) if performance else 0
        columns, fixed = columns_for(performance, width, serial)
        pool = entry.status
        if pool is None:
            self.table.sync(columns, [])
            self._show_findings([])
            # health unknown: a problem; the pool's name and summary match words
            self._count(1 if shape.problems_only or not shape.words
                        or matches(f"{entry.name} {entry.health}", shape.words) else 0, 1)
            return
        sizes: dict[str, int | None] = {}
        caps: dict[str, int | None] = {}
        if entry.usage is not None:
            sizes = {v.name: v.size for v in entry.usage.vdevs}
            sizes[entry.name] = entry.usage.size
            caps = {v.name: v.capacity for v in entry.usage.vdevs if v.alloc is not None}
            caps[entry.name] = entry.usage.capacity
        self.table.smart = {}
        if smart is not None and smart.findings:  # none before the first SMART poll: the
            from zconsole.services.health.smart_words import leaf_notes  # first frame skips it

            self.table.smart = leaf_notes(
                state.reading.disks.value if state.reading else None, smart.findings,
                smart.states(), entry.name)
        matched, total = self.table.show(
            pool, performance=performance, columns=columns, shape=shape,
            name_room=shared_name_width(
                (e.status for e in state.reading.pools) if state.reading else (pool,),
                fixed, width), sizes=sizes,
            slow={f.subject: f for f in state.findings
                  if f.kind == "slow-disk" and f.pool in (None, entry.name)},
            leaves={path: m for (p, path), m in state.leaves.items() if p == pool.name},
            caps=caps, serial=serial,
            io=vdev_io(state.sample.latency if state.sample else None, pool.name)
            if performance else None)
        names = {v.name for _, _, v in pool.walk()}
        self._show_findings([f for f in state.findings
                             if f.pool == pool.name or (f.pool is None and f.subject in names)])
        self._count(matched, total)

    def _show_findings(self, found: Sequence[Finding]) -> None:
        """The findings about this pool under its summary; the line is hidden when there
        are none, and made (between the summary and the table) when the first comes."""
        line = self.findings
        if line is None:
            if not found:
                return
            line = self.findings = Static(classes="findings")
            self.mount(line, before=self.table)
        update_if_changed(line, tuple((f.message, f.severity) for f in found),
                          lambda: Hanging(*(
                              para(f.message, "✖ " if f.severity is Severity.CRITICAL
                                   else "▲ ", LEVEL_STYLE["warn"]) for f in found)))
        line.display = bool(found)

    def _count(self, matched: int, total: int) -> None:
        """Shown only when something in it matched the words (or is a problem)."""
        self.matched, self.total = matched, total
        self.display = matched > 0 or not (self._shown is not None and (
            self._shown.shape.words or self._shown.shape.problems_only))
        if self.counted is not None:
            self.counted()
