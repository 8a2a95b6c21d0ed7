"""The README keeps its promises: what zconsole is, its picture and two commands first, CI
runs the test one; the rule docs/screens.md quotes is the rule implemented."""

from __future__ import annotations

import re
from pathlib import Path

import zconsole.services.health.slowdisk as slowdisk

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def first_block() -> list[str]:
    m = re.search(r"```\w*\n(.*?)```", README, re.S)
    assert m, "README has no command block"
    return [line.split("#")[0].strip() for line in m.group(1).splitlines() if line.strip()]


def test_readme_opens_with_install_run_and_test_commands() -> None:
    before = README.split("```", 1)[0]
    assert before.strip().startswith("# zconsole") and len(before.splitlines()) <= 4
    # what zconsole is, in one line, before the two commands
    assert before.splitlines()[2].startswith("zconsole is a terminal operations console for "
                                             "Linux hosts that run OpenZFS")
    assert first_block() == ["./dev run", "./dev test"]
    # and a picture of it (issue 32: what it is, shown, then the two commands)
    assert "![" in before and "(screenshots/showcase-dark-120x40.svg)" in before


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in ci.splitlines()
                if line.strip() and not line.startswith("#") and not line.startswith("set ")
                and not line.startswith("cd ")]
    assert commands == [first_block()[1]]


def test_the_screens_page_quotes_the_slow_disk_rule_as_implemented() -> None:
    """The rule moved with the screens in depth from the README to docs/screens.md (issue 32)."""
    doc = slowdisk.__doc__ or ""
    rule = doc.split("The rule (docs/screens.md quotes this paragraph):")[1].split(
        "Why this shape:")[0]
    screens = (ROOT / "docs" / "screens.md").read_text(encoding="utf-8")
    assert " ".join(rule.split()) in " ".join(screens.split())


# a measured figure: "146 ms", "1.39x", "52 MiB", "5 % of a core" (a setting such as "every
# 30 minutes" is behaviour, not a measurement)
FIGURE = re.compile(r"\b\d[\d,.]*\s?(?:ms|MiB|GiB|% of a core)\b|\b\d+\.\d+\s?x\b")


def test_the_readme_quotes_no_measurement() -> None:
    """Issue 32: the README is not a lab notebook. Benchmarks and CI timings are in
    docs/benchmarks.md and docs/testing.md, which it links to; a figure written here goes
    stale the day the code changes."""
    prose = re.sub(r"```.*?```", "", README, flags=re.S)  # commands may hold numbers
    found = [m.group(0) for m in FIGURE.finditer(prose)]
    assert not found, found
    assert "docs/benchmarks.md" in README and "docs/testing.md" in README
