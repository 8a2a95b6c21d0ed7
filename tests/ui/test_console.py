"""Pilot tests: the console shows real parsed demo data, badges, and survives failing hosts."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
from textual import events
from textual.widgets import DataTable

from tests.fakes import DelegatingHost, ProgramsFail
from tests.ui.conftest import frozen, make_app, settle
from zconsole.hosts.base import Host, Result
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.kit.problems import ProblemsPanel
from zconsole.ui.screens.pools.pool_block import PoolBlock


def header(app: ZConsoleApp) -> HeaderBar:
    return app.screen.query_one(HeaderBar)


def header_lines(app: ZConsoleApp) -> list[str]:
    """The header's two lines as drawn (one widget draws both)."""
    return header(app).render().plain.split("\n")


def table_text(app: ZConsoleApp, pool: str) -> str:
    for block in app.screen.query(PoolBlock):
        if block.pool_name == pool:
            t: DataTable[object] = block.table
            rows = []
            for key in t.rows:
                rows.append(" ".join(str(c) for c in t.get_row(key)))
            return "\n".join(rows)
    raise AssertionError(f"no block for pool {pool}")


@pytest.mark.parametrize("version", ["2.1", "2.3"])
async def test_pools_tree_from_demo_host(version: str) -> None:
    app = make_app("showcase", version)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        snap = app.reading
        assert snap is not None and snap.pool_status.ok
        names = [p.name for p in snap.pools]
        assert "tank" in names
        text = table_text(app, "tank")
        assert "mirror-0" in text and "ONLINE" in text
        assert header(app).badges == ("demo",)
        facts = header(app).facts
        assert "demo" in facts and ("OpenZFS 2.3" in facts if version == "2.3"
                                    else "OpenZFS 2.1" in facts)


async def test_slow_disk_stands_out_after_sustained_samples() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=6)
        slow = [f for f in app.findings if f.kind == "slow-disk"]
        assert slow, "the demo's slow mirror member must be found after 5+ samples"
        finding = slow[0]
        assert "slower than its mirror peer" in finding.message
        assert "every write to mirror-" in finding.message
        text = table_text(app, "tank")
        assert "SLOW" in text
        # the NOTE column carries the symbol of the finding's own sentence (the demo's disk is
        # ~10x slower: critical, so ✖ in both places, never ✖ above and ▲ beside the disk)
        assert f"{finding.severity.symbol} SLOW" in text
        other = "▲" if finding.severity.symbol == "✖" else "✖"
        assert f"{other} SLOW" not in text


async def test_read_only_badge_and_pause() -> None:
    app = make_app(read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "ro" in header(app).badges
        await pilot.press("p")
        assert app.paused
        assert "PAUSED" in header(app).status
        assert "PAUSED (p to resume)" in header_lines(app)[1]
        await pilot.press("p")
        assert not app.paused


async def test_badges_are_made_when_they_show() -> None:
    """Issue 11: hidden badges are not made in the first frame. A root console on the demo
    host has the DEMO badge only; READ-ONLY is made in a read-only console; NOT ROOT when a
    reading says so, after the others, and hidden again when a reading says root."""
    from zconsole.hosts.demo import DemoHost

    def badges(app: ZConsoleApp) -> tuple[str, ...]:
        """The badges shown, in order, as the header's first line ends with them."""
        shown = header(app).badges
        line = header_lines(app)[0].rstrip()
        assert line.endswith(" ".join(f" {header(app).badge_text(b)} " for b in shown)
                             .rstrip()), line
        return shown

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert badges(app) == ("demo",)
    app = make_app(read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert badges(app) == ("demo", "ro")
    host = DemoHost("showcase", clock=frozen, seed=0, root=False)
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.pause()
        assert badges(app) == ("demo", "ro", "notroot")
        assert header_lines(app)[0].rstrip().endswith("DEMO   READ-ONLY   NOT ROOT")
        host._root = True
        app.action_refresh()
        await settle(app, pilot)
        assert badges(app) == ("demo", "ro")
        assert "NOT ROOT" not in header_lines(app)[0]


async def test_theme_cycles_through_theme_files() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        first = app.theme
        await pilot.press("t")
        assert app.theme != first and app.theme.startswith("zconsole-")


async def test_the_header_takes_the_new_theme_s_colours() -> None:
    """The header draws its badges and lines from component styles: a theme switch
    redraws it in the new theme's colours (the DEMO badge in its $badge-demo)."""
    from rich.color import Color as RichColor
    from textual.color import Color

    def badge_background(app: ZConsoleApp) -> RichColor | None:
        text = header(app).render()
        start = text.plain.index(" DEMO ")
        spans = [s for s in text.spans if s.start <= start < s.end]
        assert spans
        style = spans[-1].style
        assert not isinstance(style, str)
        return style.bgcolor

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = badge_background(app)
        assert before == Color.parse(app.theme_variables["badge-demo"]).rich_color
        await pilot.press("t")
        await pilot.pause()
        after = badge_background(app)
        assert after == Color.parse(app.theme_variables["badge-demo"]).rich_color
        assert after != before  # the themes give the badge another colour


async def test_the_footer_takes_the_new_theme_s_colours() -> None:
    """The footer works its colours out once per styling, not once per drawing: a theme
    switch restyles it, and it draws its keys in the new theme's colours."""
    from textual.color import Color

    from zconsole.ui.kit.footer import ZFooter

    def key_colour(app: ZConsoleApp) -> object:
        footer = app.screen.query_one(ZFooter)
        return footer.render().get_style_at_offset(app.console, 0).color

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = key_colour(app)
        assert key_colour(app) == before  # drawn again from the same colours
        assert before == Color.parse(app.theme_variables["footer-key-foreground"]).rich_color
        await pilot.press("t")
        await pilot.pause()
        after = key_colour(app)
        assert after == Color.parse(app.theme_variables["footer-key-foreground"]).rich_color
        assert after != before


async def test_the_start_parses_the_stylesheet_once_in_its_theme(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11: setting the theme through Textual's watcher at start parsed every CSS rule
    twice more (the watcher's refresh, then the first screen's), and Textual refreshed the
    whole CSS once more for the first screen of a mode (`ZScreen` says it is styled as of
    now). The start in the light theme refreshes the CSS not at all and is in that theme:
    its classes, its colours; a later switch still recolours (one refresh)."""
    from textual.app import App

    calls: list[str] = []
    real = App.refresh_css

    def counted(self: App[object], animate: bool = True) -> None:
        calls.append(self.theme)
        real(self, animate)

    monkeypatch.setattr(App, "refresh_css", counted)
    app = make_app(theme="light")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        light = app.theme_files["light"]
        assert app.theme == light.name and calls == []
        assert {f"-theme-{light.name}", "-light-mode"} <= set(app.classes)
        assert "-dark-mode" not in app.classes
        assert app.stylesheet._variables["background"] == light.background
        assert app.screen.styles.background.hex.upper() == str(light.background).upper()
        await pilot.press("t")
        await pilot.pause()
        assert app.theme != light.name and len(calls) == 1
        assert app.screen.styles.background.hex.upper() != str(light.background).upper()
        # a screen first made after the switch is in the new theme too
        now = app.theme_files[next(k for k, t in app.theme_files.items()
                                   if t.name == app.theme)]
        await pilot.press("2")
        await settle(app, pilot)
        assert app.screen.styles.background.hex.upper() == str(now.background).upper()


async def test_hung_zpool_never_shows_healthy() -> None:
    from zconsole.hosts.demo import DemoHost

    host = ProgramsFail(DemoHost("showcase", clock=frozen), "zpool", hung=True,
                        label="hung-host")
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        snap = app.reading
        assert snap is not None
        assert not snap.pool_status.ok
        assert snap.healthy_pools == ()
        problems = str(app.screen.query_one(ProblemsPanel).render())
        assert "pool status" in problems and "no answer after" in problems
        assert "ONLINE" not in " ".join(table_text(app, p.name) for p in snap.pools
                                        if any(b.pool_name == p.name
                                               for b in app.screen.query(PoolBlock)))


async def test_refresh_that_raises_is_shown_not_fatal() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)

        def boom(*_args: object, **_kwargs: object) -> None:  # refresh(force=..., ...)
            raise RuntimeError("simulated collector crash")

        app.session.refresh = boom  # type: ignore[method-assign]
        app.action_refresh()
        for _ in range(200):
            if app.last_error:
                break
            await pilot.pause(0.01)
        assert app.last_error and "simulated collector crash" in app.last_error
        assert "last refresh failed" in header(app).status
        assert app.reading is not None  # the old data stays on screen


async def test_number_keys_switch_screens_and_keep_the_frame() -> None:
    from zconsole.ui.screens.registry import SCREENS

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for screen in SCREENS:
            await pilot.press(screen.key)
            await pilot.pause()
            assert app.current_mode == screen.mode
            assert isinstance(app.screen, screen.load())
            facts = header(app).facts
            assert screen.title in facts and "demo: showcase" in facts
            assert header_lines(app)[0].startswith(facts)
            assert header(app).badges == ("demo",)


def test_each_screen_takes_its_names_from_the_registry() -> None:
    """The registry holds each screen's mode, key and title (the app starts without
    importing the screens it does not show first); a screen class does not write them
    again, it takes them from its entry when it is made. A screen outside the nine keeps
    its own."""
    from pathlib import Path

    from zconsole.ui.screens import registry
    from zconsole.ui.screens.base import ZScreen
    from zconsole.ui.wizards.screen import WizardScreen

    for entry in registry.SCREENS:
        cls = entry.load()
        assert (cls.MODE, cls.KEY, cls.TITLE) == (entry.mode, entry.key, entry.title)
    packages = {p.parent.name for p in Path(registry.__file__).parent.glob("*/screen.py")}
    assert packages == {e.module.split(".")[0] for e in registry.SCREENS}
    # a class that says nothing of its names gets them from the entry of its module and name
    bare = type("FleetScreen", (ZScreen,), {"__module__": "zconsole.ui.screens.fleet.screen"})
    assert (bare.MODE, bare.KEY, bare.TITLE) == ("fleet", "9", "Fleet")
    assert (WizardScreen.MODE, WizardScreen.KEY, WizardScreen.TITLE) == ("", "", "Wizard")


# The console on the showcase demo in a fresh interpreter, up to a moment of its start (WAIT
# calls `done()` then); the modules imported by then, sorted, on the last line.
STARTED = """
import json, sys
from zconsole.hosts.demo import DemoHost
from zconsole.ui.app import ZConsoleApp
app = ZConsoleApp(DemoHost("showcase"), refresh_interval=3600)
seen = []
def done():
    seen.extend(sorted(sys.modules))
    app.exit()
WAIT
app.run(headless=True, size=(120, 40))
print(json.dumps(seen))
"""


def imported_by(wait: str) -> set[str]:
    """What start-up imported up to the moment `wait` (code calling `done()` then)."""
    import json
    import subprocess
    import sys

    code = STARTED.replace("WAIT", wait)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_only_the_first_screen_is_imported_before_the_first_frame() -> None:
    """Start-up imports the first screen's module, not the others' (what is imported is
    checked, not how long it takes)."""
    loaded = {m.split(".")[3] for m in imported_by("app.call_after_refresh(done)")
              if m.startswith("zconsole.ui.screens.")}
    assert "pools" in loaded
    assert not loaded & {"disks", "datasets", "arc", "network", "host"}, loaded


def test_the_first_full_frame_imports_only_what_it_shows() -> None:
    """Issue 11: up to the first full frame (the pools drawn from the first reading, their
    tables filled), start-up imports neither Rich's emoji table (a table cell or label parsed
    as markup loads it), nor the human `zpool iostat` parser (zconsole reads `-H`), nor the
    Timeline's model (a quiet host's first reading has no state change to record). What is
    imported is checked, not how long it takes."""
    from bench.budgets import FULL_FRAME_WAIT  # the bench's first frame is the same moment

    loaded = imported_by(FULL_FRAME_WAIT)
    assert "zconsole.ui.screens.pools.pool_block" in loaded
    assert not loaded & {"rich._emoji_codes", "zconsole.parsers.zpool_iostat_human",
                         "zconsole.model.timeline"}, loaded


async def test_palette_lists_every_screen_and_theme() -> None:
    from textual.system_commands import SystemCommandsProvider

    from zconsole.ui.screens.registry import SCREENS

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)  # the Pools screen is up (it adds the wizards' entries)
        provider = SystemCommandsProvider(app.screen)
        labels = [str(hit.display) async for hit in provider.discover()]
        labels += [str(hit.text) async for hit in provider.search("Theme")]
        for screen in SCREENS:
            assert f"Screen: {screen.title}" in labels
        for theme in ("dark", "light", "high-contrast"):
            assert f"Theme: {theme}" in labels
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert all(helps[f"Screen: {s.title}"] == f"key {s.key}" for s in SCREENS)
        assert "Quit" in helps  # Textual's own entries are still there


async def test_performance_columns_show_the_slow_disks_figures() -> None:
    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, refreshes=6)
        await pilot.press("m")
        await pilot.pause()
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        headers = [str(c.label).strip() for c in block.table.columns.values()]
        assert headers[:4] == ["NAME", "STATE", "DISK", "SERIAL"]
        # issue 29: operations and bandwidth; the kernel's awaits from 134 columns
        assert {"BUSY", "OPS/s R/W", "B/s R/W", "ZFS R/W", "TREND"} <= set(headers)
        state = app.view_state()
        slow = next(f for f in state.findings if f.kind == "slow-disk")
        (key, metrics), = [(k, m) for k, m in state.leaves.items()
                           if k[0] == "tank" and k[1][-1] == slow.subject]
        peer_key = next(k for k in state.leaves if k[0] == "tank" and k[1][:-1] == key[1][:-1]
                        and k != key)
        peer = state.leaves[peer_key]
        assert metrics.zfs_wait_write_ms is not None and peer.zfs_wait_write_ms is not None
        assert metrics.zfs_wait_write_ms > 5 * peer.zfs_wait_write_ms
        assert metrics.serial and metrics.serial in slow.subject
        row = " ".join(str(c) for c in block.table.get_row(f"tank:vdevs:{'/'.join(key[1])}"))
        # Frozen clock: two /proc/diskstats reads span no time, so no kernel figures exist and
        # the row says "-" rather than 0 %; ZFS's own interval figures are there.
        assert metrics.busy_pct is None and metrics.w_await_ms is None
        assert metrics.serial in row and " - " in f" {row} "
        assert f"/{metrics.zfs_wait_write_ms:.1f}" in row
        assert len(metrics.trend) >= 5
        await pilot.press("m")
        headers = [str(c.label).strip() for c in block.table.columns.values()]
        assert headers == ["NAME", "STATE", "READ", "WRITE", "CKSUM", "SIZE", "CAP", "NOTE"]


async def test_performance_legend_is_made_when_first_shown() -> None:
    """Issue 11: the legend of the performance columns is not made with the screen (a
    hidden widget in the first frame); `m` shows it under the pools, `m` again hides it, and
    it is made once."""
    from textual.widgets import Static

    from zconsole.ui.screens.pools.pools_view import PoolsView
    from zconsole.ui.screens.pools.screen import PERF_LEGEND

    app = make_app("showcase")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert not app.screen.query(".legend")
        for shown in (True, False, True):
            await pilot.press("m")
            await pilot.pause()
            legends = list(app.screen.query(".legend").results(Static))
            assert len(legends) == 1 and legends[0].display is shown
        body = app.screen.query_one(".body")
        assert [type(w) for w in body.children][:2] == [PoolsView, Static]
        assert str(legends[0].render()) == PERF_LEGEND


@pytest.mark.parametrize("width", [80, 120])
async def test_header_drops_whole_facts_when_narrow(width: int) -> None:
    app = make_app("showcase")
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(app, pilot)
        facts = header(app).facts
        assert header_lines(app)[0].startswith(facts)
        kernel = app.reading.kernel.value  # type: ignore[union-attr]
        assert kernel
        assert "OpenZFS 2.3.2" in facts
        assert (f"kernel {kernel}" in facts) == (width == 120)
        assert not facts.rstrip().endswith("kernel")


async def test_tab_strip_names_every_screen_where_it_fits_and_footer_fits_80_columns() -> None:
    from zconsole.ui.screens.registry import SCREENS

    tabbed = [s for s in SCREENS if s.tab]
    assert [s.key for s in tabbed] == [str(n) for n in range(1, 10)]  # every screen
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        tabs = header(app).tabs
        assert header_lines(app)[1].endswith(tabs)
        # every full name would leave the refresh line no room at 80 columns: short names,
        # each right after its key (htop's "F1Help"; issue 29), the screen shown's boxed
        assert tabs.split() == ["1", "Pools", "2Disks", "3Data", "4ARC", "5Net", "6Host",
                                "7Time", "8Adv", "9Fleet"]
        assert header(app).status == "refreshed 0 s ago"
        assert header_lines(app)[1].startswith("refreshed 0 s ago ")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tabs = header(app).tabs
        for s in tabbed:
            assert f"{s.key} {s.title}" in tabs
        shown = [b.binding.key for b in app.screen.active_bindings.values() if b.binding.show]
        assert not {s.key for s in SCREENS} & set(shown)
        assert {"ctrl+r", "p", "q"} <= set(shown)
        footer_text = " ".join(f"{b.binding.key_display or b.binding.key} {b.binding.description}"
                               for b in app.screen.active_bindings.values() if b.binding.show)
        assert len(footer_text) + len("^p palette") + 2 <= 80, footer_text


async def test_screen_switches_do_not_keep_old_footer_keys() -> None:
    """Issue 'trust', item 9: every screen switch recomposes the footer, and Textual's Footer
    kept every old FooterKey reachable (Textualize/textual#6666): ~0.4 MiB per switch. With
    ZFooter the number of live keys stays what the screens show, however often one switches.
    (Counts objects, not bytes or seconds: deterministic.)"""
    import gc

    from textual.widgets._footer import FooterKey

    def live_keys() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, FooterKey))

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)

        async def switch(times: int) -> None:
            for i in range(times):
                await pilot.press("12345"[i % 5])
                await pilot.pause()

        await switch(10)
        after_10 = live_keys()
        await switch(50)
        after_60 = live_keys()
    assert after_60 <= after_10 + 5, (after_10, after_60)


async def test_footer_is_one_widget_that_acts_as_textuals_keys() -> None:
    """Issues 11 and 28: the footer is one widget that draws its keys (no FooterKey mounted,
    Footer's CSS never parsed), the palette's key at its right end behind a thin border. It
    shows the screen's keys in order, highlights the key under the mouse (not the cell
    between two keys) and presses a key that is clicked, as a FooterKey does; a disabled
    key rings the bell; a change of bindings (the focus) repaints it."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    from zconsole.ui.kit.footer import EDGE, ZFooter

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        footer = app.screen.query_one(ZFooter)
        assert not list(app.screen.query(FooterKey)) and not list(app.screen.query(Footer))
        assert not footer.children
        shown = [b.binding.key for b in app.screen.active_bindings.values() if b.binding.show]
        assert [k.key for k in footer.keys] == shown
        assert [k.key for k in footer.palette] == [app.COMMAND_PALETTE_BINDING]
        plain = footer.render().plain
        assert len(plain) == 120 and plain.endswith(f"{EDGE}^p palette ")
        assert footer.region.bottom == app.screen.size.height  # docked at the bottom
        i = [k.key for k in footer.keys].index("p")
        start, end = footer._spans(footer.keys)[i]
        assert plain[start:end] == "p Pause" and plain[end] == " "
        before = footer.render().get_style_at_offset(app.console, start)

        await pilot.hover(ZFooter, offset=(start + 1, 0))
        assert footer._hover == i and footer.styles.pointer == "pointer"
        assert footer.render().get_style_at_offset(app.console, start) != before
        await pilot.hover(ZFooter, offset=(end, 0))  # the cell between two keys
        assert footer._hover is None and footer.styles.pointer == "default"
        await pilot.hover(ZFooter, offset=(116, 0))  # the palette's key
        assert footer._hover == len(footer.keys) and footer.tooltip

        assert not app.paused
        await pilot.click(ZFooter, offset=(start + 2, 0))
        await pilot.pause()
        assert app.paused


async def test_footer_scrolls_when_too_narrow() -> None:
    """At a width where the keys do not fit, the wheel scrolls them under the palette's key,
    and back. (A change of keys with the focus: tests/ui/test_timeline_focus.py.)"""
    from zconsole.ui.kit.footer import ZFooter

    app = make_app()
    async with app.run_test(size=(50, 24)) as pilot:
        await settle(app, pilot)
        footer = app.screen.query_one(ZFooter)
        first = footer.render().plain
        assert first.startswith(footer.keys[0].display) and first.endswith("^p palette ")
        assert footer.render().cell_len == 50
        wheel = (footer, 5, 0, 0, 1, 0, False, False, False)
        footer.post_message(events.MouseScrollDown(*wheel))
        await pilot.pause()
        scrolled = footer.render().plain
        assert scrolled != first and scrolled.endswith("^p palette ")
        assert scrolled.startswith(first[4:8])  # moved by four cells
        footer.post_message(events.MouseScrollUp(*wheel))
        await pilot.pause()
        assert footer.render().plain == first


class HangsLater(DelegatingHost):
    """Answers normally, then `zpool status` hangs (a suspended pool, D state) once `hang` is
    set; reads run side by side as on a real host."""

    kind = "local"
    label = "hangs-later"
    concurrent_reads = True

    def __init__(self, inner: Host) -> None:
        super().__init__(inner)
        import threading

        self.hang = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()

    def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        if tuple(argv[:2]) == ("zpool", "status") and self.hang.is_set():
            self.release.wait(120)
        with self.lock:
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)


async def test_a_hung_status_turns_every_pool_unknown_and_q_still_quits() -> None:
    """Issue 'trust', item 3: after a good reading, `zpool status` hangs. Once the reading is
    older than the refresh interval plus the timeout, no pool is shown with its old health:
    each is ? UNKNOWN with how long there has been no answer; q quits meanwhile."""
    from zconsole.hosts.demo import DemoHost

    clock = [frozen()]
    host = HangsLater(DemoHost("showcase", clock=frozen))
    app = ZConsoleApp(host, clock=lambda: clock[0], refresh_interval=3600)
    app.session.timeout = 0.5  # so the hung read is given up quickly (no time asserted)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            blocks = list(app.screen.query(PoolBlock))
            assert blocks and "ONLINE" in table_text(app, blocks[0].pool_name)
            host.hang.set()
            clock[0] += app.stale_after + 30  # the last good status is now too old
            app._tick_frame()
            await pilot.pause()
            for b in app.screen.query(PoolBlock):
                text = table_text(app, b.pool_name)
                assert "ONLINE" not in text
            summary = " ".join(str(b.summary.render()) for b in app.screen.query(PoolBlock))
            assert "UNKNOWN" in summary
            problems = str(app.screen.query_one(ProblemsPanel).render())
            assert "no answer for" in problems
            app.action_refresh(True)  # a refresh whose zpool status hangs
            await pilot.pause(0.05)
            await pilot.press("q")  # quits although a read hangs
    finally:
        host.release.set()
    assert not app.is_running


def test_the_ui_thread_gets_the_interpreter_lock_back_quickly() -> None:
    """Worker threads parse in pure Python: the console shortens the interpreter's switch
    interval so that the UI thread is not kept waiting 5 ms at every turn of its loop."""
    import sys

    from zconsole.ui.app import UI_SWITCH_INTERVAL

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        make_app()
        assert sys.getswitchinterval() == UI_SWITCH_INTERVAL < 0.005
    finally:
        sys.setswitchinterval(before)


async def test_a_refresh_is_announced_once_it_has_run_a_second() -> None:
    """The status line says "refreshing for N s" only once a refresh has run for a second:
    a quick one would change the line (and draw the screen) twice to say nothing."""

    from zconsole.hosts.demo import DemoHost

    now = [frozen()]
    app = ZConsoleApp(DemoHost("showcase", clock=frozen, seed=0), clock=lambda: now[0],
                      refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        gate = hold_refreshes(app)
        status = header(app)
        try:
            app.action_refresh()
            assert app.refresh_started is not None
            now[0] += 0.5
            app.screen.refresh_frame(app.view_state())  # type: ignore[attr-defined]
            assert "refreshing" not in status.status
            now[0] += 1.5
            app.screen.refresh_frame(app.view_state())  # type: ignore[attr-defined]
            assert "refreshing for 2 s" in status.status
        finally:
            gate.set()
        for _ in range(500):
            if app.refresh_started is None:
                break
            await pilot.pause(0.01)
        assert "refreshing" not in status.status


@pytest.mark.parametrize("wait_s", [0.0, 5.0])  # the reading as a message, or in the 1st frame
async def test_the_collector_held_for_start_up_is_let_go_after_the_first_reading(
        monkeypatch: pytest.MonkeyPatch, wait_s: float) -> None:
    """zconsole's main holds the cyclic garbage collector during start-up; the app freezes
    what start-up made and turns the collector back on once the first reading is drawn.
    Judged when the app lets it go (the first reading may be drawn before the test's first
    look: in the first frame when it comes within ui/first_reading.WAIT_S), never by when
    the test looks."""
    import gc

    from zconsole.hosts.demo import DemoHost
    from zconsole.ui import app as app_module
    from zconsole.ui import collector, first_reading

    seen: list[tuple[bool, bool]] = []  # (collector on, first reading drawn) at each release
    real = app_module.release_collector

    def release() -> None:
        seen.append((gc.isenabled(), app.reading is not None and bool(
            list(app.screen.query(PoolBlock)))))
        real()

    monkeypatch.setattr(app_module, "release_collector", release)
    monkeypatch.setattr(first_reading, "WAIT_S", wait_s)
    thresholds = gc.get_threshold()
    gc.disable()
    try:
        app = ZConsoleApp(DemoHost("showcase", clock=frozen, seed=0), clock=frozen,
                          refresh_interval=3600, collector_held=True)
        async with app.run_test(size=(80, 24)) as pilot:
            assert gc.isenabled() == bool(seen)  # held until the release
            await settle(app, pilot)
            for _ in range(100):
                if gc.isenabled():
                    break
                await pilot.pause(0.01)
            assert gc.isenabled() and gc.get_freeze_count() > 0
            assert seen == [(False, True)]  # once, held until then, the pools drawn
            # young collections ~14 times rarer: a full one walks all a refresh made
            assert gc.get_threshold() == (collector.YOUNG_COLLECTION, *thresholds[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        gc.enable()


def test_main_holds_the_collector_only_while_the_console_starts(monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """main() passes collector_held to the app it runs, and the collector is on again
    whatever happens (here: the console refuses a terminal that is not one)."""
    import gc

    from zconsole.cli import main as cli_main

    seen: dict[str, object] = {}

    class Recorder:
        def __init__(self, host: object, **kw: object) -> None:
            seen.update(kw, enabled_at_start=gc.isenabled())

        def run(self) -> None:
            seen["ran"] = True

    monkeypatch.setattr("zconsole.ui.app.ZConsoleApp", Recorder)
    monkeypatch.setenv("ZCONSOLE_FORCE_UI", "1")
    assert cli_main(["--demo", "showcase"]) == 0
    assert seen["collector_held"] is True and seen["enabled_at_start"] is False
    assert seen["ran"] is True and gc.isenabled()


def hold_refreshes(app: ZConsoleApp) -> threading.Event:
    """Every refresh of `app` from now on waits (in its worker) until the event is set."""
    gate = threading.Event()
    real = app.session.refresh

    def held(**kw: object) -> object:
        gate.wait(30)
        return real(**kw)  # type: ignore[arg-type]

    app.session.refresh = held  # type: ignore[method-assign]
    return gate
