"""zconsole's subcommands: one module each, named like the subcommand.

Each module has `add_parser(sub)` (its argparse subparser) and `run(args) -> int` (exit code).
To add a subcommand, write `cli/commands/NAME.py` with those two functions and add NAME to
`COMMANDS`. Modules are imported only when the parser is built, and keep their heavy imports
inside `run` so that `zconsole --version` stays fast.
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS = ("parse", "plan", "capture", "check")

def load(name: str) -> ModuleType:
    return importlib.import_module(f"zconsole.cli.commands.{name.replace('-', '_')}")
