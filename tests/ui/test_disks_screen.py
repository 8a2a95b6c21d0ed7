"""The Disks screen (key 2): table = service rows, filter and sort keys, partitions, the
detail panel, sparklines fed by the sampler, a host without udevadm/lsblk, and pictures."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Sparkline, Static

from tests.fakes import Clock, ProgramsFail
from tests.ui.conftest import FROZEN, frozen, make_app, settle
from zconsole.model.reading import DiskState
from zconsole.services.read.disks import DiskRow, build_rows
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.disks.disk_table import DisksTable
from zconsole.ui.screens.disks.screen import DisksScreen, DisksView

SIZES = [(80, 24), (120, 40)]


def table_rows(app: ZConsoleApp) -> dict[str, str]:
    table = app.screen.query_one(DisksTable)
    return {str(k.value): " ".join(str(c) for c in table.get_row(k)) for k in table.rows}


def table_order(app: ZConsoleApp) -> list[str]:
    table = app.screen.query_one(DisksTable)
    return [str(table.coordinate_to_cell_key((i, 0)).row_key.value)
            for i in range(table.row_count)]


def detail(app: ZConsoleApp) -> str:
    head = str(app.screen.query_one("#detail-head", Static).render())
    body = str(app.screen.query_one("#detail-text", Static).render())
    return head + "\n" + body


def service_rows(app: ZConsoleApp) -> dict[str, DiskRow]:
    snap = app.reading
    assert snap is not None and snap.disks.value is not None
    return {r.name: r for r in build_rows(snap.disks.value, findings=app.findings)}


async def screen_ready(app: ZConsoleApp, pilot: Any) -> None:
    """The Disks screen is active, its table focused and drawn (a loaded machine is slow)."""
    for _ in range(200):
        if isinstance(app.screen, DisksScreen) and isinstance(app.focused, DisksTable) \
                and app.screen.query_one(DisksTable).row_count:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def select(app: ZConsoleApp, pilot: Any, name: str) -> None:
    """Move the cursor down to `name` and wait until the detail panel shows it."""
    for _ in range(len(table_order(app))):
        table = app.screen.query_one(DisksTable)
        if table_order(app)[table.cursor_row] == name:
            break
        await pilot.press("down")
    for _ in range(200):
        if detail(app).startswith(f"{name} ") or detail(app).startswith(f"{name}\n"):
            break
        await pilot.pause(0.02)
    assert detail(app).split()[0] == name, detail(app)[:80]


async def open_disks(app: ZConsoleApp, pilot: Any, refreshes: int = 1) -> None:
    await settle(app, pilot, refreshes=refreshes)
    await pilot.press("2")
    await screen_ready(app, pilot)
    assert isinstance(app.screen, DisksScreen)


async def test_table_lists_service_rows_and_detail_follows_cursor() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        expected = service_rows(app)
        shown = table_rows(app)
        assert set(shown) == set(expected)
        assert table_order(app)[:3] == ["sda", "sdb", "sdc"]
        assert "in use: /srv/backup" in shown["sdk"]  # HEALTH took a few cells
        assert "free: no partitions" in shown["sdh"]
        assert "in pool tank, mirror-0" in shown["sda"] and "3.6T" in shown["sda"]
        assert "NVMe" in shown["nvme1n1"] and "HDD" in shown["sdj"]
        # first disk selected: its identity in the panel, exactly as the service has it
        sda = expected["sda"]
        text = detail(app)
        assert f"serial     {sda.disk.serial}" in text
        assert f"{sda.disk.size_bytes:,} bytes" in text
        assert "512 B logical / 512 B physical (512n)" in text
        assert "IN POOL" in text and "tank, mirror-0" in text
        # move to sdj (the 4Kn disk)
        await select(app, pilot, "sdj")
        text = detail(app)
        sdj = expected["sdj"]
        assert text.startswith(f"sdj ({sdj.disk.preferred_id})")
        assert "4096 B logical / 4096 B physical (4Kn)" in text
        assert "FREE" in text and f"serial     {sdj.disk.serial}" in text
        assert "partitions none" in text


async def test_filter_key_cycles_roles() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        rows = service_rows(app)
        summary = lambda: str(app.screen.query_one("#disks-summary", Static).render())  # noqa: E731
        await pilot.press("f")
        assert set(table_rows(app)) == {n for n, r in rows.items()
                                        if r.state is DiskState.IN_POOL}
        assert "filter: in pool" in summary()
        await pilot.press("f")
        assert set(table_rows(app)) == {"sdh", "sdi", "sdj", "sdm"}  # sdm: the shelf disk
        await pilot.press("f")
        assert set(table_rows(app)) == {"sdk", "sdl", "nvme0n1"}
        await pilot.press("f")
        assert set(table_rows(app)) == set(rows)
        assert "filter: all" in summary()


async def test_partitions_expand_under_their_disk() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        assert not any(k.startswith("part:") for k in table_rows(app))  # collapsed
        await select(app, pilot, "sdk")
        await pilot.press("enter")
        for _ in range(200):
            if "part:sdk1" in table_rows(app):
                break
            await pilot.pause(0.02)
        order = table_order(app)
        assert order[order.index("sdk") + 1] == "part:sdk1"
        assert "ext4, mounted at /srv/ba" in table_rows(app)["part:sdk1"]  # HEALTH's room
        # the disk row shows no partition figures added to it
        assert "sdk1" not in table_rows(app)["sdk"]
        assert "sdk1" in detail(app) and "/srv/backup" in detail(app)
        await pilot.press("x")
        for _ in range(200):
            if "part:sdk1" not in table_rows(app):
                break
            await pilot.pause(0.02)
        assert "part:sdk1" not in table_rows(app)


async def test_slow_disk_marked_with_its_sentence() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot, refreshes=6)
        slow = [f for f in app.findings if f.kind == "slow-disk"]
        assert slow
        rows = service_rows(app)
        (name,) = [n for n, r in rows.items() if r.slow is not None]
        assert "SLOW" in table_rows(app)[name] and "×" in table_rows(app)[name]
        assert f"{slow[0].severity.symbol} SLOW" in table_rows(app)[name]
        await select(app, pilot, name)
        assert slow[0].message in " ".join(detail(app).split())


async def refresh_times(app: ZConsoleApp, pilot: Any, clock: Clock, n: int) -> None:
    for _ in range(400):
        if app.refreshes >= 1 and app.refresh_started is None:
            break
        await pilot.pause(0.01)
    for _ in range(n):
        before = app.refreshes
        clock.t += 5.0
        app.action_refresh()
        for _ in range(400):
            if app.refreshes > before and app.refresh_started is None:
                break
            await pilot.pause(0.01)
        else:
            raise AssertionError("refresh did not finish")
    await pilot.pause()


async def test_sampler_history_reaches_sparklines_and_sorting() -> None:
    from zconsole.hosts.demo import DemoHost

    clock = Clock(FROZEN)
    host = DemoHost("showcase", zfs_version="2.3", clock=clock, seed=0)
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await refresh_times(app, pilot, clock, 4)
        sampler = app.view_state().sampler
        assert sampler is not None
        busy = sampler.series("sda", "util_pct")
        assert len(busy) >= 3
        assert app.screen.query_one("#spark-busy", Sparkline).data == list(busy)
        assert app.screen.query_one("#spark-w", Sparkline).data == list(
            sampler.series("sda", "w_await_ms"))
        note = str(app.screen.query_one("#spark-busy-note").render())
        assert f"{len(busy)} intervals" in note
        # the table's figures are the newest interval's
        sample = app.view_state().sample
        assert sample is not None
        sda = sample.disks["sda"]
        assert f"{sda.util_pct:.0f}%" in table_rows(app)["sda"]
        # sort by busy: the busiest disk first; by await: the slowest first
        await pilot.press("s")
        order = table_order(app)
        utils = [sample.disks[n].util_pct for n in order if n in sample.disks]
        assert utils == sorted(utils, reverse=True)
        await pilot.press("s")
        order = table_order(app)
        waits = [max(sample.disks[n].r_await_ms, sample.disks[n].w_await_ms)
                 for n in order if n in sample.disks]
        assert waits == sorted(waits, reverse=True)
        assert "sort: await" in str(app.screen.query_one("#disks-summary", Static).render())


async def test_host_without_udevadm_or_lsblk_lists_disks_from_sysfs() -> None:
    from zconsole.hosts.demo import DemoHost

    host = ProgramsFail(DemoHost("showcase", clock=frozen), "udevadm", "lsblk",
                        label="bare-host")
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        shown = table_rows(app)
        assert {"sda", "sdh", "sdj", "nvme0n1"} <= set(shown)
        assert "in pool tank, mirror-0" in shown["sda"]
        summary = str(app.screen.query_one("#disks-summary", Static).render())
        assert "identity from sysfs" in summary
        assert "udevadm: command not found" in summary
        assert "lsblk unavailable" in summary
        inv = app.reading.disks.value if app.reading else None
        assert inv is not None
        sda = inv.device("sda")
        assert sda is not None and f"{sda.size_bytes:,} bytes" in detail(app)


async def test_disks_that_cannot_be_listed_say_so() -> None:
    from zconsole.hosts.base import PathNotFound
    from zconsole.hosts.demo import DemoHost

    class NoBlock(ProgramsFail):
        def list_dir(self, path: str) -> list[str]:
            if path.startswith("/sys/class/block"):
                raise PathNotFound(path)
            return self.inner.list_dir(path)

    host = NoBlock(DemoHost("showcase", clock=frozen), "udevadm", "lsblk", label="bare-host")
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        summary = str(app.screen.query_one("#disks-summary", Static).render())
        assert summary.startswith("✖ Disks could not be listed:")
        assert table_rows(app) == {}
        assert app.screen.query_one(DisksView).rows == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", ["showcase", "degraded"])
def test_disks_pictures(snap_compare: Any, size: tuple[int, int], scenario: str) -> None:
    app = make_app(scenario, "2.3")

    async def run_before(pilot: Any) -> None:
        await settle(app, pilot, refreshes=6)
        await pilot.press("2")
        await screen_ready(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
