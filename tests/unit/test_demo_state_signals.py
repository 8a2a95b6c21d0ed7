"""A demo run's own state is not left in /tmp when the console is ended by a hang-up or a
TERM (issue 32's audit: each tmux window killed left a `zconsole-demo-*` directory behind;
`atexit` does not run when a signal's default action ends the process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import signal, sys
from zconsole.hosts import journal
# a console's own: a run under nohup (CI's) hands its children a hang-up ignored
signal.signal(signal.SIGHUP, signal.SIG_DFL)
if "ignore-hup" in sys.argv:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
if "guard" in sys.argv:
    journal.remove_demo_state_on_signals()
d = journal.demo_state_dir()
(d / "audit.jsonl").write_text("{}\\n")
print(d, flush=True)
sys.stdin.read()
"""


def child(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[str], Path]:
    env = {k: v for k, v in os.environ.items() if k != "ZCONSOLE_DEMO_STATE"}
    env.update(TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", CHILD, *flags], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    assert p.stdout is not None
    made = Path(p.stdout.readline().strip())
    assert made.parent == tmp_path and (made / "audit.jsonl").is_file(), made
    return p, made


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM], ids=["hup", "term"])
def test_a_hang_up_or_term_removes_this_runs_demo_state(tmp_path: Path, sig: int) -> None:
    p, made = child(tmp_path, "guard")
    p.send_signal(sig)
    assert p.wait(timeout=60) == -sig  # ended by the signal, as without the guard
    assert not made.exists()


def test_without_the_guard_the_directory_was_left(tmp_path: Path) -> None:
    """What the guard is for: the signal's default action skips atexit."""
    p, made = child(tmp_path)
    p.send_signal(signal.SIGHUP)
    assert p.wait(timeout=60) == -signal.SIGHUP
    assert made.is_dir()


def test_an_ignored_hang_up_stays_ignored(tmp_path: Path) -> None:
    """Under nohup the console lives on; its state goes at its normal end (atexit)."""
    p, made = child(tmp_path, "ignore-hup", "guard")
    p.send_signal(signal.SIGHUP)
    assert p.poll() is None or p.wait(timeout=5) is None
    assert made.is_dir()
    p.communicate("", timeout=60)
    assert p.returncode == 0 and not made.exists()


def test_the_demo_console_guards_its_state(monkeypatch: Any) -> None:
    """`--demo` (the run's own state) installs the guard; `--demo-state DIR` (kept) does not."""
    import importlib

    from zconsole.hosts import journal

    cli = importlib.import_module("zconsole.cli.main")  # the module (the package exports main)

    calls: list[int] = []
    monkeypatch.setattr(journal, "remove_demo_state_on_signals", lambda: calls.append(1))
    monkeypatch.delenv("ZCONSOLE_DEMO_STATE", raising=False)  # main sets it: put back after
    assert cli.main(["--demo", "list"]) == 0
    assert calls == [1]
    monkeypatch.setattr(cli, "_console", lambda _args: 0)
    assert cli.main(["--demo", "showcase", "--demo-state", "/tmp/x"]) == 0
    assert calls == [1]
