"""SilentHost: a host that never answers, for the demo fleet and the tests.

Every command waits its whole timeout and ends as `CommandTimedOut`, as a host whose ssh
connection hangs does; files wait `FILE_WAIT` seconds and end as `HostUnreachable`. Nothing
runs and nothing is touched: it is the dead host of `zconsole --demo-fleet` (the Fleet
screen's "no answer for N s" row) and the hung host of `zconsole check --hosts`' tests.
`wake()` ends every wait at once (a test's cleanup)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

from zconsole.hosts.base import BaseHost, CommandTimedOut, HostUnreachable, Result

FILE_WAIT = 30.0  # seconds a file read waits before it says the host is unreachable


class SilentHost(BaseHost):
    kind = "demo"
    simulated = True
    concurrent_reads = True  # each read waits on its own: a refresh ends at its deadline

    def __init__(self, name: str = "no-answer", clock: Callable[[], float] | None = None
                 ) -> None:
        self.name = name
        self._clock = clock or time.time
        self._woken = threading.Event()
        self.asked = 0  # commands and files asked for (tests: it was asked, it said nothing)

    @property
    def label(self) -> str:
        return f"demo: {self.name}"

    def wake(self) -> None:
        """End every wait now and every later one at once."""
        self._woken.set()

    def _wait(self, seconds: float) -> None:
        self.asked += 1
        self._woken.wait(max(0.0, seconds))

    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        self._wait(timeout)
        raise CommandTimedOut(args, timeout)

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        self._wait(timeout)
        raise CommandTimedOut(stages[0], timeout)

    def _unreachable(self, path: str) -> HostUnreachable:
        self._wait(FILE_WAIT)
        return HostUnreachable(f"{self.label}: no answer reading {path}")

    def read_text(self, path: str) -> str:
        raise self._unreachable(path)

    def list_dir(self, path: str) -> list[str]:
        raise self._unreachable(path)

    def realpath(self, path: str) -> str:
        raise self._unreachable(path)

    def now(self) -> float:
        # the host's clock is not known: the console's stands in, to date what did not answer
        return float(self._clock())

    def is_root(self) -> bool:
        return True

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None
