"""Debian's `prometheus` package for the tests (issue 31): `promtool` and the `prometheus`
server, installed with apt the way tools/testvm installs qemu when they are missing and we are
root (`./dev test` in CI runs as root), else the test is skipped with the reason, loudly: a
failure instead where the run must not skip (`ZCONSOLE_REQUIRE_PROMETHEUS=1`, or CI's
`ZCONSOLE_REQUIRE_VM=1`).

The package's postinst would start `prometheus.service` on a host with systemd: the tests
never use it (their server listens on a loopback port of their own, with a temporary config
and data directory) and never stop or change it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

PACKAGE = "prometheus"  # Debian 12: 2.42.0, brings promtool
APT = ["apt-get", "-q", "-o", "DPkg::Lock::Timeout=300"]
_failed: list[str] = []


def _required() -> bool:
    return any(os.environ.get(v, "").strip().lower() in {"1", "yes", "true", "on"}
               for v in ("ZCONSOLE_REQUIRE_PROMETHEUS", "ZCONSOLE_REQUIRE_VM"))


def _unavailable(why: str) -> NoReturn:
    msg = f"Debian package {PACKAGE} (promtool, prometheus) unavailable: {why}"
    if _required():
        pytest.fail(msg)
    pytest.skip(msg)


def _install() -> str | None:
    """apt-get install the package (serialised between test workers); None when done, else
    why not."""
    if shutil.which("apt-get") is None:
        return "no apt-get on this machine"
    if os.geteuid() != 0:
        return "not root, cannot apt-get install it (install it: apt-get install prometheus)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = Path(tempfile.gettempdir()) / "zconsole-test-apt.lock"
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        if shutil.which("promtool") and shutil.which("prometheus"):
            return None
        install = [*APT, "install", "-y", "--no-install-recommends", PACKAGE]
        p = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
        if p.returncode != 0:
            subprocess.run([*APT, "update"], capture_output=True, env=env, timeout=600)
            p = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
        if p.returncode != 0:
            return f"apt-get install {PACKAGE} failed: {(p.stderr or p.stdout)[-300:]}"
    return None


def tool(name: str) -> str:
    """The path of `promtool` or `prometheus`, installing the package when missing."""
    found = shutil.which(name)
    if found:
        return found
    if not _failed:
        _failed.append(_install() or "")
    found = shutil.which(name)
    if found:
        return found
    _unavailable(_failed[0] or f"{name} not on PATH after installing {PACKAGE}")
