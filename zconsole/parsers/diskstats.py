"""/proc/diskstats -> DiskStat, and iostat -x figures from two samples.

Format (Documentation/admin-guide/iostats.rst): `major minor name` then counters, separated by
runs of spaces. 14 fields (11 counters) before kernel 4.18; 18 (15: + discards) from 4.18;
20 (17: + flushes) from 5.5. Counters after `name`: 1 reads, 2 reads merged, 3 sectors read,
4 ms reading, 5 writes, 6 writes merged, 7 sectors written, 8 ms writing, 9 I/Os in flight
(a gauge), 10 ms doing I/O, 11 weighted ms, 12 discards, 13 discards merged, 14 sectors
discarded, 15 ms discarding, 16 flushes, 17 ms flushing. Sectors are always 512 bytes.

Traps: the millisecond fields are 32-bit and wrap; every counter restarts at 0 when a device
is removed and re-added. A whole disk already includes its partitions, and dm-*, md*, zd*,
loop* are stacked devices: never add them up with disks. %util on SSD/NVMe only means "at
least one request outstanding" - call it busy and show await/aqu-sz beside it.

`disk_io` uses exactly sysstat's iostat -x formulas (T = interval):
r/s = Δreads/T, rkB/s = Δsectors_read/2/T, r_await = Δms_reading/Δreads (0 without I/O),
await = (Δms_reading+Δms_writing+Δms_discarding)/(Δreads+Δwrites+Δdiscards),
aqu-sz = Δweighted_ms/T_ms, %util = Δms_io/T_ms×100 (capped at 100).
"""

from __future__ import annotations

from zconsole.model.disk import DiskIo, DiskStat
from zconsole.parsers.errors import ParseError, parser

SOURCE = "diskstats"

_WRAP = 1 << 32
_COUNTS = (14, 18, 20)
_MISSING: list[int | str | None] = [None] * 20


@parser(SOURCE)
def parse_diskstats(text: str) -> list[DiskStat]:
    stats: list[DiskStat] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        parts = raw.split()
        if not parts:
            continue
        if len(parts) not in _COUNTS and len(parts) < 20:
            raise ParseError(SOURCE, f"{len(parts)} fields, expected 14, 18 or 20",
                             line_no, raw)
        numbers = parts[:2] + parts[3:]
        digits = "".join(numbers)  # split() leaves no empty field: all digits iff each is
        if not (digits.isdigit() and digits.isascii()):
            raise ParseError(SOURCE, "non-numeric counter", line_no, raw)
        v: list[int | str | None] = [*map(int, numbers)]
        v.insert(2, parts[2])
        v += _MISSING[len(v):]  # discards, flushes: None on older kernels
        stats.append(DiskStat._make(v[:20]))
    return stats


def _reset(prev: DiskStat, cur: DiskStat) -> bool:
    """Event counters never go backwards unless the device was re-added."""
    pairs = [(prev.reads, cur.reads), (prev.writes, cur.writes),
             (prev.sectors_read, cur.sectors_read), (prev.sectors_written, cur.sectors_written),
             (prev.reads_merged, cur.reads_merged), (prev.writes_merged, cur.writes_merged),
             (prev.discards or 0, cur.discards or 0), (prev.flushes or 0, cur.flushes or 0)]
    return any(b < a for a, b in pairs)


def _ms(old: int | None, new: int | None) -> int:
    """Δ of a 32-bit millisecond counter, allowing one wrap."""
    if old is None or new is None:
        return 0
    return new - old if new >= old else new + _WRAP - old


def disk_io(prev: DiskStat, cur: DiskStat, interval_s: float) -> DiskIo:
    """iostat -x figures for `cur.name` over `interval_s` seconds between two samples.

    Counters that went backwards mean the device was re-added: all figures are 0 then.
    """
    if not interval_s > 0:
        raise ParseError(SOURCE, f"interval must be positive, got {interval_s!r}")
    if (prev.major, prev.minor, prev.name) != (cur.major, cur.minor, cur.name):
        raise ParseError(SOURCE, f"samples of different devices: {prev.name} / {cur.name}")
    if _reset(prev, cur):
        return DiskIo(name=cur.name, interval_s=interval_s, r_s=0.0, w_s=0.0, rkb_s=0.0,
                      wkb_s=0.0, r_await_ms=0.0, w_await_ms=0.0, await_ms=0.0, aqu_sz=0.0,
                      util_pct=0.0)
    t_ms = interval_s * 1000.0
    reads = cur.reads - prev.reads
    writes = cur.writes - prev.writes
    discards = (cur.discards or 0) - (prev.discards or 0)
    ms_r = _ms(prev.ms_reading, cur.ms_reading)
    ms_w = _ms(prev.ms_writing, cur.ms_writing)
    ms_d = _ms(prev.ms_discarding, cur.ms_discarding)
    ios = reads + writes + discards
    return DiskIo(
        name=cur.name,
        interval_s=interval_s,
        r_s=reads / interval_s,
        w_s=writes / interval_s,
        rkb_s=(cur.sectors_read - prev.sectors_read) / 2 / interval_s,
        wkb_s=(cur.sectors_written - prev.sectors_written) / 2 / interval_s,
        r_await_ms=ms_r / reads if reads else 0.0,
        w_await_ms=ms_w / writes if writes else 0.0,
        await_ms=(ms_r + ms_w + ms_d) / ios if ios else 0.0,
        aqu_sz=_ms(prev.weighted_ms, cur.weighted_ms) / t_ms,
        util_pct=min(100.0, _ms(prev.ms_io, cur.ms_io) / t_ms * 100.0),
    )
