"""The Host protocol and the typed errors every host raises.

Hosts are the only code that touches a machine. Everything they return is raw text; parsing
happens in `zconsole.parsers`, orchestration in `zconsole.services`.
"""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from zconsole.hosts.hold import Held

DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Result:
    """What a command did. `argv` is exactly what ran."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    duration: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class HostError(Exception):
    """Base of every error a host raises. `str()` is a sentence fit for the screen."""


class CommandNotFound(HostError):
    def __init__(self, argv: Sequence[str], host: str = "") -> None:
        self.argv = tuple(argv)
        self.program = self.argv[0] if self.argv else ""
        where = f" on {host}" if host else ""
        super().__init__(f"{self.program}: command not found{where}")


class PermissionDenied(HostError):
    def __init__(self, argv: Sequence[str] | None, detail: str) -> None:
        self.argv = tuple(argv or ())
        self.detail = detail.strip()
        what = " ".join(self.argv) if self.argv else "access"
        super().__init__(f"permission denied: {what}: {self.detail}")


class CommandTimedOut(HostError):
    def __init__(self, argv: Sequence[str], timeout: float) -> None:
        self.argv = tuple(argv)
        self.timeout = timeout
        super().__init__(f"{' '.join(self.argv)}: no answer after {timeout:g} s (stopped)")


class CommandFailed(HostError):
    def __init__(self, result: Result) -> None:
        self.result = result
        self.argv = result.argv
        self.returncode = result.returncode
        self.stderr = result.stderr
        self.stdout = result.stdout
        msg = result.stderr.strip() or result.stdout.strip() or "no output"
        super().__init__(f"{' '.join(result.argv)} failed (exit {result.returncode}): {msg}")


class HostUnreachable(HostError):
    pass


class SessionLost(HostError):
    """The remote session ended without an exit status and without a byte of output (ssh
    exits 255 then): whether the command ran is not known. Seen with dropbear 2022.8x over a
    ControlMaster when two sessions overlap (mkj/dropbear#173, fixed in dropbear's PR #326);
    SshHost asks a read again (up to three times, in its deadline), a write (`writes`) never."""


_writing = threading.local()


@contextmanager
def writes() -> Iterator[None]:
    """The commands run inside (on this thread) change the machine: a host never runs one of
    them a second time by itself (a lost session is reported, not retried)."""
    before = getattr(_writing, "on", False)
    _writing.on = True
    try:
        yield
    finally:
        _writing.on = before


def writing() -> bool:
    """Inside `writes()` on this thread."""
    return bool(getattr(_writing, "on", False))


class PathNotFound(HostError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: no such file or directory")


@runtime_checkable
class Host(Protocol):
    """A machine zconsole looks at. Implementations: LocalHost, SshHost, DemoHost, ReplayHost
    (each a `BaseHost`)."""

    @property
    def label(self) -> str:
        """Short name for the header: hostname, user@box, "demo: degraded"."""
        ...

    @property
    def kind(self) -> str:
        """"local", "ssh", "demo" or "replay"."""
        ...

    @property
    def simulated(self) -> bool:
        """True when the machine is a simulation (the demo host): nothing run there touches a
        real disk. The UI marks it and keeps its plans apart; ask this, not `kind`."""
        ...

    @property
    def concurrent_reads(self) -> bool:
        """True when reads may run side by side on threads (each command its own process)."""
        ...

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        check: bool = True,
        stdin: str | None = None,
    ) -> Result:
        """Run argv (a list, never a shell string). With check, a non-zero exit raises
        CommandFailed (or PermissionDenied when stderr says so)."""
        ...

    def run_pipeline(
        self,
        argvs: Sequence[Sequence[str]],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        check: bool = True,
    ) -> Result:
        """Run argvs[0] | argvs[1] | ... without a shell. The Result's argv is the first
        command's, returncode the first non-zero exit (or 0), stderr all of theirs."""
        ...

    def hold(self, argv: Sequence[str], *, stdin: str,
             timeout: float = DEFAULT_TIMEOUT) -> Held | Result:
        """Start argv and keep it running to hold something (a lock) until `Held.release()`:
        `stdin` is written to it and it must echo its first line once it holds (see
        `hosts.hold`). The Result when the command ended first (it could not hold);
        NotImplementedError when this host cannot keep a command running."""
        ...

    def read_text(self, path: str) -> str:
        """Read a (small, text) file such as /proc/diskstats. Raises PathNotFound."""
        ...

    def list_dir(self, path: str) -> list[str]:
        """Entry names of a directory, sorted. Raises PathNotFound."""
        ...

    def realpath(self, path: str) -> str:
        """Resolve symlinks (for /sys/class/block/X and /dev/disk/by-id links)."""
        ...

    def now(self) -> float:
        """The host's wall clock, epoch seconds."""
        ...

    def is_root(self) -> bool:
        ...

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        """udev database properties of /dev/DEVNAME when the host can read them cheaply
        (pyudev locally); None means "ask with udevadm or sysfs instead"."""
        ...


_PERMISSION_RE = re.compile(
    r"permission denied|operation not permitted|must be (run as )?(superuser|root)"
    r"|insufficient privileges",
    re.IGNORECASE,
)


def list_or_empty(host: Host, path: str) -> list[str]:
    """`host.list_dir(path)`, or no entries when it cannot be listed (HostError)."""
    try:
        return host.list_dir(path)
    except HostError:
        return []


def classify_failure(result: Result) -> HostError:
    """Turn a failed Result into the most specific typed error."""
    text = result.stderr or result.stdout
    if _PERMISSION_RE.search(text):
        return PermissionDenied(result.argv, text)
    if result.returncode == 127 and "not found" in text:
        return CommandNotFound(result.argv)
    return CommandFailed(result)


def checked(result: Result, check: bool) -> Result:
    if check and result.returncode != 0:
        raise classify_failure(result)
    return result


def validate_argv(argv: Sequence[str]) -> tuple[str, ...]:
    if isinstance(argv, str):
        raise TypeError("argv must be a list of strings, not a shell string")
    out = tuple(argv)
    if not out or not all(isinstance(a, str) for a in out):
        raise TypeError(f"argv must be a non-empty list of strings, got {argv!r}")
    return out


class BaseHost(ABC):
    """The part of `run` / `run_pipeline` every host shares: the argv is checked
    (`validate_argv`), the host's own `_exec` / `_exec_pipeline` runs it, and with `check` a
    non-zero exit becomes a typed error (`checked`).

    A host implements `_exec` and `_exec_pipeline`: they return the Result whatever the exit
    status (timing it as the host can: measured, captured or none), and raise only what has no
    Result (CommandNotFound, CommandTimedOut, HostUnreachable, PermissionDenied, ...)."""

    kind = ""
    simulated = False
    # Reads may run side by side on threads (services.read.flights): true for real machines,
    # whose commands are separate processes; the demo and replay hosts answer in order.
    concurrent_reads = False

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        """`Host.run`: argv (a list, never a shell string); see the protocol."""
        return checked(self._exec(validate_argv(argv), timeout, stdin), check)

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *, timeout: float = DEFAULT_TIMEOUT,
                     check: bool = True) -> Result:
        """`Host.run_pipeline`: argvs[0] | argvs[1] | ... without a shell."""
        stages = [validate_argv(a) for a in argvs]
        if not stages:
            raise TypeError("a pipeline needs at least one command")
        return checked(self._exec_pipeline(stages, timeout), check)

    def hold(self, argv: Sequence[str], *, stdin: str,
             timeout: float = DEFAULT_TIMEOUT) -> Held | Result:
        """`Host.hold`: the host's own `_hold` runs the checked argv."""
        return self._hold(validate_argv(argv), stdin, timeout)

    def _hold(self, args: tuple[str, ...], stdin: str, timeout: float) -> Held | Result:
        raise NotImplementedError(f"a {self.kind or 'this'} host cannot hold a command")

    @abstractmethod
    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        """Run one checked argv; its Result even when the exit status is not 0."""

    @abstractmethod
    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        """Run checked stages as a pipeline: the first stage's argv, the first non-zero exit
        (or 0) and every stage's stderr."""
