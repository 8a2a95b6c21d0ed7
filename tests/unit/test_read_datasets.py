"""Dataset tree, clone graph and destroy blast radius: real-shaped data and the demo host."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.paths import PARSERS
from zconsole.hosts.base import CommandTimedOut, Result
from zconsole.hosts.demo import DemoHost
from zconsole.model.dataset import Dataset
from zconsole.parsers.zfs_list import parse_zfs_list
from zconsole.services.read.collect import collect
from zconsole.services.read.datasets import (
    BlastRadius,
    DatasetTree,
    blast_radius,
    build_tree,
    scan_snapshot_names,
    snapshot_names_argv,
)

FROZEN = 1795302010.0
FIXTURE = PARSERS / "zfs-list" / "2.3.2-all-name-used-refer-origin-clones.txt"


# -- the real 2.3.2 transcript: tank/clone1 cloned from tank/data@snap1, then @all1 -r ------

def transcript() -> tuple[DatasetTree, dict[str, tuple[str, ...]]]:
    rows = parse_zfs_list(FIXTURE.read_text(), ("name", "used", "refer", "origin", "clones"))
    # `type` was not requested: filesystems show as "unknown", snapshots by their '@'.
    tree = build_tree(r for r in rows if not r.is_snapshot)
    snaps: dict[str, list[str]] = {}
    for r in rows:
        if r.is_snapshot:
            snaps.setdefault(r.name.split("@")[0], []).append(r.name)
    return tree, {k: tuple(v) for k, v in snaps.items()}


def test_transcript_tree_and_clone_graph() -> None:
    tree, _ = transcript()
    assert [n for n, _ in tree.order] == ["tank", "tank/clone1", "tank/data"]
    assert dict(tree.clones_of) == {"tank/data@snap1": ("tank/clone1",)}
    assert tree.held_snapshots("tank/data") == {"tank/data@snap1": ("tank/clone1",)}
    assert tree.held_snapshots("tank/clone1") == {}


def test_transcript_r_on_dataset_with_clone_is_refused() -> None:
    tree, snaps = transcript()
    r = blast_radius(tree, "tank/data", "-r", snaps)
    assert r.refused
    assert dict(r.blockers) == {"tank/data@snap1": ("tank/clone1",)}
    # what `zfs destroy -nvr tank/data` prints after "use '-R' to destroy ...":
    assert set(r.use_R) == {"tank/clone1", "tank/clone1@all1"}
    big = blast_radius(tree, "tank/data", "-R", snaps)
    assert not big.refused
    assert big.datasets == ("tank/data", "tank/clone1")
    assert set(big.snapshots) == {"tank/data@snap1", "tank/data@all1", "tank/clone1@all1"}
    assert big.clones == ("tank/clone1",)


def test_transcript_snapshot_radius() -> None:
    tree, snaps = transcript()
    r = blast_radius(tree, "tank/data@snap1", "-r", snaps)
    assert r.refused and r.snapshots == ("tank/data@snap1",)
    assert dict(r.blockers) == {"tank/data@snap1": ("tank/clone1",)}
    big = blast_radius(tree, "tank/data@snap1", "-R", snaps)
    assert big.datasets == ("tank/clone1",)
    assert set(big.snapshots) == {"tank/data@snap1", "tank/clone1@all1"}
    # -r on the recursive snapshot: tank@all1 and the @all1 of both children, no clones.
    rec = blast_radius(tree, "tank@all1", "-r", snaps)
    assert not rec.refused
    assert rec.snapshots == ("tank@all1", "tank/clone1@all1", "tank/data@all1")


def test_transcript_pool_root_takes_the_clone_inside_it() -> None:
    tree, snaps = transcript()
    r = blast_radius(tree, "tank", "-r", snaps)
    assert not r.refused  # the clone is below tank: -r destroys it without -R
    # the pool's root is never destroyed (zfs destroy: "Ignore pools"); its snapshots are
    assert r.datasets == ("tank/clone1", "tank/data") and r.kept == ("tank",)
    assert not r.destroys("tank") and r.destroys("tank/data")
    assert len(r.snapshots) == 4 and r.complete


def test_unloaded_snapshots_are_named_not_guessed() -> None:
    tree, _ = transcript()
    r = blast_radius(tree, "tank/data", "-R", {})
    assert r.datasets == ("tank/data", "tank/clone1")
    assert r.snapshots == () and r.unlisted == ("tank/data", "tank/clone1")
    assert not r.complete
    # the clone graph is known without any snapshot listing
    assert r.refused is False and dict(r.blockers) == {"tank/data@snap1": ("tank/clone1",)}
    s = blast_radius(tree, "tank@all1", "-r", {})
    assert s.snapshots == ("tank@all1",) and s.maybe == ("tank/clone1", "tank/data")


# -- the demo `snapshots` scenario: 20 datasets x 500 snapshots, clones of clones ---------

@pytest.fixture(scope="module")
def demo() -> tuple[DatasetTree, Mapping[str, tuple[str, ...]]]:
    host = DemoHost("snapshots", clock=lambda: FROZEN, seed=0)
    snap = collect(host)
    assert snap.datasets.ok and snap.datasets.value is not None
    tree = build_tree(snap.datasets.value)
    scan = scan_snapshot_names(host, [n for n, _ in tree.order])
    assert scan.errors == () and not scan.cancelled
    assert scan.snapshots == 10_002 and scan.done_datasets == scan.total_datasets == 27
    return tree, scan.names


def test_demo_clone_chain(demo: tuple[DatasetTree, Mapping[str, tuple[str, ...]]]) -> None:
    tree, names = demo
    assert len(tree.datasets) == 27
    assert dict(tree.clones_of) == {
        "tank/proj/p01@auto-00100": ("tank/clones/c1",),
        "tank/clones/c1@s1": ("tank/clones/c1-1",),
        "tank/clones/c1-1@s1": ("tank/clones/c1-1-1",),
        "tank/proj/p02@auto-00498": ("tank/clones/c2",),
    }
    r = blast_radius(tree, "tank/proj/p01@auto-00100", "-R", names)
    assert r.datasets == ("tank/clones/c1", "tank/clones/c1-1", "tank/clones/c1-1-1")
    assert set(r.snapshots) == {"tank/proj/p01@auto-00100", "tank/clones/c1@s1",
                                "tank/clones/c1-1@s1"}
    refused = blast_radius(tree, "tank/proj/p01@auto-00100", "-r", names)
    assert refused.refused and dict(refused.blockers) == {
        "tank/proj/p01@auto-00100": ("tank/clones/c1",)}


@pytest.mark.parametrize("target,mode,n_ds,n_snaps,refused", [
    ("tank/proj/p01", "-r", 1, 500, True),
    ("tank/proj/p01", "-R", 4, 502, False),
    ("tank/proj", "-r", 21, 10_000, True),
    ("tank/proj", "-R", 25, 10_002, False),
    ("tank", "-r", 26, 10_002, False),  # 27 datasets, the pool's root stays
    ("tank/clones", "-r", 5, 2, False),
    ("tank/clones/c1", "-r", 1, 1, True),  # c1-1 is a sibling by name, a clone of c1@s1
    ("tank/clones/c1", "-R", 3, 2, False),
    ("tank/clones/c2", "-r", 1, 0, False),
    ("tank/proj/p03@auto-00007", "-r", 0, 1, False),
])
def test_demo_radius_numbers(demo: tuple[DatasetTree, Mapping[str, tuple[str, ...]]],
                             target: str, mode: str, n_ds: int, n_snaps: int,
                             refused: bool) -> None:
    tree, names = demo
    r = blast_radius(tree, target, mode, names)  # type: ignore[arg-type]
    assert (len(r.datasets), len(r.snapshots), r.refused) == (n_ds, n_snaps, refused)
    assert r.complete


def test_demo_proj_refusal_lists_both_clone_chains(
        demo: tuple[DatasetTree, Mapping[str, tuple[str, ...]]]) -> None:
    tree, names = demo
    r = blast_radius(tree, "tank/proj", "-r", names)
    assert dict(r.blockers) == {"tank/proj/p01@auto-00100": ("tank/clones/c1",),
                                "tank/proj/p02@auto-00498": ("tank/clones/c2",)}
    assert set(r.use_R) == {"tank/clones/c1", "tank/clones/c1-1", "tank/clones/c1-1-1",
                            "tank/clones/c2", "tank/clones/c1@s1", "tank/clones/c1-1@s1"}


def _radius_work(datasets: int, per: int) -> tuple[int, int]:
    """(Python line events inside the datasets service, snapshots) for `zfs destroy -R` of
    a dataset with `datasets` children of `per` snapshots each: work counted, not timed."""
    import sys
    from types import FrameType
    from typing import Any

    ds = [Dataset("big", "filesystem")] + [Dataset(f"big/d{i:03d}", "filesystem")
                                             for i in range(datasets)]
    ds.append(Dataset("big/clone", "filesystem", origin="big/d007@s00042"))
    tree = build_tree(ds)
    names = {f"big/d{i:03d}": tuple(f"big/d{i:03d}@s{j:05d}" for j in range(per))
             for i in range(datasets)}
    lines = 0
    here = blast_radius.__code__.co_filename

    def count(frame: FrameType, event: str, _arg: Any) -> Any:
        nonlocal lines
        if frame.f_code.co_filename != here:
            return None
        if event == "line":
            lines += 1
        return count

    sys.settrace(count)
    try:
        r = blast_radius(tree, "big", "-R", names)
    finally:
        sys.settrace(None)
    assert len(r.datasets) == datasets + 1 and not r.refused  # + the clone; the root stays
    assert len(r.snapshots) == datasets * per
    s = blast_radius(tree, "big/d007@s00042", "-R", names)
    assert s.datasets == ("big/clone",)
    return lines, datasets * per


def test_radius_work_is_linear_in_the_snapshots() -> None:
    """100 000 snapshots under one dataset: the radius costs about twice what 50 000 cost
    (the time of the big one is measured in bench/, not asserted here)."""
    small, n_small = _radius_work(100, 500)
    big, n_big = _radius_work(200, 500)
    assert n_big == 100_000 and n_big == 2 * n_small
    assert big <= 2.2 * small, (small, big)


# -- the background scan --------------------------------------------------------------------

class ScriptedHost:
    """Answers `zfs list ... -d 1 -o name,createtxg DS...` from a table; counts commands."""

    kind = "local"
    label = "scripted"

    def __init__(self, snaps: Mapping[str, int], fail: Sequence[str] = (),
                 hang: Sequence[str] = ()) -> None:
        self.snaps = snaps
        self.fail = set(fail)
        self.hang = set(hang)
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        argv = tuple(argv)
        self.calls.append(argv)
        targets = argv[argv.index("name,createtxg") + 1:]
        if self.hang & set(targets):
            raise CommandTimedOut(argv, timeout)
        out: list[str] = []
        err: list[str] = []
        for d in targets:
            if d in self.fail:
                err.append(f"cannot open '{d}': dataset does not exist")
                continue
            out.extend(f"{d}@s{j}\t{100 + j}" for j in range(self.snaps[d]))
        return Result(argv, 1 if err else 0, "".join(x + "\n" for x in out),
                      "".join(x + "\n" for x in err), 0.01)

    def now(self) -> float:
        return FROZEN


def test_scan_batches_grow_and_progress_counts() -> None:
    snaps = {f"t/d{i}": i for i in range(40)}
    host = ScriptedHost(snaps)
    seen: list[tuple[int, int]] = []
    r = scan_snapshot_names(host, list(snaps),  # type: ignore[arg-type]
                            on_progress=lambda p: seen.append((p.done_datasets, p.snapshots)))
    assert r.snapshots == sum(range(40)) and r.done_datasets == 40 and not r.errors
    assert r.names["t/d3"] == ("t/d3@s0", "t/d3@s1", "t/d3@s2")
    assert len(host.calls) < 10  # batched: 1, 2, 4, 8, 16, 9 datasets per command
    assert host.calls[0] == snapshot_names_argv(["t/d0"])
    assert seen[0] == (0, 0) and seen[-1] == (40, sum(range(40)))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_scan_keeps_what_it_could_read() -> None:
    snaps = {f"t/d{i}": 2 for i in range(6)}
    host = ScriptedHost(snaps, fail=["t/d4"], hang=["t/d5"])
    r = scan_snapshot_names(host, list(snaps))  # type: ignore[arg-type]
    assert set(r.names) == {"t/d0", "t/d1", "t/d2", "t/d3"}
    assert r.snapshots == 8
    assert any("t/d4" in e and "does not exist" in e for e in r.errors)
    assert any("no answer after" in e for e in r.errors)


def test_scan_cancels_between_commands() -> None:
    snaps = {f"t/d{i}": 1 for i in range(50)}
    host = ScriptedHost(snaps)
    r = scan_snapshot_names(host, list(snaps),  # type: ignore[arg-type]
                            cancelled=lambda: len(host.calls) >= 2)
    assert r.cancelled and r.done_datasets == 3 and len(host.calls) == 2


def test_argv_refuses_option_like_names() -> None:
    with pytest.raises(ValueError):
        snapshot_names_argv(["-r"])


# -- properties -----------------------------------------------------------------------------

@st.composite
def forests(draw: st.DrawFn) -> tuple[DatasetTree, dict[str, tuple[str, ...]], str]:
    """Datasets created one after another: each a child of an earlier one, some cloned from
    a snapshot of an earlier dataset (so origins always exist); random snapshot lists."""
    names = ["p"]
    snaps: dict[str, tuple[str, ...]] = {"p": tuple(f"p@s{j}" for j in range(draw(
        st.integers(0, 3))))}
    rows = [Dataset("p", "filesystem")]
    for i in range(draw(st.integers(0, 14))):
        parent = draw(st.sampled_from(names))
        name = f"{parent}/x{i}"
        origin = None
        candidates = [s for d in names for s in snaps[d]]
        if draw(st.booleans()) and candidates:
            origin = draw(st.sampled_from(candidates))
        rows.append(Dataset(name, "volume" if i % 5 == 4 else "filesystem", origin=origin))
        names.append(name)
        snaps[name] = tuple(f"{name}@s{j}" for j in range(draw(st.integers(0, 3))))
    known = {d: s for d, s in snaps.items() if draw(st.booleans())}
    everything = names + [s for d in names for s in snaps[d]]
    target = draw(st.sampled_from(everything))
    return build_tree(rows), known, target


def _destroyed(r: BlastRadius) -> set[str]:
    return set(r.datasets) | set(r.snapshots)


@settings(max_examples=300, deadline=None)
@given(forests())
def test_R_contains_r_and_is_closed_under_clones(
        case: tuple[DatasetTree, dict[str, tuple[str, ...]], str]) -> None:
    tree, known, target = case
    small = blast_radius(tree, target, "-r", known)
    big = blast_radius(tree, target, "-R", known)
    assert _destroyed(small) <= _destroyed(big)
    assert set(small.maybe) >= set(big.maybe)
    for origin, clones in tree.clones_of.items():
        if big.destroys(origin):
            assert all(c in big.datasets for c in clones), (origin, clones)
        if small.destroys(origin):
            outside = [c for c in clones if c not in small.datasets]
            if outside:
                assert small.refused and set(small.blockers[origin]) == set(outside)
    # -r is refused exactly when -R has to take more datasets than -r
    extra = [d for d in big.datasets if d not in small.datasets]
    assert small.refused == bool(extra)
    assert [x for x in small.use_R if "@" not in x] == extra
    assert set(big.clones) == set(extra)
