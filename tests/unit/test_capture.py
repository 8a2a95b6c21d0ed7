"""Capture: a host's read outputs recorded, then replayed identically by ReplayHost."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from zconsole.hosts.base import CommandNotFound, Result
from zconsole.hosts.replay import ReplayHost
from zconsole.services.read import catalogue as C
from zconsole.services.read.capture import capture
from zconsole.services.read.collect import collect

FROZEN = 1795302010.0


def demo(version: str = "2.3") -> object:
    from zconsole.hosts.demo import DemoHost

    return DemoHost("showcase", zfs_version=version, clock=lambda: FROZEN, seed=0)


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_capture_then_replay_gives_the_same_snapshot(tmp_path: Path, version: str) -> None:
    host = demo(version)
    report = capture(host, str(tmp_path), state="showcase")  # type: ignore[arg-type]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format"] == 1 and manifest["state"] == "showcase"
    assert manifest["zfs_version"].startswith(version)
    argvs = [tuple(c["argv"]) for c in manifest["commands"]]
    assert C.zpool_list() in argvs and C.zfs_version() in argvs
    assert C.zpool_status(version == "2.3") in argvs
    assert "/proc/diskstats" in manifest["files"]
    assert report.commands == len(manifest["commands"])

    replay = ReplayHost(str(tmp_path))
    a = collect(demo(version))  # type: ignore[arg-type]
    b = collect(replay)
    assert a.pool_status.ok and b.pool_status.ok
    assert a.pool_status.value == b.pool_status.value
    assert a.pool_usage.value == b.pool_usage.value
    assert [d.name for d in a.datasets.value or ()] == [d.name for d in b.datasets.value or ()]
    assert a.zfs.userland == b.zfs.userland


class WriteTrap:
    """Fails the test if capture ever runs something outside the read-only catalogue."""

    kind = "local"
    label = "trap"

    def __init__(self) -> None:
        self.ran: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        self.ran.append(tuple(argv))
        raise CommandNotFound(argv)

    def read_text(self, path: str) -> str:
        raise CommandNotFound([path])

    def list_dir(self, path: str) -> list[str]:
        return []

    def realpath(self, path: str) -> str:
        return path

    def now(self) -> float:
        return FROZEN

    def is_root(self) -> bool:
        return False

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None


def test_capture_runs_only_read_commands(tmp_path: Path) -> None:
    host = WriteTrap()
    capture(host, str(tmp_path))  # type: ignore[arg-type]
    writes = {"attach", "detach", "replace", "create", "destroy", "set", "snapshot", "online",
              "offline", "export", "import", "labelclear", "scrub", "clear", "remove", "add"}
    assert host.ran
    for argv in host.ran:
        assert argv[0] in {"zfs", "zpool", "udevadm", "lsblk", "uname", "ip", "bridge", "date"}
        assert not writes & set(argv[1:2]), argv
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert all(c["returncode"] is None and "CommandNotFound" in c["error"]
               for c in manifest["commands"])


def test_replay_skips_commands_recorded_as_errors(tmp_path: Path) -> None:
    capture(WriteTrap(), str(tmp_path))  # type: ignore[arg-type]
    replay = ReplayHost(str(tmp_path))
    assert replay.commands() == []
