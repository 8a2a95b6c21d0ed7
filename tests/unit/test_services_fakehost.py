"""A scriptable Host for service tests (imported by the other test_services_* modules).

Commands, files and directories are answered from dicts; a value that is an exception is
raised, so each test can make exactly one read fail the way a real host does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from zconsole.hosts.base import (
    DEFAULT_TIMEOUT,
    CommandNotFound,
    Host,
    PathNotFound,
    Result,
    checked,
    validate_argv,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "parsers"

Answer = str | tuple[int, str, str] | BaseException


def fixture(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


class FakeHost:
    kind = "fake"
    simulated = False
    concurrent_reads = False

    def __init__(
        self,
        label: str = "fake",
        *,
        commands: Mapping[tuple[str, ...], Answer] | None = None,
        files: Mapping[str, str | BaseException] | None = None,
        dirs: Mapping[str, Sequence[str] | BaseException] | None = None,
        links: Mapping[str, str] | None = None,
        udev: Mapping[str, Mapping[str, str]] | None = None,
        root: bool = True,
        clock: float = 1_795_302_000.0,
        tick: float = 0.0,
    ) -> None:
        self._label = label
        self.commands = dict(commands or {})
        self.files = dict(files or {})
        self.dirs = dict(dirs or {})
        self.links = dict(links or {})
        self.udev = udev
        self.root = root
        self.clock = clock
        self.tick = tick
        self.calls: list[tuple[str, ...]] = []

    @property
    def label(self) -> str:
        return self._label

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
            check: bool = True, stdin: str | None = None) -> Result:
        args = validate_argv(argv)
        self.calls.append(args)
        answer = self.commands.get(args)
        if answer is None:
            raise CommandNotFound(args, self._label)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, tuple):
            rc, out, err = answer
        else:
            rc, out, err = 0, answer, ""
        return checked(Result(args, rc, out, err, 0.01), check)

    def hold(self, argv: Sequence[str], *, stdin: str,
             timeout: float = DEFAULT_TIMEOUT) -> Result:
        raise NotImplementedError("a fake host keeps nothing running")

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *,
                     timeout: float = DEFAULT_TIMEOUT, check: bool = True) -> Result:
        results = [self.run(a, timeout=timeout, check=False) for a in argvs]
        rc = next((r.returncode for r in results if r.returncode), 0)
        err = "".join(r.stderr for r in results)
        return checked(Result(results[0].argv, rc, results[-1].stdout, err, 0.01), check)

    def read_text(self, path: str) -> str:
        v = self.files.get(path)
        if v is None:
            raise PathNotFound(path)
        if isinstance(v, BaseException):
            raise v
        return v

    def list_dir(self, path: str) -> list[str]:
        v = self.dirs.get(path)
        if v is None:
            raise PathNotFound(path)
        if isinstance(v, BaseException):
            raise v
        return sorted(v)

    def realpath(self, path: str) -> str:
        return self.links.get(path, path)

    def now(self) -> float:
        t = self.clock
        self.clock += self.tick
        return t

    def is_root(self) -> bool:
        return self.root

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        if self.udev is None:
            return None
        return self.udev.get(devname)


def test_fake_host_satisfies_the_protocol() -> None:
    assert isinstance(FakeHost(), Host)


def test_fake_host_answers_and_raises() -> None:
    h = FakeHost(commands={("a",): "out", ("b",): (1, "", "boom")},
                 files={"/f": "x", "/g": PermissionError("no")})
    assert h.run(["a"]).stdout == "out"
    assert h.run(["b"], check=False).returncode == 1
    with pytest.raises(CommandNotFound):
        h.run(["c"])
    with pytest.raises(PathNotFound):
        h.read_text("/nope")
    with pytest.raises(PermissionError):
        h.read_text("/g")
