"""`zconsole check --hosts FILE`: every host checked, in parallel with a bound; the exit code is
the worst host's (CRITICAL over UNKNOWN over WARNING over OK); a host that does not answer
within its deadline is UNKNOWN and never holds the others. Demo hosts, a host whose `zpool
status` fails, and hosts that never answer (`demo = "no-answer"`, and a check that never
returns at all). Behaviour only: no test asserts seconds."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes import StatusFails
from zconsole.cli.commands.check import read_all
from zconsole.cli.main import main
from zconsole.hosts import factory, fleet
from zconsole.hosts.base import Host
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.fleet import HostEntry
from zconsole.services.monitor.report import Report


def hosts_file(tmp_path: Path, *demos: str) -> str:
    f = tmp_path / "hosts.toml"
    f.write_text("".join(f'[[host]]\nname = "h{i}-{d}"\ndemo = "{d}"\n\n'
                         for i, d in enumerate(demos)))
    return str(f)


def check(capsys: pytest.CaptureFixture[str], path: str, *argv: str) -> tuple[int, str]:
    rc = main(["check", "--hosts", path, "--timeout", "0.2", *argv])
    return rc, capsys.readouterr().out


def sections(out: str) -> dict[str, str]:
    """Host name -> its section's text."""
    parts = out.split("\n== ")[1:]
    return {p.split(" ==\n", 1)[0]: p.split(" ==\n", 1)[1] for p in parts}


def test_healthy_hosts_are_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, hosts_file(tmp_path, "healthy", "healthy"))
    assert rc == 0
    assert out.startswith("OK: 2 hosts: 2 OK\n")
    got = sections(out)
    assert list(got) == ["h0-healthy", "h1-healthy"]
    assert all(s.startswith("OK: ") for s in got.values())


def test_a_degraded_host_makes_it_critical(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # two of its mirrors are down to one disk each: no redundancy left (health.severity)
    rc, out = check(capsys, hosts_file(tmp_path, "healthy", "degraded"))
    assert rc == 2
    assert out.startswith("CRITICAL: 2 hosts: 1 CRITICAL, 1 OK\n")
    assert sections(out)["h1-degraded"].startswith("CRITICAL: tank: no redundancy left in ")


def test_a_host_that_never_answers_is_unknown_and_the_others_are_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, hosts_file(tmp_path, "healthy", "no-answer", "resilvering"))
    assert rc == 3
    assert out.startswith("UNKNOWN: 3 hosts: 1 UNKNOWN, 1 WARNING, 1 OK\n")
    got = sections(out)
    assert got["h1-no-answer"].startswith("UNKNOWN: ")
    assert "no answer" in got["h1-no-answer"] and "up=0" in got["h1-no-answer"]
    assert got["h0-healthy"].startswith("OK: ")
    assert got["h2-resilvering"].startswith("WARNING: ")  # its slow disk


def test_critical_is_worse_than_unknown(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, hosts_file(tmp_path, "no-answer", "degraded"))
    assert rc == 2 and out.startswith("CRITICAL: 2 hosts: 1 CRITICAL, 1 UNKNOWN\n")


def test_an_unreadable_host_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    real = factory.make_host

    def make(entry: HostEntry, **kw: object) -> Host:
        host = real(entry, **kw)  # type: ignore[arg-type]
        return StatusFails(host) if entry.name.endswith("broken") else host  # type: ignore[arg-type]

    monkeypatch.setattr(factory, "make_host", make)
    f = tmp_path / "h.toml"
    f.write_text('[[host]]\nname = "fine"\ndemo = "healthy"\n'
                 '[[host]]\nname = "broken"\ndemo = "healthy"\n')
    rc, out = check(capsys, str(f))
    assert rc == 3
    assert sections(out)["broken"].startswith("UNKNOWN: pool health unknown: ")


def test_json_lists_every_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, hosts_file(tmp_path, "healthy", "no-answer"), "--json")
    doc = json.loads(out)
    assert rc == 3 and doc["exit_code"] == 3 and doc["status"] == "unknown"
    assert doc["version"] == 1
    assert [(h["host"], h["status"], h["exit_code"]) for h in doc["hosts"]] == [
        ("h0-healthy", "ok", 0), ("h1-no-answer", "unknown", 3)]


def test_prometheus_has_a_host_label_and_one_family_per_metric(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prom = tmp_path / "zconsole.prom"
    rc, _ = check(capsys, hosts_file(tmp_path, "healthy", "degraded", "no-answer"),
                  "--prometheus", str(prom))
    assert rc == 2  # a known loss of redundancy outranks a host that does not answer
    lines = prom.read_text().splitlines()
    for host, level in (("h0-healthy", "ok"), ("h1-degraded", "critical"),
                        ("h2-no-answer", "unknown")):
        assert f'zconsole_host_severity{{host="{host}",severity="{level}"}} 1.0' in lines
    assert 'zconsole_up{host="h2-no-answer"} 0.0' in lines
    assert 'zconsole_up{host="h1-degraded"} 1.0' in lines
    # each family once, its samples together (the exposition format wants them so)
    families = [ln.split()[2] for ln in lines if ln.startswith("# TYPE")]
    assert len(families) == len(set(families))
    order = [ln.split("{")[0] for ln in lines if not ln.startswith("#")]
    assert order == sorted(order, key=lambda name: families.index(name))


def test_a_malformed_hosts_file_is_unknown_with_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "h.toml"
    f.write_text('[[host]]\nname = "a"\nssh = "a"\nport = 2\n')
    rc, out = check(capsys, str(f))
    assert rc == 3 and out.startswith(f"UNKNOWN: {f}:4: unknown key 'port'")
    f.write_text("")
    assert check(capsys, str(f))[0] == 3


def entries(n: int) -> list[HostEntry]:
    return [HostEntry(f"h{i}", demo="healthy") for i in range(n)]


def test_a_check_that_never_returns_is_unknown_past_its_deadline() -> None:
    """One at a time, on a clock that jumps past the deadline once h1 has begun (and h0 has
    ended): h1 is given up, h0 and h2 are judged. No result depends on how fast it runs."""
    release = threading.Event()
    h1_began = threading.Event()

    def one(e: HostEntry) -> Report:
        if e.name == "h1":
            h1_began.set()
            release.wait(600)  # never returns within the test
        return Report(e.name, 0.0)

    def clock() -> float:
        return 1e9 if h1_began.is_set() else 0.0

    try:
        got = read_all(entries(3), one, workers=1, deadline=0.01, clock=clock)
    finally:
        release.set()
    assert [v.host for v in got] == ["h0", "h1", "h2"]
    assert [v.status.name for v in got] == ["OK", "UNKNOWN", "OK"]
    assert "no answer within" in got[1].findings[0].message


def test_hosts_are_checked_in_parallel_with_a_bound() -> None:
    lock = threading.Lock()
    running = 0
    most = 0
    gate = threading.Barrier(3, timeout=60)  # three must run at once, or this never passes

    def one(e: HostEntry) -> Report:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        if e.name in ("h0", "h1", "h2"):
            gate.wait()
        with lock:
            running -= 1
        return Report(e.name, 0.0)

    got = read_all(entries(9), one, workers=3, deadline=600)
    assert len(got) == 9 and most == 3


def test_a_check_that_raises_is_that_hosts_unknown() -> None:
    def one(e: HostEntry) -> Report:
        if e.name == "h0":
            raise OSError("boom")
        return Report(e.name, 0.0)

    got = read_all(entries(2), one, deadline=600)
    assert [v.status.name for v in got] == ["UNKNOWN", "OK"]
    assert "OSError: boom" in got[0].findings[0].message


def test_several_host_options_check_each(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    made: list[Sequence[str]] = []

    def make(entry: HostEntry, **kw: object) -> Host:
        made.append((entry.name, entry.ssh or ""))
        return DemoHost("healthy")

    monkeypatch.setattr(factory, "make_host", make)
    rc = main(["--host", "root@a", "--host", "b", "check", "--timeout", "0.2"])
    assert rc == 0 and made == [("root@a", "root@a"), ("b", "b")]
    assert capsys.readouterr().out.startswith("OK: 2 hosts: 2 OK\n")


def tagged_file(tmp_path: Path) -> str:
    f = tmp_path / "tagged.toml"
    f.write_text('[[host]]\nname = "nas1"\ndemo = "healthy"\ntags = ["prod", "rack-a"]\n\n'
                 '[[host]]\nname = "nas2"\ndemo = "degraded"\ntags = ["prod", "rack-b"]\n\n'
                 '[[host]]\nname = "lab"\ndemo = "degraded"\ntags = ["lab"]\n')
    return str(f)


def test_tag_keeps_the_hosts_that_carry_every_tag_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tagged_file(tmp_path)
    rc, out = check(capsys, path, "--tag", "prod")
    assert rc == 2 and list(sections(out)) == ["nas1", "nas2"]
    rc, out = check(capsys, path, "--tag", "prod", "--tag", "rack-a")
    assert rc == 0 and list(sections(out)) == ["nas1"]


def test_a_tag_no_host_has_is_refused_with_the_tags_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["check", "--hosts", tagged_file(tmp_path), "--tag", "rack-c"])
    out = capsys.readouterr().out
    assert rc == 3 and out.startswith("UNKNOWN: no host of the hosts file")  # never OK
    assert "rack-c" in out and "lab, prod, rack-a, rack-b" in out  # what the file has


def test_a_tag_without_a_fleet_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["check", "--demo", "healthy", "--tag", "prod"])
    assert rc == 3 and "--tag chooses among several hosts" in capsys.readouterr().out
    # the console says it before it needs a terminal
    rc = main(["--hosts", str(Path(__file__)), "--tag", "prod"])  # not a hosts file
    assert rc != 0 and "zconsole: " in capsys.readouterr().err
    rc = main(["--demo", "healthy", "--tag", "prod"])
    assert rc != 0 and "--tag chooses among several hosts" in capsys.readouterr().err


def test_with_tags_keeps_the_file_order() -> None:
    entries = (HostEntry("a", demo="healthy", tags=("x", "y")), HostEntry("b", demo="healthy"),
               HostEntry("c", demo="healthy", tags=("y", "x", "z")))
    assert [e.name for e in fleet.with_tags(entries, ["x", "y"])] == ["a", "c"]
    assert fleet.with_tags(entries, []) == entries
