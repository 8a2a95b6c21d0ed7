"""Command line: choose the host, build the app, or run a one-shot subcommand."""

from zconsole.cli.main import main

__all__ = ["main"]
