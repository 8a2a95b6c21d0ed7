"""Datasets QUOTA and REFQUOTA (issue 29): the table shows them when a dataset shown has one
(no quota: "-"), a dataset near its limit has the cell in the warning colour (>= 80 %) or the
critical one (>= 95 %), and at 80 columns the least important columns go, not NAME.

The cheap `zfs list` does not ask for quota,refquota yet (that needs every replay capture
taken again with the new argv): until it does, no Dataset read from a host has a quota and
the columns stay hidden."""

from __future__ import annotations

from typing import Any

import pytest

from zconsole.model.dataset import Dataset
from zconsole.ui.screens.datasets.rows import TreeRow
from zconsole.ui.screens.datasets.tree_table import (
    NAME_MIN,
    Needs,
    layout,
    needs_of,
    quota_levels,
    row_cells,
)

GiB = 1 << 30


def ds_row(name: str, **kw: Any) -> TreeRow:
    return TreeRow(name, "dataset", "", f"▸ {name}", Dataset(name, "filesystem", **kw))


# -- cells, levels, layout ---------------------------------------------------------------------

def test_quota_cells_show_the_limit_and_none_as_dash() -> None:
    row = ds_row("tank/a", used=GiB, refer=GiB, quota=200 * GiB, refquota=None)
    cells = row_cells(row, 0)
    assert cells["quota"] == "200.0G" and cells["refquota"] == "-"
    vol = TreeRow("tank/v", "dataset", "", "▸ tank/v", Dataset("tank/v", "volume", used=GiB))
    assert row_cells(vol, 0)["quota"] == "-" and row_cells(vol, 0)["refquota"] == "-"


@pytest.mark.parametrize("spent,level", [(79, None), (80, "warn"), (94, "warn"), (95, "bad"),
                                         (100, "bad")])
def test_a_quota_near_its_limit_has_the_warning_level(spent: int, level: str | None) -> None:
    # a quota bounds USED (children and snapshots too), a refquota REFER
    by_used = quota_levels(ds_row("a", used=spent * GiB, refer=GiB, quota=100 * GiB))
    by_refer = quota_levels(ds_row("a", used=500 * GiB, refer=spent * GiB,
                                   refquota=100 * GiB))
    assert by_used.get("quota") == level and "refquota" not in by_used
    assert by_refer.get("refquota") == level and "quota" not in by_refer
    assert quota_levels(ds_row("a", used=spent * GiB, refer=spent * GiB)) == {}


def test_quota_columns_only_when_a_row_shown_has_one() -> None:
    plain_rows = [ds_row("tank/a", used=1), ds_row("tank/b", used=2)]
    assert not needs_of(plain_rows).quota and not needs_of(plain_rows).refquota
    keys = [c.key for c in layout(160, needs_of(plain_rows))]
    assert "quota" not in keys and "refquota" not in keys
    with_quota = [*plain_rows, ds_row("tank/c", used=3, quota=GiB)]
    keys = [c.key for c in layout(160, needs_of(with_quota))]
    assert "quota" in keys and "refquota" not in keys
    assert needs_of([*with_quota, ds_row("tank/d", refquota=GiB)]).refquota


def test_at_80_columns_quotas_stay_and_name_keeps_its_room() -> None:
    need = Needs(name=40, mountpoint=30, note=40, quota=True, refquota=True)
    cols = layout(78, need)
    keys = [c.key for c in cols]
    assert keys[:6] == ["name", "used", "avail", "refer", "quota", "refquota"]
    assert cols[0].width >= NAME_MIN
    assert "ratio" not in keys and "note" not in keys  # the least important went
    assert sum(c.width + 1 for c in cols) - 1 <= 78


async def test_the_cell_of_a_quota_near_its_limit_is_in_the_warning_colour() -> None:
    from textual.app import App, ComposeResult

    from zconsole.ui.screens.datasets.tree_table import TreeTable

    class One(App[None]):  # the table alone; the colours zconsole's themes define
        def get_css_variables(self) -> dict[str, str]:
            return {**super().get_css_variables(), "muted": "#808080",
                    "health-warn": "#ffaf5f", "health-bad": "#ff0000"}

        def compose(self) -> ComposeResult:
            yield TreeTable()

    app = One()
    async with app.run_test(size=(120, 10)) as pilot:
        table = app.query_one(TreeTable)
        table.set_rows([ds_row("fast/db", used=302 * GiB, refer=301 * GiB, refquota=350 * GiB),
                        ds_row("fast/scratch", used=96 * GiB, refer=96 * GiB,
                               quota=200 * GiB)], 0)
        table.cursor = 1  # the cursor's style covers its row (and its colours)
        await pilot.pause()
        width = table.scrollable_content_region.width
        warn = table.get_component_rich_style("treetable--warn").color

        def colours(i: int) -> dict[str, object]:
            strip = table._render_row(table.rows[i], i, width)
            return {seg.text.strip(): seg.style.color if seg.style else None
                    for seg in strip if seg.text.strip()}

        db = colours(0)
        assert db["350.0G"] == warn and db["302.0G"] != warn  # 86 % referenced
        assert all(c != warn for c in colours(1).values())  # 48 % used
        text = table.visible_text()
        assert "200.0G" in text[1] and "350.0G" in text[0]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_showcase_shows_its_quotas_as_read(size: tuple[int, int]) -> None:
    """The console's own read (`zfs list -H -p -o ...,quota,refquota`, DEFAULT_COLUMNS) on
    the demo: fast/db's refquota 350G and the AVAIL it leaves (49.0G), fast/scratch's quota
    200G, `-` where none is set; NAME not cut at 80 columns."""
    from tests.ui.conftest import make_app
    from tests.ui.test_columns_more import head_line, row_line
    from tests.ui.test_datasets_screen import open_screen, quiet
    from tests.ui.test_pool_columns import screen_lines

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await open_screen(app, pilot)
        await quiet(app, pilot)
        lines = screen_lines(app)
        head = head_line(lines, "NAME", "USED")
        assert "QUOTA" in head and "REFQUOTA" in head, head
        db = row_line(lines, "▸ db ")
        assert "350.0G" in db and "49.0G" in db, db
        scratch = row_line(lines, "▸ scratch ")
        assert "200.0G" in scratch, scratch
        assert row_line(lines, "▸ backup ").split().count("-") >= 2  # no quota: "-"
        assert all(len(line.rstrip()) <= size[0] for line in lines)
