"""tools/testvm: every apt-get command holds the cache's apt lock. The guests are built in
parallel, one pytest worker each; on a cold machine a second worker's `apt-get update` failed
at once on the lists lock the first one held, and every guest but one was skipped."""

from __future__ import annotations

import fcntl
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.paths import load_testvm


class RecordingLog:
    """A build log whose commands are not run: each records whether the apt lock was held."""

    def __init__(self, lock_file: Path) -> None:
        self.lock_file = lock_file
        self.ran: list[tuple[list[str], bool]] = []

    def step(self, text: str) -> None:
        pass

    def run(self, argv: Sequence[Any], **kw: Any) -> str:
        with open(self.lock_file, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held = True
            else:
                held = False
                fcntl.flock(fh, fcntl.LOCK_UN)
        self.ran.append(([str(a) for a in argv], held))
        return ""


@pytest.fixture
def testvm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    tv = load_testvm()
    monkeypatch.setenv("ZCONSOLE_VM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tv, "APT_SOURCES_FILE", tmp_path / "zconsole-testvm.sources")
    monkeypatch.setattr(tv, "_apt_updated", False)
    monkeypatch.setattr(tv, "dpkg_installed", lambda pkg: False)
    return tv


def test_update_install_and_download_each_hold_the_apt_lock(testvm: ModuleType,
                                                            tmp_path: Path) -> None:
    tv = testvm
    log = RecordingLog(tmp_path / "cache" / "locks" / "apt.lock")
    tv.apt_install(log, ["qemu-system-x86", "mmdebstrap"])
    tv.apt_get(log, ["download", "zfs-dkms"], cwd=tmp_path)
    commands = [argv[1 + len(tv.APT_OPTS):] for argv, _ in log.ran]
    assert commands == [["update"],
                        ["install", "-y", "--no-install-recommends", "mmdebstrap",
                         "qemu-system-x86"],
                        ["download", "zfs-dkms"]]
    assert all(argv[0] == "apt-get" for argv, _ in log.ran)
    assert [held for _, held in log.ran] == [True, True, True]
    # the lock is let go afterwards: another worker's apt-get may run
    with open(tmp_path / "cache" / "locks" / "apt.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
