"""Numbers as the operator reads them: sizes, percentages, durations, ages, rates, latencies.

One formatter per kind of figure, shared by every screen, plan and report, so the same value
reads the same everywhere (the Pools screen and a wizard must not round a disk differently).
Pure functions, standard library only.
"""

from __future__ import annotations

_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def size(n: int | float | None, *, short: bool = False) -> str:
    """Binary units, one decimal: 13002342400 -> '12.1 GiB' ('12.1G' with `short`, the way
    `zpool list` prints it); 0 -> '0 B'; None -> '-'."""
    if n is None:
        return "-"
    value = float(n)
    for unit in _BINARY_UNITS:
        if abs(value) < 1024 or unit == _BINARY_UNITS[-1]:
            if short:
                unit = unit[0]
                return f"{value:.0f}{unit}" if unit == "B" else f"{value:.1f}{unit}"
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def size_as_sold(n: int | None) -> str:
    """Disks the way they are sold (decimal TB) and the way ZFS prints them (binary):
    4000787030016 -> '4.00 TB (3.6T)'; below 100 GB only the binary form."""
    if n is None:
        return "size unknown"
    return f"{n / 1e12:.2f} TB ({size(n, short=True)})" if n >= 1e11 else size(n, short=True)


def pct(ratio: float | None) -> str:
    """0.9731 -> '97.3 %'. Never rounds a ratio below 1 up to 100 % or above 0 down to 0 %."""
    if ratio is None:
        return "-"
    text = f"{ratio * 100:.1f}"
    if text == "100.0" and ratio < 1:
        return ">99.9 %"
    if text == "0.0" and ratio > 0:
        return "<0.1 %"
    return f"{text} %"


def duration(seconds: float, *, coarse: bool = False) -> str:
    """How long: '45 s', '11 min', '1 h 16 min', '2 d 3 h'.

    `coarse` keeps only the largest unit ('1 h', '2 d'), for narrow columns.
    Fractions of a second are dropped; negative values read as 0 s.
    """
    s = int(max(0.0, seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h" if coarse else f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d" if coarse else f"{s // 86400} d {s % 86400 // 3600} h"


def age(seconds: float) -> str:
    """'12 s ago', '3 min ago'."""
    return f"{duration(seconds)} ago"


CLOCK_OFF_AFTER = 5.0
"""Seconds a host's clock may be off the console's before it is said. Below this the offset
is measurement, not fact: `date +%s` gives whole seconds (up to 1 s off) and is read over an
ssh round trip (SshHost takes the round trip's midpoint: up to half of it off, a few hundred
ms on a LAN, seconds over a slow login); a few seconds change no age shown (those are on the
console's clock) and no time on the Timeline (minutes)."""


def clock_offset(offset: float | None) -> str:
    """'host clock 1 h 0 min behind' / '… ahead' when the host's wall clock is more than
    CLOCK_OFF_AFTER seconds off the console's (`offset` = host less console); '' otherwise."""
    if offset is None or abs(offset) <= CLOCK_OFF_AFTER:
        return ""
    return f"host clock {duration(abs(offset))} {'behind' if offset < 0 else 'ahead'}"


def rate(count: int, seconds: float) -> str:
    """Events per second, 3 significant figures at most: '2,450/s', '0.4/s'."""
    if seconds <= 0:
        return "-"
    r = count / seconds
    if r >= 100:
        return f"{r:,.0f}/s"
    if r >= 10:
        return f"{r:.1f}/s"
    if r == 0:
        return "0/s"
    return f"{r:.1f}/s" if r >= 0.1 else "<0.1/s"


def ms(v: float | None, *, unit: bool = False) -> str:
    """A latency in milliseconds, 3 significant figures: '0.42', '12.5', '830', '-'.

    With `unit`: '0.42 ms'.
    """
    if v is None:
        return "-"
    text = f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}"
    return f"{text} ms" if unit else text


_NICE_SUFFIXES = ("", "K", "M", "G", "T", "P", "E")


def nicenum(n: float | None) -> str:
    """A count or a byte figure the way `zpool iostat` prints it (powers of 1024, a suffix
    letter), at most 4 characters so that a read/write pair fits a narrow column: 340 -> '340',
    1260 -> '1.2K', 47185920 -> '45M'; None -> '-'."""
    if n is None:
        return "-"
    value = max(0.0, float(n))
    for suffix in _NICE_SUFFIXES:
        if suffix == "":
            if value < 999.5:
                return f"{value:.0f}"
        elif value < 9.95:
            return f"{value:.1f}{suffix}"
        elif value < 999.5 or suffix == _NICE_SUFFIXES[-1]:
            return f"{value:.0f}{suffix}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 snapshot', '3 snapshots', '1,204 snapshots'."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"
