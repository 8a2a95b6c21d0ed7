"""The pool tables' columns on a small terminal (issue 29): with a spare in use
(`--demo degraded-spare`) SIZE and NOTE stayed off the right edge at 80 columns; each pool's
table had its own widths, so `fast` and `tank` did not line up; a long note was cut by the
terminal with no mark (`block size: 512B configur`)."""

from __future__ import annotations

import html
import re

import pytest

from tests.ui.conftest import make_app, settle
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import VdevTable, fit_name


def screen_lines(app: ZConsoleApp) -> list[str]:
    """The terminal's lines as drawn (the screenshot's text, line by line)."""
    lines: dict[float, list[str]] = {}
    for m in re.finditer(r'<text[^>]*y="([\d.]+)"[^>]*>([^<]*)</text>', app.export_screenshot()):
        lines.setdefault(float(m.group(1)), []).append(
            html.unescape(m.group(2)).replace("\xa0", " "))
    return ["".join(parts) for _, parts in sorted(lines.items())]


def widths(table: VdevTable) -> list[int]:
    return [c.get_render_width(table) for c in table.columns.values()]


def test_a_name_deep_in_the_tree_is_cut_with_a_mark() -> None:
    indent = "│     ├─ "
    name = "ata-ST4000VN008-2DR166_ZGY8C3D4"
    assert fit_name(indent, name, 18) == indent + "…ZGY8C3D4"
    assert fit_name(indent, "sda", 18) == indent + "sda"
    assert len(fit_name("├─ ", name, 18)) == 18


async def test_a_spare_in_use_keeps_size_and_note_on_screen_at_80_columns() -> None:
    app = make_app("degraded-spare")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        block.table.focus()  # the page brings the table on screen
        await pilot.pause()
        await pilot.pause()
        head = next(line for line in screen_lines(app) if "NAME" in line and "STATE" in line)
        assert "SIZE" in head and "NOTE" in head, head
        assert sum(widths(block.table)) <= 80 - 3
        rows = [" ".join(str(c) for c in block.table.get_row(k)) for k in block.table.rows]
        faulted = next(r for r in rows if "FAULTED" in r)
        assert "…ZGY8C3D4" in faulted and "too many errors" in faulted


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_pool_table_has_the_same_columns(size: tuple[int, int]) -> None:
    app = make_app()  # fast (one mirror of NVMe) and tank (mirrors, logs, cache)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        tables = {b.pool_name: b.table for b in app.screen.query(PoolBlock)}
        assert set(tables) == {"fast", "tank"}
        assert widths(tables["fast"]) == widths(tables["tank"])
        assert sum(widths(tables["tank"])) <= size[0] - 3


async def test_a_long_note_is_cut_with_a_mark_and_the_table_fits() -> None:
    app = make_app("advice")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        notes = []
        for block in app.screen.query(PoolBlock):
            table = block.table
            assert sum(widths(table)) <= 120 - 3, block.pool_name
            notes += [str(table.get_row(k)[-1]) for k in table.rows]
        cut = [n for n in notes if n.startswith("block size: 512B")]
        assert cut and all(n.endswith("…") for n in cut), cut
