"""zfs list -H -p -o parsing against real OpenZFS 2.3.2 output."""

from __future__ import annotations

import pytest

from tests.paths import PARSERS
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, SNAPSHOT_COLUMNS, parse_zfs_list

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
                               "createtxg", "creation")
    assert SNAPSHOT_COLUMNS == ("name", "used", "refer", "createtxg", "creation", "clones")
    # A constructed row in DEFAULT_COLUMNS order (no real output with these columns is stored
    # yet); it only checks the column -> field mapping.
    row = "\t".join(["tank/data", "filesystem", "381783040", "1316363776", "381783040", "-",
                     "0", "1.00", "off", "/tank/data", "11", "1795301990"])
    (d,) = parse_zfs_list(row, DEFAULT_COLUMNS)
    assert d.type == "filesystem" and d.avail == 1316363776 and d.usedbysnapshots == 0
    assert d.compressratio == 1.0 and d.dedup == "off" and d.mountpoint == "/tank/data"
    assert (d.createtxg, d.creation) == (11, 1795301990)
    (d,) = parse_zfs_list(row.replace("1.00", "1.00x"), DEFAULT_COLUMNS)
    assert d.compressratio == 1.0


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
