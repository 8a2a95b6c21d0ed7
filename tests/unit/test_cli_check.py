"""`zconsole check`: one reading judged as the console judges it, the monitoring-plugin exit
codes (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), perfdata, JSON and the node_exporter textfile.
A host whose `zpool status` fails or hangs is UNKNOWN, never OK."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes import DelegatingHost, StatusFails
from zconsole.cli.commands.check import run_check
from zconsole.cli.main import main
from zconsole.hosts.base import DEFAULT_TIMEOUT, Result
from zconsole.hosts.demo import DemoHost


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(["check", *argv])
    return rc, capsys.readouterr().out


def args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {"timeout": 30.0, "capacity_warn": 80, "capacity_crit": 90,
                               "sample": 0.0, "json": False, "prometheus": None}
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_a_healthy_host_is_ok(capsys: pytest.CaptureFixture[str], version: str) -> None:
    rc, out = check(capsys, "--demo", "healthy", "--zfs-version", version)
    assert rc == 0
    head = out.splitlines()[0]
    assert head.startswith("OK: 1 pool healthy | ")
    assert "up=1" in head and "tank_pool_health=0" in head
    assert "tank_pool_capacity_percent=" in head and "%;80;90" in head


def test_a_degraded_pool_says_its_devices(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "degraded")
    assert rc == 2  # two mirrors down to one disk each: tests/unit/test_check_scale.py
    lines = out.splitlines()
    assert "tank_pool_device_errors=120c" in lines[0]
    assert any(line.startswith("▲ WARNING tank is DEGRADED: ") and
               "FAULTED after 3 read, 117 write errors" in line for line in lines[1:])


def test_capacity_thresholds(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "healthy", "--capacity-warn", "10", "--capacity-crit", "95")
    assert rc == 1 and "WARNING: tank is " in out and "% full" in out


def test_an_unreadable_host_is_unknown_never_ok() -> None:
    out = io.StringIO()
    rc = run_check(StatusFails(DemoHost("healthy")), args(), out)  # type: ignore[arg-type]
    assert rc == 3
    head = out.getvalue().splitlines()[0]
    assert head.startswith("UNKNOWN: pool health unknown: ")
    assert "up=0" in head and "pool_health" not in head


class StatusHangs(DelegatingHost):
    """`zpool status` never answers (a suspended pool); the other reads do."""

    concurrent_reads = True

    def __init__(self) -> None:
        super().__init__(DemoHost("healthy"))
        self.release = threading.Event()
        self.lock = threading.Lock()

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if tuple(argv[:2]) == ("zpool", "status"):
            self.release.wait(120)
        with self.lock:  # the demo machine answers one command at a time
            return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def test_a_hung_host_is_unknown_and_the_check_ends() -> None:
    host = StatusHangs()
    out = io.StringIO()
    try:
        rc = run_check(host, args(timeout=0.5), out)  # type: ignore[arg-type]
    finally:
        host.release.set()
    assert rc == 3
    assert out.getvalue().startswith("UNKNOWN: pool health unknown: ")
    assert "no answer" in out.getvalue()


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "degraded", "--json")
    d = json.loads(out)
    assert rc == 2 and d["version"] == 1 and d["exit_code"] == 2 and d["status"] == "critical"
    assert d["host"] == "demo: degraded"
    (f,) = [f for f in d["findings"] if f["kind"] == "pool-state"]
    assert f["severity"] == "warning" and f["pool"] == "tank"
    names = {m["name"] for m in d["metrics"]}
    assert {"zconsole_up", "zconsole_pool_health", "zconsole_pool_capacity_percent",
            "zconsole_pool_device_errors"} <= names


def test_prometheus_textfile_is_written_whole_with_escaped_labels(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "zconsole.prom"
    rc, _ = check(capsys, "--demo", "hostile", "--prometheus", str(target))
    assert rc == 0
    text = target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["zconsole.prom"]  # no temporary left
    assert "\x1b" not in text and "\x07" not in text
    assert '# TYPE zconsole_pool_severity gauge' in text
    # host text made visible, then escaped by prometheus_client (a backslash doubled)
    assert ('zconsole_pool_severity{host="demo: hostile",pool="tank\\\\x1b]0;owned\\\\x07",'
            'severity="ok"} 1.0') in text.splitlines()
    assert 'zconsole_host_severity{host="demo: hostile",severity="ok"} 1.0' in text


def test_hostile_names_never_reach_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "hostile")
    assert "\x1b" not in out and "\x07" not in out
    head = out.splitlines()[0]
    assert " tank_x1b_0_owned_x07_pool_health=0 " in head


def test_check_never_imports_textual() -> None:
    code = ("import sys; import zconsole.cli.commands.check as c; "
            "from zconsole.services.session import HostSession; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')], "
            "sorted(m for m in sys.modules if m.startswith(('textual', 'rich')))")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


def test_advice_alone_is_at_most_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "advice", "--advice", "--sample", "0")
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith("WARNING: scratch is 86 % full (and 8 more) | ")
    # advice is not pool health; the capacity is (the one scale's pool-capacity)
    assert "tank_pool_health=0" in lines[0] and "scratch_pool_health=1" in lines[0]
    assert "▲ WARNING tank: mirror-0 writes 512 B blocks (ashift 9) to disks with 4096 B " \
           "physical sectors" in lines
    assert "• INFO tank: mirror-0 is 86 % full, mirror-1 12 %" in lines
    assert not any("CRITICAL" in line for line in lines)
    # the scale's capacity finding says it, with its thresholds; the advice does not repeat it
    assert [line for line in lines[1:] if "scratch is 86 % full" in line] == [
        "▲ WARNING scratch is 86 % full"]


def test_advice_in_json_carries_why_cost_and_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "advice", "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["status"] == "warning"
    scrub = [a for a in doc["advice"] if a["kind"] == "advice-scrub"]
    assert scrub == [{"kind": "advice-scrub", "subject": "scratch",
                      "why": scrub[0]["why"], "cost": scrub[0]["cost"],
                      "command": "zpool scrub scratch"}]
    assert "monthly" in scrub[0]["why"]
    assert {f["kind"] for f in doc["findings"]} >= {"advice-ashift", "advice-l2arc"}


def test_no_advice_and_scrub_weeks(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "advice", "--no-advice", "--sample", "0")
    assert rc == 1 and "advice" not in out and "ashift" not in out  # capacity 86 % remains
    rc, out = check(capsys, "--demo", "advice", "--scrub-weeks", "20")
    assert "last scrubbed" not in out


def test_a_healthy_host_with_advice_is_still_ok(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "--demo", "healthy")
    assert rc == 0
    assert out.splitlines()[1:] == [
        "• INFO compression is off on 1 dataset holding 2.3 TiB (set on tank/media)"]


def test_muted_advice_is_left_out_and_listed_with_its_reason(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from zconsole.hosts.demo import DemoHost
    from zconsole.hosts.journal import MuteStore
    from zconsole.model.advice import Mute

    label = str(DemoHost("advice").label)
    MuteStore.default(simulated=True).mute(
        label, Mute("advice-scrub", "scratch", "scratch is rebuilt every month", 5.0))
    rc, out = check(capsys, "--demo", "advice", "--json")
    doc = json.loads(out)
    assert "advice-scrub" not in {f["kind"] for f in doc["findings"]}
    assert doc["muted"] == [{"kind": "advice-scrub", "subject": "scratch",
                             "message": "scratch was last scrubbed 80 d ago",
                             "reason": "scratch is rebuilt every month", "muted_at": 5.0}]
    from zconsole.hosts.journal import demo_state_dir, state_dir

    assert (demo_state_dir() / "advice-mutes.json").exists()  # the demo's, apart
    assert not (state_dir() / "advice-mutes.json").exists()
