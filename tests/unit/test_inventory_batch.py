"""A full disk inventory reads sysfs in a command or two, not a command per file (issue 33).

A Debian host's eight empty loop devices are in the udev database and not in lsblk's list, so
the inventory read about a dozen sysfs files of each with a `cat` each: 109 commands over SSH
for one full read, 16 s of CPU in an emulated guest. `SshHost.read_texts` / `list_dirs`
(hosts/batch.py) read them all in one `grep -H` and one `find`; every other host is asked
file by file as before, and the inventory is the same either way.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from zconsole.hosts import batch
from zconsole.hosts.base import PathNotFound, Result
from zconsole.hosts.ssh import SshHost
from zconsole.services.read.inventory import read_inventory

SYS = "/sys/class/block"


@pytest.fixture
def local_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SshHost, list[str]]:
    """An SshHost whose commands run here, unchanged (grep, find and cat of this machine),
    and the commands it ran."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    host = SshHost("nas1")
    ran: list[str] = []

    def run(argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        ran.append(argv[0])
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
        return Result(tuple(argv), done.returncode, done.stdout, done.stderr, 0.0)

    monkeypatch.setattr(host, "run", run)
    return host, ran


def test_many_files_in_one_command_as_cat_reads_them(
        local_ssh: tuple[SshHost, list[str]], tmp_path: Path) -> None:
    host, ran = local_ssh
    d = tmp_path / "attrs"
    d.mkdir()
    files = {
        "model": "QEMU HARDDISK   \n",
        "two-lines": "first\nsecond\n",
        # a line that looks like another file's: grep prefixes it with its own file's name
        "hostile": f"{d}/model:EVIL\n\x1b[31mred\n",
        "no-newline": "4096",
        "empty": "",
    }
    for name, text in files.items():
        (d / name).write_text(text)
    (d / "odd:name").write_text("a colon in the path\n")  # not batchable: read alone
    paths = [str(d / n) for n in [*files, "missing", "odd:name"]]

    got = host.read_texts(paths)

    assert got == {
        str(d / "model"): "QEMU HARDDISK   \n",
        str(d / "two-lines"): "first\nsecond\n",
        str(d / "hostile"): f"{d}/model:EVIL\n\x1b[31mred\n",
        str(d / "no-newline"): "4096\n",
        str(d / "odd:name"): "a colon in the path\n",
    }
    assert ran == ["grep", "cat"]


def test_many_directories_in_one_command(local_ssh: tuple[SshHost, list[str]],
                                         tmp_path: Path) -> None:
    host, ran = local_ssh
    for name, entries in (("sda", ["dm-1", "dm-0"]), ("sdb", [])):
        (tmp_path / name / "holders").mkdir(parents=True)
        for e in entries:
            (tmp_path / name / "holders" / e).symlink_to("/nonexistent")
    paths = [str(tmp_path / n / "holders") for n in ("sda", "sdb", "gone")]

    assert host.list_dirs(paths) == {paths[0]: ["dm-0", "dm-1"], paths[1]: []}
    assert ran == ["find"]


def test_busybox_find_complaints_are_understood() -> None:
    out = batch.decode_find("/s/a/holders/dm-0\n", ["/s/a/holders", "/s/b/holders"],
                            "find: /s/b/holders: No such file or directory\n")
    assert out == {"/s/a/holders": ["dm-0"]}


class SysfsHost:
    """A Debian-like host: vda in lsblk and udev, eight empty loop devices in udev only (as
    lsblk leaves them out), and sysfs for all; every command and file read is counted."""

    label, kind, simulated, concurrent_reads = "sysfs-host", "ssh", False, False
    LOOPS = [f"loop{i}" for i in range(8)]

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.files = {f"{SYS}/vda/size": "2097152\n", f"{SYS}/vda/queue/rotational": "1\n",
                      f"{SYS}/vda/serial": "hostvm-root\n"}
        for loop in self.LOOPS:
            self.files.update({f"{SYS}/{loop}/size": "0\n", f"{SYS}/{loop}/queue/rotational":
                               "1\n", f"{SYS}/{loop}/queue/logical_block_size": "512\n"})

    def run(self, argv: Sequence[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        self.calls.append(argv[0])
        if argv[0] == "lsblk":
            out = json.dumps({"blockdevices": [{"name": "vda", "kname": "vda", "type": "disk",
                                                "size": 1073741824, "rota": True,
                                                "serial": "hostvm-root"}]})
        elif argv[0] == "udevadm":
            out = "".join(f"P: /devices/virtual/block/{n}\nN: {n}\nE: SUBSYSTEM=block\n"
                          f"E: DEVTYPE=disk\n\n" for n in ["vda", *self.LOOPS])
        else:
            raise AssertionError(argv)
        return Result(tuple(argv), 0, out, "", 0.0)

    def read_text(self, path: str) -> str:
        self.calls.append("cat")
        if path not in self.files:
            raise PathNotFound(path)
        return self.files[path]

    def list_dir(self, path: str) -> list[str]:
        self.calls.append("ls")
        if path == SYS:
            return sorted(["vda", *self.LOOPS])
        if path.endswith("/holders"):
            return []
        raise PathNotFound(path)

    def realpath(self, path: str) -> str:
        return path

    def now(self) -> float:
        return 0.0

    def is_root(self) -> bool:
        return True

    def udev_properties(self, devname: str) -> None:
        return None


class BatchingSysfsHost(SysfsHost):
    """The same host read as SshHost reads it: every file in one command, every directory in
    another."""

    def read_texts(self, paths: Sequence[str]) -> dict[str, str]:
        self.calls.append("grep")
        return {p: self.files[p] for p in paths if self.files.get(p)}

    def list_dirs(self, paths: Sequence[str]) -> dict[str, list[str]]:
        self.calls.append("find")
        return {p: [] for p in paths}


def test_a_full_inventory_reads_sysfs_in_two_commands() -> None:
    one_by_one, batched = SysfsHost(), BatchingSysfsHost()
    slow = read_inventory(one_by_one)  # type: ignore[arg-type]
    fast = read_inventory(batched)  # type: ignore[arg-type]

    assert fast == slow  # the same devices, the same facts
    loops = {d.name: d for d in fast.devices if d.name.startswith("loop")}
    assert sorted(loops) == SysfsHost.LOOPS
    assert all(d.size_bytes == 0 and d.logical_sector == 512 for d in loops.values())
    assert one_by_one.calls.count("cat") == 8 * 11  # every attribute of every loop device
    assert batched.calls == ["ls", "lsblk", "udevadm", "grep", "find"]
    assert os.path.basename(batch.grep_argv(["/x"])[0]) == "grep"
