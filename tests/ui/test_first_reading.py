"""The first reading in the first frame (ui/first_reading.py, issue 28): a first refresh that
ends quickly is handled before the first screen is made, so that screen is composed with the
pools (never an empty screen drawn, then drawn again); a slow one is waited for a moment
only, and arrives as a message as before. Each outcome is handled once, by one of the two."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.ui.conftest import make_app, settle
from zconsole.ui import first_reading
from zconsole.ui.first_reading import FirstReading
from zconsole.ui.screens.base import ZScreen


async def test_an_outcome_taken_while_waiting_is_the_waits() -> None:
    first: FirstReading[str] = FirstReading()
    taken: list[bool] = []
    worker = threading.Thread(target=lambda: taken.append(first.take("done")))
    waiting = asyncio.ensure_future(first.wait(5.0))
    await asyncio.sleep(0)  # the wait has begun
    worker.start()
    assert await waiting == "done"
    worker.join()
    assert taken == [True]
    assert first.take("later") is False  # nobody waits any more: posted as usual


async def test_a_wait_that_ends_first_leaves_the_outcome_to_be_posted() -> None:
    first: FirstReading[str] = FirstReading()
    assert await first.wait(0.01) is None
    assert first.take("late") is False
    never: FirstReading[str] = FirstReading()
    assert never.take("unwaited") is False


async def test_the_first_screen_is_made_with_the_first_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading that comes within the wait is in the first screen. The wait is long in
    the UI tests (tests/ui/conftest.py): how quickly the demo host answers depends on the
    machine's load, and a loaded CI run once took longer than `WAIT_S` (the other outcome,
    tested below)."""
    resumed: list[bool] = []  # at each screen's first resume: was the reading there?
    real = ZScreen.on_screen_resume

    def seen(self: ZScreen, event: Any = None) -> None:
        resumed.append(self.console_app.reading is not None)
        real(self, event)

    monkeypatch.setattr(ZScreen, "on_screen_resume", seen)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert resumed[:1] == [True]
        assert app.refreshes == 1  # handled once, not again when its message came


async def test_a_host_slower_than_the_wait_gets_its_screen_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first refresh outlasts the wait: the screen is made without it ("reading the
    host…"), and the reading comes as a message, handled once."""
    from zconsole.services.session import HostSession

    release = threading.Event()
    real_refresh = HostSession.refresh

    def slow(self: HostSession, **kw: Any) -> Any:
        release.wait(10)
        return real_refresh(self, **kw)

    monkeypatch.setattr(HostSession, "refresh", slow)
    monkeypatch.setattr(first_reading, "WAIT_S", 0.1)  # the console's own wait
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        assert app.reading is None and isinstance(app.screen, ZScreen)
        assert "reading the host" in app.screen.query_one("HeaderBar").render().plain
        release.set()
        await settle(app, pilot)
        assert app.reading is not None and app.refreshes == 1


def test_the_rest_of_the_reading_waits_for_the_first_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`hold_until_drawn` (the worker, after handing the pools over) returns once the frame
    is drawn, once the worker is cancelled, or at its deadline: never for ever."""
    monkeypatch.setattr(first_reading, "DRAWN_WAIT_S", 3600.0)  # only `drawn` ends it here
    first: FirstReading[str] = FirstReading()
    order: list[str] = []

    def hold() -> None:
        first.hold_until_drawn(lambda: False)
        order.append("held until")

    held = threading.Thread(target=hold)
    held.start()
    held.join(0.2)  # a hold that let go at once has ended by now
    order.append("drawn")
    first.drawn()
    held.join(30)
    assert not held.is_alive() and order == ["drawn", "held until"]
    # cancelled (the console quits before drawing): it lets go
    FirstReading[str]().hold_until_drawn(lambda: True)


def test_a_frame_never_drawn_holds_the_reading_only_until_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_reading, "DRAWN_WAIT_S", 0.05)
    FirstReading[str]().hold_until_drawn(lambda: False)  # returns


async def test_the_demo_draws_its_pools_first_and_reads_the_rest_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in order (the demo host), the first screen is made from the pools alone (`zpool
    status` and `zpool list`): the disks' identity, the ARC and the I/O sample are read only
    once that frame is drawn, rather than sharing the interpreter with its drawing; then
    the whole reading replaces it."""
    from zconsole.hosts.demo import DemoHost

    monkeypatch.setattr(first_reading, "DRAWN_WAIT_S", 60.0)
    order: list[str] = []
    real_run = DemoHost.run

    def run(self: DemoHost, argv: Any, *a: Any, **kw: Any) -> Any:
        order.append(" ".join(argv[:2]))
        return real_run(self, argv, *a, **kw)

    real_drawn = FirstReading.drawn

    def drawn(self: FirstReading[Any]) -> None:
        order.append("DRAWN")
        real_drawn(self)

    resumed: list[tuple[bool, bool]] = []  # at the first resume: complete? disks pending?
    real_resume = ZScreen.on_screen_resume

    def seen(self: ZScreen, event: Any = None) -> None:
        last = self.console_app.session.last
        if last is not None:
            resumed.append((last.complete, last.reading.disks.pending))
        real_resume(self, event)

    monkeypatch.setattr(DemoHost, "run", run)
    monkeypatch.setattr(FirstReading, "drawn", drawn)
    monkeypatch.setattr(ZScreen, "on_screen_resume", seen)
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert resumed[:1] == [(False, True)]  # the first screen: the pools, read first
        assert "DRAWN" in order
        drawn_at = order.index("DRAWN")
        assert "zpool status" in order[:drawn_at] and "zpool list" in order[:drawn_at]
        assert "lsblk -J" in order[drawn_at:] and "lsblk -J" not in order[:drawn_at]
        assert app.session.last is not None and app.session.last.complete
        assert app.reading is not None and app.reading.disks.ok
