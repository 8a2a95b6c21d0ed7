"""zfs list -H -p -o parsing against real OpenZFS 2.3.2 output."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.paths import PARSERS
from zconsole.model.dataset import Dataset, datasets_from_columns
from zconsole.parsers import zfs_list
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zfs_list import (
    DEFAULT_COLUMNS,
    SNAPSHOT_COLUMNS,
    parse_zfs_list,
    parse_zfs_list_names,
)

FIX = PARSERS / "zfs-list"


def test_all_with_origin_and_clones() -> None:
    ds = parse_zfs_list((FIX / "2.3.2-all-name-used-refer-origin-clones.txt").read_text(),
                        ["name", "used", "refer", "origin", "clones"])
    by = {d.name: d for d in ds}
    assert [d.name for d in ds] == ["tank", "tank@all1", "tank/clone1", "tank/clone1@all1",
                                    "tank/data", "tank/data@snap1", "tank/data@all1"]
    assert (by["tank"].used, by["tank"].refer) == (382022656, 25600)
    assert by["tank/clone1"].origin == "tank/data@snap1"
    assert by["tank/clone1"].used == 14336 and by["tank/clone1"].refer == 381783040
    assert by["tank/data@snap1"].clones == ("tank/clone1",)
    assert by["tank/data"].clones == () and by["tank/data"].origin is None
    assert by["tank/data@snap1"].type == "snapshot" and by["tank/data@snap1"].is_snapshot
    assert by["tank/data"].type == "unknown"  # `type` was not requested
    assert by["tank/clone1"].props == {}  # every requested column has its field
    assert by["tank/data@snap1"].parent_name == "tank/data"


def test_single_row() -> None:
    (d,) = parse_zfs_list((FIX / "2.3.2-copy-name-used-refer.txt").read_text(),
                          ["name", "used", "refer"])
    assert (d.name, d.used, d.refer, d.pool) == ("tank/copy", 67177472, 67177472, "tank")


def test_default_columns_mapping() -> None:
    assert DEFAULT_COLUMNS == ("name", "type", "used", "avail", "refer", "origin",
                               "usedbysnapshots", "compressratio", "dedup", "mountpoint",
                               "createtxg", "creation", "quota", "refquota")
    assert DEFAULT_COLUMNS == GUEST_COLUMNS  # the real outputs below were asked the same
    assert SNAPSHOT_COLUMNS == ("name", "used", "refer", "createtxg", "creation", "clones")
    # A constructed row in DEFAULT_COLUMNS order; it only checks the column -> field mapping
    # (the real outputs with these columns are read by the test below).
    row = "\t".join(["tank/data", "filesystem", "381783040", "1316363776", "381783040", "-",
                     "0", "1.00", "off", "/tank/data", "11", "1795301990", "0",
                     "41943040"])
    (d,) = parse_zfs_list(row, DEFAULT_COLUMNS)
    assert d.type == "filesystem" and d.avail == 1316363776 and d.usedbysnapshots == 0
    assert d.compressratio == 1.0 and d.dedup == "off" and d.mountpoint == "/tank/data"
    assert (d.createtxg, d.creation) == (11, 1795301990)
    assert (d.quota, d.refquota) == (None, 41943040)  # `-p` prints 0 for no quota
    (d,) = parse_zfs_list(row.replace("1.00", "1.00x"), DEFAULT_COLUMNS)
    assert d.compressratio == 1.0


GUEST_DEFAULT = sorted(FIX.glob("guest-zfs-*-default-columns.txt"))
GUEST_COLUMNS = ("name", "type", "used", "avail", "refer", "origin", "usedbysnapshots",
                 "compressratio", "dedup", "mountpoint", "createtxg", "creation", "quota",
                 "refquota")  # what those files were asked


@pytest.mark.parametrize("path", GUEST_DEFAULT, ids=lambda p: p.name.split("-")[2])
def test_quota_and_refquota_as_real_zfs_list_prints_them(path: Path) -> None:
    """Real `zfs list -H -p` output (guest, state healthy: quota=1G on tank/home,
    refquota=40M on tank/home/alice): 0 is "no quota" (None), bytes a quota, `-` a volume
    (quota and refquota do not apply). The same figures from every OpenZFS version."""
    by = {d.name: d for d in parse_zfs_list(path.read_text(), GUEST_COLUMNS)}
    assert (by["tank/home"].quota, by["tank/home"].refquota) == (1 << 30, None)
    assert (by["tank/home/alice"].quota, by["tank/home/alice"].refquota) == (None, 40 << 20)
    assert by["tank/vol1"].type == "volume"
    assert (by["tank/vol1"].quota, by["tank/vol1"].refquota) == (None, None)
    assert all(d.quota is None and d.refquota is None for n, d in by.items()
               if n not in ("tank/home", "tank/home/alice"))
    # a refquota bounds AVAIL: what is left of it, not the pool's free space
    alice = by["tank/home/alice"]
    assert alice.avail == (40 << 20) - (alice.refer or 0) < (by["tank"].avail or 0)
    fast, rows = _both(path.read_text(), GUEST_COLUMNS)
    assert fast is not None
    _same(fast, rows)


@pytest.mark.parametrize("quota,want", [("0", None), ("-", None), ("1073741824", 1 << 30),
                                        ("none", None), ("1G", 1 << 30)])
def test_a_quota_cell(quota: str, want: int | None) -> None:
    """`-p` prints 0 for none and bytes; without `-p` zfs prints `none` and `1G` (the
    row-by-row path reads those too)."""
    cols = ("name", "quota", "refquota")
    (d,) = parse_zfs_list(f"tank/a\t{quota}\t{quota}\n", cols)
    assert (d.quota, d.refquota) == (want, want)
    assert not d.props  # fields, not props


def test_aliases_available_referenced() -> None:
    (d,) = parse_zfs_list("tank\t5\t6\n", ["name", "available", "referenced"])
    assert (d.avail, d.refer) == (5, 6)


@pytest.mark.parametrize("text,cols", [
    ("tank\t1\n", ["name", "used", "refer"]),
    ("tank\tabc\n", ["name", "used"]),
    ("tank\t1.5\n", ["name", "createtxg"]),
    ("tank\t1\n", ["used", "refer"]),
])
def test_errors(text: str, cols: list[str]) -> None:
    with pytest.raises(ParseError):
        parse_zfs_list(text, cols)


def test_props_hold_the_columns_no_field_holds() -> None:
    (d,) = parse_zfs_list("tank/a\t14336\t512\toff\n", ["name", "used", "written", "Sync"])
    assert d.used == 14336
    assert d.props == {"written": "512", "sync": "off"}


# -- the column-by-column path gives what the row-by-row path gives -------------------------

def _both(text: str, cols: Sequence[str]) -> tuple[list[Dataset] | None, list[Dataset]]:
    lay = zfs_list._Layout(cols)
    lines = text.splitlines()
    return zfs_list._by_columns(lines, lay, zfs_list._build), zfs_list._by_rows(lines, lay)


def _same(a: list[Dataset], b: list[Dataset]) -> None:
    assert a == b
    assert [(type(d), dict(d.props), hash(d), repr(d)) for d in a] == \
        [(type(d), dict(d.props), hash(d), repr(d)) for d in b]


def _demo_listing(scenario: str, cols: Sequence[str], kind: str = "all") -> str:
    from zconsole.hosts.demo import DemoHost

    host = DemoHost(scenario, clock=lambda: 1.8e9)
    return host.run(("zfs", "list", "-H", "-p", "-t", kind, "-o", ",".join(cols))).stdout


@pytest.mark.parametrize("cols", [
    DEFAULT_COLUMNS, SNAPSHOT_COLUMNS, ("name", "used", "refer", "origin", "clones"),
    ("name", "type", "used", "usedsnap", "ratio", "written", "sync", "createtxg"),
])
@pytest.mark.parametrize("scenario", ["showcase", "big100"])
@pytest.mark.parametrize("chunk", [7, 8192])
def test_fast_path_equals_row_by_row_on_demo_output(scenario: str, cols: Sequence[str],
                                                    chunk: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zfs_list, "_CHUNK", chunk)  # rows are split a chunk at a time
    text = _demo_listing(scenario, cols)
    fast, rows = _both(text, cols)
    assert fast is not None and len(rows) > 2 * 7
    _same(fast, rows)
    assert parse_zfs_list_names(text, cols) == [d.name for d in rows]


def test_an_unusual_row_in_a_later_chunk_gives_the_row_by_row_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zfs_list, "_CHUNK", 4)
    text = "".join(f"tank/a@s{i}\t{i}\t-\n" for i in range(10)) + "tank/a@s10\t5K\t-\n"
    fast, rows = _both(text, ("name", "used", "refer"))
    assert fast is None and rows[-1].used == 5 * 1024 and len(rows) == 11
    assert parse_zfs_list(text, ("name", "used", "refer")) == rows


def test_fast_path_equals_row_by_row_on_real_output() -> None:
    for name, cols in (("2.3.2-all-name-used-refer-origin-clones.txt",
                        ("name", "used", "refer", "origin", "clones")),
                       ("2.3.2-copy-name-used-refer.txt", ("name", "used", "refer"))):
        fast, rows = _both((FIX / name).read_text(), cols)
        assert fast is not None
        _same(fast, rows)


@pytest.mark.parametrize("text", [
    "tank\t5\t-\n\n",                 # a blank line
    "tank\t5\t6\n \t \t \n",          # a line of blanks only
    "tank\t5K\t6\n",                  # a size with a unit (parse_size reads it)
    "tank\t5\n",                      # a short row
    "tank\t\t6\n",                    # an empty size
    "tank\t٣\t6\n",                   # a non-ASCII digit
    "-\t5\t6\n",                      # no name
])
def test_unusual_input_takes_the_row_by_row_path(text: str) -> None:
    cols = ("name", "used", "refer")
    assert zfs_list._by_columns(text.splitlines(), zfs_list._Layout(cols),
                                zfs_list._build) is None
    try:
        expected: object = zfs_list._by_rows(text.splitlines(), zfs_list._Layout(cols))
    except ParseError as e:
        expected = str(e)
    try:
        got: object = parse_zfs_list(text, cols)
    except ParseError as e:
        got = str(e)
    assert got == expected
    try:
        names: object = parse_zfs_list_names(text, cols)
    except ParseError as e:
        names = str(e)
    assert names == (expected if isinstance(expected, str) else [d.name for d in expected])


def test_a_snapshot_listing_is_parsed_column_by_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """What `zfs list -H -p` prints never needs the row-by-row path (work done, not time)."""
    text = _demo_listing("showcase", SNAPSHOT_COLUMNS, "snapshot")

    def refuse(*_: object) -> None:
        raise AssertionError("row by row")

    monkeypatch.setattr(zfs_list, "_by_rows", refuse)
    ds = parse_zfs_list(text, SNAPSHOT_COLUMNS)
    assert ds and all(d.type == "snapshot" and d.createtxg is not None for d in ds)


def test_datasets_from_columns_builds_what_the_constructor_builds() -> None:
    built = datasets_from_columns(
        2, {"name": ["tank/a@s", "tank/b"], "used": [1, None], "clones": [("tank/c",), ()],
            "props": [{"x": "1"}, {}]}, {"type": "snapshot", "compressratio": 1.5})
    assert built == [Dataset("tank/a@s", "snapshot", used=1, clones=("tank/c",),
                             compressratio=1.5),
                     Dataset("tank/b", "snapshot", compressratio=1.5)]
    assert built[0].props == {"x": "1"} and built[1].mountpoint is None
    with pytest.raises(AttributeError):  # immutable
        built[0].name = "x"  # type: ignore[misc]
    # props take no part in equality or hash; a Dataset is not a plain tuple
    assert built[0] == built[0]._replace(props={}) and hash(built[0]) == hash(
        built[0]._replace(props={"y": "2"}))
    assert built[0] != tuple(built[0]) and built[0] != built[1]
    with pytest.raises(ValueError):
        datasets_from_columns(2, {"name": ["a"]}, {"type": "filesystem"})
    with pytest.raises(TypeError):
        datasets_from_columns(1, {"name": ["a"]})  # type has no default
    with pytest.raises(TypeError):
        datasets_from_columns(1, {"name": ["a"], "nope": [1]}, {"type": "filesystem"})


def test_names_alone_build_no_dataset(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan's parse gives the names and builds no Dataset (work done, not time)."""
    text = _demo_listing("showcase", ("name", "createtxg"), "snapshot")
    expected = [d.name for d in parse_zfs_list(text, ("name", "createtxg"))]

    def refuse(*_: object) -> None:
        raise AssertionError("built")

    monkeypatch.setattr(zfs_list, "datasets_from_columns", refuse)
    monkeypatch.setattr(zfs_list, "_by_rows", refuse)
    assert parse_zfs_list_names(text, ("name", "createtxg")) == expected and expected
