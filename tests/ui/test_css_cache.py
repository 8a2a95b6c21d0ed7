"""Textual's parsed CSS kept from one run of the console to the next (kit/css_cache.py, issue
28's first frame): a second start parses no CSS and draws and styles exactly what the first
did; anything a parse depends on that changed (a source's text, the theme, Textual, the
file itself) is parsed again, and a file another user could have written is never read.
What is checked is what is parsed and shown, never how long it took."""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet as stylesheet_module

from tests.ui.conftest import make_app, settle
from zconsole.hosts.cache import cache_dir
from zconsole.ui.kit import css_cache
from zconsole.ui.screens.pools.pools_view import PoolsView


def started(monkeypatch: pytest.MonkeyPatch, theme: str | None = None) -> dict[str, Any]:
    """Run the console as `zconsole` runs it (`app.run`) until its pools are drawn: the
    sources it parsed (where each was read from), its rules and its picture."""
    parsed: list[object] = []
    real = stylesheet_module.parse

    def counted(scope: str, css: str, read_from: object, **kwargs: Any) -> Any:
        parsed.append(read_from)
        return real(scope, css, read_from, **kwargs)

    seen: dict[str, Any] = {"parsed": parsed}
    app = make_app("showcase", "2.3", theme=theme)

    async def look(pilot: Any) -> None:
        await settle(app, pilot)
        # as written (a layout is an object of its own in each parse: its name, in the repr)
        seen["rules"] = [repr((rule.selectors, rule.styles.get_rules(), rule.is_default_rules,
                               rule.tie_breaker)) for rule in app.stylesheet.rules]
        seen["picture"] = app.export_screenshot()
        seen["file"] = cache_dir() / css_cache.file_name(app)
        app.exit()

    with monkeypatch.context() as m:
        m.setattr(stylesheet_module, "parse", counted)
        app.run(headless=True, size=(80, 24), auto_pilot=look)
    assert "picture" in seen, "the console did not come up"
    return seen


def test_the_second_start_parses_no_css_and_draws_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = started(monkeypatch)
    assert len(first["parsed"]) > 10  # Textual's own CSS, every widget's, app.tcss
    path: Path = first["file"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    kept = path.stat().st_mtime_ns
    second = started(monkeypatch)
    assert second["parsed"] == []
    assert second["rules"] == first["rules"]
    assert second["picture"] == first["picture"]
    assert path.stat().st_mtime_ns == kept  # nothing new parsed: nothing written


def test_a_source_whose_css_changed_is_parsed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    started(monkeypatch)
    monkeypatch.setattr(PoolsView, "DEFAULT_CSS", PoolsView.DEFAULT_CSS + "\n/* changed */\n")
    again = started(monkeypatch)
    assert [where[1] for where in again["parsed"]] == ["PoolsView.DEFAULT_CSS"]  # type: ignore[index]
    assert started(monkeypatch)["parsed"] == []  # and kept with the others


def test_each_theme_is_kept_in_its_own_file(monkeypatch: pytest.MonkeyPatch) -> None:
    dark = started(monkeypatch, "dark")
    light = started(monkeypatch, "light")
    assert light["parsed"] and light["file"] != dark["file"]  # its colours are other rules
    assert started(monkeypatch, "dark")["parsed"] == []
    assert started(monkeypatch, "light")["parsed"] == []


def test_another_textual_or_format_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    started(monkeypatch)
    monkeypatch.setattr(css_cache, "FORMAT", css_cache.FORMAT + 1)
    assert started(monkeypatch)["parsed"]
    assert started(monkeypatch)["parsed"] == []


def test_a_file_others_could_write_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    first = started(monkeypatch)
    path: Path = first["file"]
    os.chmod(path, 0o666)
    again = started(monkeypatch)
    assert again["parsed"] and again["picture"] == first["picture"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # written again, as ours
    os.chmod(path.parent, 0o777)
    assert started(monkeypatch)["parsed"]  # nor read from a directory others write in
    os.chmod(path.parent, 0o700)


def test_a_damaged_file_is_parsed_again_and_mended(monkeypatch: pytest.MonkeyPatch) -> None:
    first = started(monkeypatch)
    path: Path = first["file"]
    head = path.read_bytes().partition(b"\n")[0]
    for damaged in (head + b"\nnot a pickle", head + b"\n" + b"\x80\x05N.", b"",
                    head + b"\n" + pickle.dumps([("not", "rules")])):
        path.write_bytes(damaged)
        again = started(monkeypatch)
        assert again["parsed"] and again["picture"] == first["picture"], damaged[:40]
    assert started(monkeypatch)["parsed"] == []
