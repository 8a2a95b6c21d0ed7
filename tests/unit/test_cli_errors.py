"""Issue 32, the command line: what a mistyped or unusual command gets is one line that says
what is wrong, never a traceback, and the README's own examples run. Each case runs
`python -m zconsole` in a fresh interpreter, as an operator's shell does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_ssh_reason import WHY, write_fake_ssh

ROOT = Path(__file__).resolve().parents[2]
STATUS = ROOT / "tests/fixtures/parsers/zpool-status/belgianbeer-freebsd-remove-evacuation-in-progress.txt"


def zconsole(*argv: str, stdin: str = "", env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "zconsole", *argv], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The last line of stderr, after checking there is no traceback anywhere."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result.stderr.strip().splitlines()[-1]


def test_an_unknown_theme_is_named_with_the_themes_there_are() -> None:
    # the console is forced so that the theme is judged where the app would start
    r = zconsole("--theme", "neon", "--demo", env={"ZCONSOLE_FORCE_UI": "1"})
    assert r.returncode == 2
    assert one_line_error(r) == ("zconsole: no theme 'neon'; the themes are dark, "
                                 "high-contrast, light")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "0.1", "99999"])
def test_a_refresh_interval_out_of_range_is_refused(value: str) -> None:
    r = zconsole(f"--refresh={value}", "--demo")
    assert r.returncode == 2
    assert one_line_error(r) == (f"zconsole: error: argument --refresh: {value} s: the "
                                 "refresh interval is from 0.5 to 3600 seconds")


def test_a_refresh_interval_that_is_no_number_is_named() -> None:
    r = zconsole("--refresh", "fast", "--demo")
    assert r.returncode == 2
    assert one_line_error(r) == ("zconsole: error: argument --refresh: not a number of "
                                 "seconds: 'fast'")


@pytest.mark.parametrize(("argv", "said"), [
    (("--hots", "x"), "unknown option --hots (did you mean --hosts?)"),
    (("--host=a", "--hots=b"), "unknown option --hots (did you mean --hosts?)"),
    (("--theem", "dark", "--demo"), "unknown option --theem (did you mean --theme?)"),
    (("--frobnicate",), "unknown option --frobnicate"),
])
def test_an_unknown_option_is_named_not_the_word_after_it(argv: tuple[str, ...],
                                                          said: str) -> None:
    r = zconsole(*argv)
    assert r.returncode == 2
    assert one_line_error(r) == f"zconsole: error: {said}"
    assert "invalid choice" not in r.stderr


def test_abbreviations_argparse_takes_still_work() -> None:
    r = zconsole("--demo=list", "--zfs-v", "2.1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("showcase ")


def test_the_readmes_stdin_example_reads_standard_input() -> None:
    """README: `zconsole parse zpool-status --json - < status.txt` (was rc 2: the `-` left
    over as an unrecognised argument)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "zconsole parse zpool-status --json - < status.txt" in readme
    r = zconsole("parse", "zpool-status", "--json", "-", stdin=STATUS.read_text())
    assert r.returncode == 0, r.stderr
    assert r.stdout.lstrip().startswith("{") and '"pools"' in r.stdout


def test_a_reader_that_goes_away_ends_it_quietly() -> None:
    """`zconsole parse zpool-status - --json | head -1`: the reader closes the pipe after one
    line. The input is 300 pools, so that the JSON is far bigger than a pipe holds (64 KiB)
    and zconsole is still writing, blocked, when the reader goes: it ends as a filter does
    (141, what a shell reports for SIGPIPE), with nothing on stderr (was a BrokenPipeError
    traceback)."""
    p = subprocess.Popen([sys.executable, "-m", "zconsole", "parse", "zpool-status", "-",
                          "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    assert p.stdin is not None and p.stdout is not None and p.stderr is not None
    p.stdin.write(STATUS.read_bytes() * 300)
    p.stdin.close()
    first = p.stdout.readline()
    p.stdout.close()  # `head -1` is done
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141, err
    assert first.startswith(b"{")
    assert err == ""


def test_demo_list_keeps_its_columns_for_long_names() -> None:
    r = zconsole("--demo", "list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    starts = {len(line) - len(line.split(None, 1)[1]) for line in lines}
    assert len(starts) == 1, lines  # every description starts in the same column
    names = [line.split()[0] for line in lines]
    assert max(map(len, names)) >= 13  # the case of the issue: ssh-auth-lockout


def wrong_host_env(tmp_path: Path) -> dict[str, str]:
    """The fake `ssh` of test_ssh_reason first on PATH (OpenSSH's words for a name that
    does not resolve, exit 255), and HOME and the XDG directories in `tmp_path`."""
    env = {"PATH": write_fake_ssh(tmp_path)}
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
                 "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        (tmp_path / name.lower()).mkdir(mode=0o700)
        env[name] = str(tmp_path / name.lower())
    return env


def test_a_wrong_host_is_one_line_with_sshs_reason(tmp_path: Path) -> None:
    """`zconsole --host bad..host check`: UNKNOWN (3), its status line names ssh's own
    reason, and nothing is a dump (was: `zpool status -p failed (cannot reach bad..host over
    ssh: SSH communication failed\\x0aReturn code: | None\\x0aCommand line: | 'true '...`)."""
    r = zconsole("--host", "bad..host", "check", env=wrong_host_env(tmp_path))
    assert "bad..host" in (tmp_path / "ssh.log").read_text()  # the fake ssh was the one asked
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"UNKNOWN: pool health unknown: {WHY} | "), lines
    # the plugin's lines after the first are its findings: the same one, whole, once
    assert lines[1:] == [f"? UNKNOWN pool health unknown: {WHY}"], lines
    for said in ("\\x0a", "Return code", "Command line", "Errno", "SSH communication failed"):
        assert said not in r.stdout, r.stdout


def test_a_wrong_host_in_json_has_sshs_reason(tmp_path: Path) -> None:
    r = zconsole("--host", "bad..host", "check", "--json", env=wrong_host_env(tmp_path))
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert r.stderr == ""
    doc = json.loads(r.stdout)
    assert (doc["host"], doc["status"], doc["exit_code"]) == ("bad..host", "unknown", 3)
    assert doc["summary"] == f"pool health unknown: {WHY}"
    assert [(f["kind"], f["severity"], f["message"]) for f in doc["findings"]] == [
        ("pool-unread", "unknown", f"pool health unknown: {WHY}")]
    assert "\\x0a" not in r.stdout and "Return code" not in r.stdout
