"""Capture real `zpool events -v` and `zpool history -il` outputs for the Timeline parsers.

Boots (or reuses) the tools/testvm guest of one flavour, resets it, clears the event ring
buffer, then runs the incident below INSIDE the guest and writes both outputs to
tests/fixtures/parsers/zpool-events/ and zpool-history/ (`guest-zfs-<ver>-incident.txt`),
printing the commands it ran (for SOURCES.md):

    zpool create -o ashift=12 -O compression=off tank mirror vdb vdc
    head -c 48M /dev/urandom > /tank/a.bin   (vdc unplugged with QEMU device_del meanwhile)
    zpool replace tank vdc vdd; zpool wait -t resilver tank
    dd of=/dev/vdb1 (8 MiB of zeros in the middle of the data: corruption)
    zpool scrub -w tank
    zpool clear tank

    python3 tools/capture_timeline_fixtures.py --flavour 2.3 [--run-dir DIR] [--keep-running]
        [--corrupt MIB:COUNT] [--name NAME]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TESTVM_PY = REPO / "tools" / "testvm" / "testvm.py"
OUT = REPO / "tests" / "fixtures" / "parsers"


def load_testvm() -> ModuleType:
    sys.path.insert(0, str(TESTVM_PY.parent))
    import testvm

    return testvm


def incident(inst: Any, log: list[str], corrupt: tuple[int, int] = (200, 8)) -> None:
    def sh(cmd: str, timeout: float = 600) -> str:
        log.append(cmd)
        return str(inst.exec(cmd, timeout=timeout).stdout)

    def monitor(cmd: str) -> None:
        log.append(f"# QEMU monitor (host side): {cmd}")
        inst.monitor(cmd)

    sh("zpool events -c")
    sh("zpool create -o ashift=12 -O compression=off tank mirror vdb vdc")
    sh("head -c 16M /dev/urandom > /tank/before.bin; sync")
    # a disk pulled mid-write: the writer runs in the background while QEMU unplugs vdc
    sh("(head -c 48M /dev/urandom > /tank/a.bin; sync) > /dev/null 2>&1 & echo $! > /tmp/w")
    monitor("device_del vdc")
    sh("while kill -0 $(cat /tmp/w) 2>/dev/null; do sleep 0.5; done; sync; "
       "zpool status tank > /dev/null")
    sh("for i in 1 2 3; do head -c 4M /dev/urandom > /tank/after$i.bin; sync; done")
    sh("zpool replace tank vdc vdd")
    sh("zpool wait -t resilver tank", timeout=900)
    # corruption of one side of the mirror, found by a scrub
    seek, count = corrupt
    sh(f"dd if=/dev/zero of=/dev/vdb1 bs=1M seek={seek} count={count} conv=notrunc "
       "oflag=direct status=none; sync")
    sh("zpool scrub -w tank", timeout=900)
    sh("zpool clear tank")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flavour", choices=("2.1", "2.3"), required=True)
    ap.add_argument("--run-dir", type=Path, default=None)
    ap.add_argument("--keep-running", action="store_true")
    ap.add_argument("--corrupt", default="200:8", metavar="MIB:COUNT",
                    help="where the zeros go on vdb1 and how many MiB (default 200:8; 2.1's "
                         "layout held no block there: 8:64 covers the data written)")
    ap.add_argument("--name", default="incident",
                    help="fixture name: guest-zfs-VERSION-NAME.txt (default incident)")
    args = ap.parse_args(argv)
    seek, _, count = args.corrupt.partition(":")
    corrupt = (int(seek), int(count))
    tv = load_testvm()
    fl = tv.FLAVOURS[args.flavour]
    inst = tv.Instance(fl, args.run_dir)
    started = False
    if not inst.running():
        inst.start(tv.build(fl, quiet=True))
        started = True
    log: list[str] = []
    try:
        inst.reset()
        version = inst.exec("zfs version").stdout.split()[0].removeprefix("zfs-")
        incident(inst, log, corrupt)
        events = inst.exec("zpool events -v").stdout
        history = inst.exec("zpool history -il").stdout
        zone = inst.exec("date '+%z %Z'").stdout.strip()
        ver = version.split("-")[0]
        for kind, text in (("zpool-events", events), ("zpool-history", history)):
            path = OUT / kind / f"guest-zfs-{ver}-{args.name}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(REPO)} ({len(text)} bytes)")
        print(f"zfs {version}; guest time zone {zone}; captured "
              f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC")
        print("\n".join(log))
        inst.reset()
    finally:
        if started and not args.keep_running:
            inst.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
