"""The ARC screen (key 4): what it shows equals services.arc's report; 2.1 and 2.3 field sets;
an unreadable arcstats is said, with its error and age; pictures at 80x24 and 120x40.

ARC rates need two readings at two different host times, and conftest's frozen clock never
moves (so the sampler records no ARC interval at all). These tests use a clock that moves
5 s per completed refresh: every read of one refresh sees the same time, so the pictures are
as reproducible as with the frozen clock.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from tests.ui.conftest import FROZEN, settle
from zconsole.hosts.base import PermissionDenied
from zconsole.hosts.demo import DemoHost
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.services import fmt
from zconsole.services.health.arc import ArcReport
from zconsole.services.read import catalogue
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.text import spark
from zconsole.ui.screens.arc.arc_panels import SPARK_WIDTH, ArcPanel, ArcView
from zconsole.ui.screens.arc.screen import ArcScreen

STEP = 5.0


class RefreshClock:
    """FROZEN + 5 s per refresh of `app` started (set once the app exists): the time moves
    when a refresh starts and stands still until the next one, so after a refresh its data
    is "0 s" old, as in the frozen pictures."""

    def __init__(self) -> None:
        self.app: ZConsoleApp | None = None

    def __call__(self) -> float:
        app = self.app
        if app is None:
            return FROZEN
        started = app.refreshes + (1 if app.refresh_started is not None else 0)
        return FROZEN + STEP * started


class ArcDeniedHost(DemoHost):
    """The demo machine, with arcstats refused while `deny` is set."""

    deny = False

    def read_text(self, path: str) -> str:
        if self.deny and path == catalogue.ARCSTATS:
            raise PermissionDenied(None, f"cannot open {path}: Permission denied")
        return super().read_text(path)


def make_arc_app(scenario: str = "showcase", version: str = "2.3",
                 host_class: type[DemoHost] = DemoHost) -> ZConsoleApp:
    clock = RefreshClock()
    host = host_class(scenario, zfs_version=version, clock=clock, seed=0)
    app = ZConsoleApp(host, clock=clock, refresh_interval=3600)
    clock.app = app
    return app


def screen_of(app: ZConsoleApp) -> ArcScreen:
    screen = app.screen
    assert isinstance(screen, ArcScreen)
    return screen


def report_of(app: ZConsoleApp) -> ArcReport:
    report = screen_of(app).report
    assert report is not None
    return report


def shown_rows(app: ZConsoleApp) -> list[tuple[str, ...]]:
    table: DataTable[Any] = app.screen.query_one("#arc-figures", DataTable)
    return [tuple(str(c) for c in table.get_row(k)) for k in table.rows]


def panel_text(app: ZConsoleApp, key: str) -> str:
    return str(app.screen.query_one(f"#arc-{key}", ArcPanel).render())


async def open_arc(app: ZConsoleApp, pilot: Any, refreshes: int) -> None:
    await pilot.press("4")
    await pilot.pause()
    await settle(app, pilot, refreshes=refreshes)


@pytest.mark.parametrize("version", ["2.1", "2.3"])
async def test_shown_values_equal_the_report(version: str) -> None:
    app = make_arc_app("showcase", version)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_arc(app, pilot, refreshes=4)
        report = report_of(app)
        snap = app.reading
        assert snap is not None and snap.arc.value is not None
        arc = snap.arc.value
        # the figures are the snapshot's arcstats, not something else
        assert (report.size, report.target, report.c_max) == (arc.size, arc.target, arc.c_max)
        rows = {r[0]: r for r in shown_rows(app)}
        assert rows["size"][1] == fmt.size(arc.size)
        assert rows["target (c)"][1] == fmt.size(arc.target)
        assert rows["c_max"][1] == fmt.size(arc.c_max)
        assert [(r.label, r.value, r.only) for r in report.rows] == shown_rows(app)
        # every area's sentence is on screen, under its title
        for area in report.areas:
            text = panel_text(app, area.key)
            assert area.title in text and area.sentence in text
            if area.state:
                assert area.state in text  # the state word, next to its symbol
        assert "✔ NOT THROTTLED" in panel_text(app, "throttle")
        assert "✔ PRESENT" in panel_text(app, "l2arc")
        # the hit ratio is the interval's, from two real readings 5 s apart
        hist = app.session.sampler.arc_history
        assert len(hist) == 3 and report.hit_series == tuple(d.hit_ratio for d in hist)
        assert report.hit_ratio is not None and report.hit_ratio == hist[-1].hit_ratio
        assert f"{report.hit_ratio * 100:.1f} % of reads hit in the last 5 s" in \
            panel_text(app, "hits")
        assert spark(report.hit_series, SPARK_WIDTH, 1.0) in panel_text(app, "hits")
        assert "after the second refresh" not in panel_text(app, "demand")


async def test_21_and_23_show_their_own_fields() -> None:
    for version, present, absent in (("2.1", ("MRU target (p)", "arc_meta_limit"), "iohits"),
                                     ("2.3", ("iohits", "uncached"), "MRU target (p)")):
        app = make_arc_app("healthy", version)
        async with app.run_test(size=(120, 40)) as pilot:
            await open_arc(app, pilot, refreshes=3)
            rows = {r[0]: r for r in shown_rows(app)}
            note = "2.1 only" if version == "2.1" else "2.2+ only"
            for label in present:
                assert rows[label][2] == note
            assert absent not in rows
            caption = str(app.screen.query_one("#arc-figures-caption", Static).render())
            assert caption == f"ARC figures · field set {'2.1' if version == '2.1' else '2.2+'}"
            hits = panel_text(app, "hits")
            assert ("joined a read already in flight" in hits) == (version == "2.3")
            assert "No L2ARC" in panel_text(app, "l2arc")  # healthy has no cache device


async def test_first_refresh_says_when_the_ratio_appears() -> None:
    app = make_arc_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_arc(app, pilot, refreshes=1)
        assert "Hit ratio appears after the second refresh (in about 1 h 0 min)." in \
            panel_text(app, "hits")
        assert "(no intervals yet)" in panel_text(app, "hits")
        assert "0.0 %" not in panel_text(app, "hits")


async def test_opened_late_has_everything_the_session_saw() -> None:
    """The ARC readings are kept by the host session, not the screen: opened after three
    refreshes on another screen, the ARC screen has the ratio and the interval details at
    once (before the house change it waited for two refreshes of its own)."""
    app = make_arc_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=3)
        await pilot.press("4")
        await pilot.pause()
        report = report_of(app)
        assert report.hit_ratio is not None and len(report.hit_series) == 2
        assert "appear after" not in panel_text(app, "demand")


async def test_unreadable_arcstats_is_said_with_error_and_age() -> None:
    app = make_arc_app(host_class=ArcDeniedHost)
    host = app.host
    assert isinstance(host, ArcDeniedHost)
    host.deny = True
    async with app.run_test(size=(80, 24)) as pilot:
        await open_arc(app, pilot, refreshes=1)
        view = app.screen.query_one(ArcView)
        text = str(view.query_one("#arc-unreadable", Static).render())
        assert "✖ UNREADABLE" in text
        assert "ARC could not be read: " in text and "Permission denied" in text
        assert "(tried 0 s ago)" in text
        assert not any(p.display for p in view.query(ArcPanel))
        assert "%" not in text


async def test_failed_read_keeps_old_figures_marked_with_their_age() -> None:
    app = make_arc_app(host_class=ArcDeniedHost)
    host = app.host
    assert isinstance(host, ArcDeniedHost)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_arc(app, pilot, refreshes=2)
        good = report_of(app)
        host.deny = True
        app.action_refresh()
        await settle(app, pilot, refreshes=1)
        report = report_of(app)
        assert report.stale and report.size == good.size
        notice = app.screen.query_one("#arc-notice", Static)
        assert notice.display
        text = str(notice.render())
        assert "ARC could not be read" in text and "Permission denied" in text
        assert "The figures below are from the reading of 5 s ago." in text


async def test_demo_figures_match_arcstats_read_at_the_same_moment() -> None:
    app = make_arc_app("showcase", "2.1")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_arc(app, pilot, refreshes=2)
        report = report_of(app)
        # the clock does not move between refreshes: a read now is "the same moment"
        now = parse_arcstats(app.host.read_text(catalogue.ARCSTATS))
        assert (report.size, report.target, report.c_max) == (now.size, now.target, now.c_max)


# -------------------------------------------------------------------------- pictures

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario,version", [("showcase", "2.3"), ("healthy", "2.1")])
def test_arc_pictures(snap_compare: Any, size: tuple[int, int], scenario: str,
                      version: str) -> None:
    app = make_arc_app(scenario, version)

    async def run_before(pilot: Any) -> None:
        await pilot.press("4")
        await pilot.pause()
        await settle(app, pilot, refreshes=6)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_spark_is_on_a_fixed_scale() -> None:
    assert spark([0.0, 0.5, 0.97, 1.0, None], SPARK_WIDTH, 1.0) == "▁▄██·"
    assert spark([0.971, 0.974], SPARK_WIDTH, 1.0) == "██"  # a 0.3 point wobble is not drawn as a collapse
    assert Text(spark([0.1] * 100, SPARK_WIDTH, 1.0)).cell_len == 40
