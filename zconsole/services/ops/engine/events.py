"""What a run tells its caller, in order: the runner's events and its result.

Small frozen dataclasses passed to `PlanRunner.run`'s `on_event` (the UI turns each into a
message, `ui/wizards/events.py`), then one `RunResult`. No Textual, no domain: figures of a
wait (`WaitProgress`) come from the domain's watch (`engine/watch.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.hosts.base import Result
from zconsole.model.plan import Predicate, StepOutcome


@dataclass(frozen=True)
class StepStarted:
    index: int
    step_id: str
    title: str
    command: str | None  # Command.display(), exactly what runs
    resumed: bool = False  # True when resuming at the step's wait (its command already ran)


@dataclass(frozen=True)
class CommandFinished:
    step_id: str
    command: str
    result: Result


@dataclass(frozen=True)
class CheckResult:
    step_id: str
    phase: str  # "pre", "post" or "until"
    predicate: Predicate
    ok: bool
    detail: str


@dataclass(frozen=True)
class WaitProgress:
    step_id: str
    pool: str
    activity: str
    scanning: bool  # a scrub/resilver runs in the pool now
    function: str | None  # "resilver", "scrub"
    percent: float | None
    done_bytes: int | None  # issued so far
    total_bytes: int | None  # to examine
    zpool_eta_s: int | None  # zpool's own figure (only printed above 10 MiB/s)
    own_eta_s: int | None  # zconsole's, from the pace over its recent readings
    elapsed_s: float  # since this run started watching (runner clock)
    detail: str  # "resilver in progress (42 %)", "no resilver running in tank"
    error: str | None = None  # this reading failed (the watch goes on)


@dataclass(frozen=True)
class StepDone:
    outcome: StepOutcome


@dataclass(frozen=True)
class NeedsOperator:
    step_id: str
    text: str
    helper: str | None = None  # display of the optional read-only helper (identify)


@dataclass(frozen=True)
class RunFailed:
    step_id: str
    message: str
    stderr: str = ""  # ZFS's own words, verbatim
    explanation: str | None = None  # engine.refusals.explain(stderr)


RunEvent = StepStarted | CommandFinished | CheckResult | WaitProgress | StepDone | \
    NeedsOperator | RunFailed


@dataclass(frozen=True)
class RunResult:
    status: str  # "done", "failed", "cancelled", "awaiting-operator"
    outcomes: tuple[StepOutcome, ...]
    next_index: int  # where run(start_at=...) continues
    message: str

    @property
    def done(self) -> bool:
        return self.status == "done"
