"""The Pools screen's problems-only view (`x`, what `zpool status -x` is to `zpool status`)
and the fold of healthy vdevs on big pools (issue 29: `--demo big100` drew all 100 leaves)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.ui.conftest import make_app, settle
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.filter import row_text
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import FOLD_LEAVES, VdevTable

HEALTHY = "✔ ONLINE"


def shown(app: ZConsoleApp) -> dict[str, list[str]]:
    """Each pool block on screen: its rows' text."""
    return {b.pool_name: [row_text(b.table.get_row(k)) for k in b.table.rows]
            for b in app.screen.query(PoolBlock) if b.display}


def scope(app: ZConsoleApp) -> str:
    line = app.screen.query_one("#pools-scope", Static)
    return str(line.render()) if line.display else ""


async def test_x_shows_only_what_is_not_healthy_and_x_again_everything() -> None:
    app = make_app("degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        every = shown(app)
        assert any(HEALTHY in r for rows in every.values() for r in rows)
        await pilot.press("x")
        await pilot.pause()
        problems = shown(app)
        assert problems and len(problems) <= len(every)
        for pool, rows in problems.items():
            assert rows[0].startswith(pool)
            leaves = [r for r in rows[1:] if HEALTHY not in r]
            assert leaves, rows
            # every ONLINE row left is the parent of a problem (a mirror above a disk)
            for i, r in enumerate(rows):
                if HEALTHY in r:
                    assert i + 1 < len(rows) and len(rows[i + 1]) - len(
                        rows[i + 1].lstrip("│├└─ ")) > len(r) - len(r.lstrip("│├└─ ")), rows
        assert "FAULTED" in " ".join(r for rows in problems.values() for r in rows)
        assert scope(app).startswith("Problems only (")
        await pilot.press("x")
        await pilot.pause()
        assert shown(app) == every and scope(app) == ""


async def test_x_on_a_healthy_host_says_so() -> None:
    app = make_app("healthy")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        assert shown(app) == {}
        assert "every pool, vdev and disk is healthy" in scope(app)


async def test_big_pools_fold_healthy_vdevs_and_enter_unfolds_one() -> None:
    app = make_app("big100")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        table: VdevTable = block.table
        assert app.reading is not None
        pool = next(p for p in app.reading.pool_status.value or () if p.name == "tank")
        assert sum(1 for _ in pool.leaf_paths()) > FOLD_LEAVES
        rows = [row_text(table.get_row(k)) for k in table.rows]
        assert len(rows) == 1 + 10, rows  # the pool and its ten raidz2, one line each
        assert all(r.rstrip().endswith("▸ 10 disks") for r in rows[1:])
        # enter on raidz2-3 unfolds it: its ten disks under it; enter again folds it
        table.focus()
        key = "tank:vdevs:raidz2-3"
        table.move_cursor(row=table.get_row_index(key))
        await pilot.press("enter")
        await pilot.pause()
        assert table.row_count == 1 + 10 + 10
        assert table.cursor_key == key
        assert key not in table.folded
        await pilot.press("enter")
        await pilot.pause()
        assert table.row_count == 1 + 10 and key in table.folded
        # the small pool beside it is not folded
        fast = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "fast")
        assert not fast.table.folded and fast.table.row_count == 4


def test_problems_only_and_folded_pictures(snap_compare: Any) -> None:
    """80x24: `x` on the degraded host (the faulted disk under its mirror, nothing healthy
    beside it), and big100's tank folded (one line per healthy raidz2)."""
    app = make_app("degraded")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        await pilot.press("x")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_big_pool_folded_picture(snap_compare: Any) -> None:
    app = make_app("big100")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot)
        app.screen.query(PoolBlock).last().table.focus()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
