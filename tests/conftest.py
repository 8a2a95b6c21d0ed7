"""Suite-wide hooks that must live where pytest-xdist's controller loads them.

Under `./dev test` the tests run in xdist workers and the controller collects nothing, so it
never loads tests/integration/conftest.py: the guests' timings and the host guest's figures,
which that conftest prints at the end of a one-process run, are handed over by each worker
(`workeroutput`, see its pytest_sessionfinish) and printed here instead.
"""

from __future__ import annotations

from typing import Any

import pytest

_from_workers: dict[str, Any] = {"timings": [], "figures": [], "failures": {}}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    got = getattr(node, "workeroutput", {}).get("zconsole_vm")
    if got:
        _from_workers["timings"].extend(got["timings"])
        _from_workers["figures"].extend(got["figures"])
        _from_workers["failures"].update(got["failures"])


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
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
