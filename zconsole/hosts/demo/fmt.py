"""Numbers, sizes and times printed the way OpenZFS's userland prints them.

Ports of zfs_nicenum/zfs_nicebytes (libzutil), secs_to_dhms (zpool_main.c) and ctime(3).
Times are rendered in UTC so that snapshot tests do not depend on the machine's time zone.
"""

from __future__ import annotations

import time

_UNITS = " KMGTPE"


def nicenum(num: int, *, suffix_bytes: bool = False) -> str:
    """zfs_nicenum: 1024-based, at most 5 characters ("960M", "72.3K", "1.50K", "512")."""
    num = int(num)
    if num < 0:
        return "-" + nicenum(-num, suffix_bytes=suffix_bytes)
    n = num
    i = 0
    while n >= 1024 and i < len(_UNITS) - 1:
        n //= 1024
        i += 1
    if i == 0:
        return f"{n}B" if suffix_bytes else f"{n}"
    u = _UNITS[i]
    if num & ((1 << (10 * i)) - 1) == 0:
        return f"{n}{u}"
    return _five(num / (1 << (10 * i)), u)


def nicebytes(num: int) -> str:
    """zfs_nicebytes: like nicenum but bytes below 1 KiB get a `B` ("0B", "512B", "729M")."""
    return nicenum(num, suffix_bytes=True)


def nicetime_ns(ns: int) -> str:
    """zfs_nicenum_format(..., ZFS_NICENUM_TIME): 1000-based ns/us/ms/s ("397us", "12ms")."""
    units = ("ns", "us", "ms", "s")
    n = int(ns)
    i = 0
    v = float(n)
    while v >= 1000 and i < len(units) - 1:
        v /= 1000
        i += 1
    if i == 0:
        return f"{n}{units[0]}"
    if v == int(v):
        return f"{int(v)}{units[i]}"
    return _five(v, units[i])


def _five(value: float, unit: str) -> str:
    """The most decimals (2, 1, 0) that keep `value` and its unit within 5 characters."""
    for prec in (2, 1, 0):
        s = f"{value:.{prec}f}{unit}"
        if len(s) <= 5:
            return s
    return s


def secs_to_dhms(total: int) -> str:
    """zpool's elapsed/ETA form: `01:16:21` or `2 days 03:04:05`."""
    total = max(0, int(total))
    days = total // 86400
    hours = (total // 3600) % 24
    mins = (total // 60) % 60
    secs = total % 60
    if days > 0:
        return f"{days} days {hours:02d}:{mins:02d}:{secs:02d}"
    return f"{hours:02d}:{mins:02d}:{secs:02d}"


def ctime(epoch: float) -> str:
    """ctime(3) without the trailing newline, in UTC: `Sat Nov 21 23:00:00 2026`."""
    t = time.gmtime(int(epoch))
    return f"{time.strftime('%a %b', t)} {t.tm_mday:2d} {time.strftime('%H:%M:%S %Y', t)}"


def zfs_creation(epoch: float) -> str:
    """How `zfs get creation` prints a timestamp without -p: `Sat Nov 21 23:00 2026`."""
    t = time.gmtime(int(epoch))
    return f"{time.strftime('%a %b', t)} {t.tm_mday:>2} {t.tm_hour:>2}:{t.tm_min:02d} {t.tm_year}"


def ratio(x100: int) -> str:
    """dedupratio/compressratio as ZFS prints them: 300 -> `3.00x`."""
    return f"{x100 // 100}.{x100 % 100:02d}x"
