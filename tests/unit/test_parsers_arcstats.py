"""arcstats parsing (2.3.2 excerpt, 2.2+ excerpt, pre-2.2 file) and interval ratios."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from zconsole.model.arc import ArcStats
from zconsole.parsers.arcstats import (
    arc_hit_ratio,
    arc_iohit_ratio,
    demand_data_efficiency,
    parse_arcstats,
)
from zconsole.parsers.errors import ParseError


def read(name: str) -> ArcStats:
    return parse_arcstats(parser_text("arcstats", name))


def test_232_excerpt() -> None:
    a = read("2.3.2-head3-plus-grep-excerpt.txt")
    assert a.get("hits") == 25546 and a.get("misses") == 19  # `hits` is printed twice
    assert (a.size, a.target, a.c_min, a.c_max) == (796679064, 880766592, 64450176,
                                                     1289003520)
    assert a.get("memory_available_bytes") == 910715264  # type 3 (int64)
    assert a.get("arc_dnode_limit") == 128900352
    assert a.get("p") is None  # removed in 2.2
    assert len(a.fields) == 14  # 15 lines after the header, `hits` twice


def test_22plus_excerpt_has_iohits() -> None:
    a = read("2.2plus-issue10255-excerpt.txt")
    assert a.has_iohits
    assert (a.get("hits"), a.get("iohits"), a.get("misses")) == (138399132, 1032529, 78349531)
    assert a.get("demand_data_iohits") == 938681 and a.get("uncached_hits") == 0
    assert not a.throttled


def test_pre22_file() -> None:
    a = read("node_exporter-fixture-pre2.2.txt")
    assert len(a.fields) == 91  # the kstat header says 91 entries
    assert not a.has_iohits
    assert (a.get("p"), a.get("arc_meta_limit"), a.get("arc_meta_min")) == (516395305,
                                                                            6275982336,
                                                                            16777216)
    assert (a.size, a.target, a.c_max) == (1603939792, 1643208777, 8367976448)
    assert a.get("memory_throttle_count") == 0 and not a.throttled


def _minus(a: ArcStats, **deltas: int) -> ArcStats:
    return ArcStats(fields={k: v - deltas.get(k, 0) for k, v in a.fields.items()})


def test_hit_ratio_21_style() -> None:
    cur = read("node_exporter-fixture-pre2.2.txt")
    prev = _minus(cur, hits=900, misses=100, demand_data_hits=30, demand_data_misses=10)
    assert arc_hit_ratio(prev, cur) == pytest.approx(0.9)
    assert demand_data_efficiency(prev, cur) == pytest.approx(0.75)
    assert arc_iohit_ratio(prev, cur) is None
    assert arc_hit_ratio(cur, cur) is None  # no reads in the interval
    assert arc_hit_ratio(cur, prev) is None  # counters went backwards: module reloaded


def test_hit_ratio_22_style_counts_iohits() -> None:
    cur = read("2.2plus-issue10255-excerpt.txt")
    prev = _minus(cur, hits=600, iohits=100, misses=300)
    assert arc_hit_ratio(prev, cur) == pytest.approx(0.6)
    assert arc_iohit_ratio(prev, cur) == pytest.approx(0.1)


def test_negative_int64_and_throttle() -> None:
    a = parse_arcstats("memory_available_bytes          3    -14037158\n"
                       "memory_throttle_count           4    2\n")
    assert a.get("memory_available_bytes") == -14037158 and a.throttled


@pytest.mark.parametrize("text", ["", "hits 4\n", "hits 4 -1\n", "hits x 1\n",
                                  "name                            type data\n"])
def test_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_arcstats(text)
