"""The footer every screen shows: Textual's Footer without its leak.

Textual 8.2's `Footer` recomposes its keys whenever the screen's bindings change (every screen
switch does). Each `FooterKey` is data-bound to `Footer.compact`, which stores a watcher entry
(the key and a setter) on the footer; entries are only pruned when `compact` changes, which it
never does here, so every old key stays reachable from the footer for as long as the screen
lives: about 0.4 MiB per screen switch in zconsole, 55 KiB in a 20-line app. Reported upstream
as Textualize/textual#6666 (reproduction: docs/upstream/textual-footer-leak.md). `ZFooter`
drops the entries of keys that are gone after each recompose.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class ZFooter(Footer):
    """Also: one recompose for a burst of binding changes, and none when the keys it would
    show are those shown. Textual's Footer recomposes after every `bindings_updated` signal
    (a screen mounting, each focus change); zconsole's start-up sent eight in a row, each
    rebuilding every key widget (a tenth of the first frame)."""

    _recompose_pending = False
    _shown: object = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._recompose_pending = False
        if not self.is_attached:
            return
        shown = self._keys_to_show()
        if shown == self._shown:
            return
        await self.recompose()

    def _keys_to_show(self) -> object:
        """What `compose` reads: each shown binding, whether it is enabled, its tooltip."""
        return tuple((b.key, b.action, b.description, b.group, enabled, tooltip)
                     for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
                     if b.show or b.key == self.app.COMMAND_PALETTE_BINDING)

    async def recompose(self) -> None:
        self._shown = self._keys_to_show() if self._bindings_ready else None
        await super().recompose()
        self.prune_watchers()

    def prune_watchers(self) -> None:
        """Forget watcher entries of widgets no longer in the DOM."""
        watchers: dict[str, list[tuple[Any, Any]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [(node, callback) for node, callback in entries
                          if getattr(node, "is_attached", True)
                          and not getattr(node, "_closing", False)]
