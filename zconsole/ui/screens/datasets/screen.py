"""Datasets and snapshots: the tree, clones, blast radius.

The tree and the clone graph come from the filesystem/volume list of every refresh (cheap:
`origin` says which snapshot each clone came from). A dataset's snapshots are listed in a
worker when it is opened (one dataset open at a time). While it stays open it is listed again
only when it may have changed: its used/referenced/usedbysnapshots in the refresh's list moved,
the listing is RELIST_EVERY seconds old, the last listing failed, or the operator refreshed
(ctrl+r); the status line says how old the listing is. `a` lists the names of every snapshot in the background with progress. Nothing here
writes to the host: the panel only says what `zfs destroy -r` / `-R` would take.

Widgets: `tree_table.py` (the Line-API tree), `radius_panel.py` (the sentences); rows are
built by `rows.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from zconsole.hosts.base import Host
from zconsole.model.dataset import Dataset
from zconsole.model.reading import HostReading, Part
from zconsole.services import fmt
from zconsole.services.read.datasets import (
    DatasetTree,
    ScanProgress,
    ScanResult,
    build_tree,
    dataset_of,
    load_snapshots,
    scan_snapshot_names,
)
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.kit.text import plain
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.datasets.radius_panel import Known, RadiusPanel, describe
from zconsole.ui.screens.datasets.rows import OpenState, TreeRow, build_rows
from zconsole.ui.screens.datasets.tree_table import TreeTable
from zconsole.ui.state import ViewState

# The panel asks for the snapshot names of at most this many unlisted datasets in its radius,
# once the cursor has rested this long on a row.
RADIUS_AUTOLOAD = 16
RADIUS_DELAY = 0.4
SNAPSHOTS, RADIUS, SCAN = "ds-snapshots", "ds-radius", "ds-scan"  # worker groups

Listing = Part[tuple[Dataset, ...]]


@dataclass
class ScanState:
    running: bool = False
    done: int = 0
    total: int = 0
    snapshots: int = 0
    result: ScanResult | None = None
    seen: float = 0.0  # the console's monotonic clock when `result` arrived


RELIST_EVERY = 60.0  # seconds: an opened dataset whose sizes did not move is listed again


def fingerprint(d: Dataset | None) -> tuple[int | None, ...] | None:
    """What the refresh's cheap list says of a dataset that a new or destroyed snapshot, or
    data written since the last one, moves."""
    return None if d is None else (d.used, d.refer, d.usedbysnapshots)


def progress_bar(done: int, total: int, width: int = 12) -> str:
    filled = 0 if total <= 0 else max(0, min(width, done * width // total))
    return "█" * filled + "░" * (width - filled)


class DatasetsScreen(ZScreen):
    MAIN = "#ds-tree"

    BINDINGS = [
        Binding("a", "scan", "Scan all snapshots"),
    ]

    DEFAULT_CSS = """
    DatasetsScreen .body {
        overflow-y: auto;
    }
    DatasetsScreen #ds-status {
        height: auto;
        color: $muted;
    }
    DatasetsScreen #ds-message {
        height: auto;
        color: $health-bad;
    }
    """

    class SnapshotsLoaded(PartLoaded[Listing]):
        """One dataset's snapshots were listed (`key` is the dataset)."""

    class RadiusNamesLoaded(PartLoaded[ScanResult]):
        """The snapshot names the blast radius lacked were listed."""

    @dataclass
    class ScanProgressed(Message):
        done: int
        total: int
        snapshots: int

    @dataclass
    class ScanFinished(Message):
        result: ScanResult

    def __init__(self) -> None:
        super().__init__()
        self.dtree: DatasetTree | None = None
        self.opened: OpenState | None = None
        self.loaded: dict[str, Listing] = {}  # this refresh's listings
        self._loaded_names: dict[str, tuple[str, ...]] = {}  # names of `loaded`
        self._rows_of: tuple[DatasetTree, OpenState | None, list[TreeRow]] | None = None
        self.radius_names: dict[str, tuple[str, ...]] = {}  # this refresh, names only
        self.radius_errors: tuple[str, ...] = ()
        self.scan = ScanState()
        self._source: HostReading | None = None
        self._datasets: tuple[Dataset, ...] | None = None
        self._list_seen = 0.0  # when the dataset list on screen arrived (console mono)
        self._state: ViewState | None = None
        self._radius_asked: set[str] = set()
        self._scan_worker: Worker[None] | None = None
        self._radius_wanted: list[str] = []
        self._radius_timer: Timer | None = None
        self._radius_running = False
        self._loading: str | None = None
        self._reload_due = False  # a new reading came: see whether the open listing is due
        self._listed_print: tuple[int | None, ...] | None = None  # when it was last asked
        self._forced_seen = 0  # ViewState.forced when this screen last looked

    def compose_body(self) -> ComposeResult:
        yield Static("reading the host…", id="ds-status")
        yield Static("", id="ds-message")
        yield TreeTable(id="ds-tree")
        yield RadiusPanel(id="ds-radius")

    # -- refresh ---------------------------------------------------------------------------
    def show_state(self, state: ViewState) -> None:
        self._state = state
        snap = state.reading
        if snap is None:
            self._message(f"✖ Could not read the host: {state.last_error}"
                          if state.last_error else "")
            return
        if snap is not self._source:
            self._new_refresh(snap)
        part = snap.datasets
        if not part.ok or part.value is None:
            if part.skipped:
                self._message(f"No datasets: {part.error}")
            else:
                shown = (f" Showing the list read {fmt.age(state.mono - self._list_seen)}."
                         if self.dtree is not None else "")
                error = part.error or "unknown error"
                what = error if part.source and error.startswith(part.source) \
                    else f"{part.source}: {error}"
                self._message(f"✖ Could not list the datasets: {what} "
                              f"(tried {fmt.age(part.age(state.mono))}).{shown}")
        else:
            self._message("")
            if part.value != self._datasets:
                self._datasets = part.value
                self.dtree = build_tree(part.value)
            self._list_seen = part.seen if part.seen is not None else state.mono
        if self.dtree is None:
            return
        if self.opened is not None:
            if self.opened.dataset not in self.dtree:
                self.opened = None
            elif self._loading is None and self._relist_due(state):
                self._load(self.opened.dataset, keep_rows=True)
        self._render_tree()

    def _new_refresh(self, snap: HostReading) -> None:
        """Listings are per refresh. The opened dataset keeps its rows (their age is shown)
        until its new listing arrives."""
        self._source = snap
        keep = self.opened.dataset if self.opened is not None else None
        kept = self.loaded.get(keep) if keep is not None else None
        kept_names = self._loaded_names.get(keep) if keep is not None else None
        self.loaded.clear()
        self._loaded_names.clear()
        if keep is not None and kept is not None:
            self.loaded[keep] = kept
            if kept_names is not None:
                self._loaded_names[keep] = kept_names
        self._reload_due = True
        self.radius_names.clear()
        self.radius_errors = ()
        self._radius_asked.clear()

    def _relist_due(self, state: ViewState) -> bool:
        """Whether the opened dataset's snapshots are listed again now (see the module)."""
        assert self.opened is not None and self.dtree is not None
        if state.forced != self._forced_seen:
            self._forced_seen = state.forced
            return True
        if not self._reload_due:
            return False
        self._reload_due = False
        part = self.opened.part
        if part is None or not part.ok:
            return True
        now = fingerprint(self.dtree.datasets.get(self.opened.dataset))
        return now != self._listed_print or part.age(state.mono) >= RELIST_EVERY

    def _message(self, text: str) -> None:
        message = self.query_one("#ds-message", Static)
        message.update(plain(text))
        message.display = bool(text.strip())

    def _render_tree(self) -> None:
        if self.dtree is None:
            return
        table = self.query_one(TreeTable)
        keep = table.current.key if table.current is not None else None
        if (self._rows_of is None or self._rows_of[0] is not self.dtree
                or self._rows_of[1] is not self.opened):
            # laid out again only for a new tree or listing (frozen, new when the answer
            # changes): 10 000 snapshots cost ~100 ms a refresh (bench/budgets.py)
            self._rows_of = (self.dtree, self.opened, build_rows(self.dtree, self.opened))
        table.set_rows(self._rows_of[2], self._host_now(), keep=keep)
        self._update_status()

    def _now(self) -> float:
        """The console's monotonic clock: every age on this screen is counted on it."""
        return self._state.mono if self._state is not None else self.console_app.mono()

    def _host_now(self) -> float:
        """The host's clock now, for its own dates ("created 3 d"): never the console's."""
        state = self._state
        if state is None or state.reading is None:
            return self.console_app.clock()
        return state.reading.host_time(state.mono)

    @property
    def busy(self) -> bool:
        """True while a listing, the panel's pending name listing or a scan is under way."""
        loading = self.opened is not None and self.opened.part is None
        return (super().busy or loading or self._radius_timer is not None
                or self._radius_running or bool(self._radius_wanted) or self.scan.running)

    @property
    def _host(self) -> Host:
        return self.console_app.host

    # -- opening a dataset -----------------------------------------------------------------
    def on_tree_table_activated(self, event: TreeTable.Activated) -> None:
        row = event.row
        if self.dtree is None:
            return
        if row.kind == "clone" and row.target:
            self._goto(row.target)
            return
        if row.kind == "snapshot":
            if event.action == "close":
                self._close()
                self._goto(dataset_of(row.key))
            return
        if row.kind == "note":
            if event.action in ("close", "toggle"):
                self._close()
                if row.target:
                    self._goto(row.target)
            return
        name = row.key
        is_open = self.opened is not None and self.opened.dataset == name
        if event.action == "close" or (event.action == "toggle" and is_open):
            if is_open:
                self._close()
            elif row.dataset is not None and row.dataset.parent_name in self.dtree:
                self._goto(row.dataset.parent_name or name)
            return
        if not is_open:
            self._open(name)

    def _goto(self, name: str) -> None:
        self.query_one(TreeTable).move_to(name)

    def _open(self, name: str) -> None:
        part = self.loaded.get(name)
        self.opened = OpenState(name, part)
        if part is None:
            self._load(name, keep_rows=False)
        self._render_tree()

    def _close(self) -> None:
        self.opened = None
        self._render_tree()

    def _load(self, name: str, *, keep_rows: bool) -> None:
        self._loading = name
        self._reload_due = False
        if self._state is not None:
            self._forced_seen = self._state.forced
        self._listed_print = (fingerprint(self.dtree.datasets.get(name))
                              if self.dtree is not None else None)
        if not keep_rows:
            self.opened = OpenState(name, None)
        self.read(self.SnapshotsLoaded, partial(load_snapshots, self._host, name),
                  group=SNAPSHOTS, key=name, asked_at=self._now())

    def on_datasets_screen_snapshots_loaded(self, message: SnapshotsLoaded) -> None:
        # kept even when a refresh came in meanwhile: the listing is newer than that refresh
        # began, and dropping it would never let a slow listing land
        self._listed(message.key, message.value)

    def _listed(self, dataset: str, part: Listing) -> None:
        part = replace(part, seen=self.console_app.mono())  # its age: on the console's clock
        if self._loading == dataset:
            self._loading = None
        self.loaded[dataset] = part
        self._loaded_names.pop(dataset, None)
        if part.ok and part.value is not None:
            self._loaded_names[dataset] = tuple(s.name for s in part.value)
        if self.opened is not None and self.opened.dataset == dataset:
            self.opened = OpenState(dataset, part)
            self._render_tree()
        else:
            self._update_panel()

    def on_part_failed(self, message: PartFailed) -> None:
        """A listing that raised instead of returning its failure: shown like one."""
        if message.group == SNAPSHOTS:
            self._listed(message.key, Part(None, self._host_now(), error=message.error))
        elif message.group == RADIUS:
            self._radius_running = False
            self.radius_errors = self.radius_errors + (message.error,)
            self._update_panel()
            if self._radius_wanted:
                self._start_radius()

    # -- selection and the radius panel ----------------------------------------------------
    def on_tree_table_highlighted(self, event: TreeTable.Highlighted) -> None:
        self._update_panel()

    def known(self) -> Known:
        """What the screen knows now (the tree, listings, radius names, the last scan);
        `known().names()` gives the snapshot names per dataset the radius is computed from."""
        assert self.dtree is not None
        return Known(self.dtree, self._now(), self.loaded, self._loaded_names,
                     self.radius_names, self.radius_errors, self.scan.result,
                     self.opened.part if self.opened is not None else None, self.scan.seen)

    def _update_panel(self) -> None:
        panel = self.query_one(RadiusPanel)
        row = self.query_one(TreeTable).current
        if row is None or self.dtree is None:
            panel.show_lines([("muted", "Select a dataset or a snapshot to see what "
                               "zfs destroy -r / -R would take with it.")])
            return
        lines, lacking = describe(row, self.known())
        missing = [d for d in lacking if d not in self._radius_asked]
        if missing and len(missing) <= RADIUS_AUTOLOAD:
            self._want_radius(missing)
        panel.show_lines(lines)

    def _want_radius(self, datasets: list[str]) -> None:
        """List the snapshot names the panel lacks, once the cursor rests (RADIUS_DELAY) and
        one listing at a time: holding a cursor key never piles up commands on the host."""
        self._radius_wanted = datasets
        if self._radius_timer is not None:
            self._radius_timer.stop()
        self._radius_timer = self.set_timer(RADIUS_DELAY, self._start_radius)

    def _start_radius(self) -> None:
        self._radius_timer = None
        if self._radius_running:
            return  # started again when the running listing lands
        datasets = [d for d in self._radius_wanted if d not in self._radius_asked]
        self._radius_wanted = []
        if not datasets:
            return
        self._radius_asked.update(datasets)
        self._radius_running = True
        # Not exclusive: the one running is never cancelled; the next starts when it lands.
        self.read(self.RadiusNamesLoaded, partial(scan_snapshot_names, self._host, datasets),
                  group=RADIUS, exclusive=False)

    def on_datasets_screen_radius_names_loaded(self, message: RadiusNamesLoaded) -> None:
        self._radius_running = False
        self.radius_names.update(message.value.names)
        self.radius_errors = self.radius_errors + message.value.errors
        self._update_panel()
        if self._radius_wanted:
            self._start_radius()

    # -- scanning every snapshot name --------------------------------------------------------
    def action_scan(self) -> None:
        if self.scan.running:
            if self._scan_worker is not None:
                self._scan_worker.cancel()
            return
        if self.dtree is None:
            return
        names = [n for n, _ in self.dtree.order]
        self.scan = ScanState(running=True, total=len(names), result=self.scan.result)
        self._scan_worker = self._scan_names(self._host, names)
        self._update_status()

    @work(thread=True, exclusive=True, exit_on_error=False, group=SCAN,
          description="scan all snapshot names")
    def _scan_names(self, host: Host, names: list[str]) -> None:
        worker = get_current_worker()

        def progress(p: ScanProgress) -> None:
            self.post_message(self.ScanProgressed(p.done_datasets, p.total_datasets,
                                                  p.snapshots))

        try:
            result = scan_snapshot_names(host, names, on_progress=progress,
                                         cancelled=lambda: worker.is_cancelled)
        except Exception as e:  # noqa: BLE001 - the scan stops and says why, the app goes on
            result = ScanResult({}, 0, 0, len(names), True, (f"{type(e).__name__}: {e}",),
                                0.0, self.console_app.clock())
        # posted even when cancelled: the scan stopped at the operator's request, and what it
        # read so far is kept
        self.post_message(self.ScanFinished(result))

    def on_datasets_screen_scan_progressed(self, message: ScanProgressed) -> None:
        if self.scan.running:
            self.scan.done, self.scan.total = message.done, message.total
            self.scan.snapshots = message.snapshots
            self._update_status()

    def on_datasets_screen_scan_finished(self, message: ScanFinished) -> None:
        r = message.result
        previous = self.scan.result
        if r.cancelled and previous is not None:
            # keep the older complete scan, refreshed with what this one read
            merged = dict(previous.names)
            merged.update(r.names)
            r = ScanResult(merged, sum(len(v) for v in merged.values()), r.done_datasets,
                           r.total_datasets, True, r.errors, r.seconds, r.finished_at)
        self.scan = ScanState(running=False, done=r.done_datasets, total=r.total_datasets,
                              snapshots=r.snapshots, result=r, seen=self._now())
        self._scan_worker = None
        self._update_status()
        self._update_panel()

    # -- the status lines ------------------------------------------------------------------
    def _update_status(self) -> None:
        if self.dtree is None:
            return
        self.query_one("#ds-status", Static).update(plain(self._tree_line() + "\n"
                                                          + self._scan_line()))

    def _tree_line(self) -> str:
        tree = self.dtree
        assert tree is not None
        clones = sum(1 for d in tree.datasets.values() if d.origin)
        held = len(tree.clones_of)
        line = f"{fmt.plural(len(tree.datasets), 'dataset')} · {fmt.plural(clones, 'clone')}"
        if held:
            line += f" ({fmt.plural(held, 'snapshot')} held)"
        if self.opened is not None:
            part = self.opened.part
            short = self.opened.dataset.rsplit("/", 1)[-1]
            if part is None:
                line += f" · listing {short}…"
            elif part.ok and part.value is not None:
                old = part.age(self._now())  # kept between refreshes: say its age
                listed = f", listed {fmt.age(old)}" if old >= 5 else ""
                line += f" · open: {short} ({fmt.plural(len(part.value), 'snapshot')}{listed})"
            else:
                line += f" · ✖ {short}: listing failed"
        return line

    def _scan_line(self) -> str:
        s = self.scan
        if s.running:
            return (f"Scanning snapshot names {progress_bar(s.done, s.total)} "
                    f"{s.done}/{s.total} datasets, {s.snapshots:,} so far (a cancels)")
        if s.result is None:
            return "Snapshots are listed per dataset; a scans all names in the background"
        r = s.result
        word = "stopped" if r.cancelled else "done"
        line = (f"Snapshot scan {word}: {r.snapshots:,} snapshots in "
                f"{r.done_datasets}/{r.total_datasets} datasets, {r.seconds:.1f} s, "
                f"{fmt.age(self._now() - s.seen)}")
        if r.errors:
            line += f" · ✖ {len(r.errors)} failed: {r.errors[0]}"
        return line
