"""ReplayHost answers from a capture directory exactly as recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zconsole.hosts.base import CommandFailed, HostError, PathNotFound
from zconsole.hosts.replay import ReplayHost, ReplayMiss


def make_capture(tmp_path: Path) -> Path:
    (tmp_path / "cmd").mkdir()
    (tmp_path / "cmd" / "001.out").write_text("tank\tONLINE\n")
    (tmp_path / "cmd" / "002.out").write_text("first\n")
    (tmp_path / "cmd" / "003.out").write_text("second\n")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "diskstats").write_text(" 254 16 vdb 1 0 2 0 0 0 0 0 0 0 0\n")
    manifest = {
        "format": 1, "zfs_version": "2.3.2", "host": "zfsvm", "captured_epoch": 1795302010,
        "commands": [
            {"argv": ["zpool", "list", "-H"], "returncode": 0, "stdout": "cmd/001.out",
             "stderr": "", "duration": 0.17},
            {"argv": ["sample"], "returncode": 0, "stdout": "cmd/002.out", "stderr": ""},
            {"argv": ["sample"], "returncode": 0, "stdout": "cmd/003.out", "stderr": ""},
            {"argv": ["zpool", "status", "nosuch"], "returncode": 1, "stdout": "",
             "stderr": "cannot open 'nosuch': no such pool\n"},
        ],
        "files": {"/proc/diskstats": "files/diskstats"},
        "dirs": {"/sys/class/net": ["lo", "eth0"]},
        "links": {"/sys/class/block/vdb1": "/sys/devices/virtio2/block/vdb/vdb1"},
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def test_replays_commands_files_dirs_links(tmp_path: Path) -> None:
    h = ReplayHost(str(make_capture(tmp_path)))
    r = h.run(["zpool", "list", "-H"])
    assert r.stdout == "tank\tONLINE\n" and r.duration == 0.17
    assert h.read_text("/proc/diskstats").split()[2] == "vdb"
    assert h.list_dir("/sys/class/net") == ["eth0", "lo"]
    assert h.realpath("/sys/class/block/vdb1").endswith("/vdb/vdb1")
    assert h.now() == 1795302010
    assert h.zfs_version == "2.3.2"


def test_repeated_argv_answers_in_order_then_repeats_last(tmp_path: Path) -> None:
    h = ReplayHost(str(make_capture(tmp_path)))
    assert [h.run(["sample"]).stdout for _ in range(3)] == ["first\n", "second\n", "second\n"]


def test_recorded_failure_is_typed(tmp_path: Path) -> None:
    h = ReplayHost(str(make_capture(tmp_path)))
    with pytest.raises(CommandFailed) as e:
        h.run(["zpool", "status", "nosuch"])
    assert "no such pool" in e.value.stderr


def test_misses_are_typed(tmp_path: Path) -> None:
    h = ReplayHost(str(make_capture(tmp_path)))
    with pytest.raises(ReplayMiss, match="no captured output for: zfs list"):
        h.run(["zfs", "list"])
    with pytest.raises(PathNotFound):
        h.read_text("/proc/spl/kstat/zfs/arcstats")


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"format": 99}')
    with pytest.raises(HostError, match="unknown capture format"):
        ReplayHost(str(tmp_path))


def test_model_command_pipeline_display() -> None:
    from zconsole.model.command import Command

    c = Command(("zfs", "send", "-R", "tank/vm@x"), "copy", writes=True,
                then=(("zfs", "receive", "tank/vm new"),))
    assert c.display() == "zfs send -R tank/vm@x | zfs receive 'tank/vm new'"
    assert c.pipeline[1] == ("zfs", "receive", "tank/vm new")
    with pytest.raises(ValueError):
        Command(("zfs",), "x", then=((),))
