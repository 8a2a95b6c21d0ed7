"""Suite-wide hooks that must live where pytest-xdist's controller loads them.

Under `./dev test` the tests run in xdist workers and the controller collects nothing, so it
never loads tests/integration/conftest.py: the guests' timings and the host guest's figures,
which that conftest prints at the end of a one-process run, are handed over by each worker
(`workeroutput`, see its pytest_sessionfinish) and printed here instead.
"""

from __future__ import annotations

import os
import re
import resource
import time
from pathlib import Path
from typing import Any

import pytest

from zconsole.hosts import journal

# Pilot's wait for the screen to process its messages gives up after 30 s of wall time, a
# figure of Textual's own (pilot.py, `_wait_for_screen`). On a loaded CI machine (guest images
# building at nice 0 while the tests run at nice 5, then six QEMU guests) a worker went 30 s
# with too little CPU to process one refresh's messages, twice (stop 37's CI, the Advice
# tests): a wait that measures load, not the console. The patience is the test's own timeout
# (pyproject's `timeout`, 300 s), which still stops a screen that really hangs.
PILOT_PATIENCE_S = 300.0


def _patient_pilot() -> None:
    from textual.pilot import Pilot

    wait = Pilot._wait_for_screen

    async def patient(self: Pilot[Any], timeout: float = 30.0) -> bool:
        return await wait(self, timeout=max(timeout, PILOT_PATIENCE_S))

    Pilot._wait_for_screen = patient  # type: ignore[method-assign]


_patient_pilot()

# Every place zconsole keeps or reads its own files on the operator's machine, by the variable
# that names it (the XDG base directories, zconsole's own overrides). HOME stays: ssh to the
# guests reads it.
HERMETIC_DIRS = ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
HERMETIC_UNSET = ("ZCONSOLE_STATE_DIR", journal.DEMO_STATE_ENV)


@pytest.fixture(autouse=True)
def hermetic_dirs(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets state, config, cache and data directories of its own, empty, and a
    demo state of its own: what the operator's real directories hold (an audit log the
    hand-run demo wrote today, a hosts file, muted advice) can change no test. A test that
    wants a given place sets the variable itself (monkeypatch)."""
    root = tmp_path_factory.mktemp("xdg")
    for name in HERMETIC_DIRS:
        monkeypatch.setenv(name, str(root / name.lower()))
    for name in HERMETIC_UNSET:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(journal, "_run_demo_dir", [root / "demo-run"])
    return root

_from_workers: dict[str, Any] = {"timings": [], "figures": [], "failures": {}, "one_flavour": {}}
# per xdist group (loadgroup: the node id ends "@GROUP"; "-" for the ungrouped tests): when its
# first report and its last reached the controller, seconds since the session began, and the
# seconds its tests took (setup, call, teardown). Where a parallel run's wall time goes: the
# group that ends last is the run's long pole.
_groups: dict[str, dict[str, float]] = {}
_began = time.monotonic()
_GROUP = re.compile(r"@([\w.-]+)$")
# Where the CPU went (issue 33: on 2 cores the run is CPU-bound, so its wall time is about
# the CPU it needs over two): each worker's own CPU and its children's (the QEMU guests it
# started and stopped, ssh, the guest builds), by the groups it ran; and the machine's
# busy share over the run from /proc/stat.
_worker_groups: dict[str, int] = {}
# the CPU seconds of the guests by test, setup and teardown included (the first test of a
# group pays its guest's boot): tests/integration/conftest.py's "guest_cpu_s"
_test_guest_cpu: dict[str, float] = {}
GUEST_CPU_TOP = 15
_worker_cpu: list[dict[str, Any]] = []
_machine_at_start: tuple[float, float] | None = None


def machine_cpu() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    try:
        fields = [float(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return (sum(fields) - idle) / tick, sum(fields) / tick


def own_cpu() -> dict[str, float]:
    """This process's CPU seconds and its reaped children's (user + system)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"self": me.ru_utime + me.ru_stime, "children": kids.ru_utime + kids.ru_stime}

# Each xdist group's budget: the seconds after pytest began by which its last test should
# have reported, on a 2-core machine without KVM, guests built cold (issue 33: `.ci/run` from
# a fresh clone in at most 45 minutes; installing, ruff, mypy, vermin and the import layers
# take about 4 of them, a cold guest build 10-12 inside its group's first test). A group over
# its budget is named in a WARNING line of the summary, never a failure: a loaded machine
# must not turn CI red. The rule for every new guest test: say its cost (seconds on a quiet
# run) in its group's line below, and keep the group within its budget.
RUN_BUDGET = 2400
GROUP_BUDGETS = {
    "-": 1800,  # the unit and UI tests, in the workers beside the guests
    # both OpenZFS flavours, one worker each: their guest build (~600 cold), the plans,
    # wizards and reads on real ZFS; issue 26: two faulted members, replace one (~60 each);
    # dedup-off keeps the old copy and every snapshot (~90 each); issue 31: the exporter and
    # a real Prometheus over the guest and a dead host (~35 quiet, ~65 loaded, each);
    # issue 30: SMART of the AHCI and NVMe disks, the Disks screen and check (~30-45 loaded)
    "zfs2.3": RUN_BUDGET, "zfs2.1": RUN_BUDGET,
    # the host guest: the console inside the Debian 12 host (zconsole installed from this
    # checkout as an upgrade), the fix-its through the Host screen, the login journal
    "host": RUN_BUDGET,
    # a second host guest (issue 33): the faults, the fix-its' plans and their undos driven
    # from here over ssh; issue 26: an undo refused after a hand edit (~30); the 2-minute
    # frozen logind (~300)
    "host-b": RUN_BUDGET,
    # the host guest's minutes-long tests: the README's first install into a new venv under
    # emulation (~290 on a loaded run), the boot fixes with three reboots, one into the
    # 2-minute hang (~700 on a quiet run)
    "host-slow": RUN_BUDGET,
}


def pytest_sessionstart(session: pytest.Session) -> None:
    global _began, _machine_at_start
    _began = time.monotonic()
    _machine_at_start = machine_cpu()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: its CPU and the groups it ran, for the controller's table."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["zconsole_cpu"] = {"groups": dict(_worker_groups), **own_cpu()}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    m = _GROUP.search(report.nodeid)  # not a parameter's "@" (user@host)
    group = m.group(1) if m else "-"
    if not hasattr(report, "node"):  # a worker (or a one-process run): count its groups
        _worker_groups[group] = _worker_groups.get(group, 0) + (report.when == "call")
        return
    now = time.monotonic() - _began
    g = _groups.setdefault(group, {"first": now - report.duration, "last": now, "busy": 0.0,
                                   "tests": 0.0})
    g["first"] = min(g["first"], now - report.duration)
    g["last"] = max(g["last"], now)
    g["busy"] += report.duration
    g["tests"] += report.when == "call"
    spent = dict(report.user_properties).get("guest_cpu_s")
    if isinstance(spent, (int, float)):  # the worker's guests over this phase (issue 33)
        g["guest_cpu"] = g.get("guest_cpu", 0.0) + spent
        test = report.nodeid.split("@")[0]
        _test_guest_cpu[test] = _test_guest_cpu.get(test, 0.0) + spent


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    cpu = getattr(node, "workeroutput", {}).get("zconsole_cpu")
    if cpu:
        _worker_cpu.append({"worker": getattr(node, "gateway", None) and node.gateway.id,
                            **cpu})
    got = getattr(node, "workeroutput", {}).get("zconsole_vm")
    if got:
        _from_workers["timings"].extend(got["timings"])
        _from_workers["figures"].extend(got["figures"])
        _from_workers["failures"].update(got["failures"])
        # every worker collects the whole suite: the same line from each, printed once
        _from_workers["one_flavour"].update(dict.fromkeys(got.get("one_flavour", ())))


def over_budget(groups: dict[str, dict[str, float]]) -> list[str]:
    """A warning line for each group whose last report came after its budget."""
    return [f"WARNING: group {name} ended {g['last']:.0f} s into the run, over its budget of "
            f"{GROUP_BUDGETS.get(name, RUN_BUDGET)} s (tests/conftest.py GROUP_BUDGETS)"
            for name, g in sorted(groups.items(), key=lambda kv: -kv[1]["last"])
            if g["last"] > GROUP_BUDGETS.get(name, RUN_BUDGET)]


def group_table(terminalreporter: Any) -> None:
    """Where the wall time went, each group beside its budget; the groups over it, loudly."""
    terminalreporter.section("where the wall time went (xdist groups; seconds since start)")
    terminalreporter.write_line(f"{'group':<14}{'tests':>6}{'first':>8}{'last':>8}{'busy':>8}"
                                f"{'budget':>8}{'guestCPU':>10}")
    for name, g in sorted(_groups.items(), key=lambda kv: -kv[1]["last"]):
        budget = GROUP_BUDGETS.get(name, RUN_BUDGET)
        cpu = f"{g['guest_cpu']:>10.0f}" if "guest_cpu" in g else f"{'':>10}"
        terminalreporter.write_line(f"{name:<14}{int(g['tests']):>6}{g['first']:>8.0f}"
                                    f"{g['last']:>8.0f}{g['busy']:>8.0f}{budget:>8}{cpu}"
                                    + ("  OVER" if g["last"] > budget else ""))
    for line in over_budget(_groups):
        terminalreporter.write_line(line, yellow=True, bold=True)
    if _test_guest_cpu:
        terminalreporter.write_line(f"the guest tests that cost the most guest CPU (s, setup "
                                    f"and teardown included; top {GUEST_CPU_TOP}):")
        for test, spent in sorted(_test_guest_cpu.items(), key=lambda kv: -kv[1])[
                :GUEST_CPU_TOP]:
            terminalreporter.write_line(f"{spent:>8.0f}  {test}")


def cpu_table(terminalreporter: Any) -> None:
    """Where the CPU went: each worker's own and its children's (guests, builds, ssh), by
    the groups it ran, and how busy the whole machine was over the run."""
    terminalreporter.section("where the CPU went (CPU seconds; children: QEMU, builds, ssh)")
    terminalreporter.write_line(f"{'worker':<8}{'self':>8}{'children':>10}  groups (tests)")
    total = 0.0
    for w in sorted(_worker_cpu, key=lambda w: -(w["self"] + w["children"])):
        total += w["self"] + w["children"]
        groups = ", ".join(f"{g} ({n})" for g, n in sorted(w["groups"].items(),
                                                           key=lambda kv: -kv[1]))
        terminalreporter.write_line(f"{str(w['worker']):<8}{w['self']:>8.0f}"
                                    f"{w['children']:>10.0f}  {groups}")
    now = machine_cpu()
    if _machine_at_start is not None and now is not None:
        busy, whole = now[0] - _machine_at_start[0], now[1] - _machine_at_start[1]
        cores = os.cpu_count() or 1
        terminalreporter.write_line(
            f"workers and their children: {total:.0f} CPU s; the machine: {busy:.0f} of "
            f"{whole:.0f} CPU s busy ({100 * busy / whole:.0f} % of {cores} cores) over "
            f"{time.monotonic() - _began:.0f} s")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _groups:
        group_table(terminalreporter)
    if _worker_cpu:
        cpu_table(terminalreporter)
    for line in _from_workers["one_flavour"]:
        terminalreporter.write_line(line)
    if _from_workers["timings"]:
        terminalreporter.section("QEMU guests (from the workers)")
        for line in _from_workers["timings"]:
            terminalreporter.write_line(line)
    if _from_workers["figures"]:
        terminalreporter.section("host guest figures (seconds; reported, not asserted)")
        for line in _from_workers["figures"]:
            terminalreporter.write_line(line)
    if _from_workers["failures"]:
        terminalreporter.section("QEMU guests UNAVAILABLE", red=True, bold=True)
        for guest, reason in _from_workers["failures"].items():
            terminalreporter.write_line(f"WARNING: guest {guest} tests SKIPPED or FAILED: "
                                        f"{reason}", red=True, bold=True)
