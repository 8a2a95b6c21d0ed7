"""/proc/diskstats parsing (14/18/20 fields) and iostat -x formulas."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from zconsole.model.disk import DiskStat
from zconsole.parsers.diskstats import disk_io, parse_diskstats
from zconsole.parsers.errors import ParseError


def stats(name: str) -> dict[str, DiskStat]:
    return {s.name: s for s in parse_diskstats(parser_text("diskstats", name))}


def test_232_guest_20_fields() -> None:
    s = parse_diskstats(parser_text("diskstats", "2.3.2-guest-vdb-vdg-ds2.txt"))
    assert [d.name for d in s] == ["vdb", "vdc", "vdd", "vde", "vdf", "vdg"]
    vdb = s[0]
    assert (vdb.major, vdb.minor) == (254, 16)
    assert (vdb.reads, vdb.sectors_read, vdb.ms_reading) == (327, 16774, 121)
    assert (vdb.writes, vdb.sectors_written, vdb.ms_writing) == (11292, 1493529, 3507)
    assert (vdb.in_flight, vdb.ms_io, vdb.weighted_ms) == (0, 2900, 3667)
    assert (vdb.discards, vdb.ms_discarding, vdb.flushes, vdb.ms_flushing) == (0, 0, 154, 38)


def test_node_exporter_14_18_20() -> None:
    s = parse_diskstats(parser_text("diskstats", "node_exporter-fixture-11-15-17-counters.txt"))
    assert len(s) == 51
    by = {(d.name, d.minor, d.major): d for d in s}
    sda = by[("sda", 0, 8)]
    assert (sda.reads, sda.weighted_ms, sda.discards, sda.flushes) == (25354637, 82621804,
                                                                      None, None)
    sdb = by[("sdb", 0, 8)]
    assert (sdb.discards, sdb.sectors_discarded, sdb.ms_discarding, sdb.flushes) == (
        68851, 1925173784, 11130, None)
    sdc = by[("sdc", 0, 8)]
    assert (sdc.flushes, sdc.ms_flushing) == (1555, 1944)


def test_formulas_against_the_guests_awk_deltas() -> None:
    # The guest printed ds2 and its own deltas (ds2 - ds1) for reads, writes, sectors written,
    # ms writing and io_ticks (2.3.2-guest-awk-deltas.txt). Rebuild ds1 from them.
    deltas: dict[str, tuple[int, int, int, int, int]] = {}
    for line in parser_text("diskstats", "2.3.2-guest-awk-deltas.txt").splitlines()[1:]:
        name, *cols = line.split()
        n = [int(x) for x in cols]
        deltas[name] = (n[0], n[1], n[2], n[3], n[4])
    assert deltas["vdb"] == (0, 4441, 531832, 1229, 1080)
    cur = {s.name: s for s in parse_diskstats(
        parser_text("diskstats", "2.3.2-guest-vdb-vdg-ds2.txt"))}
    t = 6.404  # wall time of the whole guest command (an upper bound of the interval)
    for dev, (r, w, sw, msw, io) in deltas.items():
        c = cur[dev]
        prev = c._replace(reads=c.reads - r, writes=c.writes - w,
                       sectors_written=c.sectors_written - sw, ms_writing=c.ms_writing - msw,
                       ms_io=c.ms_io - io)
        x = disk_io(prev, c, t)
        assert x.w_s == pytest.approx(w / t)
        assert x.wkb_s == pytest.approx(sw / 2 / t)
        assert x.w_await_ms == pytest.approx(msw / w if w else 0.0)
        assert x.r_await_ms == 0.0 and x.r_s == 0.0
        assert x.await_ms == pytest.approx(msw / w if w else 0.0)
        assert x.util_pct == pytest.approx(io / (t * 1000) * 100)
        assert x.aqu_sz == 0.0  # weighted ms delta unknown: left unchanged
    vdb = disk_io(cur["vdb"]._replace(writes=6851, ms_writing=2278), cur["vdb"], t)
    assert vdb.w_await_ms == pytest.approx(1229 / 4441)  # 0.277 ms per write


def test_host_samples_kernel_618() -> None:
    a = stats("debian12-k6.18-host-sample1.txt")
    b = stats("debian12-k6.18-host-sample2.txt")
    assert len(a) == 10 and "vda" in a and "zram0" in a
    x = disk_io(a["vda"], b["vda"], 2.0)
    assert x.r_s == 0.5 and x.rkb_s == (2414586 - 2414514) / 2 / 2.0
    assert x.r_await_ms == 0.0 and x.util_pct == 0.0 and x.w_s == 0.0


def test_await_aqu_util_cap_wrap_and_reset() -> None:
    (c,) = parse_diskstats(" 254      16 vdb 327 0 16774 121 11292 0 1493529 3507 0 2900 3667 "
                           "0 0 0 0 154 38\n")
    prev = c._replace(reads=c.reads - 10, ms_reading=c.ms_reading - 50, writes=c.writes - 30,
                   ms_writing=c.ms_writing - 90, weighted_ms=c.weighted_ms - 500,
                   ms_io=c.ms_io - 2500)
    x = disk_io(prev, c, 2.0)
    assert x.r_await_ms == 5.0 and x.w_await_ms == 3.0 and x.await_ms == 140 / 40
    assert x.aqu_sz == 0.25 and x.util_pct == 100.0  # 125 % capped
    wrapped = prev._replace(ms_io=(1 << 32) - 100, ms_writing=(1 << 32) - 10)
    y = disk_io(wrapped, c._replace(ms_io=900, ms_writing=20), 2.0)
    assert y.util_pct == 50.0 and y.w_await_ms == 1.0
    reset = disk_io(c, c._replace(reads=3, writes=4, ms_io=1), 2.0)
    assert (reset.r_s, reset.w_s, reset.util_pct, reset.await_ms) == (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("text", [
    "8 0 sda 1 2 3\n",
    "8 0 sda 1 2 3 4 5 6 7 8 9 10 x\n",
    "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",  # 19 fields: no kernel prints that
])
def test_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_diskstats(text)


def test_disk_io_rejects_bad_interval_and_other_device() -> None:
    a, b = parse_diskstats(parser_text("diskstats", "2.3.2-guest-vdb-vdg-ds2.txt"))[:2]
    with pytest.raises(ParseError):
        disk_io(a, a, 0)
    with pytest.raises(ParseError):
        disk_io(a, b, 1.0)
