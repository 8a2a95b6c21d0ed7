"""The footer every screen shows: one widget that looks and acts as Textual's compact Footer.

Textual 8.2's `Footer` is a scrolling container of one `FooterKey` widget per key, composed
again whenever the screen's bindings change (every screen switch, every focus change), each
key data-bound to the footer, which kept every old key reachable (Textualize/textual#6666;
reproduction: docs/upstream/textual-footer-leak.md). zconsole's footer draws its keys itself:
no key widgets to compose, style, lay out and draw one by one (on the first frame, the footer
and its two key rows were a tenth of it), nothing to leak, a change of bindings repaints one
line. What it keeps of Footer, as a compact Footer shows it:

- each shown binding of the screen, one per action, in order: its key (bold, in the key's
  colours) and its description, one cell of the footer between two keys; a disabled key dim;
- the command palette's key at the right end, behind a thin border;
- the key under the mouse highlighted, with its tooltip and the pointer shape; a click
  presses it (a bell when it is disabled);
- keys wider than the footer scroll sideways with the mouse wheel, under the palette's key.

Textual's binding groups (a label for several keys) are not drawn: each key is shown on its
own (zconsole's bindings have no group).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.css.styles import RenderStyles

SCROLL_CELLS = 4  # one turn of the mouse wheel over keys wider than the footer
EDGE = "▏"  # the palette key's left border (a `vkey` border, as Footer draws it)


class _Key(NamedTuple):
    """One key of the footer as it is drawn."""

    key: str
    display: str
    description: str
    disabled: bool
    tooltip: str | None


class _Layer(NamedTuple):
    """A node's colours before they are mixed (as `DOMNode.rich_style` mixes them)."""

    background: Color
    color: Color
    text: Style

    def over(self, styles: RenderStyles) -> _Layer:
        """This layer with a component's styles on top of it."""
        background = self.background
        if styles.has_rule("background"):
            background = background + styles.background.tint(styles.background_tint)
        color = styles.color if styles.has_rule("color") else self.color
        return _Layer(background, color, self.text + styles.text_style)

    @property
    def style(self) -> Style:
        back, color = self.background, self.color
        return self.text + Style.from_color(
            (back + color).rich_color if (back.a or color.a) else None,
            back.rich_color if back.a else None)


class _Styles(NamedTuple):
    """What one drawing of the footer paints with."""

    item: Style  # under a key and its description
    key: Style
    description: Style
    hover: Style
    hover_key: Style
    hover_description: Style
    edge: Style  # the palette key's border


class ZFooter(Widget, can_focus=False):
    """The screen's keys, and the command palette's at the right end (see the module)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-keys--item",
        "footer-key--key",
        "footer-key--description",
        "footer-keys--hover",
        "footer-keys--hover-key",
        "footer-keys--hover-description",
        "footer-keys--edge",
    }

    # Footer's and FooterKey's CSS (Textual 8.2, compact); a key and its parts as components
    DEFAULT_CSS = """
    ZFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        .footer-keys--item {
            background: $footer-item-background;
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
        .footer-keys--edge {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._shown: tuple[tuple[_Key, ...], tuple[_Key, ...]] | None = None
        self._pending = False  # a change of bindings is about to be read
        self._hover: int | None = None  # index into `keys`, or len(keys) for the palette's
        self._scroll = 0  # cells of the keys scrolled out on the left
        self._painted: _Styles | None = None  # worked out at the first drawing after a restyle

    # -- what is shown ---------------------------------------------------------------------
    @property
    def keys(self) -> tuple[_Key, ...]:
        """The screen's keys, in the order shown."""
        return self._current()[0]

    @property
    def palette(self) -> tuple[_Key, ...]:
        """The command palette's key (none when the palette is off)."""
        return self._current()[1]

    def _current(self) -> tuple[tuple[_Key, ...], tuple[_Key, ...]]:
        if self._shown is None:
            if not self.is_attached:
                return (), ()  # no screen yet: read at the first drawing on one
            self._shown = self._read_keys()
        return self._shown

    def _read_keys(self) -> tuple[tuple[_Key, ...], tuple[_Key, ...]]:
        """What Footer would show of the screen's bindings now: each shown binding, the
        first of each action; the palette's binding apart."""
        if not self.is_attached:
            return (), ()
        app = self.app
        active = self.screen.active_bindings
        keys: dict[str, _Key] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = _Key(binding.key, app.get_key_display(binding),
                                            binding.description, not enabled,
                                            tooltip or None)
        palette: tuple[_Key, ...] = ()
        found = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE \
            else None
        if found is not None:
            _, binding, enabled, _ = found
            palette = (_Key(binding.key, app.get_key_display(binding), binding.description,
                            not enabled, binding.tooltip or binding.description or None),)
        return tuple(keys.values()), palette

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        """One reading for a burst of changes (a screen mounting, each focus change), and a
        repaint only when what is shown changed. Not while the app has no focus (the
        terminal's): its focused widget is blurred then, and Footer waits too."""
        if not screen.app.app_focus or screen is not self.screen or self._pending:
            return
        self._pending = True
        self.call_after_refresh(self._read_again)

    def _read_again(self) -> None:
        self._pending = False
        if not self.is_attached:
            return
        shown = self._read_keys()
        if shown != self._shown:
            self._shown = shown
            self._hover = None
            self.refresh()

    # -- drawing ---------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._painted = None  # restyled (a theme, the CSS): the colours are worked out again

    def _styles(self) -> _Styles:
        if self._painted is None:
            self._painted = self._work_out_styles()
        return self._painted

    def _work_out_styles(self) -> _Styles:
        base = _Layer(self.background_colors[1], self.styles.color,
                      self.rich_style.without_color)
        item = base.over(self.get_component_styles("footer-keys--item"))

        def on_item(name: str) -> Style:
            return item.over(self.get_component_styles(name)).style

        edge = item.over(self.get_component_styles("footer-keys--edge"))
        return _Styles(item.style, on_item("footer-key--key"),
                       on_item("footer-key--description"), on_item("footer-keys--hover"),
                       on_item("footer-keys--hover-key"),
                       on_item("footer-keys--hover-description"), edge.style)

    @staticmethod
    def _spans(keys: tuple[_Key, ...]) -> list[tuple[int, int]]:
        """Where each key starts and ends (cells), one cell after each."""
        spans, at = [], 0
        for k in keys:
            width = cell_len(k.display) + (1 + cell_len(k.description) if k.description else 0)
            spans.append((at, at + width))
            at += width + 1
        return spans

    def _key_text(self, k: _Key, hover: bool, s: _Styles) -> Text:
        text = Text.assemble((k.display, s.hover_key if hover else s.key))
        if k.description:
            text.append(" " + k.description, s.hover_description if hover else s.description)
        text.stylize_before(s.hover if hover else s.item)
        if k.disabled:
            text.stylize(Style(dim=True))
        return text

    def _palette_width(self) -> int:
        return sum(1 + cell_len(k.display) + (1 + cell_len(k.description) if k.description
                                              else 0) + 1 for k in self.palette)

    def _room(self) -> int:
        """Cells left of the palette's key."""
        return max(0, self.size.width - self._palette_width())

    def render(self) -> Text:
        keys, palette = self._current()
        s = self._styles()
        line = Text(no_wrap=True, end="")
        for i, k in enumerate(keys):
            line.append_text(self._key_text(k, i == self._hover, s))
            line.append(" ")  # the footer's own background between two keys
        room = self._room()
        self._scroll = min(self._scroll, max(0, line.cell_len - room))
        line = line[self._scroll:self._scroll + room] if room else Text(end="")
        line.append(" " * (room - line.cell_len))
        for k in palette:
            line.append(EDGE, s.edge)
            line.append_text(self._key_text(k, self._hover == len(keys), s))
            line.append(" ")
        return line

    # -- the mouse -------------------------------------------------------------------------
    def _key_at(self, x: int) -> int | None:
        """Index of the key under cell `x` (len(keys) for the palette's), None for a gap."""
        keys = self.keys
        room = self._room()
        if x >= room:
            return len(keys) if self.palette and room < x < self.size.width - 1 else None
        x += self._scroll
        return next((i for i, (a, b) in enumerate(self._spans(keys)) if a <= x < b), None)

    def _key(self, index: int | None) -> _Key | None:
        if index is None:
            return None
        keys = self.keys
        return keys[index] if index < len(keys) else self.palette[0]

    def _set_hover(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        key = self._key(index)
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
        key = self._key(self._key_at(event.x))
        if key is None:
            return
        if key.disabled:
            self.app.bell()
        else:
            self.app.simulate_key(key.key)

    def _scroll_by(self, cells: int, event: events.MouseEvent) -> None:
        spans = self._spans(self.keys)
        wide = spans[-1][1] + 1 if spans else 0
        scroll = max(0, min(self._scroll + cells, wide - self._room()))
        if scroll != self._scroll:
            self._scroll = scroll
            self._hover = None
            self.refresh()
            event.stop()
            event.prevent_default()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(SCROLL_CELLS, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(-SCROLL_CELLS, event)
