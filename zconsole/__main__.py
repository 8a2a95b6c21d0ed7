"""`python -m zconsole` and the `zconsole` script (pyproject.toml: `zconsole.__main__:main`).

`zconsole --version` is answered here, before the command line's parser is imported: argparse
and what it imports cost more CPU than the interpreter's own start (bench/budgets.py, the CLI
start-up figures). Everything else goes to `zconsole.cli.main`."""

import sys


def main() -> int:
    if sys.argv[1:] == ["--version"]:
        from zconsole import __version__

        print(f"zconsole {__version__}")
        return 0
    from zconsole.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
