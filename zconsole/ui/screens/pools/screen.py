"""Pools: health, capacity, scan progress, the vdev tree, the slow disk; and the entry to the
disk wizards (attach, detach, replace to grow, dedup off) on the row the cursor selects.

With `--read-only` the wizards do not exist here: no key, no footer entry, no palette entry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.widgets import Static

from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.pools.view import PoolsView
from zconsole.ui.state import ViewState

PERF_LEGEND = (
    "BUSY: share of the last interval with a request outstanding (on SSD/NVMe this is not "
    "saturation) · R/W AWAIT: kernel per-request latency, ms · ZFS R/W: ZFS disk_wait, read/"
    "write, ms · TREND: worst latency over the last refreshes, one scale per pool"
)

# action -> (wizard kind, palette label)
WIZARD_ACTIONS = {
    "wizard_attach": ("attach", "Wizard: attach a disk (make or widen a mirror)"),
    "wizard_detach": ("detach", "Wizard: detach a disk from a mirror"),
    "wizard_grow": ("replace-grow", "Wizard: replace to grow (larger disks, one by one)"),
    "wizard_dedup": ("dedup-off", "Wizard: turn dedup off"),
}


class WizardCommands(Provider):
    """Palette entries for the wizards; none at all when the console is read-only."""

    def _entries(self) -> list[tuple[str, Callable[[], object], str]]:
        screen = self.screen
        if not isinstance(screen, PoolsScreen) or screen.zapp.read_only:
            return []
        return [(label, partial(screen.start_wizard, kind), "on the selected row")
                for kind, label in WIZARD_ACTIONS.values()]

    async def discover(self) -> Hits:
        for label, action, help_text in self._entries():
            yield DiscoveryHit(label, action, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, action, help_text in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), action, help=help_text)


class PoolsScreen(ZScreen):
    MODE = "pools"
    TITLE = "Pools"
    KEY = "1"

    COMMANDS = {WizardCommands}
    BINDINGS = [
        Binding("m", "toggle_columns", "Columns"),
        Binding("a", "wizard_attach", "Attach"),
        Binding("d", "wizard_detach", "Detach"),
        Binding("g", "wizard_grow", "Grow"),
        Binding("D", "wizard_dedup", "Dedup"),
    ]

    def compose_body(self) -> ComposeResult:
        yield PoolsView(classes="pools")
        legend = Static(PERF_LEGEND, classes="legend")
        legend.display = False
        yield legend

    def show_state(self, state: ViewState) -> None:
        self.query_one(PoolsView).show(state)

    def action_toggle_columns(self) -> None:
        view = self.query_one(PoolsView)
        view.toggle_columns()
        self.query_one(".legend", Static).display = view.performance

    # -- wizards --------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WIZARD_ACTIONS:
            return not self.zapp.read_only
        return True

    def action_wizard_attach(self) -> None:
        self.start_wizard("attach")

    def action_wizard_detach(self) -> None:
        self.start_wizard("detach")

    def action_wizard_grow(self) -> None:
        self.start_wizard("replace-grow")

    def action_wizard_dedup(self) -> None:
        self.start_wizard("dedup-off")

    def start_wizard(self, kind: str) -> None:
        if self.zapp.read_only:  # belt and braces: the palette and keys are gone already
            return
        from zconsole.ui.wizards import open_wizard
        from zconsole.ui.wizards.choices import Selection

        key = self.query_one(PoolsView).selected_key()
        selection = Selection.from_row_key(key) if key else None
        open_wizard(self.zapp, kind, selection)
