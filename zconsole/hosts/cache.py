"""zconsole's cache: what it can make again, kept so that the next start need not.

* `cache_dir()`: `$XDG_CACHE_HOME/zconsole`, else `~/.cache/zconsole` (a relative
  `XDG_CACHE_HOME` is ignored, as the XDG specification says).
* `read_cached(name)`: the file's bytes, or None when there is none or it cannot be trusted:
  not a regular file (a link planted there is not followed), larger than `limit`, owned by
  another user than us or root, writable by others, or in a directory others can write to.
  What is read here is trusted as zconsole's own making (`ui/kit/css_cache.py` unpickles
  it), as Python trusts the bytecode it caches: only its owner can have written it.
* `write_cached(name, data)`: replaced atomically, mode 0600, in a directory of ours (0700,
  made if missing; one others can write to is refused): `journal.write_atomically`.

A cache is never the operator's problem: one that cannot be read or written is no cache
(None, False), and the console starts as it would have without it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from zconsole.hosts.journal import (
    UnsafeDirectory,
    check_directory,
    ensure_own_dir,
    write_atomically,
)

LIMIT = 4 * 1024 * 1024  # bytes: a cache file larger than this was not made here


def cache_dir() -> Path:
    """Where zconsole keeps what it can make again (created on first write, not here)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "zconsole"
    return Path.home() / ".cache" / "zconsole"


def read_cached(name: str, limit: int = LIMIT) -> bytes | None:
    """The bytes of cache file `name`, or None (absent, or not to be trusted: above)."""
    path = cache_dir() / _plain(name)
    try:
        check_directory(path.parent)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except (OSError, UnsafeDirectory):
        return None
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_size > limit
                or st.st_uid not in (os.geteuid(), 0)
                or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_cached(name: str, data: bytes) -> bool:
    """Replace cache file `name` with `data`; False when it could not be written."""
    directory = cache_dir()
    try:
        ensure_own_dir(directory)
        write_atomically(directory / _plain(name), data, mode=0o600)
    except (OSError, UnsafeDirectory):
        return False
    return True


def _plain(name: str) -> str:
    """A file name of the cache's own: no directory, nothing hidden."""
    if not name or name != os.path.basename(name) or name.startswith(".") or "\0" in name:
        raise ValueError(f"not a cache file name: {name!r}")
    return name
