"""tools/testvm: reset()'s wipe of the pool disks (issue 33). A disk that blkdiscard zeroed has
no label and no signature left, so the per-disk `zpool labelclear` and `wipefs -a` (5 of a
reset's 10 CPU s in an emulated guest) run only when a signature survived the discard.
The reset's own guest script is run here with bash against logging stand-ins for the
guest's commands (no guest)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from tests.paths import load_testvm

FAKES = {
    # the by-id link of pool disk D points at $DEV/D
    "readlink": 'echo "$DEV/${2##*-}"',
    # a discard zeroes the disk (its signature goes) unless the "disk" ignores discards
    "blkdiscard": '[ -n "${DISCARD_NOOP:-}" ] || rm -f "$SIG/$(basename "$2")"',
    # `wipefs -i DEV` lists the signatures left; `wipefs -q -a DEV` wipes them
    "wipefs": 'if [ "$1" = -i ]; then [ -e "$SIG/$(basename "$2")" ] && echo "$2 0x0 zfs_member"; '
              'else rm -f "$SIG/$(basename "${@: -1}")"; fi; true',
    "zpool": "true",
    "blockdev": "true",
}


def wipe_loop(tmp_path: Path) -> str:
    """The per-disk loop of the script reset() runs in the guest, every disk written."""
    tv = load_testvm()
    inst = tv.Instance(tv.FLAVOURS["2.3"], tmp_path / "run")
    scripts: list[str] = []

    def exec_(command: Any, **kw: Any) -> subprocess.CompletedProcess[str]:
        scripts.append(str(command))
        return subprocess.CompletedProcess(command, 0, "", "")

    inst.exec = exec_
    inst.remove_fresh_disks = lambda: None
    inst._pool_disks_in_guest = lambda: (set(), set())
    inst.attached_disks = lambda: set(inst.disks)
    inst._image_written = lambda name: True
    inst.reset()
    loop = re.search(r"^for \w+ in [^\n]*; do\n  dev=\$\(readlink.*?^done$", scripts[-1],
                     re.M | re.S)
    assert loop is not None, scripts[-1]
    return loop.group(0)


def run_loop(tmp_path: Path, *, discard_zeroes: bool) -> list[str]:
    fakes, dev, sig = tmp_path / "bin", tmp_path / "dev", tmp_path / "sig"
    for d in (fakes, dev, sig):
        d.mkdir()
    log = tmp_path / "log"
    for name, body in FAKES.items():
        path = fakes / name
        path.write_text(f'#!/bin/bash\necho "{name} $*" >> "$LOG"\n{body}\n')
        path.chmod(0o755)
    for d in ("vdb", "vdc", "vdd", "vde", "vdf", "vdg"):
        (sig / d).touch()  # each disk held a pool
    env = {"PATH": f"{fakes}:/usr/bin:/bin", "LOG": str(log), "DEV": str(dev), "SIG": str(sig)}
    if not discard_zeroes:
        env["DISCARD_NOOP"] = "1"
    proc = subprocess.run(["bash", "-c", wipe_loop(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not list(sig.iterdir())  # every disk blank in the end
    return [ln.replace(str(dev) + "/", "") for ln in log.read_text().splitlines()
            if not ln.startswith("readlink")]


def test_a_disk_the_discard_zeroed_is_not_label_cleared_nor_wiped(tmp_path: Path) -> None:
    calls = run_loop(tmp_path, discard_zeroes=True)
    assert calls[:3] == ["blkdiscard -f vdb", "wipefs -i vdb", "blockdev --rereadpt vdb"]
    assert {c for c in calls if c.startswith("blkdiscard")} >= {
        f"blkdiscard -f {d}" for d in ("vdb", "vdc", "vdd", "vde", "vdf", "vdg")}
    assert not [c for c in calls if c.startswith("zpool") or c.startswith("wipefs -q")]


def test_a_signature_left_by_the_discard_is_cleared_and_wiped(tmp_path: Path) -> None:
    calls = run_loop(tmp_path, discard_zeroes=False)
    assert calls[:5] == ["blkdiscard -f vdb", "wipefs -i vdb", "zpool labelclear -f vdb",
                         "wipefs -q -a vdb", "blockdev --rereadpt vdb"]
    assert sum(c.startswith("zpool labelclear") for c in calls) >= 6

