"""The suite is hermetic (issue 26): what the operator's real state, config and cache
directories hold changes no test, and the demo's state is each run's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from zconsole.hosts import journal
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.fleet import default_hosts_path

REPO = Path(__file__).resolve().parents[2]

# A Timeline test whose first entry is the demo's frozen day: an audit record of the day the
# operator walked the demo by hand, in their real state directory, used to come first.
TIMELINE_TEST = ("tests/ui/test_timeline_screen.py::"
                 "test_degraded_summary_sources_and_entries_newest_first")
HAND_RUN_AT = datetime(2026, 11, 28, 14, 50, tzinfo=timezone.utc).timestamp()


def hand_run() -> list[dict[str, object]]:
    """What the audit log of a demo walked by hand on 2026-11-28 holds (the engine's records:
    services/ops/engine/audit.py): a plan started, a command run."""
    label = DemoHost("degraded").label
    return [{"ts": HAND_RUN_AT, "event": "plan-start", "host": label, "pool": "tank",
             "kind": "replace-failed", "title": "Replace a failed disk", "operator": "admin"},
            {"ts": HAND_RUN_AT + 1, "event": "command", "host": label, "pool": "tank",
             "writes": True, "exit_code": 0, "operator": "admin",
             "command": "zpool replace tank 15712766684991486900 /dev/sdh"}]


def populated(home: Path) -> dict[str, str]:
    """An operator's home after a hand-run demo: the audit log and a plan in flight in every
    place zconsole ever looked for them, and a hosts file."""
    for state in (home / ".local/state/zconsole", home / "xdg-state/zconsole",
                  home / "zc-state"):
        for d in (state, state / "demo"):
            (d / "plans").mkdir(parents=True, exist_ok=True)
            (d / "audit.jsonl").write_text("".join(json.dumps(r) + "\n" for r in hand_run()))
            (d / "plans" / "p1.json").write_text("{}")
    (home / ".config/zconsole").mkdir(parents=True)
    (home / ".config/zconsole/hosts.toml").write_text('[[host]]\nname = "x"\nssh = "x"\n')
    return {"HOME": str(home), "XDG_STATE_HOME": str(home / "xdg-state"),
            "XDG_CONFIG_HOME": str(home / ".config"), "ZCONSOLE_STATE_DIR": str(home / "zc-state"),
            "ZCONSOLE_DEMO_STATE": str(home / "zc-state" / "demo")}


def test_every_test_has_directories_of_its_own(tmp_path: Path) -> None:
    real = Path.home()
    for where in (journal.state_dir(), journal.demo_state_dir(), default_hosts_path(os.environ)):
        assert not str(where).startswith(str(real / ".local")), where
        assert not str(where).startswith(str(real / ".config")), where
    assert journal.state_dir() != journal.demo_state_dir()
    assert "ZCONSOLE_STATE_DIR" not in os.environ and journal.DEMO_STATE_ENV not in os.environ


def test_a_populated_real_state_directory_changes_no_test(tmp_path: Path) -> None:
    """The Timeline test run by pytest in an environment whose every state directory holds a
    hand-run demo's audit log (dated after the frozen clock): it passes all the same."""
    env = {**os.environ, **populated(tmp_path / "home")}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly", "-o", "addopts=", TIMELINE_TEST],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout, run.stdout[-2000:]


def demo_dir_of_a_run(env: dict[str, str]) -> tuple[str, bool]:
    code = ("import os; from zconsole.hosts.journal import demo_state_dir as d; p = d(); "
            "print(p, os.path.isdir(p))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, timeout=120).stdout.split()
    return out[0], out[1] == "True"


def test_the_demo_state_is_each_runs_own_unless_named(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != journal.DEMO_STATE_ENV}
    first, made = demo_dir_of_a_run(env)
    second, _ = demo_dir_of_a_run(env)
    assert made and first != second
    assert not Path(first).exists() and not Path(second).exists()  # gone with their run
    named = tmp_path / "rehearsal"
    env[journal.DEMO_STATE_ENV] = str(named)
    assert demo_dir_of_a_run(env)[0] == str(named) == demo_dir_of_a_run(env)[0]


def test_demo_state_option_names_the_place(tmp_path: Path) -> None:
    """`zconsole --demo-state DIR check --demo` keeps the demo's muted advice in DIR."""
    named = tmp_path / "kept"
    env = {k: v for k, v in os.environ.items() if k != journal.DEMO_STATE_ENV}
    code = (f"import sys, os; from zconsole.cli.main import main; "
            f"main(['--demo-state', {str(named)!r}, 'check', '--demo']); "
            f"print(os.environ['{journal.DEMO_STATE_ENV}'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == str(named), out.stdout + out.stderr
    assert journal.MuteStore.default(simulated=True).path.parent != named
