"""The run's group table (tests/conftest.py): each xdist group beside its budget, and a group
over its budget named in a warning line, never a failure (issue 33)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests import conftest


class Reporter:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def section(self, title: str, **_: Any) -> None:
        self.lines.append((f"== {title}", {}))

    def write_line(self, line: str, **markup: Any) -> None:
        self.lines.append((line, markup))


def test_every_guest_group_has_a_budget_within_the_run() -> None:
    for group in ("-", "zfs2.3", "zfs2.1", "host", "host-slow"):
        assert 0 < conftest.GROUP_BUDGETS[group] <= conftest.RUN_BUDGET
    assert conftest.RUN_BUDGET <= 45 * 60  # the ceiling for the whole .ci/run


def test_a_group_over_its_budget_is_named_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    groups = {"host-slow": {"first": 5.0, "last": conftest.GROUP_BUDGETS["host-slow"] + 61,
                            "busy": 2000.0, "tests": 2.0},
              "zfs2.3": {"first": 4.0, "last": 1000.0, "busy": 990.0, "tests": 60.0},
              "new-guest": {"first": 1.0, "last": conftest.RUN_BUDGET + 1, "busy": 9.0,
                            "tests": 1.0}}
    monkeypatch.setattr(conftest, "_groups", groups)
    rep = Reporter()
    conftest.group_table(rep)
    text = [line for line, _ in rep.lines]
    assert text[1].split() == ["group", "tests", "first", "last", "busy", "budget", "guestCPU"]
    row = next(line for line in text if line.startswith("zfs2.3"))
    assert row.split() == ["zfs2.3", "60", "4", "1000", "990", str(conftest.RUN_BUDGET)]
    warnings = [(line, m) for line, m in rep.lines if line.startswith("WARNING")]
    assert [w.split()[2] for w, _ in warnings] == ["host-slow", "new-guest"]
    assert all(m.get("bold") for _, m in warnings)
    assert "over its budget of" in warnings[0][0]
    assert conftest.over_budget({"zfs2.3": groups["zfs2.3"]}) == []


def test_the_cpu_table_names_each_worker_its_groups_and_the_machine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the CPU went: each worker's own CPU and its children's (the guests it ran), the
    groups it ran, and the machine's busy share over the run."""
    monkeypatch.setattr(conftest, "_worker_cpu", [
        {"worker": "gw0", "self": 120.4, "children": 10.0, "groups": {"-": 900}},
        {"worker": "gw1", "self": 60.0, "children": 1500.6, "groups": {"zfs2.3": 42, "-": 3}},
    ])
    monkeypatch.setattr(conftest, "_machine_at_start", (1000.0, 2000.0))
    monkeypatch.setattr(conftest, "machine_cpu", lambda: (4000.0, 5600.0))
    rep = Reporter()
    conftest.cpu_table(rep)
    text = [line for line, _ in rep.lines]
    rows = [line.split() for line in text[2:4]]
    assert rows[0][:3] == ["gw1", "60", "1501"] and "zfs2.3 (42)," in text[2]
    assert rows[1][:3] == ["gw0", "120", "10"] and text[3].endswith("- (900)")
    assert "workers and their children: 1691 CPU s" in text[4]
    assert "the machine: 3000 of 3600 CPU s busy (83 %" in text[4]


def test_own_cpu_and_the_machine_are_read() -> None:
    mine = conftest.own_cpu()
    assert mine["self"] > 0 and mine["children"] >= 0
    busy, whole = conftest.machine_cpu() or (0.0, 0.0)
    assert 0 < busy <= whole


class Report:
    """What the controller gets from a worker for one phase of one test."""

    def __init__(self, nodeid: str, when: str, guest_cpu: float | None) -> None:
        self.nodeid, self.when, self.duration, self.node = nodeid, when, 1.0, "gw0"
        self.user_properties = [] if guest_cpu is None else [("guest_cpu_s", guest_cpu)]


def test_each_guest_tests_cpu_is_in_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33's rule: a guest test states its cost. The guests' CPU of each phase
    (tests/integration/conftest.py) is summed by group (its column) and by test (the most
    costly named, parameters kept, group dropped); a group without guests has no figure."""
    monkeypatch.setattr(conftest, "_groups", {})
    monkeypatch.setattr(conftest, "_test_guest_cpu", {})
    # the reports come now, at the run's start (a worker of a long run is past 1 800 s: its
    # "-" row would end in OVER, as CI's did)
    monkeypatch.setattr(conftest, "_began", time.monotonic())
    boot = "tests/integration/test_a.py::test_first[zfs23]@zfs2.3"
    for report in (Report(boot, "setup", 61.5), Report(boot, "call", 20.0),
                   Report(boot, "teardown", 0.5),
                   Report("tests/integration/test_b.py::test_cheap@zfs2.3", "call", 2.0),
                   Report("tests/unit/test_c.py::test_unit", "call", None)):
        conftest.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    rep = Reporter()
    conftest.group_table(rep)
    text = [line for line, _ in rep.lines]
    row = next(line for line in text if line.startswith("zfs2.3"))
    assert row.split()[-1] == "84"
    assert next(line for line in text if line.startswith("- ")).split()[-1] == "1800"
    top = text[text.index(next(t for t in text if t.startswith("the guest tests"))) + 1:]
    assert [line.split() for line in top] == [
        ["82", "tests/integration/test_a.py::test_first[zfs23]"],
        ["2", "tests/integration/test_b.py::test_cheap"]]
