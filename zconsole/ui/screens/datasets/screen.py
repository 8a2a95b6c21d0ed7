"""Datasets and snapshots: the tree, clones, blast radius.

The tree and the clone graph come from the filesystem/volume list of every refresh (cheap:
`origin` says which snapshot each clone came from). A dataset's snapshots are listed in a
worker when it is opened (one dataset open at a time), again after each refresh while it stays
open; `a` lists the names of every snapshot in the background with progress. Nothing here
writes to the host: the panel only says what `zfs destroy -r` / `-R` would take.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from zconsole.model.dataset import Dataset
from zconsole.model.reading import HostReading, Part
from zconsole.services import fmt
from zconsole.services.read.datasets import (
    BlastRadius,
    DatasetTree,
    ScanProgress,
    ScanResult,
    blast_radius,
    build_tree,
    dataset_of,
    load_snapshots,
    scan_snapshot_names,
)
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.datasets.view import (
    OpenState,
    RadiusPanel,
    TreeRow,
    TreeTable,
    build_rows,
    destroy_sentence,
    names_sentence,
    refusal_sentence,
    snapshot_clones,
)
from zconsole.ui.state import ViewState

# The panel asks for the snapshot names of at most this many unlisted datasets in its radius,
# once the cursor has rested this long on a row.
RADIUS_AUTOLOAD = 16
RADIUS_DELAY = 0.4


class SnapshotsLoaded(Message):
    def __init__(self, dataset: str, part: Part[tuple[Dataset, ...]], generation: int) -> None:
        super().__init__()
        self.dataset = dataset
        self.part = part
        self.generation = generation


class RadiusNamesLoaded(Message):
    def __init__(self, result: ScanResult, generation: int) -> None:
        super().__init__()
        self.result = result
        self.generation = generation


class ScanProgressed(Message):
    def __init__(self, done: int, total: int, snapshots: int) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.snapshots = snapshots


class ScanFinished(Message):
    def __init__(self, result: ScanResult) -> None:
        super().__init__()
        self.result = result


@dataclass
class ScanState:
    running: bool = False
    done: int = 0
    total: int = 0
    snapshots: int = 0
    result: ScanResult | None = None


def progress_bar(done: int, total: int, width: int = 12) -> str:
    filled = 0 if total <= 0 else max(0, min(width, done * width // total))
    return "█" * filled + "░" * (width - filled)


class DatasetsScreen(ZScreen):
    MODE = "datasets"
    TITLE = "Datasets"
    KEY = "3"
    AUTO_FOCUS = "#ds-tree"

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

    def __init__(self) -> None:
        super().__init__()
        self.dtree: DatasetTree | None = None
        self.opened: OpenState | None = None
        self.loaded: dict[str, Part[tuple[Dataset, ...]]] = {}  # this refresh's listings
        self._loaded_names: dict[str, tuple[str, ...]] = {}  # names of `loaded`
        self.radius_names: dict[str, tuple[str, ...]] = {}  # this refresh, names only
        self.radius_errors: tuple[str, ...] = ()
        self.scan = ScanState()
        self.generation = 0
        self._source: HostReading | None = None
        self._datasets: tuple[Dataset, ...] | None = None
        self._state: ViewState | None = None
        self._radius_asked: set[str] = set()
        self._scan_worker: Worker[None] | None = None
        self._radius_wanted: list[str] = []
        self._radius_timer: Timer | None = None
        self._radius_running = False
        self._loading: str | None = None
        self._reload_due = False

    def compose_body(self) -> ComposeResult:
        yield Static("reading the host…", id="ds-status")
        yield Static("", id="ds-message")
        yield TreeTable(id="ds-tree")
        yield RadiusPanel(id="ds-radius")

    # -- refresh ---------------------------------------------------------------------------
    def show_state(self, state: ViewState) -> None:
        self._state = state
        snap = state.reading
        message = self.query_one("#ds-message", Static)
        if snap is None:
            message.update(f"✖ Could not read the host: {state.last_error}"
                           if state.last_error else "")
            return
        part = snap.datasets
        if snap is not self._source:
            # A new refresh: listings are per refresh. The opened dataset keeps its rows
            # (their age is shown) until its new listing arrives.
            self._source = snap
            self.generation += 1
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
        if not part.ok or part.value is None:
            if part.skipped:
                message.update(f"No datasets: {part.error}")
            else:
                shown = (f" Showing the list read {fmt.age(state.now - self._list_time)}."
                         if self.dtree is not None else "")
                error = part.error or "unknown error"
                what = error if part.source and error.startswith(part.source) \
                    else f"{part.source}: {error}"
                message.update(f"✖ Could not list the datasets: {what} "
                               f"(tried {fmt.age(part.age(state.now))}).{shown}")
        else:
            message.update("")
            if part.value != self._datasets:
                self._datasets = part.value
                self._list_time = part.taken_at
                self.dtree = build_tree(part.value)
            self._list_time = part.taken_at
        message.display = bool(str(message.render()).strip())
        if self.dtree is None:
            return
        if self.opened is not None:
            if self.opened.dataset not in self.dtree:
                self.opened = None
            elif self._reload_due and self._loading is None:
                self._load(self.opened.dataset, keep_rows=True)
        self._render_tree()

    _list_time = 0.0

    def _render_tree(self) -> None:
        if self.dtree is None:
            return
        table = self.query_one(TreeTable)
        keep = table.current.key if table.current is not None else None
        table.set_rows(build_rows(self.dtree, self.opened), self._now(), keep=keep)
        self._update_status()

    def _now(self) -> float:
        return self._state.now if self._state is not None else self.zapp.clock()

    @property
    def busy(self) -> bool:
        """True while a listing, the panel's pending name listing or a scan is under way."""
        loading = self.opened is not None and self.opened.part is None
        return (loading or self._radius_timer is not None or self._radius_running
                or bool(self._radius_wanted) or self.scan.running)

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
        table = self.query_one(TreeTable)
        table.move_to(name)

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
        host = self.zapp.host
        generation = self.generation
        self._loading = name
        self._reload_due = False
        if not keep_rows:
            self.opened = OpenState(name, None)

        def work() -> None:
            part = load_snapshots(host, name)
            if not get_current_worker().is_cancelled:
                self.post_message(SnapshotsLoaded(name, part, generation))

        self.run_worker(work, thread=True, exclusive=True, group="ds-snapshots",
                        name=f"snapshots of {name}")

    def on_snapshots_loaded(self, message: SnapshotsLoaded) -> None:
        # kept even when a refresh came in meanwhile: the listing is newer than that refresh
        # began, and dropping it would never let a slow listing land
        if self._loading == message.dataset:
            self._loading = None
        self.loaded[message.dataset] = message.part
        self._loaded_names.pop(message.dataset, None)
        if message.part.ok and message.part.value is not None:
            self._loaded_names[message.dataset] = tuple(s.name for s in message.part.value)
        if self.opened is not None and self.opened.dataset == message.dataset:
            self.opened = OpenState(message.dataset, message.part)
            self._render_tree()
        else:
            self._update_panel()

    # -- selection and the radius panel ----------------------------------------------------
    def on_tree_table_highlighted(self, event: TreeTable.Highlighted) -> None:
        self._update_panel()

    def known_names(self) -> dict[str, tuple[str, ...]]:
        """Snapshot names per dataset: a scan (older), then this refresh's listings."""
        known: dict[str, tuple[str, ...]] = {}
        if self.scan.result is not None:
            known.update(self.scan.result.names)
        known.update(self.radius_names)
        known.update(self._loaded_names)
        return known

    def _update_panel(self) -> None:
        panel = self.query_one(RadiusPanel)
        colours = self.app.get_css_variables()
        row = self.query_one(TreeTable).current
        if row is None or self.dtree is None:
            panel.show_lines([("muted", "Select a dataset or a snapshot to see what "
                               "zfs destroy -r / -R would take with it.")], colours)
            return
        panel.show_lines(self.panel_lines(row), colours)

    def panel_lines(self, row: TreeRow) -> list[tuple[str, str]]:
        """(level, sentence) lines describing the row and its blast radius."""
        tree = self.dtree
        assert tree is not None
        now = self._now()
        lines: list[tuple[str, str]] = []
        name = row.name
        if row.kind == "note":
            part = self.opened.part if self.opened is not None else None
            if part is not None and not part.ok:
                lines.append(("bad", f"Could not list the snapshots of {name}: {part.error} "
                                     f"(tried {fmt.age(part.age(now))}). "
                                     "The blast radius below counts them as not listed."))
            else:
                lines.append(("muted", row.label))
        if "@" not in name and name not in tree:
            return lines
        if "@" in name and dataset_of(name) not in tree:
            return lines
        if row.kind == "dataset" or row.kind == "clone":
            lines.append(("", self._dataset_summary(name, now)))
        elif row.kind == "snapshot" and row.dataset is not None:
            clones = snapshot_clones(tree, row.dataset)
            s = (f"{name} · used {fmt.size(row.dataset.used, short=True)} · refer "
                 f"{fmt.size(row.dataset.refer, short=True)}")
            if clones:
                lines.append(("bad", s + f" · cannot destroy: {fmt.plural(len(clones), 'clone')} "
                                     f"depend{'s' if len(clones) == 1 else ''} on it: "
                                     f"{names_sentence(clones)}"))
            else:
                lines.append(("", s + " · no clones depend on it"))
        known = self.known_names()
        radii: list[BlastRadius] = []
        for mode in ("-r", "-R"):
            try:
                radii.append(blast_radius(tree, name, mode, known))
            except KeyError:
                return lines
        small, big = radii
        if small.refused:
            lines.append(("bad", refusal_sentence(small)))
        else:
            lines.append(("warn", destroy_sentence(small)))
        lines.append(("warn", destroy_sentence(big, small)))
        missing = [d for d in dict.fromkeys(big.unlisted + big.maybe)
                   if d not in self._radius_asked]
        if missing and len(missing) <= RADIUS_AUTOLOAD:
            self._want_radius(missing)
        if self.radius_errors:
            lines.append(("bad", "Some snapshot lists could not be read: "
                                 + "; ".join(self.radius_errors[:2])))
        src = self._names_source(big, known)
        if src:
            lines.append(("muted", src))
        return lines

    def _names_source(self, r: BlastRadius, known: Mapping[str, Sequence[str]]) -> str:
        scan = self.scan.result
        if scan is None:
            return ""
        involved = set(r.datasets) | {dataset_of(s) for s in r.snapshots}
        from_scan = [d for d in involved if d in scan.names and d not in self.loaded
                     and d not in self.radius_names]
        if not from_scan:
            return ""
        return (f"Snapshot names of {fmt.plural(len(from_scan), 'dataset')} come from the scan "
                f"{fmt.age(self._now() - scan.finished_at)} (a to scan again).")

    def _dataset_summary(self, name: str, now: float) -> str:
        tree = self.dtree
        assert tree is not None
        d = tree.datasets[name]
        s = f"{name} · {d.type} · used {fmt.size(d.used, short=True)}"
        if d.origin:
            s += f" · clone of {d.origin}"
        part = self.loaded.get(name)
        if part is not None and part.ok and part.value is not None:
            s += f" · {fmt.plural(len(part.value), 'snapshot')} (listed {fmt.age(part.age(now))})"
        elif part is not None and not part.ok:
            s += f" · snapshots could not be listed: {part.error}"
        elif name in self.radius_names:
            s += f" · {fmt.plural(len(self.radius_names[name]), 'snapshot')}"
        elif self.scan.result is not None and name in self.scan.result.names:
            s += f" · {fmt.plural(len(self.scan.result.names[name]), 'snapshot')} (scan)"
        else:
            s += " · snapshots not listed yet (Enter opens it)"
        held = tree.held_snapshots(name)
        if held:
            s += (f" · {fmt.plural(len(held), 'snapshot')} held by clones: "
                  + "; ".join(f"@{k.split('@', 1)[1]} → {names_sentence(v, 2)}"
                              for k, v in list(held.items())[:3]))
        return s

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
        host = self.zapp.host
        generation = self.generation

        def work() -> None:
            result = scan_snapshot_names(host, datasets)
            self.post_message(RadiusNamesLoaded(result, generation))

        self.run_worker(work, thread=True, exclusive=False, group="ds-radius",
                        name="snapshot names for the blast radius")

    def on_radius_names_loaded(self, message: RadiusNamesLoaded) -> None:
        self._radius_running = False
        self.radius_names.update(message.result.names)
        self.radius_errors = self.radius_errors + message.result.errors
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
        host = self.zapp.host
        names = [n for n, _ in self.dtree.order]
        self.scan = ScanState(running=True, total=len(names), result=self.scan.result)

        def progress(p: ScanProgress) -> None:
            self.post_message(ScanProgressed(p.done_datasets, p.total_datasets, p.snapshots))

        def work() -> None:
            worker = get_current_worker()
            result = scan_snapshot_names(host, names, on_progress=progress,
                                         cancelled=lambda: worker.is_cancelled)
            self.post_message(ScanFinished(result))

        self._scan_worker = self.run_worker(work, thread=True, exclusive=True, group="ds-scan",
                                            name="scan all snapshot names")
        self._update_status()

    def on_scan_progressed(self, message: ScanProgressed) -> None:
        if self.scan.running:
            self.scan.done, self.scan.total = message.done, message.total
            self.scan.snapshots = message.snapshots
            self._update_status()

    def on_scan_finished(self, message: ScanFinished) -> None:
        r = message.result
        previous = self.scan.result
        if r.cancelled and previous is not None:
            # keep the older complete scan, refreshed with what this one read
            merged = dict(previous.names)
            merged.update(r.names)
            r = ScanResult(merged, sum(len(v) for v in merged.values()), r.done_datasets,
                           r.total_datasets, True, r.errors, r.seconds, r.finished_at)
        self.scan = ScanState(running=False, done=r.done_datasets, total=r.total_datasets,
                              snapshots=r.snapshots, result=r)
        self._scan_worker = None
        self._update_status()
        self._update_panel()

    # -- the status lines ------------------------------------------------------------------
    def _update_status(self) -> None:
        if self.dtree is None:
            return
        tree = self.dtree
        n = len(tree.datasets)
        clones = sum(1 for d in tree.datasets.values() if d.origin)
        held = len(tree.clones_of)
        first = f"{fmt.plural(n, 'dataset')} · {fmt.plural(clones, 'clone')}"
        if held:
            first += f" ({fmt.plural(held, 'snapshot')} held)"
        if self.opened is not None:
            part = self.opened.part
            short = self.opened.dataset.rsplit("/", 1)[-1]
            if part is None:
                first += f" · listing {short}…"
            elif part.ok and part.value is not None:
                first += f" · open: {short} ({fmt.plural(len(part.value), 'snapshot')})"
            else:
                first += f" · ✖ {short}: listing failed"
        s = self.scan
        if s.running:
            second = (f"Scanning snapshot names {progress_bar(s.done, s.total)} "
                      f"{s.done}/{s.total} datasets, {s.snapshots:,} so far (a cancels)")
        elif s.result is not None:
            r = s.result
            word = "stopped" if r.cancelled else "done"
            second = (f"Snapshot scan {word}: {r.snapshots:,} snapshots in "
                      f"{r.done_datasets}/{r.total_datasets} datasets, {r.seconds:.1f} s, "
                      f"{fmt.age(self._now() - r.finished_at)}")
            if r.errors:
                second += f" · ✖ {len(r.errors)} failed: {r.errors[0]}"
        else:
            second = "Snapshots are listed per dataset; a scans all names in the background"
        self.query_one("#ds-status", Static).update(first + "\n" + second)
