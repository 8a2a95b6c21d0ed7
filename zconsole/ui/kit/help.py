"""The keys of the screen on top (`?` or F1, the app's binding; Escape, `?` or F1 close them).

Built from what Textual itself would do with a key at that moment, the screen's
`active_bindings` (the focused list's, the screen's and the app's, each key once, as its
owner wins it; a key whose action says no right now is left out, one that is shown disabled
says "not now"), so the list can never disagree with the keys: a key added to a BINDINGS
list is in it, with the description its footer entry has. Grouped by whose key it is: the
focused list's own, the screen's, then the keys that work everywhere; Textual's own moving
keys (arrows, pages, Tab) are one line, not a page of "Scroll Up".

The command palette (ctrl+p) offers the same list as "Keys of this screen"
(`palette_commands`), in place of Textual's own "Keys", its help panel docked over the
screen with the focused widget's scroll keys (and a drawing artefact at 80x24).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from zconsole.ui.kit.text import Hanging, Para

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen

KEY_WIDTH = 12  # the keys' column; longer keys push their description along
MOVING = "Moving"


class Key(NamedTuple):
    """One line of the list: the keys that do it, what it does, and whether it works now."""

    keys: tuple[str, ...]
    description: str
    enabled: bool = True


class Group(NamedTuple):
    title: str
    keys: tuple[Key, ...]


def own_keys(node: DOMNode) -> set[str]:
    """The keys that zconsole's own classes bind on `node` (not Textual's widgets' keys)."""
    keys: set[str] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("zconsole."):
            continue
        for b in cls.__dict__.get("BINDINGS", ()):
            key = b.key if isinstance(b, Binding) else b[0]
            keys.update(k.strip() for k in key.split(","))
    return keys


def moving(action: str) -> bool:
    """A Textual action that moves a cursor, scrolls or moves the focus."""
    name = action.rpartition(".")[2]
    return name.startswith(("cursor_", "scroll_", "page_", "focus_"))


def groups(screen: Screen[Any], title: str = "") -> list[Group]:
    """The keys of `screen` as they work now, grouped: the focused list's, the screen's
    (`title`: its name), everywhere, and the moving keys in one line."""
    app = screen.app
    listed: dict[str, list[tuple[str, str, str, bool]]] = {}  # group -> (action, key, ...)
    order = ["list", "screen", "app", MOVING]
    own: dict[int, set[str]] = {}
    for key, active in screen.active_bindings.items():
        node, binding, enabled = active.node, active.binding, active.enabled
        if binding.system or not binding.description:
            continue
        if id(node) not in own:
            own[id(node)] = own_keys(node)
        textuals = key not in own[id(node)]
        if textuals and moving(binding.action):
            where = MOVING  # Textual's own: arrows, pages, Tab
        elif isinstance(node, App):
            where = "app"  # the app's (Textual's quit and palette too)
        elif textuals:
            continue  # a Textual widget's generic "Select" or "Copy": not zconsole's keys
        else:
            where = "screen" if node is screen else "list"
        listed.setdefault(where, []).append(
            (binding.action, app.get_key_display(binding), binding.description, enabled))
    titles = {"list": "The list", "screen": f"{title or 'This screen'}", "app": "Everywhere",
              MOVING: MOVING}
    out = []
    for where in order:
        entries = listed.get(where, [])
        if not entries:
            continue
        if where == MOVING:
            focus = tuple(dict.fromkeys(k for a, k, _, _ in entries if "focus_" in a))
            move = tuple(dict.fromkeys(k for a, k, _, _ in entries if "focus_" not in a))
            out.append(Group(MOVING, tuple(
                Key(keys, said) for keys, said in ((move, "move the cursor or scroll"),
                                                   (focus, "the next or the previous list"))
                if keys)))
            continue
        out.append(Group(titles[where], tuple(merged(entries))))
    return out


def merged(entries: Iterable[tuple[str, str, str, bool]]) -> list[Key]:
    """One line per action (ctrl+r and F5 both refresh); the screen keys 1-9 as one line."""
    by_action: dict[str, Key] = {}
    screens: list[tuple[str, str]] = []
    for action, key, description, enabled in entries:
        if action.startswith("switch_mode("):
            screens.append((key, description))
            continue
        seen = by_action.get(action)
        by_action[action] = (Key((*seen.keys, key), seen.description, seen.enabled)
                             if seen is not None else Key((key,), description, enabled))
    out = list(by_action.values())
    if screens:
        span = f"{screens[0][0]}-{screens[-1][0]}" if len(screens) > 1 else screens[0][0]
        out.insert(0, Key((span,), ", ".join(f"{k} {d}" for k, d in screens)))
    return out


def keys_text(found: list[Group]) -> Hanging:
    """The groups as lines: a heading, then each key and what it does (wrapped under it)."""
    items: list[Para | Content] = []
    for i, g in enumerate(found):
        if i:
            items.append(Content(""))
        items.append(Content.styled(g.title, "bold"))
        for k in g.keys:
            keys = " ".join(k.keys)
            said = Content.styled(k.description if k.enabled else f"{k.description} (not now)",
                                  "" if k.enabled else "dim")
            if len(keys) <= KEY_WIDTH:
                items.append(Para(Content.styled(f"  {keys:<{KEY_WIDTH}} ", "bold"), said))
            else:  # many keys: the keys wrap with what they do
                items.append(Para(Content("  "), Content.assemble((keys, "bold"), ": ", said)))
    return Hanging(*items)


class KeysScreen(ModalScreen[None]):
    """The list over the screen it describes; it scrolls when the terminal is short."""

    DEFAULT_CSS = """
    KeysScreen { align: center middle; }
    KeysScreen > #keys-box {
        width: 78; max-width: 100%; height: auto; max-height: 100%;
        border: round $primary; border-title-style: bold; background: $panel;
        padding: 0 1;
    }
    KeysScreen #keys-list { height: auto; max-height: 100%; background: $panel; }
    """

    BINDINGS = [Binding("escape,question_mark,f1", "close", "Close", show=False)]

    def __init__(self, title: str, found: list[Group]) -> None:
        super().__init__()
        self.title_text = title
        self.found = found

    def compose(self) -> ComposeResult:
        with Vertical(id="keys-box") as box:
            box.border_title = f"Keys: {self.title_text}"
            box.border_subtitle = "Escape, ? or F1: close"
            with VerticalScroll(id="keys-list"):
                yield Static(keys_text(self.found), id="keys-text")

    def on_mount(self) -> None:
        self.query_one("#keys-list").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def open_keys(screen: Screen[Any], title: str) -> None:
    """Show the keys of `screen` (the one on top) as they work now."""
    screen.app.push_screen(KeysScreen(title, groups(screen, title)))


PALETTE_TITLE = "Keys of this screen"  # the `?` binding's description, as the footer says it
PALETTE_HELP = "? or F1: what each key does here, now"


def palette_commands(textuals: Iterable[SystemCommand],
                     screen: Screen[Any]) -> Iterator[SystemCommand]:
    """Textual's own palette entries (`App.get_system_commands`) less its "Keys" (the help
    panel: Textual's show or hide of it, whatever its title says), and this screen's keys
    instead, where `?` shows them (a screen with `action_keys_help`, kit's ZScreen)."""
    app = screen.app
    panel = (app.action_show_help_panel, app.action_hide_help_panel)
    for command in textuals:
        if command.callback not in panel:
            yield command
    show = getattr(screen, "action_keys_help", None)
    if callable(show):
        yield SystemCommand(PALETTE_TITLE, PALETTE_HELP, show)
