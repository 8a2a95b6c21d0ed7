"""Debian's `prometheus` package for the tests (issue 31): `promtool` and the `prometheus`
server, taken from the package without installing it — `apt-get download` and `dpkg -x` into
the guests' cache directory (`$ZCONSOLE_VM_CACHE`, default ~/.cache/zconsole-testvm), the way
tools/testvm takes OpenZFS's packages. Installing it would start `prometheus.service`
listening on every interface of a machine with systemd; the tests' server listens on a
loopback port of their own, with a temporary config and data directory, and nothing is
installed or started on the machine. When the package cannot be had the test is skipped with
the reason, loudly: a failure instead where the run must not skip
(`ZCONSOLE_REQUIRE_PROMETHEUS=1`, or CI's `ZCONSOLE_REQUIRE_VM=1`).
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


def cache_dir() -> Path:
    root = os.environ.get("ZCONSOLE_VM_CACHE") or str(Path.home() / ".cache" / "zconsole-testvm")
    return Path(root) / "prometheus-deb"


def _unpack() -> str | None:
    """The package's files under `cache_dir()/root` (serialised between test workers); None
    when there, else why not."""
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        return "no apt-get/dpkg on this machine"
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        if (cache / "root" / "usr" / "bin" / "prometheus").exists():
            return None
        work = Path(tempfile.mkdtemp(dir=cache))
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        get = subprocess.run([*APT, "download", PACKAGE], cwd=work, capture_output=True,
                             text=True, env=env, timeout=600)
        if get.returncode != 0 and os.geteuid() == 0:  # lists missing: a fresh container
            subprocess.run([*APT, "update"], capture_output=True, env=env, timeout=600)
            get = subprocess.run([*APT, "download", PACKAGE], cwd=work, capture_output=True,
                                 text=True, env=env, timeout=600)
        debs = sorted(work.glob(f"{PACKAGE}_*.deb"))
        if get.returncode != 0 or not debs:
            shutil.rmtree(work, ignore_errors=True)
            return f"apt-get download {PACKAGE} failed: {(get.stderr or get.stdout)[-300:]}"
        unpacked = subprocess.run(["dpkg", "-x", str(debs[0]), str(work / "root")],
                                  capture_output=True, text=True, timeout=300)
        if unpacked.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            return f"dpkg -x {debs[0].name} failed: {unpacked.stderr[-300:]}"
        (work / "root").rename(cache / "root")
        shutil.rmtree(work, ignore_errors=True)
    return None


def tool(name: str) -> str:
    """The path of `promtool` or `prometheus` from the unpacked package (never the machine's
    own, so that every run uses Debian 12's 2.42)."""
    found = cache_dir() / "root" / "usr" / "bin" / name
    if not found.exists() and not _failed:
        _failed.append(_unpack() or "")
    if found.exists():
        return str(found)
    _unavailable(_failed[0] if _failed and _failed[0] else
                 f"{name} not in {PACKAGE}'s files after unpacking it")
