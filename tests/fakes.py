"""Test doubles shared by the test modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.hosts.base import (
    DEFAULT_TIMEOUT,
    CommandFailed,
    CommandNotFound,
    CommandTimedOut,
    Host,
    Result,
)
from zconsole.hosts.hold import Held


class DelegatingHost:
    """Passes every Host call to `inner`; a test subclasses it and overrides `run` to inject
    a fault (a hung zpool, a missing udevadm, a slow command)."""

    kind = "local"
    simulated = False
    concurrent_reads = False
    label = "wrapped-host"

    def __init__(self, inner: Host) -> None:
        self.inner = inner

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        return self.inner.run(argv, timeout=timeout, check=check, stdin=stdin)

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *, timeout: float = DEFAULT_TIMEOUT,
                     check: bool = True) -> Result:
        return self.inner.run_pipeline(argvs, timeout=timeout, check=check)

    def hold(self, argv: Sequence[str], *, stdin: str,
             timeout: float = DEFAULT_TIMEOUT) -> Held | Result:
        return self.inner.hold(argv, stdin=stdin, timeout=timeout)

    def read_text(self, path: str) -> str:
        return self.inner.read_text(path)

    def list_dir(self, path: str) -> list[str]:
        return self.inner.list_dir(path)

    def realpath(self, path: str) -> str:
        return self.inner.realpath(path)

    def now(self) -> float:
        return self.inner.now()

    def is_root(self) -> bool:
        return True

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None


class ProgramsFail(DelegatingHost):
    """`inner`, except that the programs named are missing (`CommandNotFound`: udevadm and
    lsblk in a container) or, with `hung`, never answer (`CommandTimedOut`: a hung zpool)."""

    def __init__(self, inner: Host, *programs: str, hung: bool = False,
                 label: str = "wrapped-host") -> None:
        super().__init__(inner)
        self.programs = programs
        self.hung = hung
        self.label = label

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if argv[0] in self.programs:
            if self.hung:
                raise CommandTimedOut(argv, timeout)
            raise CommandNotFound(argv, self.label)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)



class StatusFails(DelegatingHost):
    """`zpool status` fails at once (exit 1, an I/O error); everything else is the inner
    host's."""

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if tuple(argv[:2]) == ("zpool", "status"):
            raise CommandFailed(Result(tuple(argv), 1, "", "internal error: I/O", 0.0))
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)

class Clock:
    """A clock a test moves: `clock()` is the time, `clock.t` sets it, `clock.sleep(s)`
    advances it (what the plan runner calls instead of sleeping). DemoHost, the session and
    the runner take it where they take `time.time`."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s
