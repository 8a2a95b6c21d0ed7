"""The audit records of one run: one JSON line per event, appended and fsynced
(`hosts.journal.AuditLog`), each with the time, host, plan, kind, pool and operator.

A command that writes gets two records: `command-intent` (argv exactly, appended and fsynced
before the command runs; if it cannot be written the command does not run; with the file's
change as a unified diff when the command carries one) and `command` (the
result: argv, exit code, stdout and stderr, each cut at `OUTPUT_LIMIT` bytes saying how much
was left out, and duration). Read-only helpers get the result record only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from zconsole.hosts.base import Result
from zconsole.hosts.journal import AuditLog
from zconsole.model.command import Command
from zconsole.model.plan import Plan, Step
from zconsole.services.ops.engine.predicates import Outcome

OUTPUT_LIMIT = 1 << 20  # bytes of stdout/stderr kept per audit record


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="milliseconds")


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n[zconsole: {len(text) - OUTPUT_LIMIT} more characters " \
                                 "not recorded]"


class RunAudit:
    """Writes one run's records to `log`; `clock` stamps them."""

    def __init__(self, log: AuditLog, plan: Plan, *, host: str, operator: str,
                 clock: Callable[[], float]) -> None:
        self.log = log
        self.plan = plan
        self.host = host
        self.operator = operator
        self.clock = clock

    def record(self, event: str, **fields: object) -> None:
        ts = self.clock()
        rec: dict[str, object] = {
            "ts": ts, "time": _iso(ts), "event": event, "host": self.host,
            "plan_id": self.plan.id, "kind": self.plan.kind, "pool": self.plan.pool,
            "operator": self.operator,
        }
        rec.update(fields)
        self.log.append(rec)

    def plan_start(self, start_at: int) -> None:
        """The run begins (`plan-start`), or goes on from step `start_at` after an operator
        step or a resume (`plan-continue`): its steps, every command and the checks that did
        not pass. One plan-start per plan in the log; a continuation says where it picks up."""
        event = "plan-start" if start_at == 0 else "plan-continue"
        self.record(event, title=self.plan.title, start_at=start_at,
                    steps=len(self.plan.steps),
                    commands=[c.display() for c in self.plan.commands()],
                    checks=[{"name": c.name, "level": c.level.value, "passed": c.passed,
                             "detail": c.detail} for c in self.plan.checks if not c.passed])

    def checks(self, step: Step, phase: str, outs: Sequence[Outcome]) -> None:
        """The runtime checks of a step's phase (pre, post, until) as they came out."""
        self.record("checks", step_id=step.id, phase=phase,
                    results=[{"check": o.predicate.description, "kind": o.predicate.kind,
                              "ok": o.ok, "detail": o.detail} for o in outs])

    def intent(self, step: Step, cmd: Command) -> None:
        """Before a command that writes: what is about to run, fsynced before it runs (the
        log then shows which command had started even if the console dies during it)."""
        self.record(
            "command-intent", step_id=step.id, command=cmd.display(),
            argv=[list(a) for a in cmd.pipeline] if cmd.then else list(cmd.argv),
            writes=cmd.writes, purpose=cmd.purpose, **({"diff": cmd.diff} if cmd.diff else {}))

    def command(self, step: Step, cmd: Command, result: Result | None, duration: float,
                error: str | None = None) -> None:
        self.record(
            "command", step_id=step.id, command=cmd.display(),
            argv=[list(a) for a in cmd.pipeline] if cmd.then else list(cmd.argv),
            writes=cmd.writes, purpose=cmd.purpose,
            exit_code=result.returncode if result is not None else None,
            stdout=_cap(result.stdout) if result is not None else "",
            stderr=_cap(result.stderr) if result is not None else "",
            duration_s=round(duration, 3), **({"error": error} if error else {}))
