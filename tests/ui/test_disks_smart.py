"""Issue 30 on the Disks screen: the HEALTH column (the worst SMART finding in a word, or
why SMART was not read), the detail panel's SMART part (counters with their history since
first seen, temperature and its limit, NVMe figures, the newest self-tests) and `h`, which
reads the selected disk now. The SMART poll runs in its own worker after the first refresh
(ui/smart_poll.py), never in a refresh."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.ui.conftest import make_app
from tests.ui.test_disks_screen import open_disks, select, table_rows
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.disks.disk_table import COLUMNS, DisksTable, columns


def counted_smart_reads(app: ZConsoleApp, monkeypatch: Any) -> list[str]:
    """The disks each SMART poll of the app's session reads from now on, in order."""
    read: list[str] = []
    real = app.session.poll_smart

    def counting() -> list[str]:
        got = real()
        read.extend(got)
        return got

    monkeypatch.setattr(app.session, "poll_smart", counting)
    return read


async def first_smart_poll(app: ZConsoleApp, pilot: Any) -> None:
    """Wait until the console's first SMART poll has read every disk."""
    from tests.ui.test_wizards import until

    smart = app.session.smart
    await until(pilot, lambda: smart.polled_at is not None and not smart.pending,
                "the first SMART poll", tries=1500)


def commands_run(app: ZConsoleApp, monkeypatch: Any) -> list[tuple[str, ...]]:
    """Every command the app's host runs from now on, in order."""
    ran: list[tuple[str, ...]] = []
    real = app.host.run

    def run(argv: Any, *a: Any, **kw: Any) -> Any:
        ran.append(tuple(argv))
        return real(argv, *a, **kw)

    monkeypatch.setattr(app.host, "run", run)
    return ran


def smart_text(app: ZConsoleApp) -> str:
    return str(app.screen.query_one("#detail-smart", Static).render())


async def test_health_column_says_each_disks_smart_in_a_word() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        rows = table_rows(app)
        assert "▲ 48 pending" in rows["sdb"]  # the dying disk
        assert "▲ 312 CRC" in rows["sdc"]  # the bad cable
        assert "asleep" in rows["sdg"]  # the spare, not woken
        assert "▲ 93 % worn" in rows["nvme1n1"]  # the hot, worn cache NVMe
        assert " ok " in rows["sda"]


async def test_health_fits_80_columns_in_place_of_the_media_type() -> None:
    assert "HEALTH" in COLUMNS and "TYPE" not in columns(80)
    assert columns(120)[:6] == ("DISK", "SERIAL", "ROLE", "HEALTH", "SIZE", "TYPE")
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        assert "▲ 48 pending" in table_rows(app)["sdb"]
        table = app.screen.query_one(DisksTable)
        assert table.virtual_size.width <= table.size.width  # nothing cut on the right


async def test_detail_shows_the_counters_and_their_history() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        await select(app, pilot, "sdb")
        text = smart_text(app)
        assert "48 pending sectors" in text and "plan its replacement" in text
        assert "ATA, health PASSED" in text
        assert "pending sectors 48 (unchanged since first seen 0 s ago)" in text
        assert "none: UDMA CRC errors" in text
        assert "extended: Completed: read failure" in text  # the failed self-test
        await select(app, pilot, "sdg")  # the spare, asleep: said as a fact, not woken
        assert "asleep, not read (smartctl -n standby does not wake a disk)" in smart_text(app)
        await select(app, pilot, "nvme1n1")
        text = smart_text(app)
        assert "74 °C" in text and "93 % of rated endurance used" in text


async def test_h_reads_the_selected_disk_now(monkeypatch: Any) -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_disks(app, pilot)
        await select(app, pilot, "sdb")
        smart = app.session.smart
        read = counted_smart_reads(app, monkeypatch)
        assert not smart.due(app.session.clock())  # read a moment ago: not due by itself
        await pilot.press("h")
        for _ in range(300):
            if read and not smart.pending:
                break
            await pilot.pause(0.01)
        assert read == ["sdb"]
