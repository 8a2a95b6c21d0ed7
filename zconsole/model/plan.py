"""Operations are plans, not button handlers.

A wizard builds a `Plan`: plan-time checks (each with a plain-language reason), then ordered
`Step`s. A step has runtime pre-checks, at most one exact command (an argv tuple, shown to the
operator exactly as it will run), post-checks that prove it happened, and optionally a wait
(a resilver to finish) or an operator action (pull the disk with serial X). The same plan can be
printed (`--dry-run`), tested as golden argv lists, executed step by step with an audit log,
and resumed after the console was closed mid-way.

Everything here is data (frozen dataclasses, JSON-friendly values) so a plan can be saved and
re-read; the predicates of checks are named kinds with parameters, evaluated by
`zconsole.services` against a fresh reading of the host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from zconsole.model.command import Command
from zconsole.model.finding import Severity


class CheckLevel(str, Enum):
    """What a failing check means for the plan."""

    BLOCK = "block"  # the plan cannot run (e.g. "new disk is smaller than the members")
    CONFIRM = "confirm"  # runs only after a second, explicit confirmation (force)
    WARN = "warn"  # the operator is told and acknowledges (e.g. "a scrub will be cancelled")
    INFO = "info"  # a fact worth seeing (e.g. redundancy during the resilver)

    @property
    def severity(self) -> Severity:
        """How bad a failing check of this level is, on the one scale."""
        return {CheckLevel.BLOCK: Severity.CRITICAL, CheckLevel.CONFIRM: Severity.WARNING,
                CheckLevel.WARN: Severity.WARNING, CheckLevel.INFO: Severity.INFO}[self]


@dataclass(frozen=True)
class Check:
    """One fact that must hold (or be acknowledged), with the reason in plain words.

    `passed` is the outcome at plan time; `detail` is the sentence shown either way
    (e.g. "sdk (2.0 TB) is larger than the smallest member (1.0 TB after the 10 MiB ZFS
    reserve)"). `force_flag` names the zpool flag a CONFIRM check needs when overridden
    (e.g. "-f").
    """

    name: str
    passed: bool
    level: CheckLevel
    detail: str
    force_flag: str | None = None

    @property
    def blocking(self) -> bool:
        return not self.passed and self.level is CheckLevel.BLOCK

    @property
    def needs_force(self) -> bool:
        return not self.passed and self.level is CheckLevel.CONFIRM


@dataclass(frozen=True)
class Predicate:
    """A fact about the host that a runner can evaluate from a fresh `zpool status`/`zfs get`.

    `kind` names a check a domain registered with the engine's evaluator
    (`services/ops/engine/predicates.py`); the ZFS kinds and their params (`vdev_present
    (pool, name)`, `no_scan (pool)`, ...) are listed in `services/ops/zfs/predicates.py`.
    """

    kind: str
    params: tuple[tuple[str, str], ...]
    description: str

    def param(self, key: str) -> str:
        for k, v in self.params:
            if k == key:
                return v
        raise KeyError(key)


def predicate(kind: str, description: str, **params: str) -> Predicate:
    return Predicate(kind, tuple(sorted(params.items())), description)


@dataclass(frozen=True)
class Wait:
    """Block until an activity ends, with progress. `activity` as in `zpool wait -t`:
    resilver, replace, scrub, remove, initialize, trim."""

    pool: str
    activity: str
    description: str
    until: tuple[Predicate, ...] = ()  # extra facts that must hold when the wait ends


@dataclass(frozen=True)
class Confirmation:
    """Typed confirmation for a destructive step: the operator types `expected` exactly
    (the pool name, or the serial of the disk that will be overwritten)."""

    prompt: str
    expected: str


@dataclass(frozen=True)
class Step:
    """One step. At most one command; a step without a command is a wait, an operator action
    (on site: swap the disk) or a pure check."""

    id: str
    title: str
    explanation: str
    command: Command | None = None
    prechecks: tuple[Predicate, ...] = ()
    postchecks: tuple[Predicate, ...] = ()
    wait: Wait | None = None
    confirmation: Confirmation | None = None
    operator_action: str | None = None  # "Pull the disk with serial ZGY8C3D4 from slot 3"

    @property
    def writes(self) -> bool:
        return self.command is not None and self.command.writes


@dataclass(frozen=True)
class Plan:
    """A whole operation. `id` is unique (it names the saved progress and the audit records).

    `preview` holds the sentences the operator reads before anything runs, redundancy first
    ("mirror-1 has 2 copies now; 1 copy (vdc) until the resilver ends; 3 after").
    """

    id: str
    kind: str  # attach, detach, replace-grow, dedup-off, ...
    title: str
    host: str
    pool: str
    created_at: float
    preview: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()
    steps: tuple[Step, ...] = ()
    params: tuple[tuple[str, str], ...] = field(default=())  # what the wizard chose

    @property
    def blocked(self) -> bool:
        return any(c.blocking for c in self.checks)

    @property
    def needs_force(self) -> bool:
        return any(c.needs_force for c in self.checks)

    def commands(self) -> list[Command]:
        return [s.command for s in self.steps if s.command is not None]

    def argv_list(self) -> list[tuple[str, ...]]:
        """Golden form for tests: every command's argv, in order."""
        return [c.argv for c in self.commands()]


class StepStatus(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    WAITING = "waiting"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # found already done on resume


@dataclass(frozen=True)
class StepOutcome:
    """What happened to one step (saved for resume, shown in the wizard)."""

    step_id: str
    status: StepStatus
    started_at: float | None = None
    ended_at: float | None = None
    returncode: int | None = None
    stderr: str = ""
    message: str = ""  # plain words: why it failed, or what the post-checks proved
