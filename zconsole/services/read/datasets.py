"""The dataset tree, the clone graph, and what `zfs destroy -r` / `-R` would take with it.

Everything here except `load_snapshots` and `scan_snapshot_names` is pure: it works on the
cheap filesystem/volume list that `collect()` reads (`snapshot.datasets.value`, with
`origin`) plus whatever snapshot lists have been loaded so far. Listing every snapshot with
space properties takes minutes on a big host (zfs-linux-facts.md), so:

* the tree and the clone graph come from the filesystems' and volumes' `origin` property
  (authoritative; a snapshot's `clones` column may be truncated);
* a dataset's snapshots are listed when the operator opens it (`load_snapshots`);
* the names of all snapshots can be gathered in the background (`scan_snapshot_names`), a
  few datasets per command, with progress and a cancel check between commands.

Blast radius semantics follow `zfs destroy` in OpenZFS 2.1/2.3 (cmd/zfs/zfs_main.c,
zfs_do_destroy, destroy_check_dependent, gather_snapshots):

* `zfs destroy -r FS` destroys FS, every descendant filesystem/volume and all their snapshots.
  It is refused ("filesystem has dependent clones; use '-R' to destroy the following
  datasets:") when a clone outside FS's subtree was made from one of those snapshots; the
  list it prints is every dependent outside the subtree: those clones, their descendants and
  snapshots, clones of those, and so on.
* `zfs destroy -R FS` destroys all of that too.
* `zfs destroy -r FS@snap` destroys FS@snap and the snapshot of the same name in every
  descendant that has one. It is refused when any of them has a dependent clone.
* `zfs destroy -R FS@snap` (-R implies -r) also destroys those clones and everything that
  depends on them, recursively.
* `zfs destroy -nvR FS@snap` does NOT list the clones it would destroy (dry run skips
  destroy_clones): this module computes the radius from origin links instead.
* A pool's root dataset (`tank`) is never destroyed: `zfs destroy tank` is refused ("cannot
  destroy 'tank': operation does not apply to pools"), and `zfs destroy -r tank` destroys
  every dataset below it and every snapshot (tank's own too) but skips tank itself
  (destroy_callback: "Ignore pools"); `zpool destroy` is what removes a pool. The radius
  keeps it out of `datasets` and names it in `kept`.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from zconsole.hosts.base import Host, HostError
from zconsole.model.dataset import Dataset
from zconsole.model.reading import Part
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zfs_list import parse_zfs_list_names
from zconsole.services.read import catalogue
from zconsole.services.read.collect import list_snapshots

Mode = Literal["-r", "-R"]

# A dataset's snapshot listing can be long on a big host (100 snapshots took 1.1 s in the
# test guest); give it more than the default 30 s before calling it hung.
SNAPSHOT_LIST_TIMEOUT = 120.0

SCAN_COLUMNS: tuple[str, ...] = catalogue.SNAPSHOT_NAME_COLUMNS


def dataset_of(snapshot: str) -> str:
    """`tank/a@s1` -> `tank/a`."""
    return snapshot.split("@", 1)[0]


def short_snapshot(snapshot: str) -> str:
    """`tank/a@s1` -> `s1`."""
    return snapshot.split("@", 1)[1] if "@" in snapshot else snapshot


def parent_of(name: str) -> str | None:
    return name.rsplit("/", 1)[0] if "/" in name else None


def is_pool_root(name: str) -> bool:
    """`tank` (not `tank/a`, not `tank@s`): a pool's root dataset, which `zfs destroy` never
    destroys."""
    return "/" not in name and "@" not in name


def is_under(name: str, ancestor: str) -> bool:
    """True when `name` is `ancestor` itself or lies below it (by name, as zfs decides)."""
    return name == ancestor or name.startswith(ancestor + "/") or name.startswith(ancestor + "@")


@dataclass(frozen=True)
class DatasetTree:
    """Filesystems and volumes by name hierarchy, and the clone graph from their origins.

    `order` is depth-first (children sorted by name) with each dataset's depth. `clones_of`
    maps an origin snapshot to the datasets cloned from it; `origin_snapshots` maps a dataset
    to its snapshots that are origins of clones (known without listing any snapshot).
    """

    datasets: Mapping[str, Dataset]
    children: Mapping[str, tuple[str, ...]]
    roots: tuple[str, ...]
    order: tuple[tuple[str, int], ...]
    clones_of: Mapping[str, tuple[str, ...]]
    origin_snapshots: Mapping[str, tuple[str, ...]]

    def __contains__(self, name: object) -> bool:
        return name in self.datasets

    def subtree(self, name: str) -> list[str]:
        """`name` and every descendant filesystem/volume, depth-first."""
        out: list[str] = []
        stack = [name]
        while stack:
            cur = stack.pop()
            out.append(cur)
            stack.extend(reversed(self.children.get(cur, ())))
        return out

    def descendants(self, name: str) -> list[str]:
        return self.subtree(name)[1:]

    def held_snapshots(self, dataset: str) -> dict[str, tuple[str, ...]]:
        """Snapshots of `dataset` that cannot be destroyed because clones depend on them."""
        return {s: self.clones_of[s] for s in self.origin_snapshots.get(dataset, ())}


def build_tree(datasets: Iterable[Dataset]) -> DatasetTree:
    """The tree of filesystems and volumes (snapshots and bookmarks in the input are ignored).

    A dataset whose parent is not in the list (a partial listing) becomes a root.
    """
    by_name: dict[str, Dataset] = {}
    for d in datasets:
        if d.type in ("snapshot", "bookmark") or "@" in d.name or "#" in d.name:
            continue
        by_name[d.name] = d
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for name in by_name:
        parent = parent_of(name)
        if parent is not None and parent in by_name:
            children.setdefault(parent, []).append(name)
        else:
            roots.append(name)
    kids = {k: tuple(sorted(v)) for k, v in children.items()}
    order: list[tuple[str, int]] = []

    def visit(name: str, depth: int) -> None:
        stack = [(name, depth)]
        while stack:
            cur, d = stack.pop()
            order.append((cur, d))
            stack.extend((c, d + 1) for c in reversed(kids.get(cur, ())))

    for r in sorted(roots):
        visit(r, 0)
    clones: dict[str, list[str]] = {}
    for d in by_name.values():
        if d.origin and "@" in d.origin:
            clones.setdefault(d.origin, []).append(d.name)
    clones_of = {k: tuple(sorted(v)) for k, v in clones.items()}
    origins: dict[str, list[str]] = {}
    for snap in clones_of:
        origins.setdefault(dataset_of(snap), []).append(snap)
    origin_snapshots = {k: tuple(sorted(v)) for k, v in origins.items()}
    return DatasetTree(datasets=by_name, children=kids, roots=tuple(sorted(roots)),
                       order=tuple(order), clones_of=clones_of,
                       origin_snapshots=origin_snapshots)


@dataclass(frozen=True)
class BlastRadius:
    """What `zfs destroy MODE TARGET` would do, computed from origin links.

    * `datasets`: filesystems/volumes destroyed (with all their snapshots), depth-first from
      the target, then clones in discovery order.
    * `snapshots`: snapshots known to be destroyed, outside `datasets` (a snapshot target and
      its same-named snapshots below) plus, for datasets whose snapshots are loaded, theirs.
    * `unlisted`: datasets in `datasets` whose snapshots have not been loaded: "and all their
      snapshots" (their number is not known).
    * `maybe`: for a snapshot target, descendants whose snapshots are not loaded: their
      snapshot of the same name is destroyed too if it exists.
    * `clones`: datasets in the radius only because of a clone link (-R), depth-first.
    * `refused`: -r refuses because clones outside the radius depend on it; `blockers` maps
      each snapshot that cannot be destroyed to the clones depending on it; `use_R` is what
      zfs lists after "use '-R' to destroy the following datasets:" (the extra datasets, and
      their snapshots where loaded, that -R would take).
    """

    target: str
    mode: Mode
    datasets: tuple[str, ...]
    snapshots: tuple[str, ...]
    unlisted: tuple[str, ...] = ()
    maybe: tuple[str, ...] = ()
    clones: tuple[str, ...] = ()
    refused: bool = False
    blockers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    use_R: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # the pool's root dataset: zfs destroy never destroys it

    def destroys(self, name: str) -> bool:
        """Is this dataset or snapshot destroyed (ignoring a refusal)?"""
        if "@" in name:
            return dataset_of(name) in self._dataset_set or name in self._snapshot_set
        return name in self._dataset_set

    @property
    def _dataset_set(self) -> frozenset[str]:
        return frozenset(self.datasets)

    @property
    def _snapshot_set(self) -> frozenset[str]:
        return frozenset(self.snapshots)

    @property
    def complete(self) -> bool:
        """True when every snapshot in the radius is known (nothing unlisted or maybe)."""
        return not self.unlisted and not self.maybe


def _closure(tree: DatasetTree, dead_ds: list[str], dead_snaps: Iterable[str]
             ) -> tuple[list[str], list[str]]:
    """Add every clone (and its subtree) whose origin is destroyed, until nothing changes.

    Returns (all dead datasets in order, the datasets added through clone links).
    """
    seen = set(dead_ds)
    out = list(dead_ds)
    added: list[str] = []
    by_origin_ds: dict[str, list[str]] = {}
    for snap in tree.clones_of:
        by_origin_ds.setdefault(dataset_of(snap), []).append(snap)
    work: deque[str] = deque()
    for snap in dead_snaps:
        work.extend(tree.clones_of.get(snap, ()))
    for d in out:
        for snap in by_origin_ds.get(d, ()):
            work.extend(tree.clones_of[snap])
    while work:
        clone = work.popleft()
        if clone in seen:
            continue
        for d in tree.subtree(clone):
            if d in seen:
                continue
            seen.add(d)
            out.append(d)
            added.append(d)
            for snap in by_origin_ds.get(d, ()):
                work.extend(tree.clones_of[snap])
    return out, added


def _snapshots_of(names: Iterable[str], known: Mapping[str, Sequence[str]]
                  ) -> tuple[list[str], list[str]]:
    """(known snapshot names of these datasets, datasets whose snapshots are not loaded)."""
    snaps: list[str] = []
    unlisted: list[str] = []
    for d in names:
        if d in known:
            snaps.extend(known[d])
        else:
            unlisted.append(d)
    return snaps, unlisted


def blast_radius(tree: DatasetTree, target: str, mode: Mode,
                 snapshots: Mapping[str, Sequence[str]] | None = None) -> BlastRadius:
    """What `zfs destroy MODE TARGET` would destroy, or why -r would be refused.

    `snapshots` maps a dataset to the full names of its snapshots where they are loaded
    (opened datasets, a finished or partial scan); other datasets count as "not loaded".
    Raises KeyError when the target's dataset is not in the tree.
    """
    known = snapshots or {}
    if mode not in ("-r", "-R"):
        raise ValueError(f"mode must be '-r' or '-R', not {mode!r}")
    if "@" in target:
        return _snapshot_radius(tree, target, mode, known)
    return _dataset_radius(tree, target, mode, known)


def _dataset_radius(tree: DatasetTree, target: str, mode: Mode,
                    known: Mapping[str, Sequence[str]]) -> BlastRadius:
    if target not in tree.datasets:
        raise KeyError(target)
    subtree = tree.subtree(target)
    everything, added = _closure(tree, subtree, ())
    blockers: dict[str, tuple[str, ...]] = {}
    for d in subtree:
        for snap in tree.origin_snapshots.get(d, ()):
            outside = tuple(c for c in tree.clones_of[snap] if not is_under(c, target))
            if outside:
                blockers[snap] = outside
    extra_snaps, _ = _snapshots_of(added, known)
    use_r = tuple(added) + tuple(extra_snaps)
    kept = (target,) if is_pool_root(target) else ()
    if mode == "-r":
        snaps, unlisted = _snapshots_of(subtree, known)
        return BlastRadius(target, mode, tuple(d for d in subtree if d not in kept),
                           tuple(snaps), tuple(unlisted), refused=bool(blockers),
                           blockers=blockers, use_R=use_r, kept=kept)
    snaps, unlisted = _snapshots_of(everything, known)
    return BlastRadius(target, mode, tuple(d for d in everything if d not in kept),
                       tuple(snaps), tuple(unlisted), clones=tuple(added), blockers=blockers,
                       use_R=use_r, kept=kept)


def _snapshot_radius(tree: DatasetTree, target: str, mode: Mode,
                     known: Mapping[str, Sequence[str]]) -> BlastRadius:
    base = dataset_of(target)
    if base not in tree.datasets:
        raise KeyError(base)
    short = short_snapshot(target)
    targeted: list[str] = [target]
    maybe: list[str] = []
    for d in tree.descendants(base):
        name = f"{d}@{short}"
        if name in tree.clones_of or (d in known and name in known[d]):
            targeted.append(name)
        elif d not in known:
            maybe.append(d)
    blockers = {s: tree.clones_of[s] for s in targeted if s in tree.clones_of}
    # A snapshot named like the target in a dataset that is not loaded may have clones too;
    # clones are known from origins, so `tree.clones_of` already covers every existing one.
    _, added = _closure(tree, [], targeted)
    extra_snaps, _ = _snapshots_of(added, known)
    use_r = tuple(added) + tuple(extra_snaps)
    if mode == "-r":
        return BlastRadius(target, mode, (), tuple(targeted), (), tuple(maybe),
                           refused=bool(blockers), blockers=blockers, use_R=use_r)
    snaps, unlisted = _snapshots_of(added, known)
    return BlastRadius(target, mode, tuple(added), tuple(targeted) + tuple(snaps),
                       tuple(unlisted), tuple(maybe), clones=tuple(added), blockers=blockers,
                       use_R=use_r)


# -- reading snapshots from the host (call from a worker) ---------------------------------

def load_snapshots(host: Host, dataset: str, *, timeout: float = SNAPSHOT_LIST_TIMEOUT
                   ) -> Part[tuple[Dataset, ...]]:
    """The snapshots of one dataset (used, refer, createtxg, creation, clones)."""
    return list_snapshots(host, dataset, timeout=timeout)


def snapshot_names_argv(datasets: Sequence[str]) -> tuple[str, ...]:
    """The scan's command, from the catalogue (`commands.zfs_list_snapshot_names`)."""
    return catalogue.zfs_list_snapshot_names(datasets)


@dataclass
class ScanProgress:
    """Where a background scan of all snapshot names stands."""

    total_datasets: int
    done_datasets: int = 0
    snapshots: int = 0
    started: float = 0.0
    finished: bool = False
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ScanResult:
    """Snapshot names per dataset (createtxg order), from a scan that may have stopped early.

    `names` holds only the datasets that were fully listed; `errors` says what failed.
    """

    names: Mapping[str, tuple[str, ...]]
    snapshots: int
    done_datasets: int
    total_datasets: int
    cancelled: bool
    errors: tuple[str, ...]
    seconds: float
    finished_at: float


class _Scan:
    """One scan's state: what was listed, how big the next batch is, who to tell."""

    def __init__(self, host: Host, datasets: Sequence[str], timeout: float,
                 on_progress: Callable[[ScanProgress], None] | None,
                 cancelled: Callable[[], bool], clock: Callable[[], float]) -> None:
        self.host, self.timeout, self.clock = host, timeout, clock
        self.on_progress, self.is_cancelled = on_progress, cancelled
        self.progress = ScanProgress(total_datasets=len(datasets), started=clock())
        self.names: dict[str, tuple[str, ...]] = {}

    def report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)

    def stop_requested(self) -> bool:
        if self.is_cancelled():
            self.progress.cancelled = True
        return self.progress.cancelled

    def run(self, chunk: Sequence[str]) -> tuple[dict[str, list[str]], str | None]:
        """List the snapshot names of `chunk` in one command; (names per dataset, error)."""
        argv = snapshot_names_argv(chunk)
        try:
            result = self.host.run(argv, timeout=self.timeout, check=False)
            names = parse_zfs_list_names(result.stdout, SCAN_COLUMNS)
        except (HostError, ParseError) as e:
            return {}, str(e)
        got: dict[str, list[str]] = {d: [] for d in chunk}
        for name in names:
            got.setdefault(dataset_of(name), []).append(name)
        if result.returncode != 0:
            err = (result.stderr.strip() or f"exit {result.returncode}")
            return got, f"{' '.join(argv)} failed (exit {result.returncode}): {err}"
        return got, None

    def keep(self, dataset: str, names: Sequence[str]) -> None:
        self.names[dataset] = tuple(names)
        self.progress.snapshots += len(names)

    def one_by_one(self, chunk: Sequence[str]) -> None:
        """A batch failed: list its datasets one at a time, keeping what can be read."""
        for d in chunk:
            if self.stop_requested():
                return
            one, err = self.run([d])
            if err is None:
                self.keep(d, one.get(d, ()))
            else:
                self.progress.errors.append(err)
            self.progress.done_datasets += 1
            self.report()

    def result(self) -> ScanResult:
        p = self.progress
        return ScanResult(names=self.names, snapshots=p.snapshots,
                          done_datasets=p.done_datasets, total_datasets=p.total_datasets,
                          cancelled=p.cancelled, errors=tuple(p.errors),
                          seconds=self.clock() - p.started, finished_at=_host_now(self.host))


def scan_snapshot_names(
    host: Host,
    datasets: Sequence[str],
    *,
    on_progress: Callable[[ScanProgress], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    timeout: float = SNAPSHOT_LIST_TIMEOUT,
    target_seconds: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
) -> ScanResult:
    """List every dataset's snapshot names, a batch of datasets per command.

    The batch grows while commands return quickly (one command per dataset costs ~0.3 s of
    overhead on a slow host) and shrinks when one takes longer than `target_seconds`, so
    progress is reported about every second and a cancel takes effect between commands.
    A failed batch is retried one dataset at a time so one bad dataset does not hide the
    others; what still fails is in `errors`.
    """
    scan = _Scan(host, datasets, timeout, on_progress, cancelled, clock)
    batch, i = 1, 0
    scan.report()
    while i < len(datasets) and not scan.stop_requested():
        chunk = datasets[i:i + batch]
        t0 = clock()
        got, err = scan.run(chunk)
        took = clock() - t0
        i += len(chunk)
        if err is not None and len(chunk) > 1:
            scan.one_by_one(chunk)
            batch = 1
            continue
        if err is not None:
            scan.progress.errors.append(err)
        else:
            for d in chunk:
                scan.keep(d, got.get(d, ()))
        scan.progress.done_datasets += len(chunk)
        scan.report()
        if took < target_seconds / 2:
            batch = min(batch * 2, 256)
        elif took > target_seconds * 2:
            batch = max(1, batch // 2)
    scan.progress.finished = not scan.progress.cancelled
    scan.report()
    return scan.result()


def _host_now(host: Host) -> float:
    try:
        return float(host.now())
    except HostError:
        return 0.0
