"""`python -m zconsole` and the `zconsole` script (pyproject.toml: `zconsole.__main__:main`).

`zconsole --version` and `zconsole --help` are answered here, before the command line's parser
is imported: argparse and what it imports cost more CPU than the interpreter's own start
(bench/budgets.py, the CLI start-up figures). The help is the parser's own, rendered at 80
columns by tools/write_help.py into zconsole/cli/help.txt (a unit test keeps the two equal);
a terminal narrower than that, or a missing file, gets argparse's. Everything else goes to
`zconsole.cli`."""

import os
import sys

HELP_COLUMNS = 80  # the terminal width zconsole/cli/help.txt is rendered for
HELP_FILE = os.path.join(os.path.dirname(__file__), "cli", "help.txt")


def stored_help() -> "str | None":
    """The help as argparse prints it at HELP_COLUMNS, or None without the file."""
    try:
        with open(HELP_FILE, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def _write(text: str) -> int:
    """Print `text`; a reader gone (`zconsole --help | head -1`) ends it as any zconsole
    output ends (`zconsole.reader_gone`): no traceback, the shell's 141."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        from zconsole import reader_gone

        return reader_gone()
    return 0


def main() -> int:
    args = sys.argv[1:]
    if args == ["--version"]:
        from zconsole import __version__

        print(f"zconsole {__version__}")
        return 0
    if args in (["--help"], ["-h"]):
        from zconsole import terminal_columns

        text = stored_help() if terminal_columns() >= HELP_COLUMNS else None
        if text is not None:
            return _write(text)
    from zconsole.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
