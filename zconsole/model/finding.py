"""Something the analysis noticed, with the sentence an operator reads; and the one scale
that says how bad anything is.

`Severity` is the only "how bad" scale in zconsole: a pool state, a finding, a failed read, a
plan check and the exit code of a monitoring run are all judged on it (`CheckLevel` in
`model.plan` says what a plan check *does*; its `severity` says how bad it is on this scale).
Every severity is shown by a word and a symbol, never by colour alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    OK = "ok"  # healthy, nothing to do
    INFO = "info"  # a fact worth knowing, nothing is wrong
    WARNING = "warning"  # something is wrong or at risk; the data is still served
    CRITICAL = "critical"  # data or service is lost or about to be
    UNKNOWN = "unknown"  # could not be judged: the read failed, hung or is too old

    @property
    def symbol(self) -> str:
        return _SYMBOL[self]

    @property
    def rank(self) -> int:
        """Order for "the worst of": OK < INFO < WARNING < UNKNOWN < CRITICAL.

        UNKNOWN outranks WARNING: a host that cannot be read must never look better than one
        that reports a problem; CRITICAL outranks it because a known loss is worse news."""
        return _RANK[self]

    @property
    def exit_code(self) -> int:
        """The monitoring-plugin convention: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN."""
        return _EXIT[self]

    @staticmethod
    def worst(severities: Iterable[Severity]) -> Severity:
        """The worst of several severities (OK when there are none)."""
        out = Severity.OK
        for s in severities:
            if s.rank > out.rank:
                out = s
        return out


_SYMBOL = {Severity.OK: "✔", Severity.INFO: "•", Severity.WARNING: "▲",
           Severity.CRITICAL: "✖", Severity.UNKNOWN: "?"}
_RANK = {Severity.OK: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.UNKNOWN: 3,
         Severity.CRITICAL: 4}
_EXIT = {Severity.OK: 0, Severity.INFO: 0, Severity.WARNING: 1, Severity.CRITICAL: 2,
         Severity.UNKNOWN: 3}


@dataclass(frozen=True)
class Finding:
    """One judgement about a host: what it is about, how bad (`Severity`), in a sentence,
    and the figures behind it."""

    kind: str  # e.g. "slow-disk"
    severity: Severity
    subject: str  # what it is about: a pool, vdev or disk name
    message: str  # one plain sentence
    evidence: tuple[str, ...] = ()  # the figures behind the sentence
    pool: str | None = None  # the pool it is about, when it is about one
    factor: float | None = None  # the headline figure (e.g. 9.8 for "9.8x slower")
