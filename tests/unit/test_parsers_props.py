"""zfs get / zpool get -H -p parsing against real OpenZFS 2.3.2 output."""

from __future__ import annotations

import pytest

from tests.paths import PARSERS
from zconsole.model.dataset import PropertyValue
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get, props_by_name

FIX = PARSERS / "props"


def test_zpool_get() -> None:
    rows = parse_get((FIX / "2.3.2-zpool-get-autoexpand-size-expandsize.txt").read_text())
    assert rows == [
        PropertyValue("tank", "autoexpand", "on", "local"),
        PropertyValue("tank", "size", "1006632960", "-"),
        PropertyValue("tank", "expandsize", "-", "-"),
    ]


def test_zfs_get_and_by_name() -> None:
    rows = parse_get((FIX / "2.3.2-zfs-get-dedup-used-logicalused.txt").read_text())
    assert props_by_name(rows) == {
        "tank/dd": {"dedup": "on", "used": "201481216", "logicalused": "201403904"}}
    rows = parse_get((FIX / "2.3.2-zfs-get-dedup-human.txt").read_text())
    assert rows == [PropertyValue("tank/dd", "dedup", "off", "local")]


def test_values_and_sources_with_spaces_and_tabs() -> None:
    rows = parse_get("tank/a\tmountpoint\t/srv/my data\tinherited from tank\n"
                     "tank/a\tcom.example:note\tx\ty\tlocal\n")
    assert rows[0].value == "/srv/my data" and rows[0].source == "inherited from tank"
    assert rows[1].value == "x\ty"


def test_too_few_fields() -> None:
    with pytest.raises(ParseError):
        parse_get("tank\tsize\t1\n")
