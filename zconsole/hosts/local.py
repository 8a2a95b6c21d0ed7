"""LocalHost: the machine zconsole runs on, through plumbum."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping

from plumbum import local
from plumbum.commands.processes import CommandNotFound as PlumbumCommandNotFound
from plumbum.commands.processes import ProcessTimedOut

from zconsole.hosts.base import (
    BaseHost,
    CommandNotFound,
    CommandTimedOut,
    PathNotFound,
    PermissionDenied,
    Result,
)

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

    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        cmd = self._which(args[0])
        started = time.monotonic()
        kwargs: dict[str, object] = {"retcode": None, "timeout": timeout}
        if stdin is not None:
            kwargs["stdin"] = stdin
        try:
            rc, out, err = cmd[args[1:]].run(**kwargs)  # type: ignore[index]
        except ProcessTimedOut:
            raise CommandTimedOut(args, timeout) from None
        except PermissionError as e:
            raise PermissionDenied(args, str(e)) from None
        except FileNotFoundError:
            raise CommandNotFound(args, "this machine") from None
        return Result(args, int(rc), str(out), str(err), time.monotonic() - started)

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        pipeline = None
        for args in stages:
            cmd = self._which(args[0])[args[1:]]  # type: ignore[index]
            pipeline = cmd if pipeline is None else pipeline | cmd
        started = time.monotonic()
        try:
            rc, out, err = pipeline.run(retcode=None, timeout=timeout)  # type: ignore[union-attr]
        except ProcessTimedOut:
            raise CommandTimedOut(stages[0], timeout) from None
        return Result(stages[0], int(rc), str(out), str(err), time.monotonic() - started)

    def read_text(self, path: str) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
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
