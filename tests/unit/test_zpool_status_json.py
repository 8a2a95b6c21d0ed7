"""zpool status -j parser, text/JSON agreement, and the documented --json shape."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tests.paths import PARSERS, parser_text
from zconsole.model.pool import Pool, ScanFunction, ScanState, Vdev
from zconsole.parsers.errors import ParseError
from zconsole.parsers.to_json import pools_to_json, to_jsonable
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import (
    parse_zpool_status_json,
    scan_eta_seconds,
    state_to_name,
)

FIX = PARSERS / "zpool-status"
J = "openzfs-2.3.2-status-j.json"
INT_PARTIAL = "openzfs-2.3.2-status-j-json-int.head1500.partial"
FLAT_PARTIAL = "openzfs-2.3.2-status-j-json-int-flat.head400.partial"


def load(name: str) -> str:
    return parser_text("zpool-status", name)


def tree(vdevs: tuple[Vdev, ...]) -> list[object]:
    return [(v.name, v.type, v.state, v.read_errors, v.write_errors, v.checksum_errors,
             tree(v.children)) for v in vdevs]


def test_232_json_strings_mode() -> None:
    [p] = parse_zpool_status_json(load(J))
    assert (p.name, p.state, p.guid, p.error_count) == (
        "tank", "ONLINE", "5646779715368855075", 0)
    assert p.status is None and p.action is None and p.scan is None  # healthy: no keys
    assert p.root is not None and p.root.type == "root"
    [m] = p.vdevs
    assert (m.name, m.type, m.state, m.raw_state, m.guid) == (
        "mirror-0", "mirror", "ONLINE", "ONLINE", "13868830799050405186")
    assert [(c.name, c.type, c.path, c.slow_ios) for c in m.children] == [
        ("vdb", "disk", "/dev/vdb1", 0), ("vdc", "disk", "/dev/vdc1", 0)]


def test_232_json_and_text_give_the_same_tree() -> None:
    """The transcript's `zpool status -j` (mirror vdb+vdc) against its text outputs.

    The transcript has no text capture of exactly that state; the 3-way mirror text (after
    `attach vdc vdd`) is the same pool plus vdd, and `detach vdd` returned it to the JSON's
    state. So: text minus the vdd row == JSON, for names, types, states and counters.
    """
    [pj] = parse_zpool_status_json(load(J))
    [pt] = parse_zpool_status(load("openzfs-2.3.2-attach-3way-mirror.txt"))
    mirror = pt.vdevs[0]
    pt_detached = replace(mirror, children=tuple(c for c in mirror.children if c.name != "vdd"))
    assert tree((pt_detached,)) == tree(pj.vdevs)
    assert pools_to_json([replace(pt, vdevs=(pt_detached,), scan=None, scans=(), errors=None)]) == \
        pools_to_json([replace(pj, vdevs=tuple(replace(v, children=tuple(
            replace(c, path=None) for c in v.children)) for v in pj.vdevs))])


def test_232_json_int_scan_stats_match_text() -> None:
    """head -c 1500 cut the document: the parser refuses it, but its complete scan_stats
    object is the same resilver as the text capture `resilvered 729M in 00:00:04 ...`."""
    partial = load(INT_PARTIAL)
    with pytest.raises(ParseError):
        parse_zpool_status_json(partial)
    start = partial.index('"scan_stats":') + len('"scan_stats":')
    stats, _ = json.JSONDecoder().raw_decode(partial[start:])
    doc = {"pools": {"tank": {"name": "tank", "state": "ONLINE", "scan_stats": stats}}}
    [pj] = parse_zpool_status_json(json.dumps(doc))
    [pt] = parse_zpool_status(load("openzfs-2.3.2-replace-vdc-vdg.txt"))
    assert pj.scan is not None and pt.scan is not None
    assert (pj.scan.function, pj.scan.state) == (pt.scan.function, pt.scan.state) == (
        ScanFunction.RESILVER, ScanState.FINISHED)
    assert pj.scan.processed_bytes == 764427264
    assert pt.scan.processed_bytes == 729 * 2**20  # 729M, rounded by zpool
    assert abs(pj.scan.processed_bytes - pt.scan.processed_bytes) < 2**20
    assert pj.scan.end_time is not None and pj.scan.start_time is not None
    assert pj.scan.end_time - pj.scan.start_time == 4  # "in 00:00:04"
    assert pj.scan.errors == pt.scan.errors == 0
    assert pj.scan.percent_done is None  # finished: zpool prints no percentage


def test_232_flat_partial_is_refused() -> None:
    with pytest.raises(ParseError):
        parse_zpool_status_json(load(FLAT_PARTIAL))


def test_flat_vdevs_rebuild_matches_nested() -> None:
    """--json-flat-vdevs shape (parent keys, leaves listed first as in the 2.3.2 capture),
    built from the captured nested document's own vdev objects."""
    doc: dict[str, Any] = json.loads(load(J))
    pool = doc["pools"]["tank"]
    root = pool["vdevs"]["tank"]
    mirror = root["vdevs"]["mirror-0"]
    flat: dict[str, Any] = {}
    for leaf_name, leaf in mirror["vdevs"].items():
        flat[leaf_name] = {**leaf, "parent": "mirror-0"}
    flat["mirror-0"] = {k: v for k, v in mirror.items() if k != "vdevs"} | {"parent": "tank"}
    flat["tank"] = {k: v for k, v in root.items() if k != "vdevs"}
    pool["vdevs"] = flat
    [p_flat] = parse_zpool_status_json(json.dumps(doc))
    [p_nested] = parse_zpool_status_json(load(J))
    assert tree(p_flat.vdevs) == tree(p_nested.vdevs)
    assert p_flat.root is not None and p_flat.root.name == "tank"


@pytest.mark.parametrize(("raw", "aux", "word"), [
    ("CANT_OPEN", "OPEN_FAILED", "UNAVAIL"), ("CANT_OPEN", None, "UNAVAIL"),
    ("CANT_OPEN", "CORRUPT_DATA", "FAULTED"), ("CANT_OPEN", "BAD_LOG", "FAULTED"),
    ("CANT_OPEN", "SPLIT_POOL", "SPLIT"), ("CLOSED", None, "OFFLINE"),
    ("OFFLINE", None, "OFFLINE"), ("HEALTHY", None, "ONLINE"), ("ONLINE", None, "ONLINE"),
    ("REMOVED", None, "REMOVED"), ("FAULTED", "ERR_EXCEEDED", "FAULTED"),
    ("DEGRADED", None, "DEGRADED"), ("AVAIL", None, "AVAIL"), ("INUSE", None, "INUSE"),
])
def test_state_to_name(raw: str, aux: str | None, word: str) -> None:
    assert state_to_name(raw, aux) == word


def _stats(**kw: int | str) -> dict[str, Any]:
    base: dict[str, Any] = dict(json.loads(load(INT_PARTIAL)[
        load(INT_PARTIAL).index('"scan_stats":') + 13:].split("}", 1)[0] + "}"))
    base.update(kw)
    return base


def test_scan_percent_pause_and_eta_rules() -> None:
    gib = 2**30
    running = _stats(state="SCANNING", to_examine=100 * gib, skipped=0, issued=25 * gib,
                     processed=1, pass_start=1000, scrub_spent_paused=0,
                     issued_bytes_per_scan=25 * gib)
    doc = {"pools": {"t": {"name": "t", "state": "ONLINE", "scan_stats": running}}}
    [p] = parse_zpool_status_json(json.dumps(doc), now=1000 + 100)
    assert p.scan is not None and p.scan.state is ScanState.IN_PROGRESS
    assert p.scan.percent_done == 25.0
    assert p.scan.eta_seconds == (75 * gib) // (25 * gib // 100)
    assert parse_zpool_status_json(json.dumps(doc))[0].scan.eta_seconds is None  # type: ignore[union-attr]
    slow = dict(running, issued_bytes_per_scan=gib)  # ~10 MiB/s over 100 s -> below the bar
    assert scan_eta_seconds(slow, 1000 + 200) is None
    paused = dict(running, function="SCRUB", scrub_pause=1050)
    doc["pools"]["t"]["scan_stats"] = paused
    [pp] = parse_zpool_status_json(json.dumps(doc), now=2000)
    assert pp.scan is not None and pp.scan.state is ScanState.PAUSED
    assert pp.scan.eta_seconds is None
    assert pools_to_json([pp])["pools"][0]["scan"]["state"] == "in_progress"


def test_sections_aux_notes_spares_and_resilvering() -> None:
    """Section keys and aux handling, on the captured vdev objects with state/aux changed."""
    doc: dict[str, Any] = json.loads(load(J))
    pool = doc["pools"]["tank"]
    leaves = pool["vdevs"]["tank"]["vdevs"]["mirror-0"]["vdevs"]
    vdb = leaves["vdb"]
    leaves["vdc"] |= {"state": "CANT_OPEN", "aux": "OPEN_FAILED", "read_errors": "1.02K"}
    pool["logs"] = {"vdd": vdb | {"name": "vdd", "class": "log"}}
    pool["l2cache"] = {"vde": vdb | {"name": "vde", "class": "l2cache"}}
    pool["spares"] = {"vdf": vdb | {"name": "vdf", "state": "AVAIL", "class": "spare"}}
    [p] = parse_zpool_status_json(json.dumps(doc))
    vdc = p.vdevs[0].children[1]
    assert (vdc.state, vdc.raw_state, vdc.aux, vdc.note, vdc.read_errors) == (
        "UNAVAIL", "CANT_OPEN", "OPEN_FAILED", "cannot open", 1044)
    assert [v.name for v in p.logs] == ["vdd"] and [v.name for v in p.cache] == ["vde"]
    assert [(v.name, v.state, v.read_errors) for v in p.spares] == [("vdf", "AVAIL", None)]
    shaped = pools_to_json([p])["pools"][0]
    assert [n["name"] for n in shaped["cache"]] == ["vde"]


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"pools": []}', '{"x": 1}',
                                  '{"pools": {"t": 5}}', "[" * 100000])
def test_malformed_json(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_status_json(text)


def test_empty_pools() -> None:
    assert parse_zpool_status_json('{"output_version": {}, "pools": {}}') == []


# ------------------------------------------------------------------ documented --json shape

# The documented shape: the original keys, in their order, then the keys added since (adding is
# allowed, renaming is not).
POOL_KEYS = ["name", "state", "status", "action", "scan", "errors", "vdevs", "logs", "cache",
             "spares", "special", "dedup", "scans", "expand", "remove", "classes", "see",
             "pool_row", "error_files", "truncated"]
NODE_KEYS = ["name", "type", "state", "read_errors", "write_errors", "checksum_errors",
             "note", "path", "removing"]
SCAN_KEYS = ["function", "state", "percent_done", "eta_seconds", "raw", "paused",
             "rebuild_vdev", "examined_bytes", "issued_bytes", "total_bytes", "processed_bytes",
             "errors", "exact"]


def _check_node(node: dict[str, Any]) -> None:
    keys = list(node)
    if "children" in node:
        assert keys == [*NODE_KEYS, "children"] and node["children"]
        for c in node["children"]:
            _check_node(c)
    else:
        assert keys == NODE_KEYS
    for k in ("read_errors", "write_errors", "checksum_errors"):
        assert node[k] is None or type(node[k]) is int


def _all_pools() -> list[Pool]:
    pools: list[Pool] = []
    for f in sorted(FIX.glob("*.txt")):
        try:
            pools.extend(parse_zpool_status(f.read_text()))
        except ParseError:
            pass
    pools.extend(parse_zpool_status_json(load(J)))
    return pools


def test_pools_to_json_shape_everywhere() -> None:
    pools = _all_pools()
    doc = pools_to_json(pools)
    assert list(doc) == ["pools"] and len(doc["pools"]) == len(pools) >= 25
    json.dumps(doc)
    for p in doc["pools"]:
        assert list(p) == POOL_KEYS
        if p["scan"] is not None:
            assert list(p["scan"]) == SCAN_KEYS
            assert p["scan"]["function"] in ("scrub", "resilver", None)
            assert p["scan"]["state"] in ("in_progress", "finished", "canceled", None)
        for section in POOL_KEYS[6:12]:
            for node in p[section]:
                _check_node(node)


def test_pools_to_json_values() -> None:
    [p] = parse_zpool_status(load("zol-0.6.5.9-issue7577-spare-inuse.txt"))
    doc = pools_to_json([p])["pools"][0]
    assert doc["spares"] == [{"name": "sdd", "type": "disk", "state": "INUSE",
                              "read_errors": None, "write_errors": None,
                              "checksum_errors": None, "note": "currently in use",
                              "path": None, "removing": False}]
    assert doc["scan"]["function"] == "resilver" and doc["scan"]["state"] == "finished"
    leaf = doc["vdevs"][0]["children"][0]
    assert "children" not in leaf and leaf["name"] == "sdb"


def test_to_jsonable_generic() -> None:
    [p] = parse_zpool_status(load("zol-0.6-issue2414-dedup-D.txt"))
    d = to_jsonable(p)
    assert d["ddt"]["entries"] == 3255693 and d["ddt"]["sizes_are_totals"] is False
    assert isinstance(d["vdevs"], list) and d["root"]["type"] == "root"
    [r] = parse_zpool_status(load("zol-0.7-issue8715-scanned-out-of.excerpt.txt"))
    assert to_jsonable(r)["scan"]["function"] == "resilver"
    assert to_jsonable((ScanState.PAUSED, {1: (2,)})) == ["paused", {"1": [2]}]
    json.dumps(to_jsonable(_all_pools()))


# ------------------------------------------------------------------ issue 10


def test_root_without_vdev_type_or_state_man_page_example() -> None:
    """zpool-status(8) Example 2: the root `tank` has no vdev_type, guid or state, and vdev
    states are `HEALTHY`. The real top vdevs come out, not a `disk` named after the pool."""
    (p,) = parse_zpool_status_json(load("man-zpool-status-8-example2.json"))
    assert p.root is not None and (p.root.name, p.root.type) == ("tank", "root")
    assert (p.root.state, p.root.raw_state) == ("ONLINE", "ONLINE")  # the pool's state
    assert [(v.name, v.type, v.state, v.raw_state) for v in p.vdevs] == [
        ("raidz1-0", "raidz", "ONLINE", "HEALTHY")]
    assert len(p.vdevs[0].children) == 3
    assert [v.name for v in p.dedup] == ["mirror-2"] and len(p.special) == 1
    assert all(v.state == "ONLINE" for _, _, v in p.walk())
