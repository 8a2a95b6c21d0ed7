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

from collections.abc import Sequence
from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from zconsole.ui.kit.textual_private import (
    FooterKey,
    bindings_ready,
    mark_bindings_ready,
    prune_watchers,
)


class _Key(NamedTuple):
    """One key of the footer as FooterKeys draws it."""

    key: str
    display: str
    description: str
    disabled: bool
    tooltip: str | None


class FooterKeys(Widget):
    """The footer's keys drawn as one widget that looks and acts as Textual's row of
    `FooterKey`s in a compact footer (the command palette's key is a second one, docked
    right as Footer docks its key): each key and its description
    in the key's styles, one cell of the footer between two keys, the key under the mouse
    highlighted (with its tooltip and the pointer shape), a click presses the key (a bell
    when it is disabled). Nine key widgets cost a fifth of the console's first frame:
    each is styled, mounted, laid out and drawn on its own."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",
        "footer-keys--hover",
        "footer-keys--hover-key",
        "footer-keys--hover-description",
    }

    # FooterKey's own CSS (Textual 8.2, compact), the hover as components
    DEFAULT_CSS = """
    FooterKeys {
        width: auto;
        height: 1;
        text-wrap: nowrap;
        background: $footer-item-background;
        &.-command-palette {  /* Footer's CSS for the palette's FooterKey, compact */
            dock: right;
            border-left: vkey $foreground 20%;
        }
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-keys--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .footer-keys--hover-key {
            color: $footer-key-foreground;
            background: $block-hover-background;
            text-style: bold;
        }
        .footer-keys--hover-description {
            color: $footer-description-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, keys: Sequence[FooterKey], classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.set_reactive(Widget.shrink, False)  # as a FooterKey: the footer scrolls
        self.keys = tuple(_Key(k.key, k.key_display, k.description, k.has_class("-disabled"),
                               str(k.tooltip) if k.tooltip is not None else None)
                          for k in keys)
        # where each key starts and ends (cells), a gap of one cell after each
        self._spans: list[tuple[int, int]] = []
        at = 0
        for k in self.keys:
            width = cell_len(k.display) + (1 + cell_len(k.description)
                                           if k.description else 0)
            self._spans.append((at, at + width))
            at += width + 1
        self._width = at
        self._hover: int | None = None

    def get_content_width(self, container: Any, viewport: Any) -> int:
        return self._width

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return 1

    def _key_at(self, x: int) -> int | None:
        return next((i for i, (a, b) in enumerate(self._spans) if a <= x < b), None)

    def render(self) -> Text:
        parent = self.parent  # a gap is the footer's background (a FooterKey's margin)
        gap = Style.from_color(bgcolor=parent.rich_style.bgcolor
                               if isinstance(parent, Widget) else None)
        base = self.rich_style
        out = Text(no_wrap=True, end="")
        for i, k in enumerate(self.keys):
            hover = i == self._hover
            key_style = self.get_component_rich_style(
                "footer-keys--hover-key" if hover else "footer-key--key")
            text = Text.assemble((k.display, key_style))
            if k.description:
                text.append(" " + k.description, self.get_component_rich_style(
                    "footer-keys--hover-description" if hover else "footer-key--description"))
            text.stylize_before(self.get_component_rich_style("footer-keys--hover")
                                if hover else base)
            if k.disabled:
                text.stylize(Style(dim=True))
            out.append_text(text)
            out.append(" ", gap)
        return out

    def _set_hover(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        key = self.keys[index] if index is not None else None
        self.tooltip = key.tooltip if key is not None else None
        self.styles.pointer = "pointer" if key is not None else "default"
        self.refresh()
        if self.is_attached:
            self.screen.update_pointer_shape()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._key_at(event.x)
        if index is None:
            return
        if self.keys[index].disabled:
            self.app.bell()
        else:
            self.app.simulate_key(self.keys[index].key)


class ZFooter(Footer):
    """Also: one recompose for a burst of binding changes, and none when the keys it would
    show are those shown. Textual's Footer recomposes after every `bindings_updated` signal
    (a screen mounting, each focus change); zconsole's start-up sent eight in a row, each
    rebuilding every key widget (a tenth of the first frame)."""

    _recompose_pending = False
    _shown: object = None

    def compose(self) -> ComposeResult:
        """The keys from the first compose: Textual's Footer composes empty and waits for
        the screen's first `bindings_updated` to recompose with its keys, a layout and a
        paint of the whole screen later (about 5 ms of the first frame). The screen's
        bindings are known when it composes its footer; a focus that changes what is shown
        recomposes as before."""
        if not bindings_ready(self) and self.is_attached:
            mark_bindings_ready(self)
        ready = bindings_ready(self)
        if ready:
            self._shown = self._keys_to_show()
        grouped = ready and any(
            b.group is not None for (_, b, _, _) in self.screen.active_bindings.values()
            if b.show)
        if not self.compact or grouped:  # not zconsole's footer: Textual's, as it is
            yield from super().compose()
            return
        keys: list[FooterKey] = []
        palette: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                (palette if widget.has_class("-command-palette") else keys).append(widget)
            else:
                # A FooterKey's `compact` watcher sets this class when it mounts,
                # restyling the key; set before it mounts, the watcher finds it set already.
                widget.set_class(True, "-compact", update=False)
                yield widget
        if keys:
            yield FooterKeys(keys)
        if palette:  # the palette's key too: no FooterKey is mounted (its CSS never parsed)
            yield FooterKeys(palette, classes="-command-palette")

    def bindings_changed(self, screen: Screen[Any]) -> None:
        mark_bindings_ready(self)
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
        self._shown = self._keys_to_show() if bindings_ready(self) else None
        await super().recompose()
        prune_watchers(self)  # the keys just replaced (Textualize/textual#6666)
