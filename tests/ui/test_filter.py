"""`/` narrows the list on Pools, Disks, Datasets and Timeline (issue 29): a one-line input
appears, typing keeps the rows whose visible text holds every word (any case), it says
"N of M shown", the next refresh is narrowed the same way, enter gives the focus back to the
list, escape clears the words and closes it."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.ui.conftest import make_app, settle
from tests.ui.test_datasets_screen import open_screen as open_datasets
from tests.ui.test_focus_kept import arrive
from tests.ui.test_timeline_screen import open_timeline
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.filter import FilterBar, matches, row_text, with_ancestors, words_of
from zconsole.ui.screens.datasets.tree_table import TreeTable
from zconsole.ui.screens.disks.disk_table import DisksTable
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.timeline.panel import TimelinePanel


def test_words_match_anywhere_in_any_case_and_trees_keep_parents() -> None:
    assert words_of("  Tank  FAULT ") == ("tank", "fault")
    assert matches("tank ✖ FAULTED ata-ST4000", ("fault", "st4000"))
    assert not matches("tank ✔ ONLINE", ("fault",))
    assert matches("anything", ())
    # tank > mirror-0 > (sda, sdb), mirror-1 > sdc, logs > nvme0
    depths = [0, 1, 2, 2, 1, 2, 1, 2]
    hits = [False, False, False, True, False, False, False, True]
    assert with_ancestors(hits, depths) == [True, True, False, True, False, False, True,
                                            True]


async def type_filter(pilot: Any, text: str) -> FilterBar:
    await pilot.press("slash")
    await pilot.pause()
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.pause()
    bar = pilot.app.screen.query_one(FilterBar)
    assert bar.display and isinstance(pilot.app.focused, Input)
    return bar


def pool_rows(app: ZConsoleApp) -> list[str]:
    return [row_text(block.table.get_row(k)) for block in app.screen.query(PoolBlock)
            if block.display for k in block.table.rows]


def count_text(bar: FilterBar) -> str:
    return str(bar.count.render())


async def refresh(app: ZConsoleApp, pilot: Any) -> None:
    before = app.reading
    app.action_refresh()
    for _ in range(500):
        if app.reading is not before and app.refresh_started is None:
            break
        await pilot.pause(0.01)
    await settle(app, pilot)


async def test_pools_filter_narrows_counts_survives_a_refresh_and_escape_restores() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        every = pool_rows(app)
        bar = await type_filter(pilot, "FAULTED")
        rows = pool_rows(app)
        faulted = [r for r in every if "FAULTED" in r]
        assert faulted and all(r in rows for r in faulted)
        # the matches and the rows above them (pool, mirror), nothing else
        assert len(rows) < len(every)
        assert all("FAULTED" in r or "DEGRADED" in r for r in rows), rows
        total = sum(b.total for b in app.screen.query(PoolBlock))
        assert count_text(bar) == f"{len(faulted)} of {total} shown"
        # enter: the focus goes back to a pool table, the filter stays
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.focused).__name__ == "VdevTable"
        await refresh(app, pilot)
        assert pool_rows(app) == rows
        assert count_text(bar) == f"{len(faulted)} of {total} shown"
        # escape in the input: every row again, the bar closed
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert pool_rows(app) == every
        assert not bar.display
        assert type(app.focused).__name__ == "VdevTable"


async def test_pools_filter_finds_a_serial_the_name_column_cuts() -> None:
    """At 80 columns a by-id name is cut in the middle: its whole name is still searched."""
    app = make_app("big100")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        bar = await type_filter(pilot, "zl2k00042")
        rows = pool_rows(app)
        leaves = [r for r in rows if r.lstrip("│├└─ ").startswith("ata")]
        assert len(leaves) == 1, rows
        assert count_text(bar).startswith("1 of ")


async def test_disks_filter_narrows_and_survives_a_refresh() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await arrive(app, pilot, "2")
        table = app.screen.query_one(DisksTable)
        every = table.row_count
        bar = await type_filter(pilot, "nvme")
        keys = [str(k.value) for k in table.rows]
        assert keys and all("nvme" in k for k in keys) and len(keys) < every
        assert count_text(bar) == f"{len(keys)} of {every} shown"
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is table
        await refresh(app, pilot)
        assert [str(k.value) for k in table.rows] == keys
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert table.row_count == every and app.focused is table


async def test_datasets_filter_keeps_matches_and_their_parents() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_datasets(app, pilot)
        table = screen.query_one(TreeTable)
        every = [r.key for r in table.rows]
        word = next(k.rsplit("/", 1)[-1] for k in every if k.count("/") >= 2)
        bar = await type_filter(pilot, word.upper())
        keys = [r.key for r in table.rows]
        assert keys and len(keys) < len(every)
        for k in keys:  # a match, or the parent of one
            assert word in k or any(o.startswith(k + "/") and word in o for o in keys)
        assert count_text(bar).endswith(f"of {len(every)} shown")
        await pilot.press("enter")
        await refresh(app, pilot)
        assert [r.key for r in table.rows] == keys
        assert app.focused is table
        await pilot.press("escape")  # on the tree: clears the words too
        await pilot.pause()
        assert [r.key for r in table.rows] == every and not bar.display


async def test_timeline_filter_narrows_entries() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_timeline(app, pilot)
        panel = screen.query_one(TimelinePanel)
        every = len(screen.shown)
        bar = await type_filter(pilot, "faulted")
        assert 0 < panel.words.shown < every
        assert count_text(bar) == f"{panel.words.shown} of {every} shown"
        lines = [ln for ln in str(screen.query_one("#tl-entries").render()).splitlines()
                 if ln[:2].isdigit()]
        assert lines and all("fault" in ln.lower() for ln in lines), lines
        await pilot.press("escape")
        await pilot.pause()
        assert panel.words.shown == every and not bar.display


def test_filter_picture(snap_compare: Any) -> None:
    """80x24: the filter's line above the pools, "N of M shown", the disks it kept."""
    app = make_app("degraded-spare")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        await type_filter(pilot, "zgy8")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
