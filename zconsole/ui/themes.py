"""Load the theme files in `themes/` into Textual themes."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from textual.theme import Theme

REQUIRED_VARIABLES = ("health-ok", "health-warn", "health-bad", "health-off", "badge-demo",
                      "muted")
DEFAULT_THEME = "dark"


class ThemeError(ValueError):
    pass


def themes_dir() -> Path:
    env = os.environ.get("ZCONSOLE_THEMES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "themes"


def load_theme_file(path: Path) -> Theme:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ThemeError(f"{path}: {e}") from None
    variables = dict(data.get("variables", {}))
    missing = [v for v in REQUIRED_VARIABLES if v not in variables]
    if missing:
        raise ThemeError(f"{path}: theme lacks variables {', '.join(missing)}")
    keys = ("primary", "secondary", "accent", "foreground", "background", "surface", "panel",
            "success", "warning", "error")
    return Theme(name=data["name"], dark=bool(data.get("dark", True)), variables=variables,
                 **{k: data[k] for k in keys if k in data})


def theme_names(directory: Path | None = None) -> list[str]:
    """The short names `--theme` takes (the files' stems), without loading them."""
    return sorted(path.stem for path in (directory or themes_dir()).glob("*.json"))


def load_themes(directory: Path | None = None) -> dict[str, Theme]:
    """Short name (file stem: dark, light, high-contrast) -> Theme."""
    d = directory or themes_dir()
    out = {name: load_theme_file(d / f"{name}.json") for name in theme_names(d)}
    if DEFAULT_THEME not in out:
        raise ThemeError(f"no {DEFAULT_THEME}.json theme in {d}")
    return out


def next_theme(themes: Mapping[str, Theme], current: str) -> tuple[str, str]:
    """`t`: the theme after the one Textual calls `current`, in the files' order (the first
    after the last, or when `current` is none of them): its short name, the one `--theme`
    takes and the notification says, and its Textual name."""
    shorts = list(themes)
    names = [t.name for t in themes.values()]
    i = names.index(current) if current in names else -1
    at = (i + 1) % len(names)
    return shorts[at], names[at]
