"""Pools: health, capacity, scan progress, the vdev tree, the slow disk; and the entry to the
disk wizards on the row the cursor selects.

The wizards come from the operation registry (`services/ops/registry.py`): one key per entry
with a `Wizard` (`Binding(key, "wizard('KIND')", label)`, handled by `action_wizard`), and
one palette entry each (`system_commands`). With `--read-only` the wizards do not exist
here: no key, no footer entry, no palette entry.

The keys are `WIZARD_KEYS`, a copy of the registry's (kind, key, label) that
tests/unit/test_registry.py holds equal to it: importing the registry imports every domain
of services.ops (60-90 ms of dataclasses), which the first frame does not need; the registry
is imported when a wizard or the palette is first opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.widgets import Static

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.pools.pools_view import PoolsView
from zconsole.ui.state import ViewState

PERF_LEGEND = (
    "OPS/s R/W, B/s R/W: operations and bytes per second, read/write, of the pool, each vdev "
    "and disk over the last sample, as `zpool iostat -v 1` (K, M, G: powers of 1024; - before "
    "the first sample) · ZFS R/W: ZFS disk_wait, read/write, ms · BUSY: share of the last "
    "interval with a request outstanding (on SSD/NVMe this is not saturation) · TREND: worst "
    "latency over the last refreshes, one scale per pool · R/W AWAIT (wide terminals): kernel "
    "per-request latency, ms"
)
WIZARD_HELP = "on the selected row"
# (kind, key, footer label) of every registry entry with a wizard, in registry order
WIZARD_KEYS: tuple[tuple[str, str, str], ...] = (
    ("attach", "a", "Attach"),
    ("detach", "d", "Detach"),
    ("replace-failed", "r", "Replace"),
    ("replace-grow", "g", "Grow"),
    ("dedup-off", "D", "Dedup"),
)

class PoolsScreen(ZScreen):
    MAIN = "VdevTable"  # the first pool's table; Tab moves to the next pool's
    DEFAULT_CSS = """
    PoolsScreen .legend {
        height: auto;
        color: $muted;
        padding: 0 0 1 0;
    }
    """

    BINDINGS = [
        # not in the footer (80 columns hold the wizards' keys, Refresh, Pause and Quit):
        # the README names it
        Binding("m", "toggle_columns", "Columns", show=False),
        Binding("slash", "filter", "Find", show=False),
        Binding("x", "problems", "Problems only", show=False),
        *(Binding(key, f"wizard('{kind}')", label) for kind, key, label in WIZARD_KEYS),
    ]

    def compose_body(self) -> ComposeResult:
        yield PoolsView(classes="pools")
        # the legend of the performance columns: mounted the first time they are shown

    def show_state(self, state: ViewState) -> None:
        self.query_one(PoolsView).show(state)

    def action_toggle_columns(self) -> None:
        view = self.query_one(PoolsView)
        view.toggle_columns()
        legend = next(self.query(".legend").results(Static), None)
        if legend is not None:
            legend.display = view.performance
        elif view.performance:
            self.query_one(".body").mount(Static(PERF_LEGEND, classes="legend"), after=view)

    def action_filter(self) -> None:
        self.query_one(PoolsView).open_filter()

    def action_problems(self) -> None:
        self.query_one(PoolsView).toggle_problems()

    # -- wizards --------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "wizard":
            return not self.console_app.read_only
        return True

    def action_wizard(self, kind: str) -> None:
        self.start_wizard(kind)

    def system_commands(self) -> Iterator[SystemCommand]:
        """The palette's entries for this screen (the app lists them while it is active):
        one per wizard of the registry, none when the console is read-only."""
        if self.console_app.read_only:
            return
        from zconsole.services.ops import registry

        for op in registry.with_wizard():
            yield SystemCommand(f"Wizard: {op.help}", WIZARD_HELP,
                                partial(self.start_wizard, op.kind))

    def start_wizard(self, kind: str) -> None:
        if self.console_app.read_only:  # belt and braces: the palette and keys are gone already
            return
        from zconsole.ui.wizards import open_wizard
        from zconsole.ui.wizards.choices import Selection

        key = self.query_one(PoolsView).selected_key()
        selection = Selection.from_row_key(key) if key else None
        open_wizard(self.console_app, kind, selection)
