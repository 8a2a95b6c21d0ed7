"""The one exception parsers raise, and the guard that keeps every parser to it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class ParseError(ValueError):
    """Input that cannot be read as the expected format.

    `source` names the format (e.g. "zpool status"), `line_no` (1-based) and `line` point at the
    offending input where there is one.
    """

    def __init__(self, source: str, message: str, line_no: int | None = None,
                 line: str | None = None) -> None:
        self.source = source
        self.line_no = line_no
        self.line = line
        where = f" (line {line_no}: {line[:120]!r})" if line_no is not None and line else (
            f" (line {line_no})" if line_no is not None else "")
        super().__init__(f"{source}: {message}{where}")


class Skipped(NamedTuple):
    """A record a parser of records could not read and left out, the readable ones kept:
    where it starts (1-based line number), that line (host text: shown escaped) and why. A
    NamedTuple: every start-up imports this module, and a frozen dataclass costs ~1 ms to
    make on Python 3.10 (issue 28)."""

    line_no: int
    line: str
    reason: str


def skipped_words(skipped: list[Skipped] | tuple[Skipped, ...], what: str = "record") -> str:
    """`2 records could not be read (line 7: not a date ...)`, "" for none."""
    if not skipped:
        return ""
    n = len(skipped)
    first = skipped[0]
    return (f"{n} {what}{'s' if n != 1 else ''} could not be read (line {first.line_no}: "
            f"{first.reason})")


# What a parser may stumble into on hostile input although it never means to: int() of a
# 5 000-digit number (ValueError), float overflow, json nesting deeper than the interpreter's
# stack (RecursionError), a key or index a malformed document lacks, a wrong JSON type.
_STRAY = (ValueError, OverflowError, RecursionError, KeyError, IndexError, TypeError,
          AttributeError, ZeroDivisionError, UnicodeError)


def parser(source: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a public parse function: any exception other than ParseError becomes a
    ParseError naming `source` (the original is kept as `__cause__`), so callers can rely on
    "a model or ParseError" for any input. Bugs found by the fuzz tests are still fixed at
    their root; this is the last line, not the first."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except ParseError:
                raise
            except _STRAY as e:
                raise ParseError(source, f"unreadable input ({type(e).__name__}: "
                                         f"{str(e)[:200]})") from e
        return guarded

    return wrap
