"""Textual's parsed CSS, kept from one run of the console to the next.

Textual parses every stylesheet the console uses at each start (its own `DEFAULT_CSS`, each
widget class's, `app.tcss`): ~25 ms of the first frame on Python 3.10, about 3 % of the
instructions to it (issue 28, `bench/first_frame_ir.py`). What it parsed is kept in the
stylesheet's parse cache, keyed by each source's CSS text and where it was read from. The
console fills that cache, before its first screen is styled, with what its previous run
parsed (`parsed_css_kept`, around `ZConsoleApp.run`), and keeps it again at the end of a
run that parsed anything the file did not hold. A source whose text changed is parsed, as
is everything on a first start.

A parse depends on more than a source's text: on the theme's variables (a rule's `$primary`
becomes its colour as it is parsed), on Textual's and Rich's code, and on Python's pickle.
The file's first line names all of them (`header`): the file is used only when every one is
as it was. It is pickled (nothing else makes Textual's rules again without parsing them) and
read only from the user's own cache directory, as only its owner could have written it
(`hosts/cache.py`), as Python trusts its bytecode cache there; a file that does not load as
rules is not used, and the next run that parses writes a good one.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from textual.css.model import RuleSet

from zconsole.hosts.cache import read_cached, write_cached
from zconsole.ui.kit.textual_private import css_variables, parse_cache

if TYPE_CHECKING:
    from textual.app import App

FORMAT = 1
# the modules whose code makes (and whose classes are) the rules: a new install of Textual or
# Rich, even of the same version, gives them new files
_CODE = ("textual", "textual.css.parse", "textual.css.tokenize", "textual.css.model",
         "textual.css.styles", "textual.css.stylesheet", "rich", "rich.style")

Entries = list[tuple[tuple[Any, ...], list[RuleSet]]]


@contextmanager
def parsed_css_kept(app: App[Any]) -> Iterator[None]:
    """Run `app` with the CSS its previous run parsed, and keep what this one parsed."""
    loaded = fill(app)
    try:
        yield
    finally:
        keep(app, loaded)


def file_name(app: App[Any]) -> str:
    """One file per theme: the one started in, or switched to."""
    return "textual-css-" + re.sub(r"[^A-Za-z0-9_-]", "_", app.theme) + ".pickle"


def header(app: App[Any]) -> bytes:
    """What the parsed rules depend on besides each source's text, as one line."""
    parts: list[object] = [FORMAT, sys.version, pickle.HIGHEST_PROTOCOL, app.theme,
                           sorted(css_variables(app.stylesheet).items())]
    for name in _CODE:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        try:
            st = os.stat(path) if path else None
        except OSError:
            st = None
        parts.append((name, path, st.st_size, st.st_mtime_ns) if st else (name, None))
    digest = hashlib.sha256(repr(parts).encode("utf-8", "backslashreplace")).hexdigest()
    return f"zconsole-css {digest}".encode("ascii")


def fill(app: App[Any]) -> frozenset[tuple[Any, ...]]:
    """Put what the previous run parsed in the app's parse cache; the keys put there."""
    data = read_cached(file_name(app))
    if data is None:
        return frozenset()
    head, _, body = data.partition(b"\n")
    if head != header(app):
        return frozenset()
    try:
        entries = pickle.loads(body)  # our own file (see the module docstring)
    except Exception:  # noqa: BLE001 - a damaged file: parsed again, and written again
        return frozenset()
    if not _rules(entries):
        return frozenset()
    cache = parse_cache(app.stylesheet)
    for key, rules in entries:
        cache.set(key, rules)
    return frozenset(key for key, _ in entries)


def keep(app: App[Any], loaded: frozenset[tuple[Any, ...]] = frozenset()) -> bool:
    """Write what the app parsed for the next run, unless it was all `loaded` already.
    Whether it was written; never raises (a cache that cannot be kept is no cache)."""
    try:
        cache = parse_cache(app.stylesheet)
        keys = list(cache.keys())
        if not keys or set(keys) <= loaded:
            return False
        entries: Entries = []
        for key in keys:
            rules = cache.get(key)
            if rules is not None:
                entries.append((key, rules))
        body = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
        return write_cached(file_name(app), header(app) + b"\n" + body)
    except Exception:  # noqa: BLE001 - pickling a future Textual's rules may fail: no cache
        return False


def _rules(entries: object) -> bool:
    """`entries` is what `keep` writes: (parse key, rules) pairs."""
    return isinstance(entries, list) and all(
        isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], tuple) and len(e[0]) == 5
        and isinstance(e[0][0], str) and isinstance(e[1], list)
        and all(isinstance(r, RuleSet) for r in e[1]) for e in entries)
