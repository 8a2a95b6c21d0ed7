"""Numbers as ZFS prints them: plain integers with -p, human units without it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_SUFFIX = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
           "P": 1 << 50, "E": 1 << 60, "Z": 1 << 70}
_HUMAN = re.compile(r"^([0-9]{1,30}(?:\.[0-9]{1,30})?)\s*([BKMGTPEZ]?)(?:i?B)?$", re.IGNORECASE)

# No count or size ZFS prints has more digits than this (2**64 has 20): longer runs are not
# numbers from a real host, and int() of thousands of digits is slow (Python refuses 4 300+).
MAX_DIGITS = 40


def is_int(text: str) -> bool:
    """ASCII digits only ('²'.isdigit() is True in Python), at most MAX_DIGITS of them."""
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def to_int(text: str) -> int:
    """An unsigned decimal integer as ZFS and the kernel print it; ValueError otherwise."""
    t = text.strip()
    if not is_int(t):
        raise ValueError(f"not a number: {text[:60]!r}")
    return int(t)


def parse_size(text: str) -> int | None:
    """'1063256064' -> 1063256064, '1.02K' -> 1044, '960M' -> 1006632960, '-' -> None.

    Raises ValueError for anything else (callers turn it into a ParseError).
    """
    t = text.strip()
    if t in ("-", "", "none"):
        return None
    if is_int(t):
        return int(t)
    m = _HUMAN.match(t)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    return int(round(float(m.group(1)) * _SUFFIX[m.group(2).upper()]))


def parse_count(text: str) -> int | None:
    """Error counters: '0', '12', '1.02K' (zpool abbreviates large counts), '-' -> None."""
    return parse_size(text)


def lenient(parse: Callable[[str], T], text: str | None) -> T | None:
    """`parse(text)` for readers that keep going: None for None and for what `parse` refuses
    with ValueError (a cut-off or mangled figure in pasted text)."""
    if text is None:
        return None
    try:
        return parse(text)
    except ValueError:
        return None


def parse_duration(text: str) -> int:
    """'01:16:21' -> 4581, '2 days 03:04:05' -> 183845 (zpool's ETA and elapsed forms)."""
    t = text.strip()
    m = re.match(r"^(?:([0-9]{1,9})\s+days?\s+)?([0-9]{1,9}):([0-9]{2}):([0-9]{2})$", t)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    days = int(m.group(1) or 0)
    return days * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))


# Human figures (`zpool list` / `zpool iostat` without -p): zfs_nicenum prints an integer below
# 1024 as is, an exact multiple of a unit without decimals ("7G"), anything else with as many
# decimals as fit in 5 characters ("1.84G", "70.1G", "148M"). So a unit-less integer and a
# 1-2 digit integer with a unit are exact; every other form may have been rounded. A locale
# with a decimal comma leaks into the figures ("11,4T", openzfs/zfs#10253): read as a point.
_HUMAN_FIGURE = re.compile(r"^([0-9]{1,30})(?:[.,]([0-9]{1,30}))?([KMGTPEZ]?)B?$")
_HUMAN_TIME = re.compile(r"^([0-9]{1,30})(?:[.,]([0-9]{1,30}))?(ns|us|ms|s)$")
_TIME_SCALE = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def _read_figure(text: str, pattern: re.Pattern[str], what: str,
                 value: Callable[[str, str | None, str], tuple[int, bool]]
                 ) -> tuple[int | None, bool]:
    """What every human-or-`-p` figure shares: `-` -> (None, True), a plain integer (-p) is
    exact, anything else is `pattern`'s (whole, fraction, unit) read by `value` into
    (value, exact). ValueError for what `pattern` does not match."""
    t = text.strip()
    if t == "-":
        return None, True
    if is_int(t):
        return int(t), True
    m = pattern.match(t)
    if not m:
        raise ValueError(f"not a {what}: {text[:60]!r}")
    return value(m.group(1), m.group(2), m.group(3))


def _size_value(whole: str, frac: str | None, unit: str) -> tuple[int, bool]:
    scale = _SUFFIX[unit]
    if frac is None:
        return int(whole) * scale, scale == 1 or len(whole) <= 2
    return int(round(float(f"{whole}.{frac}") * scale)), False


def parse_figure(text: str) -> tuple[int | None, bool]:
    """A human or -p figure -> (value, exact); `-` -> (None, True). ValueError otherwise.

    '1063256064' -> (1063256064, True), '7G' -> (7516192768, True), '1.84G' -> (.., False),
    '148M' -> (155189248, False), '11,4T' -> (.., False).
    """
    return _read_figure(text, _HUMAN_FIGURE, "figure", _size_value)


def _time_value(whole: str, frac: str | None, unit: str) -> tuple[int, bool]:
    number = float(f"{whole}.{frac}") if frac is not None else int(whole)
    return int(round(number * _TIME_SCALE[unit])), unit == "ns"


def parse_latency(text: str) -> tuple[int | None, bool]:
    """An average wait in ns: '881' (-p) or '881ns' exact; '6ms', '1s' floored by zpool
    (inexact); `-` (no I/O of that kind) -> (None, True). ValueError otherwise."""
    return _read_figure(text, _HUMAN_TIME, "latency", _time_value)
