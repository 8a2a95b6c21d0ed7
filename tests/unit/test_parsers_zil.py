"""/proc/spl/kstat/zfs/zil from the 2.1.11 and 2.3.2 guests (tests/fixtures/parsers/zil)."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zil import parse_zil


@pytest.mark.parametrize("version, fields", [("2.1.11", 13), ("2.3.2", 20)])
def test_the_guests_counters(version: str, fields: int) -> None:
    fresh = parse_zil(parser_text("zil", f"{version}-fresh.txt"))
    assert len(fresh.fields) == fields
    assert (fresh.commits, fresh.slog_blocks, fresh.normal_blocks) == (0, 0, 0)
    created = parse_zil(parser_text("zil", f"{version}-slog-pool-created.txt"))
    assert (created.commits, created.slog_blocks, created.normal_blocks) == (1, 1, 0)
    dsync = parse_zil(parser_text("zil", f"{version}-slog-and-normal-dsync.txt"))
    assert dsync.commits == 601
    # 300 dsync writes to the pool with a log device, 300 to the one without
    assert dsync.slog_blocks is not None and dsync.slog_blocks >= 300
    assert dsync.normal_blocks is not None and dsync.normal_blocks >= 300


def test_the_modules_age_comes_from_the_header() -> None:
    # `15 1 0x01 13 3536 32520186000 77104941710`: created 32.5 s after boot, read at 77.1 s
    z = parse_zil(parser_text("zil", "2.1.11-slog-and-normal-dsync.txt"))
    assert z.age_s == pytest.approx(44.584755710)
    assert parse_zil("zil_commit_count 4 7\n").age_s is None  # no header: not known


@pytest.mark.parametrize("text", ["", "name type data\n", "zil_commit_count 4 -1\n",
                                  "zil_commit_count\n", "\x1b[2J 4 1\n"])
def test_not_a_zil_kstat(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zil(text)
