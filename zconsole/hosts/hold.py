"""A command kept running to hold something on the host (a lock) until zconsole lets go.

`BaseHost.hold(argv, stdin=…)` starts argv with its stdin open, writes `stdin` to it and waits
for the command to echo its first line back: that echo is the proof it holds (for
`flock -n -E 75 LOCKFILE tee OWNERFILE` the echo comes from `tee`, which flock starts only once
it has the lock). Closing stdin lets go: `tee` sees the end of its input, exits, and flock
releases the lock. If zconsole dies, its end of the pipe (or of the ssh channel) closes and the
host lets go by itself: a dead console never keeps a pool locked.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from zconsole.hosts.base import CommandTimedOut, Result

_RELEASE_SECONDS = 5.0


@dataclass
class Held:
    """What `hold` returns while the command holds. `release()` lets go (idempotent)."""

    argv: tuple[str, ...]
    _proc: subprocess.Popen[bytes] | None = None
    _on_release: Callable[[], None] | None = None
    _kill: Callable[[subprocess.Popen[bytes]], None] | None = None
    _released: bool = field(default=False)

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        if self._on_release is not None:
            self._on_release()
        p = self._proc
        if p is None:
            return
        try:
            if p.stdin is not None:
                p.stdin.close()
        except OSError:
            pass
        try:
            p.wait(_RELEASE_SECONDS)
        except subprocess.TimeoutExpired:
            if self._kill is not None:
                self._kill(p)
            else:
                p.kill()
            try:
                p.wait(_RELEASE_SECONDS)
            except subprocess.TimeoutExpired:
                pass  # stuck in the kernel: give up on it


def hold_process(proc: subprocess.Popen[bytes], args: tuple[str, ...], stdin: str,
                 timeout: float, kill: Callable[[subprocess.Popen[bytes]], None] | None = None
                 ) -> Held | Result:
    """Feed `stdin` to a started `proc` and wait up to `timeout` for its first line back:
    a `Held` when it came, the `Result` when the command ended first (it did not get what it
    holds), CommandTimedOut when neither happened (the process is killed)."""
    line: list[bytes] = []
    reader = threading.Thread(target=lambda: line.append(
        proc.stdout.readline() if proc.stdout is not None else b""), daemon=True)
    reader.start()
    try:
        if proc.stdin is not None:
            proc.stdin.write(stdin.encode() + (b"" if stdin.endswith("\n") else b"\n"))
            proc.stdin.flush()
    except OSError:
        pass  # it ended already: its exit status says why
    reader.join(timeout)
    if line and line[0]:
        return Held(args, proc, _kill=kill)
    stop = kill or (lambda p: p.kill())
    if reader.is_alive():  # neither its first line nor the end of its output in time
        stop(proc)
        raise CommandTimedOut(args, timeout)
    try:  # its output ended without a line: it is ending (it did not get what it holds)
        proc.wait(_RELEASE_SECONDS)
    except subprocess.TimeoutExpired:
        stop(proc)
        raise CommandTimedOut(args, timeout) from None
    out, err = b"", b""
    try:
        out, err = proc.communicate(timeout=_RELEASE_SECONDS)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass
    return Result(args, int(proc.returncode if proc.returncode is not None else -1),
                  out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), 0.0)
