"""The Pools screen on big hosts: every vdev has its row, and every row can be brought on
screen and is drawn there (issue 11: on 100 disks at 120x40 the rows below raidz2-2 were
never drawn: the pools view was cut at the page's height, so the page did not scroll)."""

from __future__ import annotations

import pytest

from tests.ui.conftest import make_app, settle
from tests.ui.test_hostile_host import screen_text
from zconsole.model.pool import Section
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.pools_view import PoolsView


def expected_keys(pool: object) -> list[str]:
    """Row keys for a pool as the model has it: the pool, each section's title (not for
    data vdevs) and every vdev by its path from the top-level vdev."""
    from zconsole.model.pool import Pool

    assert isinstance(pool, Pool)
    keys = [pool.name]
    for section in Section:
        tops = pool.section(section)
        if not tops:
            continue
        if section is not Section.DATA:
            keys.append(f"{pool.name}:{section.value}")
        for top in tops:
            for path, _ in top.paths():
                keys.append(f"{pool.name}:{section.value}:{'/'.join(path)}")
    return keys


@pytest.mark.parametrize("scenario,disks", [("showcase", 10), ("big100", 102), ("big1000", 1000)])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_vdev_has_a_row_and_the_last_row_is_drawn(
    scenario: str, disks: int, size: tuple[int, int]
) -> None:
    app = make_app(scenario)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        # a big pool's healthy vdevs are folded (issue 29): every one unfolded, as enter does
        view = app.screen.query_one(PoolsView)
        view.toggled = {k for b in app.screen.query(PoolBlock) for k in b.table.folded}
        view.redraw()
        await pilot.pause()
        reading = app.reading
        assert reading is not None and reading.pool_status.value is not None
        pools = {p.name: p for p in reading.pool_status.value}
        assert sum(1 for p in pools.values() for _ in p.leaf_paths()) >= disks
        blocks = list(app.screen.query(PoolBlock))
        assert [b.pool_name for b in blocks] == sorted(pools)
        for block in blocks:
            keys = [str(k.value) for k in block.table.rows]
            assert keys == expected_keys(pools[block.pool_name])
        # the keyboard reaches the last row of the last pool, and it is drawn
        table = blocks[-1].table
        table.focus()
        await pilot.press("ctrl+end")
        await pilot.pause()
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1
        last = table.get_row_at(table.row_count - 1)[0]
        assert str(last).strip() and str(last) in screen_text(app)
        # and back to the first one
        await pilot.press("ctrl+home")
        await pilot.pause()
        await pilot.pause()
        first_leaf = table.get_row_at(2)[0]
        assert str(first_leaf) in screen_text(app)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_each_top_level_vdev_shows_how_full_it_is(size: tuple[int, int]) -> None:
    """Issue 16: the per-vdev capacity bars (`zpool list -v`'s CAP) on the Pools screen, so
    the advisor's imbalance (a vdev added late: mirror-0 86 %, mirror-1 12 % on the advice
    scenario) is seen where the vdevs are; a leaf of a mirror has none (zpool prints `-`);
    at 80 columns there is no room for the column beside the names, and it is left out."""
    app = make_app("advice")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        table = block.table
        labels = [str(c.label).strip() for c in table.columns.values()]  # headers padded
        if size[0] < 100:
            assert "CAP" not in labels
            return
        assert labels == ["NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "CAP", "NOTE"]
        cap = labels.index("CAP")

        def cell(key: str) -> str:
            return str(table.get_row(key)[cap])

        assert cell("tank") == "██░░ 49%"
        assert cell("tank:vdevs:mirror-0") == "███░ 86%"
        assert cell("tank:vdevs:mirror-1") == "░░░░ 12%"
        leaf = next(k for k in (str(r.value) for r in table.rows)
                    if k.startswith("tank:vdevs:mirror-0/"))
        assert cell(leaf) == ""
        text = screen_text(app)
        assert "███░ 86%" in text and "░░░░ 12%" in text
