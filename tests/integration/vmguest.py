"""What every guest of tools/testvm gives the tests: commands over ssh, QEMU's monitor and a
reset, around the testvm instance (`Instance`, `HostInstance`). `ZfsGuest` (conftest.py) and
`HostGuest` (hostvm/guest.py) add what their flavour has."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# Why a guest test runs on one OpenZFS flavour only (issue 33; conftest's zfs_flavours mark)
ONE_FLOW = ("one flow of several: both flavours' reads are proven by test_parsers_live and "
            "test_capture_guest, and the flows are shared out between the two guests")
SAME_HARNESS = "the test harness (tools/testvm), the same on both guests"
SAME_LOCK = "the console's own lock, audit and ssh socket: no OpenZFS output decides it"
SAME_SCREEN_READS = ("a screen whose reads (zfs list, lsblk, ip) are the same on both versions: "
                     "the 2.1 text and 2.3 JSON reads are proven by test_parsers_live")


class VmGuest:
    """A running guest; `alias` is its Host name in the instance's ssh_config."""

    alias: str

    def __init__(self, instance: Any) -> None:
        self._inst = instance
        self.ssh_config: Path = instance.ssh_config
        self.run_dir: Path = instance.run_dir
        self.console_log: Path = instance.console_log
        self.disks: dict[str, int] = dict(instance.disks)

    def exec(self, command: str | Sequence[str], check: bool = True,
             timeout: float | None = 120.0, input: str | bytes | None = None
             ) -> subprocess.CompletedProcess[str]:
        """Run as root in the guest over the ssh master connection (no new login): a list is
        shell-quoted, a string goes to the remote shell as is."""
        return self._inst.exec(command, check=check, timeout=timeout, input=input)

    def monitor(self, command: str) -> str:
        """A QEMU HMP command (e.g. ``device_del vdd``, ``info block``,
        ``block_set_io_throttle drv-vdc 0 0 0 0 0 20``); returns its output."""
        return str(self._inst.monitor(command))

    def replug(self, name: str) -> None:
        """Plug a pool disk pulled with ``device_del NAME`` back in (same image and serial)."""
        self._inst.replug(name)

    def insert_disk(self, name: str, size: int, serial: str | None = None,
                    physical_sector: int | None = None) -> str:
        """Insert a fresh blank disk (a new image, serial and size; QEMU device id `name`,
        pulled with ``device_del NAME``; `physical_sector` 4096 makes it a 512e disk);
        returns its /dev/disk/by-id path. reset() removes it."""
        return str(self._inst.insert_disk(name, size, serial, physical_sector))

    def reset(self) -> None:
        """No pools, blank pool disks (vdb..vdg), fresh disks removed, unplugged disks plugged
        back under their own kernel names (and on the ZFS guests /scratch emptied)."""
        self._inst.reset()


async def until(pilot: Any, cond: Callable[[], bool], what: str, seconds: float = 180) -> None:
    """Pause the console under test (Textual's Pilot) until `cond()`, or fail after `seconds`:
    generous waits, as ssh to an emulated guest on a loaded machine is slow; never a figure."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return
        await pilot.pause(0.1)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}\n"
                         + thread_stacks())


def thread_stacks(limit: int = 12) -> str:
    """Where every thread of this process is (the innermost `limit` frames each): a wait
    that timed out says what the console's readers were blocked in."""
    import sys
    import threading
    import traceback

    names = {t.ident: t.name for t in threading.enumerate()}
    out = []
    for ident, frame in sys._current_frames().items():
        stack = "".join(traceback.format_stack(frame)[-limit:])
        out.append(f"--- thread {names.get(ident, ident)}\n{stack}")
    return "\n".join(out)
