"""Issue 29: `m` on Pools shows what `zpool iostat -vl 1` shows, for the pool, each vdev and
each disk: operations and bandwidth per second (units in the headers), over the sample's
interval, never zpool's since-import averages; "-" before there is a sample and where a
counter went backwards; and no row wider than the terminal at 80 or 120 columns."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.ui.conftest import make_app, settle
from zconsole.model.iostat import PoolIostat
from zconsole.parsers.zpool_iostat import parse_zpool_iostat
from zconsole.services import fmt
from zconsole.services.read.pools import WRAPPED, per_second, vdev_io
from zconsole.services.read.sampling import ZfsLatency
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.vdev_table import (
    BW,
    MIN_NAME_WIDTH,
    OPS,
    PERF_COLUMNS,
    VdevTable,
    columns_for,
    pair,
    perf_fixed,
)

# `zpool iostat -v -l -H -p 1 2` on OpenZFS 2.3.2 while dd wrote to tank (mirror vdb+vdc):
# two reports, the first since import (no -y), the second over one second
FIXTURE = (Path(__file__).parents[1] / "fixtures" / "parsers" / "zpool-iostat"
           / "2.3.2-tank-vlHp-1-2.txt")


def latency(report: list[PoolIostat], interval: float = 1.0) -> ZfsLatency:
    return ZfsLatency(0.0, interval, tuple(report))


# -- the figures: ZFS's own rows over the interval ------------------------------------------

def test_the_interval_report_gives_each_rows_own_figures() -> None:
    """The second report is the interval's: the pool, mirror-0 and each disk get the
    figures zpool printed for that very row. mirror-0's bytes (68197045) are neither the
    pool's (68171516) nor its disks' sum (68206725): ZFS's own row, not a sum made here."""
    since_import, interval = parse_zpool_iostat(FIXTURE.read_text(), omitted_since_boot=False)
    io = vdev_io(latency(interval), "tank")
    assert io[()].write_ops == 949 and io[()].write_bytes == 68171516
    assert io[("mirror-0",)].write_bytes == 68197045
    assert io[("mirror-0", "vdb")].write_ops == 474
    assert io[("mirror-0", "vdc")].write_bytes == 34107460
    assert io[("mirror-0",)].read_ops == 0 and io[("mirror-0",)].read_bytes == 0
    assert io[("mirror-0", "vdb")].wait_write_ms == pytest.approx(0.442368)  # disk_wait
    assert io[("mirror-0", "vdb")].wait_read_ms is None  # zpool printed `-`: no reads
    assert pair(io[("mirror-0",)].read_ops, io[("mirror-0",)].write_ops) == "0/949"
    assert pair(io[("mirror-0",)].read_bytes, io[("mirror-0",)].write_bytes) == "0/65M"


def test_since_import_averages_and_no_sample_give_no_figures() -> None:
    """zpool's first report without -y covers the time since import: no figure from it
    (the table says "-"), nor before a sample, nor for a pool the report does not have."""
    since_import, interval = parse_zpool_iostat(FIXTURE.read_text(), omitted_since_boot=False)
    assert since_import[0].since_boot is True
    assert vdev_io(latency(since_import), "tank") == {}
    assert vdev_io(None, "tank") == {}
    assert vdev_io(latency(interval), "other") == {}


def test_a_counter_that_went_backwards_is_a_dash() -> None:
    """zpool subtracts the previous reading from the new one as unsigned 64-bit numbers and
    scales by the interval: a counter that went from 1500 down to 1000 over 1 s prints as
    2**64 - 500, over 10 s as a tenth of that. Both are "-"; real rates, however large, are
    kept (the difference is the rate times the interval)."""
    wrapped = (1000 - 1500) % 2**64
    assert per_second(wrapped, 1.0) is None
    assert per_second(int(wrapped / 10), 10.0) is None
    assert per_second(500, 1.0) == 500.0  # 1000 - 500 over 1 s
    assert per_second(50, 10.0) == 50.0  # 500 over 10 s
    assert per_second(12 * 2**30, 1.0) == 12 * 2**30  # 12 GiB/s: fast, not wrapped
    assert per_second(WRAPPED // 2, 2.0) is None and per_second(WRAPPED // 4, 2.0)
    # in a whole report: the write counter of vdc went backwards, its other figures stay
    text = FIXTURE.read_text().replace("vdc\t0\t0\t0\t475\t", f"vdc\t0\t0\t0\t{wrapped}\t")
    io = vdev_io(latency(parse_zpool_iostat(text, omitted_since_boot=False)[1]), "tank")
    vdc = io[("mirror-0", "vdc")]
    assert vdc.write_ops is None and vdc.write_bytes == 34107460
    assert pair(vdc.read_ops, vdc.write_ops) == "0/-"
    assert pair(None, None) == "-"


def test_figures_read_as_zpool_prints_them() -> None:
    """Powers of 1024 and a suffix, as zpool's `operations` and `bandwidth` columns, in at
    most 4 characters so that a read/write pair fits its column."""
    cases = {0: "0", 340: "340", 999: "999", 1023: "1.0K", 1260: "1.2K", 10188: "9.9K",
             47185920: "45M", 1023 * 1024 + 600: "1.0M", 2**40 * 3: "3.0T", None: "-"}
    for n, text in cases.items():
        assert fmt.nicenum(n) == text, n
        assert len(fmt.nicenum(n)) <= 4
    assert len(pair(999 * 2**20, 999 * 2**20)) <= 9


@pytest.mark.parametrize("width,shown", [
    (80, ("NAME", "STATE", "BUSY", OPS, BW, "ZFS R/W")),
    (100, ("NAME", "STATE", "BUSY", OPS, BW, "ZFS R/W", "TREND")),
    (120, ("NAME", "STATE", "DISK", "SERIAL", "BUSY", OPS, BW, "ZFS R/W", "TREND")),
    (140, PERF_COLUMNS),
])
def test_which_columns_each_width_shows(width: int, shown: tuple[str, ...]) -> None:
    """Operations and bandwidth at every width; what else fits beside a NAME of at least
    MIN_NAME_WIDTH (at 80 columns TREND and the kernel's awaits give way)."""
    columns, fixed = columns_for(True, width, serial=20)
    assert columns == shown
    assert fixed == perf_fixed(columns, 20) and width - fixed >= MIN_NAME_WIDTH


# -- the Pools screen -----------------------------------------------------------------------

def cells(table: VdevTable, key: str) -> dict[str, str]:
    """The row's cells by column title."""
    titles = [str(c.label).strip() for c in table.columns.values()]
    return dict(zip(titles, (str(c).strip() for c in table.get_row(key)), strict=True))


def tank(app: ZConsoleApp) -> VdevTable:
    return next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank").table


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_m_shows_ops_and_bandwidth_per_vdev_and_disk(size: tuple[int, int]) -> None:
    """After two refreshes (demo host, which answers `zpool iostat -y 1 1` with the
    interval's figures as zpool computes them): the headers say the units; the pool, its
    mirror and a disk show the figures of their own row of the report; no table is wider
    than its place on the page nor reaches past the terminal's right edge."""
    app = make_app("showcase")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, refreshes=2)
        await pilot.press("m")
        await pilot.pause()
        state = app.view_state()
        assert state.sample is not None
        io = vdev_io(state.sample.latency, "tank")
        table = tank(app)
        titles = [str(c.label).strip() for c in table.columns.values()]
        assert OPS in titles and BW in titles  # "OPS/s R/W", "B/s R/W": per second
        disk = ("mirror-0", next(k.value for k in table.rows
                                 if str(k.value).startswith("tank:vdevs:mirror-0/")
                                 ).rsplit("/", 1)[1])
        for key, path in (("tank", ()), ("tank:vdevs:mirror-0", ("mirror-0",)),
                          (f"tank:vdevs:{'/'.join(disk)}", disk)):
            row, figures = cells(table, key), io[path]
            assert row[OPS] == pair(figures.read_ops, figures.write_ops) != "-", key
            assert row[BW] == pair(figures.read_bytes, figures.write_bytes) != "-", key
            assert figures.write_ops and figures.write_ops > 0
        assert cells(table, "tank:vdevs:mirror-0")[OPS] != cells(table, "tank")[OPS]
        for block in app.screen.query(PoolBlock):
            t = block.table
            drawn = sum(c.get_render_width(t) for c in t.columns.values())
            assert drawn <= t.size.width, (block.pool_name, drawn, t.size.width)
            assert t.region.right <= size[0]


async def test_before_the_first_sample_every_figure_is_a_dash() -> None:
    """What the first reading shows on a host whose reads run side by side (ssh, local):
    the pools arrive from `zpool status` while `zpool iostat -y 1 1` is still counting its
    second, so there is no sample yet. Every row's operations and bandwidth say "-", never
    0 and never a figure from an earlier reading; the next state with a sample fills them."""
    app = make_app("showcase")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("m")
        await pilot.pause()
        full = app.view_state()
        app.screen.show_state(dataclasses.replace(full, sample=None, leaves={}))
        await pilot.pause()
        table = tank(app)
        keys = [str(k.value) for k in table.rows]
        figures = [key for key in keys if not key.endswith(("logs", "cache", "spares"))]
        assert len(figures) >= 8
        for key in figures:
            row = cells(table, key)
            assert row[OPS] == "-" and row[BW] == "-", key
        app.screen.show_state(full)
        await pilot.pause()
        assert cells(table, "tank:vdevs:mirror-0")[OPS] not in ("", "-")
