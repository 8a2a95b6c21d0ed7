"""The `zconsole` entry point: `--help` and `--version` print without importing the
subcommands, the services, the UI or Textual, and the help lines they print are the ones the
subcommands' own parsers give (what is imported is checked, never how long it takes)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from zconsole.cli.commands import COMMANDS, load
from zconsole.services.ops import registry

# What the entry point may import to print its help or its version.
ALLOWED = {"zconsole", "zconsole.__main__", "zconsole.cli", "zconsole.cli.main",
           "zconsole.cli.commands"}

RUN_AS_ZCONSOLE = """
import json, runpy, sys
sys.argv = ["zconsole", *{argv!r}]
try:
    runpy.run_module("zconsole", run_name="__main__", alter_sys=True)
except SystemExit as e:
    code = e.code
print(json.dumps([code, sorted(m for m in sys.modules
                               if m.split(".")[0] in ("zconsole", "textual", "rich"))]))
"""


def run_as_zconsole(*argv: str) -> tuple[int, str, list[str]]:
    """`python -m zconsole ARGV` in a fresh interpreter: exit code, what it printed before
    the last line, and the zconsole/Textual/Rich modules loaded by then."""
    out = subprocess.run([sys.executable, "-c", RUN_AS_ZCONSOLE.format(argv=list(argv))],
                         check=True, capture_output=True, text=True).stdout
    *printed, last = out.splitlines()
    code, loaded = json.loads(last)
    return code, "\n".join(printed), loaded


@pytest.mark.parametrize("flag", ["--help", "-h", "--version"])
def test_help_and_version_import_only_the_entry_point(flag: str) -> None:
    code, printed, loaded = run_as_zconsole(flag)
    assert code == 0
    assert set(loaded) <= ALLOWED, sorted(set(loaded) - ALLOWED)
    if flag == "--version":
        assert printed.startswith("zconsole ")
    else:
        assert "usage: zconsole" in printed


def test_help_lists_every_subcommand_with_its_help_line() -> None:
    _, printed, _ = run_as_zconsole("--help")
    # argparse wraps at the terminal's width, also after a hyphen ("replace-\nfailed")
    flat = " ".join(printed.split()).replace("- ", "-")
    for name, line in COMMANDS.items():
        assert f"{name} {line}" in flat, name


def test_a_named_subcommand_gets_its_own_parser() -> None:
    code, printed, loaded = run_as_zconsole("plan", "--help")
    assert code == 0 and "zconsole.cli.commands.plan" in loaded
    assert "usage: zconsole plan" in printed and "--dry-run" in printed
    assert "zconsole.cli.commands.check" not in loaded


@pytest.mark.parametrize("name", list(COMMANDS))
def test_static_help_line_is_the_subcommands_own(name: str) -> None:
    """`COMMANDS` repeats each module's help line so that `--help` need not import them;
    this keeps the copy true (plan's line lists the operation kinds of the registry)."""
    sub = argparse.ArgumentParser().add_subparsers()
    load(name).add_parser(sub)
    (action,) = sub._choices_actions
    assert (action.dest, action.help) == (name, COMMANDS[name])


def test_plan_help_line_names_every_operation_of_the_registry() -> None:
    assert f"({', '.join(registry.kinds())})" in COMMANDS["plan"]


def test_every_subcommand_module_is_listed() -> None:
    from pathlib import Path

    import zconsole.cli.commands as pkg

    modules = {p.stem for p in Path(pkg.__file__).parent.glob("*.py")
               if not p.stem.startswith("_")}
    assert modules == set(COMMANDS)


@pytest.mark.parametrize("how", ["script", "-m"])
def test_version_is_printed_before_the_parser_is_imported(how: str) -> None:
    """The console script (`zconsole.__main__:main`) and `python -m zconsole` answer
    `--version` without importing argparse: it and what it imports cost more CPU than the
    interpreter's own start (bench/budgets.py, the CLI start-up figures)."""
    start = ("from zconsole.__main__ import main\ncode = main()" if how == "script" else
             "import runpy\ntry:\n    runpy.run_module('zconsole', run_name='__main__')\n"
             "except SystemExit as e:\n    code = e.code")
    code = ("import sys\nsys.argv = ['zconsole', '--version']\n" + start +
            "\nprint(code, 'argparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert out[0].startswith("zconsole ") and out[1] == "0 False", out
