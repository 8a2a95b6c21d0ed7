"""The Datasets screen: lazy snapshot loading, clones, blast radius, the background scan,
failures, and pictures at 80x24 and 120x40 (frozen clock)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.fakes import DelegatingHost
from tests.ui.conftest import FROZEN, frozen, make_app, settle
from zconsole.hosts.base import CommandTimedOut, Host, Result
from zconsole.hosts.demo import DemoHost
from zconsole.services import fmt
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.datasets.radius_panel import RadiusPanel
from zconsole.ui.screens.datasets.screen import DatasetsScreen
from zconsole.ui.screens.datasets.tree_table import TreeTable

SIZES = [(80, 24), (120, 40)]


class WrappedHost(DelegatingHost):
    """A demo host whose commands can be slowed down or made to time out."""

    kind = "demo"
    simulated = True

    def __init__(self, inner: Host, *, fails: Callable[[Sequence[str]], bool] = lambda a: False,
                 delay: Callable[[Sequence[str]], float] = lambda a: 0.0) -> None:
        self.inner = inner
        self.fails = fails
        self.delay = delay
        self.calls: list[tuple[str, ...]] = []

    @property
    def label(self) -> str:
        return "wrapped-demo"

    def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        self.calls.append(tuple(argv))
        if self.fails(argv):
            raise CommandTimedOut(argv, timeout)
        pause = self.delay(argv)
        if pause:
            time.sleep(pause)
        return self.inner.run(argv, timeout=timeout, check=check, stdin=stdin)


def wrapped_app(scenario: str = "snapshots", **kwargs: Any) -> tuple[ZConsoleApp, WrappedHost]:
    host = WrappedHost(DemoHost(scenario, clock=frozen, seed=0), **kwargs)
    return ZConsoleApp(host, clock=frozen, refresh_interval=3600), host  # type: ignore[arg-type]


async def wait_for(pilot: Pilot[Any], cond: Callable[[], bool], what: str,
                   seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def open_screen(app: ZConsoleApp, pilot: Pilot[Any]) -> DatasetsScreen:
    await settle(app, pilot)
    await pilot.press("3")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, DatasetsScreen)
    await wait_for(pilot, lambda: bool(screen.query_one(TreeTable).rows), "the tree")
    return screen


async def quiet(app: ZConsoleApp, pilot: Pilot[Any]) -> None:
    """Let the panel's pending listing (after its timer) and every worker finish."""
    screen = app.screen
    assert isinstance(screen, DatasetsScreen)
    await pilot.pause()
    await wait_for(pilot, lambda: not screen.busy, "the screen to settle")
    await app.workers.wait_for_complete()
    await pilot.pause()


def panel_text(screen: DatasetsScreen) -> str:
    return str(screen.query_one(RadiusPanel).render())


def status_text(screen: DatasetsScreen) -> str:
    return str(screen.query_one("#ds-status", Static).render())


async def open_dataset(pilot: Pilot[Any], screen: DatasetsScreen, name: str) -> TreeTable:
    table = screen.query_one(TreeTable)
    assert table.move_to(name)
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, lambda: any(r.kind == "snapshot" for r in table.rows),
                   f"the snapshots of {name}")
    return table


async def test_tree_from_the_cheap_list_and_no_snapshot_listing_at_start() -> None:
    app, host = wrapped_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one(TreeTable)
        names = [r.key for r in table.rows]
        assert names[:3] == ["tank", "tank/clones", "tank/clones/c1"]
        assert len(names) == 27 and all(r.kind == "dataset" for r in table.rows)
        c1 = table.rows[2]
        assert c1.note.startswith("clone of tank/proj/p01@auto-00100")
        assert status_text(screen).startswith("27 datasets · 4 clones (4 snapshots held)")
        # nothing listed every snapshot; only the cheap filesystem/volume list ran
        assert not any("snapshot" in a and "-d" not in a for a in host.calls)


async def test_opening_a_dataset_loads_its_snapshots_in_a_worker() -> None:
    app, host = wrapped_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        snaps = [r for r in table.rows if r.kind == "snapshot"]
        assert len(snaps) == 500
        assert snaps[0].key == "tank/proj/p01@auto-00000"
        assert ("zfs", "list", "-H", "-p", "-t", "snapshot", "-d", "1", "-o",
                "name,used,refer,createtxg,creation,clones", "tank/proj/p01") in host.calls
        # the values on screen are zfs's own numbers
        raw = DemoHost("snapshots", clock=frozen).run(
            ["zfs", "list", "-H", "-p", "-t", "snapshot", "-d", "1", "-o", "name,used",
             "tank/proj/p01"]).stdout.splitlines()[0].split("\t")
        line = next(x for x in table.visible_text() if "@auto-00000" in x)
        assert fmt.size(int(raw[1]), short=True) in line
        assert "open: p01 (500 snapshots)" in status_text(screen)
        # a clone row sits right under its origin snapshot
        i = table.index_of("tank/proj/p01@auto-00100")
        assert i is not None
        assert table.rows[i + 1].label == ("⤷ clone tank/clones/c1 "
                                           "(origin tank/proj/p01@auto-00100)")
        # closing with Enter again removes the rows
        table.move_to("tank/proj/p01")
        await pilot.press("enter")
        await pilot.pause()
        assert not any(r.kind == "snapshot" for r in table.rows)


def listings_of(host: WrappedHost, dataset: str, since: int = 0) -> list[tuple[str, ...]]:
    """The listings of one dataset's snapshots (not the background scan's or the radius's
    batches of names, which may end with the same dataset)."""
    return [a for a in host.calls[since:] if a[-1] == dataset and "snapshot" in a
            and "name,createtxg" not in a]


async def refresh(app: ZConsoleApp, pilot: Pilot[Any], *, force: bool = False) -> None:
    app.action_refresh(force)
    await wait_for(pilot, lambda: app.refresh_started is None, "a refresh")
    await quiet(app, pilot)


async def test_a_refresh_relists_the_opened_dataset_only_when_it_may_have_changed() -> None:
    """Timed refreshes keep the opened dataset's listing while its sizes in the cheap list
    stay put; a destroyed snapshot (its sizes move) or the operator's ctrl+r lists it again,
    and never any other dataset's snapshots."""
    app, host = wrapped_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        first = listings_of(host, "tank/proj/p01")
        # once for the opening (and once more if the start's refresh ended after it)
        assert first and all(a == first[0] for a in first), first
        before, refreshes = len(host.calls), app.refreshes
        for _ in range(2):
            await refresh(app, pilot)
        assert app.refreshes == refreshes + 2
        again = [a for a in host.calls[before:] if "snapshot" in a]
        # nothing moved: no listing of the opened dataset; only the names of the few clones
        # the panel's -R radius needs (never a listing of every snapshot)
        assert listings_of(host, "tank/proj/p01", before) == []
        names = {d for a in again if "name,createtxg" in a
                 for d in a[a.index("name,createtxg") + 1:]}
        assert names <= {"tank/clones/c1", "tank/clones/c1-1", "tank/clones/c1-1-1"}
        assert sum(r.kind == "snapshot" for r in table.rows) == 500
        # a snapshot destroyed behind the console's back: used/usedbysnapshots move
        host.inner.run(["zfs", "destroy", "tank/proj/p01@auto-00001"])
        before = len(host.calls)
        await refresh(app, pilot)
        assert listings_of(host, "tank/proj/p01", before) == first[:1]
        assert sum(r.kind == "snapshot" for r in table.rows) == 499
        assert table.index_of("tank/proj/p01@auto-00001") is None
        # the operator's refresh lists it again although nothing moved
        before = len(host.calls)
        await refresh(app, pilot, force=True)
        assert listings_of(host, "tank/proj/p01", before) == first[:1]
        before = len(host.calls)
        await refresh(app, pilot)
        assert listings_of(host, "tank/proj/p01", before) == []


async def test_an_unchanged_open_listing_is_relisted_when_old_and_says_its_age() -> None:
    """A new snapshot of an idle dataset moves none of its sizes: the listing is kept, says
    how old it is, and is listed again once it is RELIST_EVERY seconds old."""
    from zconsole.ui.screens.datasets.screen import RELIST_EVERY

    now = [FROZEN]
    host = WrappedHost(DemoHost("snapshots", clock=lambda: now[0], seed=0))
    app = ZConsoleApp(host, clock=lambda: now[0], refresh_interval=3600)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        host.inner.run(["zfs", "snapshot", "tank/proj/p01@zz-new"])
        now[0] += 30
        before = len(host.calls)
        await refresh(app, pilot)
        assert listings_of(host, "tank/proj/p01", before) == []
        assert table.index_of("tank/proj/p01@zz-new") is None
        assert "open: p01 (500 snapshots, listed 30 s ago)" in status_text(screen)
        now[0] += RELIST_EVERY - 30
        await refresh(app, pilot)
        assert len(listings_of(host, "tank/proj/p01", before)) == 1
        assert table.index_of("tank/proj/p01@zz-new") is not None
        assert "open: p01 (501 snapshots)" in status_text(screen)


async def test_snapshot_with_clones_names_its_blast_radius() -> None:
    app = make_app("snapshots")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        table.move_to("tank/proj/p01@auto-00100")
        await quiet(app, pilot)
        text = " ".join(panel_text(screen).split())
        assert "cannot destroy: 1 clone depends on it: tank/clones/c1" in text
        assert ("zfs destroy -r tank/proj/p01@auto-00100 would be refused; zfs would ask "
                "for -R to also destroy tank/clones/c1, tank/clones/c1-1, tank/clones/c1-1-1 "
                "and their snapshots.") in text
        assert ("zfs destroy -R tank/proj/p01@auto-00100 would also destroy: 3 "
                "filesystems/volumes made from it (tank/clones/c1, tank/clones/c1-1, "
                "tank/clones/c1-1-1) and 2 snapshots (tank/clones/c1@s1, "
                "tank/clones/c1-1@s1).") in text
        # Enter on the clone row jumps to the clone's own dataset row
        await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert table.current is not None and table.current.key == "tank/clones/c1"


async def test_dataset_radius_counts_after_a_scan() -> None:
    app = make_app("snapshots")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one(TreeTable)
        await pilot.press("a")
        await wait_for(pilot, lambda: "Snapshot scan done" in status_text(screen), "the scan")
        table.move_to("tank/proj")
        await quiet(app, pilot)
        text = " ".join(panel_text(screen).split())
        assert ("zfs destroy -r tank/proj would be refused: 2 snapshots cannot be destroyed "
                "because clones depend on them: tank/proj/p01@auto-00100 (tank/clones/c1); "
                "tank/proj/p02@auto-00498 (tank/clones/c2)") in text
        assert ("zfs destroy -R tank/proj would destroy 25 filesystems/volumes and 10,002 "
                "snapshots") in text
        assert ("through clones also tank/clones/c1, tank/clones/c2, tank/clones/c1-1, "
                "tank/clones/c1-1-1") in text


async def test_scan_shows_progress_and_a_final_count() -> None:
    app, _ = wrapped_app(delay=lambda a: 0.25 if "name,createtxg" in a else 0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        seen: list[str] = []
        await pilot.press("a")
        deadline = time.monotonic() + 300  # a hang guard, not a time budget
        while "Snapshot scan done" not in status_text(screen):
            seen.append(status_text(screen))
            assert time.monotonic() < deadline
            await pilot.pause(0.01)
        progress = [s for s in seen if "Scanning snapshot names" in s]
        assert progress, "no progress line was shown"
        assert any(", " in s and "so far (a cancels)" in s and "/27 datasets" in s
                   for s in progress)
        counts = {int(m.group(1)) for s in progress
                  for m in [re.search(r" (\d+)/27 datasets", s)] if m}
        assert any(0 < c < 27 for c in counts), counts  # it moved while running
        assert "Snapshot scan done: 10,002 snapshots in 27/27 datasets" in status_text(screen)


async def test_scan_can_be_cancelled() -> None:
    app, _ = wrapped_app(delay=lambda a: 0.2 if "name,createtxg" in a else 0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: "Scanning" in status_text(screen), "the scan to start")
        await pilot.press("a")
        await wait_for(pilot, lambda: "Snapshot scan stopped" in status_text(screen),
                       "the scan to stop")
        assert "/27 datasets" in status_text(screen)
        assert "27/27" not in status_text(screen)


async def test_failing_snapshot_listing_is_shown_not_crashed() -> None:
    app, _ = wrapped_app(fails=lambda a: "snapshot" in list(a))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one(TreeTable)
        table.move_to("tank/proj/p01")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(r.kind == "note" and r.level == "bad"
                                          for r in table.rows), "the failure row")
        note = next(r for r in table.rows if r.kind == "note")
        assert note.label.startswith("✖ could not list the snapshots: zfs list -H -p -t "
                                     "snapshot -d 1")
        assert "no answer after 120 s (stopped)" in note.label
        assert "✖ p01: listing failed" in status_text(screen)
        await pilot.press("down")
        await quiet(app, pilot)
        text = " ".join(panel_text(screen).split())
        assert "Could not list the snapshots of tank/proj/p01: zfs list" in text
        assert "no answer after 120 s" in text
        # the scan fails the same way and says so
        await pilot.press("a")
        await wait_for(pilot, lambda: "Snapshot scan done" in status_text(screen), "the scan")
        assert "0 snapshots in 27/27 datasets" in status_text(screen)
        assert "✖ 27 failed: zfs list" in status_text(screen)


async def test_failing_dataset_list_is_shown() -> None:
    app, _ = wrapped_app(fails=lambda a: "filesystem,volume" in list(a))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DatasetsScreen)
        message = str(screen.query_one("#ds-message", Static).render())
        assert message.startswith("✖ Could not list the datasets: zfs list -H -p -t "
                                  "filesystem,volume")
        assert "no answer after" in message and message.count("zfs list") == 1
        assert screen.query_one(TreeTable).rows == []


async def test_ten_thousand_snapshots_render_only_the_lines_on_screen() -> None:
    """An opened dataset with 10 000 snapshots: every row is in the table, but only the
    lines on screen are rendered, before and after a jump to the end. (How long it takes is
    measured in bench/budgets.py, not asserted here.)"""
    from zconsole.hosts.demo.scenarios.snapshots import build as build_snapshots

    host = DemoHost("snapshots", clock=frozen, seed=0)
    host.machine = build_snapshots(0, FROZEN, datasets=3, per=10_000)
    host.machine.last = FROZEN
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        assert sum(r.kind == "snapshot" for r in table.rows) == 10_000
        await pilot.pause()
        lines = table.scrollable_content_region.height
        assert 0 < len(table._strips) <= lines
        await pilot.press("end")
        await pilot.press("pageup")
        await pilot.pause()
        top = int(table.scroll_y)  # a page up from the end, on screen
        assert table.cursor < len(table.rows) - 1 and top <= table.cursor < top + lines
        assert len(table._strips) <= 3 * lines  # the lines shown, not the 10 000 rows


async def test_snapshot_scan_goes_in_chunks_and_keys_are_handled_between_them() -> None:
    """The background scan lists the snapshot names a few datasets at a time in a worker:
    while it waits inside a chunk, a key still moves the cursor (the UI is not starved);
    then it finishes every dataset."""
    gate = threading.Event()
    chunks: list[tuple[str, ...]] = []

    def hold(argv: Sequence[str]) -> float:
        if "name,createtxg" in argv:
            chunks.append(tuple(argv))
            if len(chunks) == 2:
                gate.wait(30)
        return 0.0

    app, _ = wrapped_app(delay=hold)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one(TreeTable)
        await pilot.press("a")
        await wait_for(pilot, lambda: len(chunks) == 2, "the scan's second chunk")
        before = table.cursor
        await pilot.press("down")
        await wait_for(pilot, lambda: table.cursor == before + 1, "the key during the scan")
        assert "Scanning snapshot names" in status_text(screen)
        gate.set()
        await wait_for(pilot, lambda: "Snapshot scan done" in status_text(screen), "the scan")
        assert len(chunks) >= 3
        listed = {d for a in chunks for d in a[a.index("name,createtxg") + 1:]}
        assert len(listed) == 27
        assert "Snapshot scan done: 10,002 snapshots in 27/27 datasets" in status_text(screen)


# -- pictures -------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario,opened,selected", [
    ("snapshots", "tank/proj/p01", "tank/proj/p01@auto-00100"),
    ("showcase", "tank/vm/debian12", "tank/vm/debian12@golden"),
], ids=["snapshots", "showcase"])
def test_datasets_pictures(snap_compare: Any, size: tuple[int, int], scenario: str,
                           opened: str, selected: str) -> None:
    app = make_app(scenario)

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, opened)
        # the jump puts the row mid-table: measure the table once the panel under it has
        # its text (under load the jump came first, one line off: a flaky picture)
        await quiet(app, pilot)
        table.move_to(selected)
        await quiet(app, pilot)
        # the selection's panel may grow after the jump measured the table (a cold CI run's
        # picture had the row at the bottom, three rows off): mid-table at the height the
        # table has once everything is drawn, as the jump means it
        table.scroll_to(y=max(0, table.cursor - table._body_height() // 2), animate=False,
                        force=True)
        await quiet(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_the_pool_root_is_not_counted_in_its_blast_radius() -> None:
    """Issue 26 item 8: `zfs destroy -r tank` destroys everything below tank and every
    snapshot, but never tank itself (a pool's root dataset: `zfs destroy` skips it; `zpool
    destroy` removes a pool). The panel counts what goes and says what stays."""
    from zconsole.model.dataset import Dataset
    from zconsole.services.read.datasets import blast_radius, build_tree
    from zconsole.ui.screens.datasets.radius_panel import destroy_sentence

    tree = build_tree(Dataset(n, "filesystem") for n in ("tank", "tank/a", "tank/b"))
    r = blast_radius(tree, "tank", "-r", {"tank": ("tank@s1",), "tank/a": (), "tank/b": ()})
    assert r.datasets == ("tank/a", "tank/b") and r.kept == ("tank",)
    assert destroy_sentence(r) == (
        "zfs destroy -r tank would destroy 2 filesystems/volumes and 1 snapshot, not tank "
        "(the pool's root): below it tank/a, tank/b.")
    below = blast_radius(tree, "tank/a", "-r", {"tank/a": ()})
    assert below.kept == () and destroy_sentence(below) == (
        "zfs destroy -r tank/a would destroy 1 filesystem/volume and 0 snapshots.")


async def test_unchanged_refreshes_keep_the_laid_out_rows(monkeypatch: Any) -> None:
    """The tree's rows (500 snapshots of the opened dataset here) are laid out again only
    when the dataset list or the opened listing is a new answer: a refresh that changed
    nothing keeps the same row objects; a destroyed snapshot lays them out anew."""
    import zconsole.ui.screens.datasets.screen as screen_module

    built: list[int] = []
    real = screen_module.build_rows

    def counting(tree: Any, opened: Any) -> Any:
        built.append(1)
        return real(tree, opened)

    monkeypatch.setattr(screen_module, "build_rows", counting)
    app, host = wrapped_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot)
        table = await open_dataset(pilot, screen, "tank/proj/p01")
        rows, count = table.rows[:], len(built)
        for _ in range(2):
            await refresh(app, pilot)
        assert len(built) == count
        assert all(a is b for a, b in zip(rows, table.rows, strict=True))
        host.inner.run(["zfs", "destroy", "tank/proj/p01@auto-00001"])
        await refresh(app, pilot)
        assert len(built) > count
        assert table.index_of("tank/proj/p01@auto-00001") is None
