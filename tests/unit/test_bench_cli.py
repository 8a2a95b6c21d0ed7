"""bench/budgets.py's `--version`/`--help` figures: the installed script is judged, `python -m
zconsole` is shown beside it without a verdict. Only the table is tested; the seconds are the
bench's, never a test's."""

from __future__ import annotations

from bench.budget_table import verdicts


def fig(ratio: float) -> dict[str, float]:
    return {"zconsole_cpu_s": 0.016 * ratio, "bare_cpu_s": 0.016, "ratio": ratio}


def test_the_script_is_judged_and_python_m_is_shown() -> None:
    rows = verdicts({"cli": {"via": "script", "--version": fig(1.05), "--help": fig(1.6),
                             "module": {"--version": fig(1.4), "--help": fig(1.7)}}})
    judged = {figure: (budget, ok) for figure, budget, _, _, ok in rows}
    assert judged["zconsole --version CPU vs bare interpreter"] == ("<= 1.50 x", True)
    assert judged["zconsole --help CPU vs bare interpreter"] == ("<= 1.50 x", False)
    shown = [r for r in rows if "python -m zconsole --help" in r[0]]
    assert [(budget, ratio, ok) for _, budget, _, ratio, ok in shown] == [("-", "1.70 x", True)]


def test_without_a_script_python_m_is_the_budget_figure() -> None:
    rows = verdicts({"cli": {"via": "-m", "--help": fig(1.6)}})
    assert [(r[0], r[4]) for r in rows] == [
        ("python -m zconsole --help CPU vs bare interpreter", False)]


def test_a_run_from_before_the_script_was_measured_reads_as_it_did() -> None:
    rows = verdicts({"cli": {"--version": fig(1.2), "--help": fig(2.3)}})
    assert [(r[0], r[4]) for r in rows] == [
        ("zconsole --version CPU vs bare interpreter", True),
        ("zconsole --help CPU vs bare interpreter", False)]
