"""Textual's private internals that zconsole uses: each still there and still what
`zconsole/ui/kit/textual_private.py` relies on, and used nowhere else in zconsole (issue 28).

A check that fails names the private name, the installed Textual version and what in
zconsole relies on it: after a Textual upgrade, that is the line of textual_private.py to look
at again (or a public API to use instead). Each check runs Textual's own widgets (not
zconsole's subclasses), in an app, and looks at behaviour and signatures, not only at names.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from zconsole.ui.kit.textual_private import PRIVATE_NAMES

TEXTUAL = version("textual")
ROOT = Path(__file__).resolve().parents[2] / "zconsole"
HOME = ROOT / "ui" / "kit" / "textual_private.py"


def need(name: str, ok: object, what: str) -> None:
    """Fail loudly unless `ok`: the name, the Textual version, what relies on it."""
    if not ok:
        whose, why = PRIVATE_NAMES[name]
        pytest.fail(f"Textual {TEXTUAL}: {whose} {name} {what}. zconsole relies on it: {why} "
                    f"(zconsole/ui/kit/textual_private.py).", pytrace=False)


class Rig(App[None]):
    """Textual's own DataTable (two columns, three rows, drawn)."""

    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("a", key="a")
        table.add_column("b", key="b")
        for i in range(3):
            table.add_row(f"a{i}", f"b{i}", key=f"r{i}")


Check = Callable[[Rig, DataTable[Any]], Awaitable[None] | None]
CHECKS: dict[str, Check] = {}


def check(name: str) -> Callable[[Check], Check]:
    def add(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn
    return add


def params(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def typed(obj: object, name: str, cls: type) -> Any:
    """`obj`'s private attribute `name`, which must still be there and a `cls`."""
    value = getattr(obj, name, None)
    need(name, isinstance(value, cls), f"is gone or no longer of type {cls.__name__}")
    return value


def lru_cache_of(t: DataTable[Any], name: str, *methods: str) -> Any:
    """The table's cache `name`, which must still have an LRUCache's `methods`."""
    cache = getattr(t, name, None)
    need(name, cache is not None and all(hasattr(cache, m) for m in methods),
         "is gone or no longer an LRUCache")
    return cache


# -- DataTable -------------------------------------------------------------------------------
@check("_render_cell")
def _render_cell(app: Rig, t: DataTable[Any]) -> None:
    name = "_render_cell"
    need(name, params(DataTable._render_cell) == ["self", "row_index", "column_index",
                                                  "base_style", "width", "cursor", "hover"],
         f"has another signature: {params(getattr(DataTable, name, None))}")
    lines = t._render_cell(0, 0, Style(), 6)
    need(name, isinstance(lines, list) and all(isinstance(s, Segment) for s in lines[0]),
         "no longer returns lines of Segments")


@check("_cell_render_cache")
def _cell_render_cache(app: Rig, t: DataTable[Any]) -> None:
    name = "_cell_render_cache"
    cache = lru_cache_of(t, name, "keys", "discard", "clear", "__getitem__")
    cache.clear()
    t._render_cell(0, 1, Style(), 6)
    row_key, column_key = t._row_locations.get_key(0), t._column_locations.get_key(1)
    ours = (row_key, column_key, Style(), False, False, t._show_hover_cursor,
            t._update_count, t._pseudo_class_state)
    need(name, list(cache.keys()) == [ours],
         f"keys a drawn cell otherwise than FastCellsTable does: {list(cache.keys())}")


@check("_row_render_cache")
def _row_render_cache(app: Rig, t: DataTable[Any]) -> None:
    name = "_row_render_cache"
    cache = lru_cache_of(t, name, "keys", "discard")
    keys = list(cache.keys())
    need(name, keys and all(isinstance(k, tuple) and isinstance(k[0], RowKey) for k in keys),
         f"is no longer keyed by the row's key first: {keys[:2]}")


@check("_row_renderable_cache")
def _row_renderable_cache(app: Rig, t: DataTable[Any]) -> None:
    name = "_row_renderable_cache"
    cache = lru_cache_of(t, name, "keys", "discard")
    t._get_row_renderables(2)
    need(name, (t._update_count, 2) in list(cache.keys()),
         f"is no longer keyed (update count, row index): {list(cache.keys())[:3]}")


@check("_line_cache")
def _line_cache(app: Rig, t: DataTable[Any]) -> None:
    lru_cache_of(t, "_line_cache", "clear", "keys")


@check("_update_count")
async def _update_count(app: Rig, t: DataTable[Any]) -> None:
    before = typed(t, "_update_count", int)
    t.update_cell("r0", "a", "changed")
    need("_update_count", t._update_count == before + 1, "no longer counts an update_cell")


@check("_on_resize")
def _on_resize(app: Rig, t: DataTable[Any]) -> None:
    from textual import events

    name = "_on_resize"
    need(name, params(getattr(DataTable, name, None)) == ["self", "_"],
         f"has another signature: {params(getattr(DataTable, name, None))}")
    before = t._update_count
    t._on_resize(events.Resize(t.size, t.virtual_size))
    need(name, t._update_count == before + 1, "no longer forgets the drawn rows at a resize")
    # FastCellsTable prevents its default on a resize that keeps the width: nothing else
    # may handle a Resize below DataTable
    others = [c.__name__ for c in DataTable.__mro__[1:]
              if "_on_resize" in c.__dict__ or "on_resize" in c.__dict__]
    need(name, not others, f"is no longer the only Resize handler below DataTable: {others}")


@check("_require_update_dimensions")
def _require_update_dimensions(app: Rig, t: DataTable[Any]) -> None:
    name = "_require_update_dimensions"
    t.add_row("a3", "b3", key="r3")
    need(name, typed(t, name, bool) is True, "is no longer set when a row is added")


@check("_new_rows")
def _new_rows(app: Rig, t: DataTable[Any]) -> None:
    t.add_row("a3", "b3", key="r3")
    need("_new_rows", typed(t, "_new_rows", set) == {RowKey("r3")},
         "no longer holds the rows added since the table's size was worked out")


@check("_update_dimensions")
def _update_dimensions(app: Rig, t: DataTable[Any]) -> None:
    name = "_update_dimensions"
    need(name, params(getattr(DataTable, name, None)) == ["self", "new_rows"],
         f"has another signature: {params(getattr(DataTable, name, None))}")
    t.add_row("a3", "b3", key="r3")
    t.add_row("a4", "b4", key="r4")
    before = t.virtual_size.height
    new_rows = t._new_rows.copy()
    t._new_rows.clear()
    t._require_update_dimensions = False
    t._update_dimensions(new_rows)
    need(name, t.virtual_size.height == before + 2 == 1 + 5,  # the header and five rows
         f"no longer sizes the table for its new rows ({before} -> {t.virtual_size.height})")


def only_its_type(name: str, cls: type) -> None:
    """The check of an attribute zconsole only reads as a value of its type."""

    def run(app: Rig, t: DataTable[Any]) -> None:
        typed(t, name, cls)

    check(name)(run)


only_its_type("_header_row_key", RowKey)
only_its_type("_show_hover_cursor", bool)


@check("_row_locations")
def _row_locations(app: Rig, t: DataTable[Any]) -> None:
    rows = getattr(t, "_row_locations", None)
    need("_row_locations", rows is not None and rows.get_key(1) == RowKey("r1")
         and rows.get(RowKey("r2")) == 2, "no longer maps row index <-> row key")


@check("_column_locations")
def _column_locations(app: Rig, t: DataTable[Any]) -> None:
    columns = getattr(t, "_column_locations", None)
    need("_column_locations", columns is not None and columns.get_key(1) == ColumnKey("b"),
         "no longer maps column index -> column key")


@check("_pseudo_class_state")
def _pseudo_class_state(app: Rig, t: DataTable[Any]) -> None:
    state = getattr(t, "_pseudo_class_state", None)
    need("_pseudo_class_state", state is not None and hash(state) is not None,
         "is gone (a cell's cache key holds it)")


@check("_get_row_renderables")
def _get_row_renderables(app: Rig, t: DataTable[Any]) -> None:
    got = t._get_row_renderables(1)
    need("_get_row_renderables", [str(c) for c in got.cells] == ["a1", "b1"],
         f"no longer gives the row's cells as `.cells`: {got!r}")


@check("_get_styles_to_render_cell")
def _get_styles_to_render_cell(app: Rig, t: DataTable[Any]) -> None:
    name = "_get_styles_to_render_cell"
    expected = ["self", "is_header_cell", "is_row_label_cell", "is_fixed_style_cell", "hover",
                "cursor", "show_cursor", "show_hover_cursor", "has_css_foreground_priority",
                "has_css_background_priority"]
    fn = getattr(DataTable._get_styles_to_render_cell, "__wrapped__",
                 DataTable._get_styles_to_render_cell)
    need(name, params(fn) == expected, f"has another signature: {params(fn)}")
    styles = t._get_styles_to_render_cell(False, False, False, False, True, True, False,
                                          True, True)
    need(name, len(styles) == 2 and all(isinstance(s, Style) for s in styles),
         "no longer returns (component style, post style)")


# -- styles and themes -------------------------------------------------
@check("_layout_updates")
async def _layout_updates(app: Rig, t: DataTable[Any]) -> None:
    """Part of the key of a widget's measured size, counted by a first layout request."""
    from textual.widget import Widget
    from textual.widgets import Static

    name = "_layout_updates"
    need(name, name in inspect.getsource(Widget._get_box_model),
         "is no longer part of the cache key of a widget's measured size")
    static = Static("one line")
    await app.mount(static)
    before = typed(static, name, int)
    static.refresh(layout=True)
    static.refresh(layout=True)  # asked again before its idle: not counted again
    need(name, typed(static, name, int) == before + 1,
         "is no longer counted once per first layout request")
    from zconsole.ui.kit.textual_private import relayout

    relayout(static)
    need(name, typed(static, name, int) == before + 2, "is not counted by relayout")


@check("_compositor")
async def _compositor(app: Rig, t: DataTable[Any]) -> None:
    """The screen's compositor, whose `size` is the size of the screen's last layout."""
    from textual.geometry import Size

    from zconsole.ui.kit.textual_private import laid_out_size

    name = "_compositor"
    need(name, getattr(getattr(app.screen, name, None), "size", None) == Size(40, 10),
         "no longer holds the size the screen was laid out at")
    need(name, laid_out_size(app.screen) == Size(40, 10), "is not read by laid_out_size")


@check("textual-toastrack")
async def _toast_rack(app: Rig, t: DataTable[Any]) -> None:
    """The screen's toast rack, by its id; the app shows notifications on it (its display)."""
    from zconsole.ui.kit.textual_private import quiet_toast_rack

    name = "textual-toastrack"
    racks = list(app.screen.query(f"#{name}"))
    need(name, len(racks) == 1 and type(racks[0]).__name__ == "ToastRack",
         "is no longer the id of the screen's ToastRack")
    rack = racks[0]
    quiet_toast_rack(app.screen)
    need(name, rack.styles.inline.has_rule("display") and rack.display is False,
         "cannot be hidden by its own style")
    app.notify("hello")
    for _ in range(50):
        if rack.display:
            break
        await asyncio.sleep(0.01)
    need(name, rack.display is True, "is no longer shown by a notification")


@check("_css_update_count")
async def _css_update_count(app: Rig, t: DataTable[Any]) -> None:
    from textual.screen import Screen

    name = "_css_update_count"
    before = typed(app, name, int)
    need(name, Screen()._css_update_count == -1, "no longer starts a new Screen at -1")
    app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
    need(name, app._css_update_count == before + 1, "no longer counts a theme change")


@check("_refresh_truecolor_filter")
def _refresh_truecolor_filter(app: Rig, t: DataTable[Any]) -> None:
    fn = getattr(App, "_refresh_truecolor_filter", None)
    need("_refresh_truecolor_filter", fn is not None and params(fn) == ["self", "theme"],
         "is gone or takes other arguments")


@check("_watch_theme")
def _watch_theme(app: Rig, t: DataTable[Any]) -> None:
    """The app's first theme sets what this watcher sets (ZConsoleApp._start_theme): the
    theme's classes, the colour filter, the variables. Another call here is another effect."""
    source = inspect.getsource(App._watch_theme)
    calls = set(re.findall(r"self\.(\w+)\b", source))
    need("_watch_theme", calls == {"current_theme", "classes", "update_classes",
                                   "_refresh_truecolor_filter", "ansi_theme", "_invalidate_css",
                                   "call_next", "refresh_css", "theme_changed_signal"},
         f"does other things now: {sorted(calls)}")
    for cls in ("-theme-", "-dark-mode", "-light-mode"):
        need("_watch_theme", cls in source, f"no longer sets the class {cls}")


# -- CSS -------------------------------------------------------------------------------------
@check("_parse_cache")
def _parse_cache(app: Rig, t: DataTable[Any]) -> None:
    """What the app parsed is there, keyed as kit/css_cache.py keeps it, and a source found
    there is not parsed again (its rules are the cache's)."""
    name = "_parse_cache"
    sheet = app.stylesheet
    cache = getattr(sheet, name, None)
    need(name, cache is not None and all(hasattr(cache, m) for m in ("keys", "get", "set")),
         "is gone or no longer an LRUCache")
    keys = list(cache.keys())
    need(name, keys and all(isinstance(k, tuple) and len(k) == 5 and isinstance(k[0], str)
                            and isinstance(cache.get(k), list) for k in keys),
         f"no longer holds (css, read_from, defaults, tie breaker, scope) -> rules: {keys[:1]}")
    css, read_from = "Rig { width: 7; }", ("nowhere", "Rig.CSS")
    kept: list[Any] = []
    cache.set((css, read_from, False, 0, ""), kept)
    need(name, sheet._parse_rules(css, read_from) is kept,
         "is no longer what Stylesheet._parse_rules asks before it parses")
    sheet.set_variables(dict(sheet._variables))
    need(name, not list(cache.keys()), "is no longer emptied when the variables change")


@check("_variables")
def _variables(app: Rig, t: DataTable[Any]) -> None:
    variables = typed(app.stylesheet, "_variables", dict)
    need("_variables", variables == app.get_css_variables(),
         "are no longer the app's CSS variables the stylesheet parses with")


# -- the tests -------------------------------------------------------------------------------
def test_every_private_name_has_its_check() -> None:
    assert sorted(CHECKS) == sorted(PRIVATE_NAMES)


@pytest.mark.parametrize("name", sorted(PRIVATE_NAMES))
async def test_private_name_is_what_zconsole_relies_on(name: str) -> None:
    app = Rig()
    async with app.run_test(size=(40, 10), notifications=True) as pilot:
        await pilot.pause()
        result = CHECKS[name](app, app.query_one(DataTable))
        if inspect.isawaitable(result):
            await result


def _attribute_names() -> list[str]:
    return [n for n in PRIVATE_NAMES if n.startswith("_")]


def test_no_other_module_uses_a_textual_private_name() -> None:
    """Only textual_private.py imports a private Textual module (`textual._x`,
    `textual.widgets._x`) or names one of the private attributes."""
    private_module = re.compile(r"\btextual(\.\w+)*\._\w")
    attribute = re.compile(r"(\.|[\"'])(" + "|".join(map(re.escape, _attribute_names()))
                           + r")\b")
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == HOME:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if private_module.search(line) or attribute.search(line):
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert found == [], "Textual internals outside ui/kit/textual_private.py:\n" + \
        "\n".join(found)


def test_textual_private_uses_no_private_name_it_does_not_list() -> None:
    """Every private attribute textual_private.py reaches is in PRIVATE_NAMES (and so has its
    check), but its own (`FastCellsTable`'s helpers)."""
    ours = {"_ROW_CACHES", "_plain_cells", "_caches_known", "_forget_rows", "_width", "_LINES",
            "_drawing", "_cell_facts", "_CellFacts", "_rows_width", "_widths"}
    text = HOME.read_text(encoding="utf-8")
    imports = re.findall(r"from (textual[\w.]*\._\w+) import (\w+)", text)
    assert {f"{module}.{name}" for module, name in imports} <= set(PRIVATE_NAMES)
    text = re.sub(r"from textual[\w.]*\._\w+ import", "", text)
    for listed in PRIVATE_NAMES:  # the module paths, as PRIVATE_NAMES names them
        text = text.replace(listed, "") if "." in listed else text
    used = set(re.findall(r"(?:\.|[\"'])(_{1,2}[a-z]\w*)", text)) - {"__future__"}
    assert used - ours - set(PRIVATE_NAMES) == set()


def test_a_private_name_gone_fails_loudly_with_the_version() -> None:
    """The message a failing check gives: the name, the Textual version, what relies on it."""
    with pytest.raises(pytest.fail.Exception) as failed:
        need("_update_count", False, "is gone")
    message = str(failed.value)
    assert f"Textual {TEXTUAL}: DataTable _update_count is gone" in message
    assert "the caches' generation" in message and "textual_private.py" in message


def test_the_check_fails_when_textual_changes_a_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check looks at Textual itself: with DataTable's `_render_cell` given another
    signature (as an upgrade might), its check fails."""
    def changed(self: Widget, row: int, column: int, style: Style, width: int) -> list[Any]:
        return []

    monkeypatch.setattr(DataTable, "_render_cell", changed)
    with pytest.raises(pytest.fail.Exception, match="Textual .*_render_cell has another"):
        CHECKS["_render_cell"](Rig(), DataTable())
