"""Debian's `prometheus` package for the tests (issue 31): `promtool` and the `prometheus`
server, taken from the package without installing it — `apt-get download` and `dpkg -x` into
the guests' cache directory (`$ZCONSOLE_VM_CACHE`, default ~/.cache/zconsole-testvm), the way
tools/testvm takes OpenZFS's packages. Installing it would start `prometheus.service`
listening on every interface of a machine with systemd; the tests' server listens on a
loopback port of their own, with a temporary config and data directory, and nothing is
installed or started on the machine. When the package cannot be had the test is skipped with
the reason, loudly: a failure instead where the run must not skip
(`ZCONSOLE_REQUIRE_PROMETHEUS=1`, or CI's `ZCONSOLE_REQUIRE_VM=1`).

`running(tmp, exporter_args)` starts `zconsole exporter` (any free loopback port) and a
Prometheus scraping it with the shipped rules, and yields an `Api` once the exporter has been
scraped: the demo test (test_prometheus_real.py) and the guests' (tests/integration/
test_prometheus_guest.py) share it. Both processes are ended by PID, never by name.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULES = DOCS / "prometheus" / "zconsole-rules.yml"
WAIT = 60.0  # Prometheus's first scrape takes 5-10 s; a loaded machine more
V = TypeVar("V")
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait(what: str, fn: Callable[[], V | None], timeout: float = WAIT) -> V:
    """`fn()` asked every 0.3 s until it gives something true (an OSError is a no); the test
    fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = fn()
        except OSError:
            got = None
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:g} s for {what}")
        time.sleep(0.3)


class Api:
    """Prometheus's HTTP API (`data` of a successful answer)."""

    def __init__(self, base: str) -> None:
        self.base = base

    def get(self, path: str, **params: str) -> Any:
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        with urllib.request.urlopen(url, timeout=10) as r:
            doc = json.loads(r.read())
        assert doc["status"] == "success", doc
        return doc["data"]

    def query(self, q: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.get("/api/v1/query", query=q)["result"]
        return result

    def alerts(self, name: str, state: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.get("/api/v1/alerts")["alerts"]
                if a["labels"]["alertname"] == name and state in (None, a["state"])]


def _end(procs: Sequence[subprocess.Popen[str]]) -> None:
    for p in reversed(procs):  # by PID, never by name
        p.send_signal(signal.SIGTERM)
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()


@contextmanager
def running(tmp: Path, exporter_args: Sequence[str], env: dict[str, str] | None = None
            ) -> Iterator[Api]:
    """`zconsole exporter EXPORTER_ARGS --listen 127.0.0.1:0` and Debian's Prometheus (1 s
    scrape and evaluation, the shipped rules, its config and data under `tmp`), both on
    loopback; yields the API once the exporter's target is up; both ended after."""
    prometheus = tool("prometheus")
    env = env or {**os.environ, "HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp / "c"),
                  "XDG_STATE_HOME": str(tmp / "s"), "XDG_CACHE_HOME": str(tmp / "k")}
    exp = subprocess.Popen([sys.executable, "-m", "zconsole", "exporter", *exporter_args,
                            "--listen", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    procs: list[subprocess.Popen[str]] = [exp]
    try:
        assert exp.stdout is not None
        first = exp.stdout.readline()
        m = re.search(r"http://(127\.0\.0\.1:\d+)/metrics", first)
        assert m, first + (exp.stderr.read() if exp.poll() is not None and exp.stderr else "")
        port = free_port()
        (tmp / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {json.dumps(str(RULES))}\n"
            "scrape_configs:\n  - job_name: zconsole\n    static_configs:\n"
            f"      - targets: ['{m.group(1)}']\n")
        with open(tmp / "prometheus.log", "w") as log:  # the child keeps its own copy
            procs.append(subprocess.Popen(
                [prometheus, f"--config.file={tmp / 'prometheus.yml'}",
                 f"--storage.tsdb.path={tmp / 'data'}",
                 f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                stdout=log, stderr=subprocess.STDOUT, text=True))
        api = Api(f"http://127.0.0.1:{port}")
        wait("Prometheus ready", lambda: api.get("/api/v1/status/buildinfo"))
        wait("the exporter scraped", lambda: [t for t in api.get("/api/v1/targets")[
            "activeTargets"] if t["health"] == "up"])
        yield api
    finally:
        _end(procs)
