"""Pools: health, capacity, scan progress, the vdev tree, the slow disk; and the entry to the
disk wizards on the row the cursor selects.

The wizards come from the operation registry (`services/ops/registry.py`): one key per entry
with a `Wizard` (`Binding(key, "wizard('KIND')", label)`, handled by `action_wizard`), and
one palette entry each (`system_commands`). With `--read-only` the wizards do not exist
here: no key, no footer entry, no palette entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.widgets import Static

from zconsole.services.ops import registry
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.pools.view import PoolsView
from zconsole.ui.state import ViewState

PERF_LEGEND = (
    "BUSY: share of the last interval with a request outstanding (on SSD/NVMe this is not "
    "saturation) · R/W AWAIT: kernel per-request latency, ms · ZFS R/W: ZFS disk_wait, read/"
    "write, ms · TREND: worst latency over the last refreshes, one scale per pool"
)
WIZARD_HELP = "on the selected row"

# binding action -> (wizard kind, palette title), from the registry (read by the palette tests)
WIZARD_ACTIONS = {f"wizard('{op.kind}')": (op.kind, f"Wizard: {op.help}")
                  for op in registry.with_wizard()}


class WizardCommands(Provider):
    """TEMPORARY bridge until the app builds the palette with `get_system_commands(screen)`
    and calls `screen.system_commands()` (another change, in ui/app.py): it offers the same
    entries as `PoolsScreen.system_commands`. It falls silent as soon as the app overrides
    `get_system_commands`, so the entries are never listed twice; delete it, and `COMMANDS`
    below, then (tests/ui/test_wizards.py's palette tests use it until then)."""

    def _entries(self) -> list[SystemCommand]:
        screen = self.screen
        if not isinstance(screen, PoolsScreen):
            return []
        if type(self.app).get_system_commands is not App.get_system_commands:
            return []
        return list(screen.system_commands())

    async def discover(self) -> Hits:
        for cmd in self._entries():
            yield DiscoveryHit(cmd.title, cmd.callback, help=cmd.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in self._entries():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.title), cmd.callback, help=cmd.help)


class PoolsScreen(ZScreen):
    MODE = "pools"
    TITLE = "Pools"
    KEY = "1"

    COMMANDS = {WizardCommands}  # TEMPORARY, see WizardCommands
    BINDINGS = [
        Binding("m", "toggle_columns", "Columns"),
        *(Binding(op.wizard.key, f"wizard('{op.kind}')", op.wizard.label)
          for op in registry.with_wizard() if op.wizard is not None),
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
        if action == "wizard":
            return not self.zapp.read_only
        return True

    def action_wizard(self, kind: str) -> None:
        self.start_wizard(kind)

    def system_commands(self) -> Iterator[SystemCommand]:
        """The palette's entries for this screen (the app lists them while it is active):
        one per wizard of the registry, none when the console is read-only."""
        if self.zapp.read_only:
            return
        for op in registry.with_wizard():
            yield SystemCommand(f"Wizard: {op.help}", WIZARD_HELP,
                                partial(self.start_wizard, op.kind))

    def start_wizard(self, kind: str) -> None:
        if self.zapp.read_only:  # belt and braces: the palette and keys are gone already
            return
        from zconsole.ui.wizards import open_wizard
        from zconsole.ui.wizards.choices import Selection

        key = self.query_one(PoolsView).selected_key()
        selection = Selection.from_row_key(key) if key else None
        open_wizard(self.zapp, kind, selection)
