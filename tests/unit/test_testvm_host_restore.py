"""tools/testvm: the host guest starts from the build's booted snapshot only when that
snapshot was made by this QEMU with this QEMU argv (`HostInstance._snapshot_unusable`), and
boots as before otherwise; the argv it is compared by leaves out what differs from start to
start (run directory, build directory, ssh port). No guest runs here."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.paths import load_testvm


@pytest.fixture
def testvm(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    tv = load_testvm()
    monkeypatch.setattr(tv, "ensure_qemu", lambda: "/usr/bin/qemu-system-x86_64")
    monkeypatch.setattr(tv, "qemu_version", lambda qemu: "QEMU emulator version 7.2.15")
    monkeypatch.setattr(tv, "hardware_kvm", lambda: False)
    monkeypatch.setattr(tv.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.delenv("ZCONSOLE_VM_HOST_RESTORE", raising=False)
    return tv


def _build(tmp: Path, testvm: ModuleType, **meta: object) -> Path:
    """A build directory with a booted snapshot made by the instance it records."""
    build = tmp / "build"
    build.mkdir()
    for name in (testvm.HOST_STATE, testvm.HOST_BOOTED_ROOT):
        (build / name).write_bytes(b"x")
    maker = testvm.HostInstance(testvm.FLAVOURS["host"], tmp / "maker")
    record = {"qemu": "QEMU emulator version 7.2.15", "shape": maker.argv_shape(build)}
    record.update(meta)
    (build / testvm.HOST_SNAPSHOT_META).write_text(json.dumps(record))
    return build


def test_a_snapshot_of_this_qemu_and_argv_is_restored(tmp_path: Path,
                                                      testvm: ModuleType) -> None:
    build = _build(tmp_path, testvm)
    inst = testvm.HostInstance(testvm.FLAVOURS["host"], tmp_path / "run")
    assert inst._snapshot_unusable(build) == ""
    # the restore's argv is the boot's with -incoming from the saved state
    inst._restore = build / testvm.HOST_STATE
    argv = inst._qemu_argv("/usr/bin/qemu-system-x86_64", build, 2222, False)
    assert argv[-2] == "-incoming" and argv[-1].startswith("exec:zstd -dcq ")
    assert argv[:-2] == inst._boot_argv("/usr/bin/qemu-system-x86_64", build, 2222, False)


def test_anything_else_boots(tmp_path: Path, testvm: ModuleType,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    build = _build(tmp_path, testvm)
    inst = testvm.HostInstance(testvm.FLAVOURS["host"], tmp_path / "run")
    monkeypatch.setenv("ZCONSOLE_VM_HOST_RESTORE", "0")
    assert inst._snapshot_unusable(build) == "ZCONSOLE_VM_HOST_RESTORE=0"
    monkeypatch.delenv("ZCONSOLE_VM_HOST_RESTORE")
    monkeypatch.setattr(testvm, "qemu_version", lambda qemu: "QEMU emulator version 8.2.2")
    assert "snapshot made by" in inst._snapshot_unusable(build)
    monkeypatch.setattr(testvm, "qemu_version", lambda qemu: "QEMU emulator version 7.2.15")
    monkeypatch.setattr(testvm, "hardware_kvm", lambda: True)  # another accelerator
    assert "argv differs" in inst._snapshot_unusable(build)
    monkeypatch.setattr(testvm, "hardware_kvm", lambda: False)
    (build / testvm.HOST_STATE).unlink()
    assert inst._snapshot_unusable(build) == "no booted snapshot in the build"


def test_an_unreadable_record_boots(tmp_path: Path, testvm: ModuleType) -> None:
    build = _build(tmp_path, testvm)
    (build / testvm.HOST_SNAPSHOT_META).write_text("{not json")
    inst = testvm.HostInstance(testvm.FLAVOURS["host"], tmp_path / "run")
    assert inst._snapshot_unusable(build) == "unreadable snapshot.json"


def test_a_migration_is_awaited_to_its_end_or_its_failure(tmp_path: Path,
                                                          testvm: ModuleType) -> None:
    """Saving and restoring poll QEMU's query-migrate the same way: done once it completed
    (and the saved file is there), VMError when it failed."""
    inst = testvm.HostInstance(testvm.FLAVOURS["host"], tmp_path / "run")
    answers = iter([{"status": "active"}, {"status": "completed"}, {"status": "completed"}])
    saved = iter([False, True])
    inst._await_migration("saving", lambda: next(answers), 60, 0, lambda: next(saved))
    assert next(answers, None) is None  # asked until the file was there too
    with pytest.raises(testvm.VMError, match="restoring failed"):
        inst._await_migration("restoring", lambda: {"status": "failed"}, 60, 0)
