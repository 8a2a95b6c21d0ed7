"""The one "how bad" scale: order, symbols, monitoring exit codes, and how states map onto it."""

from __future__ import annotations

from zconsole.model.finding import Severity
from zconsole.model.plan import CheckLevel
from zconsole.services.health.levels import state_severity


def test_worst_orders_unknown_above_warning_and_below_critical() -> None:
    assert Severity.worst([]) is Severity.OK
    assert Severity.worst([Severity.INFO, Severity.OK]) is Severity.INFO
    assert Severity.worst([Severity.WARNING, Severity.UNKNOWN]) is Severity.UNKNOWN
    assert Severity.worst([Severity.UNKNOWN, Severity.CRITICAL]) is Severity.CRITICAL


def test_exit_codes_follow_the_plugin_convention() -> None:
    assert [s.exit_code for s in (Severity.OK, Severity.INFO, Severity.WARNING,
                                  Severity.CRITICAL, Severity.UNKNOWN)] == [0, 0, 1, 2, 3]


def test_every_severity_has_its_own_symbol() -> None:
    assert len({s.symbol for s in Severity}) == len(Severity)


def test_pool_states_and_unknown_words() -> None:
    assert state_severity("ONLINE") is Severity.OK
    assert state_severity("degraded") is Severity.WARNING
    assert state_severity("FAULTED") is Severity.CRITICAL
    assert state_severity("UNKNOWN") is Severity.UNKNOWN
    assert state_severity("SOMETHING-NEW") is Severity.WARNING  # never OK


def test_plan_check_levels_sit_on_the_same_scale() -> None:
    assert CheckLevel.BLOCK.severity is Severity.CRITICAL
    assert CheckLevel.CONFIRM.severity is Severity.WARNING
    assert CheckLevel.INFO.severity is Severity.INFO
