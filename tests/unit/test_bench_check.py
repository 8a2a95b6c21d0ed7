"""bench/budgets.py's `zconsole check` figure (issue 15: check starts within 2 x a bare
interpreter making the same reads): the floor makes exactly the reads the check makes. Only
the recording and the replay are tested here; the seconds are bench's, never a test's."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.budget_table import verdicts
from bench.budgets import CHECK_FLOOR, check_reads


def test_the_floor_makes_the_reads_the_check_makes() -> None:
    calls = check_reads()
    argvs = [a[0] for name, a in calls if name == "_exec"]
    assert ["zpool", "status", "-j", "--json-int"] in argvs
    assert any(argv[:2] == ["zpool", "list"] for argv in argvs)
    assert ("read_text", ["/proc/spl/kstat/zfs/arcstats"]) in calls
    assert check_reads() == calls  # the same reads each time: a fair, stable floor
    done = subprocess.run([sys.executable, "-c", CHECK_FLOOR + "\nprint(len(json.loads("
                           "sys.argv[1])))", json.dumps(calls)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == str(len(calls))


def test_the_check_row_of_the_budget_table() -> None:
    [row] = verdicts({"check": {"zconsole_cpu_s": 0.3, "floor_cpu_s": 0.1, "reads": 35,
                                "ratio": 3.0}})
    assert row[1] == "<= 2.00 x" and row[3] == "3.00 x" and row[4] is False
