"""Something the analysis noticed, with the sentence an operator reads."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


@dataclass(frozen=True)
class Finding:
    kind: str  # e.g. "slow-disk"
    severity: Severity
    subject: str  # what it is about: a pool, vdev or disk name
    message: str  # one plain sentence
    evidence: tuple[str, ...] = ()  # the figures behind the sentence
    pool: str | None = None  # the pool it is about, when it is about one
    factor: float | None = None  # the headline figure (e.g. 9.8 for "9.8x slower")
