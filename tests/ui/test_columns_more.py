"""More columns (issue 29): Datasets shows AVAIL and MOUNTPOINT while NAME takes only what its
names need (it took the whole width, even at 160 columns); Disks shows each disk's SERIAL; a
name, mountpoint or note cut to fit is read whole in the panel under the table, which follows
the cursor (Datasets: the radius panel's first line; Disks: the detail panel)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.conftest import make_app
from tests.ui.test_datasets_screen import open_screen, panel_text, quiet, wait_for
from tests.ui.test_disks_screen import detail, open_disks, select
from tests.ui.test_pool_columns import screen_lines
from zconsole.model.dataset import Dataset
from zconsole.ui.screens.datasets.rows import TreeRow
from zconsole.ui.screens.datasets.tree_table import CAPS, NAME_MIN, Needs, TreeTable, layout
from zconsole.ui.screens.disks.disk_table import serial_cell, serial_width

SIZES = [(80, 24), (120, 40), (160, 40)]


def head_line(lines: list[str], *words: str) -> str:
    return next(line for line in lines if all(w in line for w in words))


def row_line(lines: list[str], *words: str) -> str:
    return next(line for line in lines if all(w in line for w in words))


# -- Datasets ----------------------------------------------------------------------------------

def test_name_gets_what_its_names_need_and_the_numbers_the_rest() -> None:
    cols = {c.key: c.width for c in layout(160, Needs(name=21, mountpoint=24, note=30))}
    assert cols["name"] == 21  # not the whole width
    assert {"avail", "mountpoint", "note"} <= set(cols)
    assert cols["mountpoint"] == 24 and cols["note"] == 30
    assert sum(w + 1 for w in cols.values()) - 1 <= 160


def test_a_long_name_is_capped_and_a_narrow_table_drops_columns_not_name() -> None:
    wide = {c.key: c.width for c in layout(200, Needs(name=90, mountpoint=10, note=0))}
    assert wide["name"] == CAPS["name"]
    narrow = [c.key for c in layout(78, Needs(name=60, mountpoint=40, note=40))]
    widths = {c.key: c.width for c in layout(78, Needs(name=60, mountpoint=40, note=40))}
    assert widths["name"] >= NAME_MIN
    assert narrow[:4] == ["name", "used", "avail", "refer"] and "mountpoint" in narrow
    assert "note" not in narrow  # the least important go first
    assert sum(w + 1 for w in widths.values()) - 1 <= 78
    tiny = layout(40, Needs(name=30))
    assert tiny[0].width >= NAME_MIN and [c.key for c in tiny][:2] == ["name", "used"]
    assert sum(c.width + 1 for c in tiny) - 1 <= 40


def test_avail_and_mountpoint_cells_and_none_shown_as_dash() -> None:
    from zconsole.ui.screens.datasets.tree_table import row_cells

    vol = TreeRow("tank/vm", "dataset", "", "▸ tank/vm",
                  Dataset("tank/vm", "volume", used=1 << 30, avail=None, mountpoint=None))
    fs = TreeRow("tank/a", "dataset", "", "▸ tank/a",
                 Dataset("tank/a", "filesystem", used=1, avail=3 << 40, mountpoint="/srv/a"))
    assert row_cells(vol, 0)["avail"] == "-" and row_cells(vol, 0)["mountpoint"] == "-"
    assert row_cells(fs, 0)["avail"] == "3.0T" and row_cells(fs, 0)["mountpoint"] == "/srv/a"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_datasets_show_avail_and_mountpoint_and_name_fits_its_names(
        size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_screen(app, pilot)
        await quiet(app, pilot)
        lines = screen_lines(app)
        head = head_line(lines, "NAME", "USED")
        assert "AVAIL" in head and "MOUNTPOINT" in head, head
        # NAME is as wide as "│  ├─ ▸ alice-restore" (21) needs, not the rest of the line
        assert head.index("USED") < 30, head
        row = row_line(lines, "▸ backup")
        assert "3.7T" in row and "/tank/backup" in row, row
        assert ("NOTE" in head) == (size[0] >= 100)
        assert all(len(line.rstrip()) <= size[0] for line in lines)
        table = screen.query_one(TreeTable)
        assert table.rows and "avail" in {c.key for c in table._columns(
            table.scrollable_content_region.width)}


async def go_to(pilot: Pilot[Any], table: TreeTable, key: str) -> None:
    table.focus()
    assert table.move_to(key)
    await wait_for(pilot, lambda: table.current is not None and table.current.key == key, key)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_cut_mountpoint_and_note_are_read_whole_under_the_table(
        size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one(TreeTable)
        await go_to(pilot, table, "tank/home/alice-restore")
        await quiet(app, pilot)
        lines = screen_lines(app)
        row = row_line(lines, "alice-restore", "120.0M")
        # the table cuts it (mountpoint at 80, the clone note at 120) ...
        assert "/tank/home/alice-restore" not in row or "clone of tank/home/alice@" not in row
        # ... the panel under it has the whole name, mountpoint and origin
        text = panel_text(screen)
        origin = next(d.origin for d in app.reading.datasets.value or ()  # type: ignore[union-attr]
                      if d.name == "tank/home/alice-restore")
        assert origin and f"clone of {origin}" in text
        assert "tank/home/alice-restore · filesystem" in text
        assert "mountpoint /tank/home/alice-restore" in text and "avail 3.7T" in text


# -- Disks -------------------------------------------------------------------------------------

def test_a_serial_cut_to_fit_keeps_its_end_and_shows_control_characters() -> None:
    assert str(serial_cell("PN2334PBJ1A2BT", 10)) == "…4PBJ1A2BT"
    assert str(serial_cell("PN2334PBJ1A2BT", 20)) == "PN2334PBJ1A2BT"
    assert str(serial_cell("BTWL4123456Z080BGN", 16)) == "BTWL412…6Z080BGN"
    assert str(serial_cell(None, 10)) == "-"
    hostile = str(serial_cell("AB\x1b[31mC", 20))
    assert "\x1b" not in hostile and "\\x1b" in hostile
    assert serial_width(80, 14, 6) == 10  # ROLE keeps 18 cells at 80 columns ("ok" disks)
    assert serial_width(80, 14) == 6  # HEALTH at its widest ("▲ 48 pending"): ROLE keeps 16
    assert serial_width(120, 14) == 10 and serial_width(160, 14) == 14  # HEALTH's room
    assert serial_width(200, 40) == 20


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_disks_show_a_serial_column(size: tuple[int, int]) -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=size) as pilot:
        await open_disks(app, pilot)
        lines = screen_lines(app)
        head = head_line(lines, "DISK", "ROLE")
        assert "SERIAL" in head, head
        sda = row_line(lines, "▸ sda ")
        # HEALTH ("▲ 48 pending") takes its cells from SERIAL, ROLE keeping its own
        assert ("…1A2BT" if size[0] < 110 else "…4PBJ1A2BT") in sda, sda
        assert "in pool tank" in sda and "3.6T" in sda
        if size[0] >= 110:  # ROLE keeps its whole sentence
            assert "in pool tank, mirror-0" in sda, sda
        assert all(len(line.rstrip()) <= size[0] for line in lines)
        # a cut serial is read whole in the detail panel of the disk under the cursor
        await select(app, pilot, "sde")
        assert "serial     BTWL4123456Z080BGN" in detail(app)
        # `/` finds a disk by its whole serial, even where the cell cuts it
        await pilot.press("slash")
        for ch in "4123456Z":
            await pilot.press(ch)
        await pilot.press("enter")
        await pilot.pause()
        await wait_for(pilot, lambda: any("▸ sde " in line for line in screen_lines(app))
                       and not any("▸ sdf " in line for line in screen_lines(app)), "sde only")


# -- Pools -------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_enter_on_a_cut_pool_row_shows_its_whole_name_and_note(
        size: tuple[int, int]) -> None:
    from tests.ui.conftest import settle
    from zconsole.ui.screens.pools.pool_block import PoolBlock

    app = make_app("degraded-spare")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        table = block.table
        table.focus()
        await pilot.pause()
        keys = [str(k.value) for k in table.rows]
        faulted = next(k for k in keys if (table.whole_row(k) or "").find("FAULTED") > 0)
        whole = table.whole_row(faulted) or ""
        name = whole.split(" · ")[0]
        assert name == "ata-ST4000VN008-2DR166_ZGY8C3D4" and "too many errors" in whole
        cells = " ".join(str(c) for c in table.get_row(faulted))
        if size[0] == 80:
            assert name not in cells and "…ZGY8C3D4" in cells  # the cell cuts it
        table.move_cursor(row=keys.index(faulted), animate=False)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(list(app._notifications)), "the notification")
        shown = " ".join(str(n.message) for n in app._notifications)
        assert name in shown and "too many errors" in shown, shown
        assert faulted in {str(k.value) for k in table.rows}  # enter folded nothing away
