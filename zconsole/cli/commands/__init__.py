"""zconsole's subcommands: one module each, named like the subcommand.

Each module has `add_parser(sub)` (its argparse subparser) and `run(args) -> int` (exit code).
To add a subcommand, write `cli/commands/NAME.py` with those two functions and add NAME and
its one-line help to `COMMANDS`. A module is imported only when its subcommand is named on
the command line: `zconsole --help` lists them from `COMMANDS` alone (the module's own help
line must say the same; tests/unit/test_cli_parse.py compares them), and `--version` and the
console import none of them. Modules keep their heavy imports inside `run`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: name -> one-line help, as each module's `add_parser` gives it (plan's from the registry).
COMMANDS: dict[str, str] = {
    "parse": "render zpool/zfs output pasted from another host",
    "plan": "print the plan of an operation (attach, detach, replace, replace-failed, "
            "replace-grow, dedup-off, dedup-off-cleanup, advice, self-test, fix-ssh, "
            "fix-ssh-auth, fix-session, fix-boot) without running it",
    "capture": "record the output of every read command into DIR",
    "check": "read and judge the host once; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN "
             "(for cron, Nagios/Icinga, node_exporter)",
    "exporter": "serve the hosts' metrics over HTTP for Prometheus (/metrics)",
}


def load(name: str) -> ModuleType:
    return importlib.import_module(f"zconsole.cli.commands.{name.replace('-', '_')}")
