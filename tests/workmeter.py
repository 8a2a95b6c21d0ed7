"""A deterministic measure of how much work a parser does on one input (no clock involved).

Work = Python lines executed inside `zconsole.parsers` (sys.settrace line events) + characters
handed to the regex engine by the parsers (every compiled pattern and `re.*` call in a parser
module is counted by the length of the string it is given). Both grow with what a parser does,
not with how busy the machine is, so a test can bound them: `work <= K * len(input) + B` holds
for a linear parser and fails for one that rescans its input per line or per character.

What it cannot see is backtracking *inside* one regex call; the parsers keep their patterns
linear by construction (anchored, or guarded by a look-behind so a search cannot restart inside
a run of the same characters), and the adversarial shapes below exercise those patterns.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import Any

import zconsole.parsers

PARSERS_DIR = zconsole.parsers.__path__[0]


_RESTARTING = ("search", "finditer", "findall", "sub", "subn", "split")


class _CountingPattern:
    def __init__(self, pattern: re.Pattern[str], meter: WorkMeter, name: str) -> None:
        self._p, self._m, self._name = pattern, meter, name

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._p, name)
        if name in ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn",
                    "split"):
            def counted(*args: Any, **kwargs: Any) -> Any:
                for a in args:
                    if isinstance(a, str):
                        self._m.regex_chars += len(a)
                if name in _RESTARTING:
                    self._m.searched[self._name] = self._p
                return attr(*args, **kwargs)
            return counted
        return attr


class _CountingRe:
    """Stands in for the `re` module inside a parser module."""

    def __init__(self, meter: WorkMeter) -> None:
        self._m = meter

    def __getattr__(self, name: str) -> Any:
        attr = getattr(re, name)
        if name in ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn",
                    "split"):
            def counted(pattern: Any, string: Any, *args: Any, **kwargs: Any) -> Any:
                if isinstance(string, str):
                    self._m.regex_chars += len(string)
                if name in _RESTARTING:
                    compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
                    self._m.searched[f"re.{name}({compiled.pattern[:40]!r})"] = compiled
                return attr(pattern, string, *args, **kwargs)
            return counted
        return attr


def parser_modules() -> list[ModuleType]:
    return [importlib.import_module(f"zconsole.parsers.{m.name}")
            for m in pkgutil.iter_modules([PARSERS_DIR])]


class WorkMeter:
    def __init__(self) -> None:
        self.lines = 0
        self.regex_chars = 0
        # Patterns used in a way that restarts at every position (search, sub, ...), by name.
        self.searched: dict[str, re.Pattern[str]] = {}

    @property
    def work(self) -> int:
        return self.lines + self.regex_chars

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename.startswith(PARSERS_DIR):
            return self._local
        return None

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
        return self._local

    @contextmanager
    def measuring(self) -> Iterator[WorkMeter]:
        saved: list[tuple[ModuleType, str, Any]] = []
        for mod in parser_modules():
            for name, value in list(vars(mod).items()):
                if isinstance(value, re.Pattern):
                    saved.append((mod, name, value))
                    setattr(mod, name, _CountingPattern(value, self, f"{mod.__name__}.{name}"))
                elif value is re:
                    saved.append((mod, name, value))
                    setattr(mod, name, _CountingRe(self))
        old = sys.gettrace()
        sys.settrace(self._trace)
        try:
            yield self
        finally:
            sys.settrace(old)
            for mod, name, value in saved:
                setattr(mod, name, value)


def restart_safe(pattern: re.Pattern[str]) -> bool:
    """Can a search with this pattern only start where its first element is certain?

    True when the pattern is anchored (`^`, `\\A`), begins with a look-around guard (e.g.
    `(?<![0-9])`: a match cannot start inside a run of digits), or begins with a literal
    character. A pattern that begins with a repeat (`[0-9]+...`) restarts at every position
    of a long run and rescans the rest of it each time: quadratic.
    """
    try:
        import re._constants as sc  # type: ignore[import-not-found]
        import re._parser as sp  # type: ignore[import-not-found]
    except ImportError:  # Python 3.10
        import sre_constants as sc
        import sre_parse as sp

    def first(items: list[Any]) -> Any:
        for op, av in items:
            if op is sc.SUBPATTERN:
                inner = first(list(av[3]))
                if inner is not None:
                    return inner
                continue
            return op
        return None

    op = first(list(sp.parse(pattern.pattern, pattern.flags)))
    return op in (sc.AT, sc.ASSERT, sc.ASSERT_NOT, sc.LITERAL)


def work_of(parse: Callable[[str], Any], text: str, meter: WorkMeter | None = None
            ) -> tuple[int, BaseException | None]:
    """(work units, the exception raised or None)."""
    meter = meter or WorkMeter()
    error: BaseException | None = None
    with meter.measuring():
        try:
            parse(text)
        except Exception as e:  # noqa: BLE001 - the caller asserts on it
            error = e
    return meter.work, error
