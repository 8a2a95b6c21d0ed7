"""zconsole's cache directory (hosts/cache.py): made as zconsole's own, and read only when
nobody else could have written what is there (what is read is unpickled: kit/css_cache.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zconsole.hosts.cache import cache_dir, read_cached, write_cached


def test_the_cache_is_under_xdg_cache_home_or_home(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "zconsole"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/place")  # the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "zconsole"


def test_written_as_ours_and_read_back() -> None:
    assert read_cached("a") is None
    assert write_cached("a", b"\x00kept\n")
    path = cache_dir() / "a"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_cached("a") == b"\x00kept\n"
    assert write_cached("a", b"again") and read_cached("a") == b"again"


def test_what_another_could_have_written_is_not_read(tmp_path: Path) -> None:
    assert write_cached("a", b"kept")
    path = cache_dir() / "a"
    for mode in (0o620, 0o602):
        os.chmod(path, mode)
        assert read_cached("a") is None, oct(mode)
    os.chmod(path, 0o600)
    os.chmod(path.parent, 0o777)
    assert read_cached("a") is None  # a directory others write in: anything may be planted
    assert not write_cached("a", b"other")
    os.chmod(path.parent, 0o700)
    path.unlink()
    elsewhere = tmp_path / "planted"
    elsewhere.write_bytes(b"planted")
    os.chmod(elsewhere, 0o600)
    path.symlink_to(elsewhere)
    assert read_cached("a") is None  # a link is not followed
    path.unlink()
    path.mkdir()
    assert read_cached("a") is None  # nor a directory read


def test_a_file_larger_than_the_limit_is_not_read() -> None:
    assert write_cached("big", b"x" * 100)
    assert read_cached("big", limit=99) is None
    assert read_cached("big", limit=100) == b"x" * 100


@pytest.mark.parametrize("name", ["", ".hidden", "../up", "a/b", "/etc/passwd", "nul\0"])
def test_a_name_outside_the_cache_is_refused(name: str) -> None:
    with pytest.raises(ValueError):
        write_cached(name, b"x")
    with pytest.raises(ValueError):
        read_cached(name)
