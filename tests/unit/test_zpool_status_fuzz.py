"""Property tests: the zpool status parsers return pools or raise ParseError, nothing else."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import PARSERS
from zconsole.model.pool import Pool
from zconsole.parsers.errors import ParseError
from zconsole.parsers.to_json import pools_to_json, to_jsonable
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json

FIX = PARSERS / "zpool-status"
TEXTS = [f.read_text() for f in sorted(FIX.glob("*.txt"))]
JSONS = [f.read_text() for f in sorted(FIX.glob("*.json"))] + \
    [f.read_text() for f in sorted(FIX.glob("*.partial"))]
SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _text_ok(text: str) -> None:
    try:
        pools = parse_zpool_status(text)
    except ParseError:
        return
    assert isinstance(pools, list) and all(isinstance(p, Pool) for p in pools)
    json.dumps(pools_to_json(pools))
    json.dumps(to_jsonable(pools))


def _json_ok(text: str) -> None:
    try:
        pools = parse_zpool_status_json(text, now=1795302100)
    except ParseError:
        return
    json.dumps(pools_to_json(pools))


@st.composite
def mutated(draw: st.DrawFn, sources: list[str]) -> str:
    lines = draw(st.sampled_from(sources)).split("\n")
    for _ in range(draw(st.integers(0, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "dup", "truncate", "insert", "tabs", "spaces",
                                   "swap", "garbage"]))
        if op == "delete":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "truncate":
            lines[i] = lines[i][:draw(st.integers(0, max(0, len(lines[i]))))]
        elif op == "insert":
            pos = draw(st.integers(0, len(lines[i])))
            junk = draw(st.text(min_size=1, max_size=8))
            lines[i] = lines[i][:pos] + junk + lines[i][pos:]
        elif op == "tabs":
            lines[i] = lines[i].replace("        ", "\t")
        elif op == "spaces":
            lines[i] = lines[i].expandtabs(draw(st.sampled_from([1, 2, 4, 8])))
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(i, draw(st.binary(max_size=40)).decode("latin-1"))
    return "\n".join(lines)


@SETTINGS
@given(st.text())
def test_text_parser_arbitrary_text(text: str) -> None:
    _text_ok(text)


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list("pool: state scan config errors NAME ONLINE"
                                            " 0 1.02K \t\n-()/:%")), max_size=400))
def test_text_parser_zpool_like_alphabet(text: str) -> None:
    _text_ok("  pool: t\n" + text)


@SETTINGS
@given(mutated(TEXTS))
def test_text_parser_mutated_fixtures(text: str) -> None:
    _text_ok(text)


@SETTINGS
@given(st.text())
def test_json_parser_arbitrary_text(text: str) -> None:
    _json_ok(text)


@SETTINGS
@given(mutated(JSONS))
def test_json_parser_mutated_fixtures(text: str) -> None:
    _json_ok(text)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "state", "vdevs", "vdev_type", "parent", "aux", "scan_stats",
                         "function", "issued", "to_examine", "read_errors", "class", "logs",
                         "spares", "l2cache", "was", "pools", "tank", "mirror-0"]),
        kids, max_size=5),
    max_leaves=30)


@SETTINGS
@given(_json_values)
def test_json_parser_arbitrary_structures(value: object) -> None:
    _json_ok(json.dumps({"pools": {"tank": value}}))
    _json_ok(json.dumps(value))
