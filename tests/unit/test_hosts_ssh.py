"""SshHost refuses what could hand root's ssh to someone else: a control-socket directory it
does not own alone, and a --host that ssh would read as an option (issue 'trust', item 7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zconsole.cli.main import main
from zconsole.hosts.base import HostError, Result, SessionLost, writes, writing
from zconsole.hosts.ssh import (
    LOST_RETRY_PAUSES,
    SERVER_ALIVE_COUNT,
    SERVER_ALIVE_INTERVAL,
    SshHost,
    control_dir,
    validate_destination,
)


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return tmp_path / f"zconsole-ssh-{os.getuid()}"


def test_own_private_directory_is_used(runtime: Path) -> None:
    assert control_dir() == str(runtime)
    assert (runtime.stat().st_mode & 0o777) == 0o700


def test_a_runtime_dir_gone_falls_back_to_the_temp_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """XDG_RUNTIME_DIR names a directory that is gone (the user's last session ended, the
    tmux started in it lives on): the shared temp dir, checked the same way; it was
    "[Errno 2] No such file or directory" and ssh was never tried."""
    import tempfile

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run-user-1000-gone"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    made = tmp_path / "tmp" / f"zconsole-ssh-{os.getuid()}"
    assert control_dir() == str(made)
    assert (made.stat().st_mode & 0o777) == 0o700
    assert not (tmp_path / "run-user-1000-gone").exists()


def test_directory_open_to_others_is_refused(runtime: Path) -> None:
    runtime.mkdir(mode=0o700)
    runtime.chmod(0o777)
    with pytest.raises(HostError, match="open to group or others"):
        control_dir()
    with pytest.raises(HostError):
        SshHost("nas1")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the directory away")
def test_directory_owned_by_another_user_is_refused(runtime: Path) -> None:
    runtime.mkdir(mode=0o700)
    os.chown(runtime, 65534, 65534)  # nobody pre-created it
    with pytest.raises(HostError, match="belongs to uid 65534"):
        control_dir()


def test_a_link_is_refused(runtime: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    runtime.symlink_to(target)
    with pytest.raises(HostError, match="not a directory"):
        control_dir()


@pytest.mark.parametrize("dest", ["nas1", "root@nas1", "admin@nas1.example.org", "10.0.0.5",
                                  "ops@[fe80::1%eth0]", "zfsvm", "backup_box"])
def test_destinations(dest: str) -> None:
    assert validate_destination(dest) == dest


@pytest.mark.parametrize("dest", ["-oProxyCommand=touch /tmp/x", "-v", "root@-oFoo",
                                  "nas1 -oProxyCommand=x", "nas\x1b[2J", "", "@nas1"])
def test_options_and_odd_destinations_are_refused(dest: str) -> None:
    with pytest.raises(HostError, match="not a host to ssh to"):
        validate_destination(dest)


def test_cli_host_option_injection_runs_nothing(tmp_path: Path, runtime: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "ran"
    rc = main([f"--host=-oProxyCommand=touch {marker}", "capture", str(tmp_path / "out")])
    _, err = capsys.readouterr()
    assert rc == 1 and "not a host to ssh to" in err
    assert not marker.exists()


def test_console_host_option_injection_is_refused(capsys: pytest.CaptureFixture[str],
                                                  runtime: Path) -> None:
    rc = main(["--host=-oProxyCommand=sh"])  # (`--host -o...` argparse already refuses)
    assert rc == 1 and "not a host to ssh to" in capsys.readouterr().err


def test_a_dead_master_is_ended_by_keepalives(runtime: Path) -> None:
    """A master left to a host that rebooted (CI: QEMU's user network kept the TCP connection
    open) hung every later read; keepalives bound that wait."""
    opts = SshHost("op@storage1")._ssh_opts
    pairs = {opts[i + 1].split("=")[0]: opts[i + 1].split("=")[1]
             for i, o in enumerate(opts) if o == "-o"}
    assert pairs["ServerAliveInterval"] == str(SERVER_ALIVE_INTERVAL)
    assert pairs["ServerAliveCountMax"] == str(SERVER_ALIVE_COUNT)
    assert SERVER_ALIVE_INTERVAL * SERVER_ALIVE_COUNT <= 60
    assert pairs["ControlMaster"] == "auto"  # the master the keepalives end


def test_reads_on_several_threads_share_one_connection(runtime: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The console's reads run on several threads at once; each used to make its own
    connection (and race for the ControlMaster) while the first was still logging in."""
    import threading

    import zconsole.hosts.ssh as ssh_mod

    made: list[object] = []
    asking = threading.Semaphore(0)
    all_asked = threading.Event()

    class SlowMachine:
        def __init__(self, *_a: object, **_k: object) -> None:
            all_asked.wait(30)  # the login is still in progress when every thread asks
            made.append(self)

    monkeypatch.setattr(ssh_mod, "SshMachine", SlowMachine)
    host = SshHost("op@storage1")
    got: list[object] = []

    def read() -> None:
        asking.release()
        got.append(host._connect())

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for _ in threads:
        asking.acquire(timeout=30)
    all_asked.set()
    for t in threads:
        t.join(30)
    assert len(made) == 1
    assert len(got) == 4 and all(m is made[0] for m in got)


# ------------------------------------------------------------------ a session lost (exit 255)

LOST = Result(("zpool", "status"), 255, "", "", 0.1)
ANSWER = Result(("zpool", "status"), 0, "pool: tank\n", "", 0.1)


def scripted(monkeypatch: pytest.MonkeyPatch, host: SshHost, *results: Result) -> list[bool]:
    """`host` answers `results` in turn; the list records, per call, whether it ran inside
    `writes()`."""
    import zconsole.hosts.ssh as ssh_mod

    left = list(results)
    calls: list[bool] = []

    def once(args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        calls.append(writing())
        return left.pop(0)

    monkeypatch.setattr(host, "_exec_once", once)
    monkeypatch.setattr(ssh_mod.time, "sleep", lambda _s: None)
    return calls


def test_a_read_whose_session_was_lost_is_asked_again(runtime: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """dropbear 2022.8x closes a session without its exit status when two overlap (the test
    guests: 6 of 80 parallel `zpool status` over one ControlMaster came back as ssh's 255 with
    no output); a read is asked again and its answer is the reading."""
    host = SshHost("op@storage1")
    calls = scripted(monkeypatch, host, LOST, LOST, ANSWER)
    r = host.run(["zpool", "status"])
    assert r.stdout == "pool: tank\n" and calls == [False, False, False]


def test_a_read_lost_every_time_says_so(runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = SshHost("op@storage1")
    calls = scripted(monkeypatch, host, *[LOST] * (1 + len(LOST_RETRY_PAUSES)))
    with pytest.raises(SessionLost) as e:
        host.run(["zpool", "status"], check=False)
    assert len(calls) == 1 + len(LOST_RETRY_PAUSES)
    assert str(e.value) == ("op@storage1: the ssh session of `zpool status` ended without an "
                            f"exit status or any output (ssh exit 255), {len(calls)} times: "
                            "whether it ran is not known")


def test_a_write_is_never_run_twice(runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = SshHost("op@storage1")
    calls = scripted(monkeypatch, host, LOST, ANSWER)
    with writes(), pytest.raises(SessionLost) as e:
        host.run(["zpool", "status"], check=False)
    assert calls == [True] and "ssh exit 255): whether it ran" in str(e.value)


def test_ssh_own_failures_and_commands_that_fail_are_not_retried(
        runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """255 with ssh's own words is unreachable, another exit is the command's: asked once."""
    host = SshHost("op@storage1")
    calls = scripted(monkeypatch, host, Result(("zpool", "status"), 1, "", "no pools\n", 0.1))
    assert host.run(["zpool", "status"], check=False).returncode == 1 and len(calls) == 1
