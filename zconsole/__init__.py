"""zconsole: a terminal operations console for Linux hosts running OpenZFS."""

import os
import sys

__version__ = "0.1.0"

EXIT_PIPE = 141  # what a shell reports for a filter whose reader went away (128 + SIGPIPE)


def terminal_columns() -> int:
    """The width argparse formats help at, plus its 2 (COLUMNS, else the terminal's, else 80),
    found without importing shutil: `zconsole.__main__` needs it before argparse is imported
    and the command line's formatter after."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def reader_gone() -> int:
    """End output whose reader went away (`zconsole ... | head`): no traceback, and Python's
    own flush of stdout at exit must not raise again (the Python docs' signal recipe)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_PIPE
