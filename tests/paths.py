"""Where the tests' fixtures are, and the one loader of a parser fixture's text."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PARSERS = FIXTURES / "parsers"  # one folder per source: PARSERS / "zpool-status" / NAME
CAPTURES = FIXTURES / "capture"  # ReplayHost captures: CAPTURES / "zfs-VER" / STATE


def parser_text(source: str, name: str) -> str:
    """The text of the parser fixture `tests/fixtures/parsers/SOURCE/NAME`."""
    return (PARSERS / source / name).read_text()
