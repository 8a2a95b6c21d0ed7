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

from textual.widgets import Footer


class ZFooter(Footer):
    async def recompose(self) -> None:
        await super().recompose()
        self.prune_watchers()

    def prune_watchers(self) -> None:
        """Forget watcher entries of widgets no longer in the DOM."""
        watchers: dict[str, list[tuple[Any, Any]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [(node, callback) for node, callback in entries
                          if getattr(node, "is_attached", True)
                          and not getattr(node, "_closing", False)]
