"""Issue 31: `zconsole exporter` serves the monitor's metrics over HTTP; a scrape never waits
for a host; it listens on 127.0.0.1 unless told; it ends cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from zconsole.cli.commands import exporter
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.silent import SilentHost
from zconsole.services.monitor.loop import Monitor
from zconsole.services.monitor.member import Member


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        body: bytes = r.read()
        return body.decode()


def test_listen_address_is_parsed_and_the_default_is_loopback() -> None:
    assert exporter.listen_address(exporter.DEFAULT_LISTEN) == ("127.0.0.1",
                                                                exporter.DEFAULT_PORT)
    assert exporter.listen_address("[::1]:9100") == ("::1", 9100)
    assert exporter.listen_address("0.0.0.0:0") == ("0.0.0.0", 0)
    for bad in ("9939", ":9939", "host:", "host:port", "h:70000"):
        with pytest.raises(ValueError, match="ADDR:PORT"):
            exporter.listen_address(bad)


def test_a_scrape_is_served_while_a_host_hangs(tmp_path: Path) -> None:
    """The silent host's refresh is in flight (it waits for its deadline) while the scrape
    is answered from what the monitor holds: the demo host's pools, the silent one up 0."""
    silent = SilentHost("nas-dead")
    dead = Member.of("nas-dead", silent, timeout=3600)
    good = Member.of("nas1", DemoHost("degraded"))
    mon = Monitor([good, dead], stale_after=3600)
    mon.refresh(good)
    hung = threading.Thread(target=mon.refresh, args=(dead,), daemon=True)
    hung.start()
    httpd, t = exporter.serve(mon, "127.0.0.1", 0)
    try:
        while silent.asked == 0:  # the silent host was asked, and has not answered
            time.sleep(0.01)
        text = get(f"http://127.0.0.1:{httpd.server_port}/metrics")
        assert dead.session.running  # the scrape ended before the read did
    finally:
        exporter.stop(httpd, t)
        silent.wake()
        hung.join(10)
    lines = text.splitlines()
    assert 'zconsole_up{host="nas-dead"} 0.0' in lines
    assert 'zconsole_up{host="nas1"} 1.0' in lines
    assert 'zconsole_pool_state{host="nas1",pool="tank",state="degraded"} 1.0' in lines
    assert 'zconsole_host_severity{host="nas-dead",severity="unknown"} 1.0' in lines
    assert not any(ln.startswith(("python_", "process_")) for ln in lines)  # private registry


def test_the_command_serves_the_demo_fleet_and_ends_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c"),
           "XDG_STATE_HOME": str(tmp_path / "s"), "XDG_CACHE_HOME": str(tmp_path / "k")}
    p = subprocess.Popen([sys.executable, "-m", "zconsole", "exporter", "--demo-fleet",
                          "--listen", "127.0.0.1:0", "--refresh", "1", "--timeout", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout is not None
        first = p.stdout.readline()
        assert first.startswith("zconsole exporter: serving http://127.0.0.1:"), first
        url = first.split()[3]
        assert url.endswith("/metrics") and "for 4 hosts" in first
        deadline = time.monotonic() + 60
        while True:  # the first readings land in the background
            text = get(url)
            if 'zconsole_up{host="demo-degraded"} 1.0' in text or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert 'zconsole_up{host="demo-degraded"} 1.0' in text
        assert 'zconsole_up{host="demo-no-answer"} 0.0' in text
        assert 'zconsole_host_severity{host="demo-degraded",severity="critical"} 1.0' in text
    finally:
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert err == ""  # no request log, no traceback


def test_a_wrong_listen_address_is_one_line_and_exit_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    from zconsole.cli.main import main

    assert main(["exporter", "--demo", "healthy", "--listen", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zconsole exporter: --listen 'nowhere': give ADDR:PORT")
    assert len(err.splitlines()) == 1


def test_a_port_in_use_is_one_line_exit_2_and_the_signals_are_given_back(
        capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from zconsole.cli.main import main

    before = signal.getsignal(signal.SIGTERM)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["exporter", "--demo", "healthy", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"zconsole exporter: cannot listen on 127.0.0.1:{port}: ")
    assert len(err.splitlines()) == 1
    assert signal.getsignal(signal.SIGTERM) is before
