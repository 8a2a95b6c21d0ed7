"""zfs version parsing against real outputs (2.3.2, 2.1.11 Debian 12, 0.8.3 Ubuntu)."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from zconsole.parsers.errors import ParseError
from zconsole.parsers.version import ZfsVersion, parse_zfs_version, supports_json


@pytest.mark.parametrize("name,userland,kmod,numeric,json", [
    ("2.3.2-zfs-version.txt", "2.3.2-2~bpo12+2", "2.3.2-2~bpo12+2", (2, 3, 2), True),
    ("2.3.2-sys-module-zfs-version.txt", None, "2.3.2-2~bpo12+2", (2, 3, 2), True),
    ("2.1.11-deb12u1-zfs-version.txt", "2.1.11-1+deb12u1", "2.1.11-1+deb12u1", (2, 1, 11),
     False),
    ("0.8.3-ubuntu-zfs-version.txt", "0.8.3-1ubuntu12.4", "0.8.3-1ubuntu12.4", (0, 8, 3),
     False),
])
def test_fixtures(name: str, userland: str | None, kmod: str, numeric: tuple[int, int, int],
                  json: bool) -> None:
    v = parse_zfs_version(parser_text("version", name))
    assert (v.userland, v.kmod, v.numeric) == (userland, kmod, numeric)
    assert v.kmod_numeric == numeric
    assert supports_json(v) is json
    assert not v.mismatch


def test_mismatch_and_unknown_kmod() -> None:
    v = parse_zfs_version("zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.1.11-1\n")
    assert v.mismatch and v.numeric == (2, 3, 2) and v.kmod_numeric == (2, 1, 11)
    v = parse_zfs_version("zfs-2.1.11-1\nzfs-kmod-unknown\n")
    assert v == ZfsVersion("2.1.11-1", None, (2, 1, 11))


@pytest.mark.parametrize("text", ["", "hello\n", "zfs-garbage\n"])
def test_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zfs_version(text)
