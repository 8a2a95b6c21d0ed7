"""The `zconsole` entry point: `--help` and `--version` print without importing the
subcommands, the services, the UI or Textual, and the help lines they print are the ones the
subcommands' own parsers give (what is imported is checked, never how long it takes)."""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zconsole.__main__ import HELP_COLUMNS, HELP_FILE
from zconsole.cli.commands import COMMANDS, load
from zconsole.cli.main import render_help
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


def run_entry(how: str, flag: str, columns: int) -> tuple[list[str], bool]:
    """The console script's `main` or `python -m zconsole` with one flag, in a fresh
    interpreter whose COLUMNS is `columns`: the lines printed before its exit code and
    whether argparse was imported."""
    call = ("from zconsole.__main__ import main\n    code = main()" if how == "script" else
            "import runpy\n    runpy.run_module('zconsole', run_name='__main__')")
    start = f"try:\n    {call}\nexcept SystemExit as e:\n    code = e.code"
    code = (f"import sys\nsys.argv = ['zconsole', {flag!r}]\n" + start +
            "\nprint(code, 'argparse' in sys.modules)")
    env = {**os.environ, "COLUMNS": str(columns)}
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=env).stdout.splitlines()
    *printed, last = out
    assert last.split()[0] == "0", out
    return printed, last.split()[1] == "True"


@pytest.mark.parametrize("how", ["script", "-m"])
def test_version_is_printed_before_the_parser_is_imported(how: str) -> None:
    """The console script (`zconsole.__main__:main`) and `python -m zconsole` answer
    `--version` without importing argparse: it and what it imports cost more CPU than the
    interpreter's own start (bench/budgets.py, the CLI start-up figures)."""
    printed, argparse_loaded = run_entry(how, "--version", 80)
    assert printed[0].startswith("zconsole ") and not argparse_loaded


def test_stored_help_is_what_the_parser_prints_at_80_columns() -> None:
    """zconsole/cli/help.txt is the parser's own help, rendered by tools/write_help.py."""
    stored = Path(HELP_FILE).read_text(encoding="utf-8")
    assert stored == render_help(HELP_COLUMNS), \
        "the command line changed: run `python tools/write_help.py` and commit the file"
    assert stored.startswith("usage: zconsole ")
    assert max(map(len, stored.splitlines())) <= HELP_COLUMNS - 2


@pytest.mark.parametrize("how", ["script", "-m"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("columns", [80, 200])
def test_help_is_printed_before_the_parser_is_imported(how: str, flag: str,
                                                       columns: int) -> None:
    """A terminal at least 80 wide gets the stored help without argparse imported: the
    same text argparse prints at 80 columns."""
    printed, argparse_loaded = run_entry(how, flag, columns)
    assert printed == render_help(HELP_COLUMNS).splitlines()
    assert not argparse_loaded


@pytest.mark.parametrize("how", ["script", "-m"])
def test_a_narrow_terminal_gets_argparse_wrapping_at_its_width(how: str) -> None:
    printed, argparse_loaded = run_entry(how, "--help", 60)
    assert argparse_loaded
    assert printed == render_help(60).splitlines()
    assert printed != render_help(HELP_COLUMNS).splitlines()
    assert max(map(len, printed)) <= 58


def test_a_missing_help_file_falls_back_to_argparse(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import zconsole.__main__ as entry

    monkeypatch.setattr(entry, "HELP_FILE", "/nonexistent/zconsole/help.txt")
    monkeypatch.setattr(sys, "argv", ["zconsole", "--help"])
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 0
    assert capsys.readouterr().out == render_help(HELP_COLUMNS)


def test_the_help_file_is_installed_with_the_package() -> None:
    """pyproject's package data carries zconsole/cli/help.txt into a wheel (without it an
    installed zconsole would fall back to argparse for every `--help`)."""
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]["zconsole"]
    rel = Path(HELP_FILE).relative_to(root / "zconsole").as_posix()
    assert any(fnmatch.fnmatch(rel, g) for g in globs), globs


def test_a_reader_gone_ends_the_help_without_a_traceback() -> None:
    """`zconsole --help | head -1` with the reader gone before the help is written: the
    shell's 141 and nothing on stderr, as zconsole.cli.main ends any other output."""
    code = ("import os, sys\nr, w = os.pipe()\nos.close(r)\nos.dup2(w, 1)\n"
            "sys.argv = ['zconsole', '--help']\nfrom zconsole.__main__ import main\n"
            "sys.exit(main())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"})
    assert (done.returncode, done.stderr) == (141, "")
