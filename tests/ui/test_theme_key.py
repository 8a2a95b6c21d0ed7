"""`t` says which theme it chose (issue 29): a notification "Theme: <name>", the short name
that `--theme` takes, and the themes come round again in the files' order."""

from __future__ import annotations

from tests.ui.conftest import make_app
from zconsole.ui.themes import load_themes, next_theme


async def test_t_notifies_the_name_of_the_theme_it_chose() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        shorts = list(app.theme_files)
        start = shorts.index(next(k for k, t in app.theme_files.items()
                                  if t.name == app.theme))
        said = []
        for n in range(1, len(shorts) + 1):
            await pilot.press("t")
            await pilot.pause()
            short = shorts[(start + n) % len(shorts)]
            assert app.theme == app.theme_files[short].name
            said.append(short)
            assert [x.message for x in app._notifications][-1] == f"Theme: {short}"
        assert [x.message for x in app._notifications] == [f"Theme: {s}" for s in said]
        assert app.theme == app.theme_files[shorts[start]].name  # all the way round


def test_next_theme_follows_the_files_and_starts_over() -> None:
    themes = load_themes()
    shorts = list(themes)
    assert shorts == sorted(shorts) and "dark" in shorts
    for i, short in enumerate(shorts):
        after = shorts[(i + 1) % len(shorts)]
        assert next_theme(themes, themes[short].name) == (after, themes[after].name)
    # a theme not of the files (the palette's textual-dark): the first file's
    assert next_theme(themes, "textual-dark") == (shorts[0], themes[shorts[0]].name)
