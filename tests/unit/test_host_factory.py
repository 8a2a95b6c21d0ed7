"""Issue 28 §2: one host factory (hosts/factory.py). The console (`cli/main.choose_host`), a
subcommand's `--host/--demo` (`cli/commands/_target.target_host`) and a fleet's entry
(`make_fleet`, `check --hosts`) give the same Host, with the same configuration, for the
same target."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.paths import PARSERS
from zconsole.cli.commands._target import target_host
from zconsole.cli.main import build_parser, choose_host, make_fleet
from zconsole.hosts.base import Host
from zconsole.hosts.factory import Target, make_host
from zconsole.hosts.fleet import HostEntry, demo_fleet, from_destinations
from zconsole.hosts.replay import ReplayHost
from zconsole.hosts.silent import SilentHost


def config(h: Host) -> tuple[object, ...]:
    """What makes a Host the host it is: its class, label, and what it was made with."""
    return (type(h).__name__, h.label, getattr(h, "scenario", None),
            getattr(h, "zfs_version", None), getattr(h, "destination", None),
            tuple(getattr(h, "_ssh_opts", ())))


def parsed(*argv: str) -> argparse.Namespace:
    return build_parser(list(argv)).parse_args(list(argv))


def test_the_demo_host_is_the_same_from_every_entry_point() -> None:
    console, _ = choose_host(parsed("--demo", "degraded", "--zfs-version", "2.1"))
    sub = target_host(parsed("check", "--demo", "degraded", "--zfs-version", "2.1"), "check")
    before = target_host(parsed("--demo", "degraded", "--zfs-version", "2.1", "check"), "check")
    [member] = make_fleet([HostEntry("lab", demo="degraded")], "2.1")
    factory = make_host(Target.demo("degraded", zfs_version="2.1"))
    want = ("DemoHost", "demo: degraded", "degraded", "2.1", None, ())
    assert {config(h) for h in (console, sub, before, member.host, factory)} == {want}


def test_an_ssh_host_is_the_same_from_every_entry_point(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # the control sockets' directory
    cfg = str(tmp_path / "ssh.cfg")
    console, notice = choose_host(parsed("--host", "root@nas1", "--ssh-config", cfg))
    sub = target_host(parsed("--ssh-config", cfg, "check", "--host", "root@nas1"), "check")
    entry = make_host(HostEntry("nas1", ssh="root@nas1", ssh_config=cfg))
    [listed, _] = [make_host(e) for e in from_destinations(["root@nas1", "b"], cfg)]
    got = {config(h) for h in (console, sub, entry, listed)}
    assert len(got) == 1 and notice is None
    assert config(console)[::4] == ("SshHost", "root@nas1")
    assert tuple(getattr(console, "_ssh_opts", ()))[:2] == ("-F", cfg)


def test_a_hosts_files_ssh_config_is_expanded_as_the_shell_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    h = make_host(HostEntry("nas1", ssh="nas1", ssh_config="~/cfg"))
    assert tuple(getattr(h, "_ssh_opts", ()))[:2] == ("-F", str(tmp_path / "cfg"))


def test_this_machine_the_silent_host_and_a_capture() -> None:
    local, _ = choose_host(parsed("--local"))
    assert type(local) is type(target_host(parsed("check"), "check")) is type(
        make_host(Target.local()))
    assert local.kind == "local"
    silent = [make_host(e) for e in demo_fleet()][-1]
    assert isinstance(silent, SilentHost) and config(silent) == config(
        make_host(Target.silent("no-answer")))
    replay = make_host(Target.replay(str(PARSERS / "iproute" / "netns-bridges")))
    assert isinstance(replay, ReplayHost)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown host kind"):
        Target("telnet", "nas1")
