"""LocalHost: the machine zconsole runs on, through plumbum."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping

from plumbum import local
from plumbum.commands.processes import CommandNotFound as PlumbumCommandNotFound

from zconsole.hosts.base import (
    BaseHost,
    CommandNotFound,
    CommandTimedOut,
    PathNotFound,
    PermissionDenied,
    Result,
)
from zconsole.hosts.hold import Held, hold_process

# zpool/zfs/udevadm live in sbin, which a non-root PATH on Debian lacks.
_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")


class LocalHost(BaseHost):
    kind = "local"
    concurrent_reads = True

    def __init__(self) -> None:
        self._label = socket.gethostname()
        self._cache: dict[str, object] = {}

    @property
    def label(self) -> str:
        return self._label

    def _which(self, program: str) -> object:
        if "/" in program:
            if not os.path.exists(program):
                raise CommandNotFound([program], "this machine")
            return local[program]
        cmd = self._cache.get(program)
        if cmd is None:
            try:
                cmd = local[program]
            except PlumbumCommandNotFound:
                for d in _SBIN:
                    candidate = os.path.join(d, program)
                    if os.access(candidate, os.X_OK):
                        cmd = local[candidate]
                        break
                else:
                    raise CommandNotFound([program], "this machine") from None
            self._cache[program] = cmd
        return cmd

    def _argv(self, args: tuple[str, ...]) -> list[str]:
        """The argv with its program resolved (sbin too), or CommandNotFound."""
        return [str(self._which(args[0])), *args[1:]]

    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        started = time.monotonic()
        procs = self._spawn([self._argv(args)], args, stdin is not None)
        out, err = _finish(procs, args, timeout, stdin)
        return Result(args, int(procs[0].returncode or 0), out, err,
                      time.monotonic() - started)

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        started = time.monotonic()
        procs = self._spawn([self._argv(a) for a in stages], stages[0], False)
        out, err = _finish(procs, stages[0], timeout, None)
        rc = next((p.returncode for p in procs if p.returncode), 0)
        return Result(stages[0], int(rc or 0), out, err, time.monotonic() - started)

    def _hold(self, args: tuple[str, ...], stdin: str, timeout: float) -> Held | Result:
        procs = self._spawn([self._argv(args)], args, True)
        return hold_process(procs[0], args, stdin, timeout, kill=lambda p: _kill([p]))

    def _spawn(self, argvs: list[list[str]], shown: tuple[str, ...], with_stdin: bool
               ) -> list[subprocess.Popen[bytes]]:
        """Start the stages, each in its own session (its own process group), so a timeout
        can stop every process the command started, not just the first one."""
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for i, argv in enumerate(argvs):
                procs.append(subprocess.Popen(  # noqa: S603 - an argv list, never a shell
                    argv,
                    stdin=(subprocess.PIPE if with_stdin else subprocess.DEVNULL) if i == 0
                    else procs[-1].stdout,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    start_new_session=True, close_fds=True))
                if i > 0 and procs[-2].stdout is not None:
                    procs[-2].stdout.close()  # the next stage holds it now
        except PermissionError as e:
            _kill(procs)
            raise PermissionDenied(shown, str(e)) from None
        except FileNotFoundError:
            _kill(procs)
            raise CommandNotFound(shown, "this machine") from None
        return procs

    def read_text(self, path: str) -> str:
        try:
            # newline="": the text as it is (a lone \r or \r\n not turned into \n), as
            # `cat` gives it over ssh: a fix-it counts lines and hashes files from this
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                return f.read()
        except FileNotFoundError:
            raise PathNotFound(path) from None
        except PermissionError as e:
            raise PermissionDenied(None, f"{path}: {e.strerror}") from None

    def list_dir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except FileNotFoundError:
            raise PathNotFound(path) from None
        except PermissionError as e:
            raise PermissionDenied(None, f"{path}: {e.strerror}") from None

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def now(self) -> float:
        return time.time()

    def is_root(self) -> bool:
        return os.geteuid() == 0

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        """From the udev database via pyudev; None when there is no udev database
        (containers, chroots) so callers fall back to sysfs."""
        if not os.path.isdir("/run/udev/data"):
            return None
        try:
            import pyudev

            ctx = pyudev.Context()
            dev = pyudev.Devices.from_device_file(ctx, os.path.realpath(f"/dev/{devname}"))
            return dict(dev.properties.items())
        except Exception:  # noqa: BLE001 - pyudev raises many kinds; sysfs is the fallback
            return None


# After a timeout or kill, how long to wait for the output pipes to close: a process stuck in
# the kernel (D state: `zpool status` on a suspended pool) cannot die and may hold them open
# forever; zconsole gives up on it rather than wait.
_DRAIN_SECONDS = 1.0


def _kill(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _read_all(stream: object, into: list[bytes]) -> None:
    try:
        into.append(stream.read())  # type: ignore[attr-defined]
    except (OSError, ValueError):
        pass


def _finish(procs: list[subprocess.Popen[bytes]], shown: tuple[str, ...], timeout: float,
            stdin: str | None) -> tuple[str, str]:
    """Feed stdin, collect stdout (last stage) and every stderr, within `timeout`.

    The output is read on helper threads so the deadline holds even when a child that the
    command left behind keeps the pipes open (`sh -c 'sleep 20 & wait'` with timeout 2 used
    to take 20 s): on the deadline every process group is killed and zconsole stops waiting
    after a short drain, raising CommandTimedOut.
    """
    deadline = time.monotonic() + timeout
    out: list[bytes] = []
    errs: list[list[bytes]] = [[] for _ in procs]
    readers = [threading.Thread(target=_read_all, args=(procs[-1].stdout, out), daemon=True)]
    readers += [threading.Thread(target=_read_all, args=(p.stderr, errs[i]), daemon=True)
                for i, p in enumerate(procs)]
    for t in readers:
        t.start()
    first = procs[0]
    if first.stdin is not None:
        try:
            first.stdin.write((stdin or "").encode())
            first.stdin.close()
        except (BrokenPipeError, OSError):
            pass
    timed_out = False
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    if timed_out:
        _kill(procs)
        for p in procs:
            try:
                p.wait(_DRAIN_SECONDS)
            except subprocess.TimeoutExpired:
                pass  # stuck in the kernel: give up on it
        for t in readers:
            t.join(_DRAIN_SECONDS)
        raise CommandTimedOut(shown, timeout)
    for t in readers:
        t.join(max(_DRAIN_SECONDS, deadline - time.monotonic()))
    # a child left behind may still hold a pipe: the command itself has ended, take what came
    return (b"".join(out).decode("utf-8", "replace"),
            "".join(b"".join(e).decode("utf-8", "replace") for e in errs))
