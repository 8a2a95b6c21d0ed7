"""What a fix-it diagnosis (the SSH or boot panel's) says, asserted in one way."""

from __future__ import annotations

from zconsole.model.finding import Severity
from zconsole.model.fixit import Diagnosis


def assert_verdict(d: Diagnosis, kind: str, message: str, *evidence: str,
                   severity: Severity | None = None) -> None:
    """`d`'s verdict is of `kind` (and of `severity`, when given), says `message` word for
    word, and its evidence holds each piece of `evidence` (in any of its lines)."""
    assert d.verdict.kind == kind, d.verdict
    assert severity is None or d.verdict.severity is severity, d.verdict
    assert d.verdict.message == message, d.verdict.message
    seen = "\n".join(d.verdict.evidence)
    missing = [e for e in evidence if e not in seen]
    assert not missing, f"not in the evidence: {missing}\n{seen}"
