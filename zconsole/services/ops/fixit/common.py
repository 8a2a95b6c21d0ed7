"""What the fix-it plans share (fix-ssh, fix-boot): the backup of a file they touch, its
restore, the change as a unified diff, the runner that rolls a half-applied fix back, and
the applied fixes read back from the plan store (what an undo is built from).

* **Backup**: `cp -a FILE /var/backups/zconsole-<plan id>-<name>` keeps the content, mode and
  owner; the copy is proven byte for byte (`cmp -s`) before anything is changed, and the
  step refuses to overwrite an older copy.
* **Restore**: `cp -a` of the copy back over the file, proven byte for byte again.
* **Diff**: `unified_diff(path, before, after)` (difflib) of the file's text; the command that
  makes the change carries it (`Command.diff`), so the preview shows it and the audit log's
  intent record holds it before the command runs.
* **Rollback**: a fix-it registers a `FixKind` (its kinds and how it builds its rollback);
  `FixRunner` runs the fix and, when it stopped after the host was changed, runs the
  rollback plan (its steps named `rollback-…`), itself audited like any plan.
* **Undo**: `applied_fixes` lists the fixes whose every step is done and that no undo of the
  same kind names since; the domain builds the undo plan from that record (its params say
  what was changed and where the copy is).
"""

from __future__ import annotations

import difflib
import json
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from zconsole.hosts.base import Result
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import (
    Check,
    Confirmation,
    Plan,
    Predicate,
    Step,
    StepOutcome,
    StepStatus,
    predicate,
)
from zconsole.services.ops.engine.events import RunEvent, RunFailed, RunResult
from zconsole.services.ops.engine.plan_io import (
    PlanFormatError,
    outcomes_from_dicts,
    plan_from_dict,
)

BACKUP_DIR = "/var/backups"


def backup_path(plan_id: str, file: str) -> str:
    """Where the copy of `file` goes: /var/backups/zconsole-<12 hex of the plan>-<name>."""
    return f"{BACKUP_DIR}/zconsole-{plan_id[:12]}-{file.rsplit('/', 1)[-1]}"


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """The change of `path` as a unified diff; None is "no such file" (/dev/null)."""
    old = "/dev/null" if before is None else f"a{path}"
    new = "/dev/null" if after is None else f"b{path}"
    lines = difflib.unified_diff((before or "").splitlines(keepends=True),
                                 (after or "").splitlines(keepends=True), old, new)
    return "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n"
                   for x in lines)


def lines_text(lines: Sequence[str]) -> str:
    """What `printf '%s\\n' LINE...` writes."""
    return "".join(f"{x}\n" for x in lines)


def delete_line(text: str, n: int) -> str:
    """`text` without its line `n` (1-based), as `sed -i -e Nd` leaves it."""
    lines = text.splitlines(keepends=True)
    if 0 < n <= len(lines):
        del lines[n - 1]
    return "".join(lines)


def replace_line(text: str, n: int, new: str) -> str:
    """`text` with line `n` (1-based) reading `new`, its line ending kept."""
    lines = text.splitlines(keepends=True)
    if 0 < n <= len(lines):
        end = lines[n - 1][len(lines[n - 1].rstrip("\r\n")):]
        lines[n - 1] = new + end
    return "".join(lines)


def make_plan(kind: str, title: str, host: str, now: float, lock: str, *,
              plan_id: str | None = None, preview: Sequence[str] = (),
              checks: Sequence[Check] = (), steps: Sequence[Step] = (),
              params: tuple[tuple[str, str], ...] = ()) -> Plan:
    """A fix-it's plan; `lock` names the engine's one-writer lock on the host ("sshd").
    A failed check says "the host does not show …" (the engine's `observer`), not ZFS."""
    if not any(k == "observer" for k, _ in params):
        params = (*params, ("observer", "the host"))
    return Plan(id=plan_id or uuid.uuid4().hex, kind=kind, title=title, host=host, pool=lock,
                created_at=now, preview=tuple(preview), checks=tuple(checks),
                steps=tuple(steps), params=params)


def backup_step(file: str, backup: str, *, what: str = "the file",
                step_id: str = "backup") -> Step:
    """`cp -a FILE BACKUP`: content, mode and owner; never over an older copy."""
    return Step(id=step_id, title=f"Back up {file}",
                explanation=f"`cp -a` keeps the content, mode and owner in {backup}; the "
                            "rollback and the undo copy it back.",
                command=Command(("cp", "-a", file, backup), f"back up {what}", writes=True),
                prechecks=(predicate("file_absent", f"{backup} does not exist yet",
                                     path=backup),),
                postchecks=(predicate("files_equal", f"{backup} is a copy of {file}",
                                      path=file, copy=backup),))


def restore_step(file: str, backup: str, *, confirmation: Confirmation | None = None,
                 diff: str = "", step_id: str = "restore") -> Step:
    """`cp -a BACKUP FILE`, proven byte for byte."""
    return Step(id=step_id, title=f"Restore {file} from {backup}",
                explanation="`cp -a` puts back the content, mode and owner saved before the "
                            "change.",
                command=Command(("cp", "-a", backup, file), f"restore {file}", writes=True,
                                diff=diff),
                postchecks=(predicate("files_equal", f"{file} is byte for byte the saved "
                                      "copy", path=file, copy=backup),),
                confirmation=confirmation)


def remove_step(file: str, *, prechecks: Sequence[Predicate] = (),
                confirmation: Confirmation | None = None, diff: str = "",
                what: str = "the file zconsole wrote", step_id: str = "restore") -> Step:
    """`rm -f FILE`: a file zconsole created goes again."""
    return Step(id=step_id, title=f"Remove {file}",
                explanation=f"{what} goes; nothing else changes.",
                command=Command(("rm", "-f", file), f"remove {file}", writes=True, diff=diff),
                prechecks=tuple(prechecks),
                postchecks=(predicate("file_absent", f"{file} is gone", path=file),),
                confirmation=confirmation)


def write_command(file: str, lines: Sequence[str], purpose: str, *,
                  before: str | None = None) -> Command:
    """`printf '%s\\n' LINE... | tee FILE` (no shell; the host pipes), with its diff."""
    return Command(("printf", "%s\\n", *lines), purpose, writes=True, then=(("tee", file),),
                   diff=unified_diff(file, before, lines_text(lines)))


def undo_confirmation(what: str) -> Confirmation:
    return Confirmation(f"This puts {what} back as it was. Type 'undo' to go on:", "undo")


def as_rollback(steps: Sequence[Step]) -> list[Step]:
    """Beside the fix's own steps in the wizard's log the rollback's need other names."""
    return [replace(s, id=f"rollback-{s.id}") for s in steps]


def rollback_stopped(fix: Plan, result: RunResult) -> str:
    """What a fix-it says when its own rollback stopped: nothing more runs, look first."""
    p = dict(fix.params)
    keep = f" (the copy: {p.get('backup')})" if p.get("backup") else ""
    return (f"THE ROLLBACK STOPPED: {result.message}. Look at {p.get('file')}{keep} before "
            "anything else.")


def changed_host(fix: Plan, result: RunResult, changes: Sequence[str]) -> bool:
    """Did the run that stopped with `result` change the host? `changes`: the ids of the
    steps that change it, in plan order. A run that stopped before the first of them did
    not; one that stopped at it did only if its command had started (a refused pre-check,
    the lock or the audit log stop it before)."""
    ids = [s.id for s in fix.steps]
    first = min((ids.index(c) for c in changes if c in ids), default=None)
    if first is None or result.next_index < first:
        return False
    if result.next_index == first:
        o = result.outcomes[result.next_index]
        if o.returncode is None and "could not be run" not in o.message:
            return False
    return True


# ------------------------------------------------------------------------------ running


@dataclass(frozen=True)
class FixRun:
    """How `run_fix` ended: the fix's result, and the rollback's when one was needed."""

    result: RunResult
    rollback: Plan | None = None
    rollback_result: RunResult | None = None

    @property
    def applied(self) -> bool:
        return self.result.done


class Runner(Protocol):
    """What a fix needs of a `PlanRunner`."""

    def run(self, on_event: Callable[[RunEvent], None], *,
            cancel: threading.Event | None = None, start_at: int = 0,
            outcomes: Sequence[StepOutcome] | None = None) -> RunResult: ...

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Result: ...


@dataclass(frozen=True)
class FixKind:
    """One fix-it, as the runner and the undo need it: its plan kinds, the rollback a
    stopped run needs (None: nothing was changed), and the sentence that says what the
    rollback did."""

    kind: str
    undo_kind: str
    rollback_kind: str
    rollback_for: Callable[[Plan, RunResult, float], Plan | None]
    rolled_back: Callable[[Plan, Plan, RunResult], str]


FIX_KINDS: dict[str, FixKind] = {}


def register(fk: FixKind) -> FixKind:
    FIX_KINDS[fk.kind] = fk
    return fk


def is_fix(kind: str) -> bool:
    """A kind that runs under `FixRunner` (the fix itself; its undo and rollback are plain
    plans)."""
    return kind in FIX_KINDS


class FixRunner:
    """Runs a fix (what the Host screen's wizard runs, and `run_fix`): the fix's own runner,
    then, if it stopped after the host was changed, the rollback plan's (its steps are
    "rollback-…": the wizard logs them beside the fix's). The last event says what the
    rollback did."""

    def __init__(self, fix: Plan, make_runner: Callable[[Plan], Runner]) -> None:
        self.fix = fix
        self.kind = FIX_KINDS[fix.kind]
        self.make_runner = make_runner
        self.runner = make_runner(fix)
        self.rollback: Plan | None = None
        self.rollback_result: RunResult | None = None

    def run(self, on_event: Callable[[RunEvent], None], *,
            cancel: threading.Event | None = None, start_at: int = 0,
            outcomes: Sequence[StepOutcome] | None = None) -> RunResult:
        result = self.runner.run(on_event, cancel=cancel, start_at=start_at,
                                 outcomes=outcomes)
        back = self.kind.rollback_for(self.fix, result, self.fix.created_at)
        if back is None:
            return result
        self.rollback = back
        self.rollback_result = self.make_runner(back).run(on_event, cancel=cancel)
        if self.rollback_result.done:
            store = getattr(self.runner, "store", None)
            if isinstance(store, PlanStore):
                store.finish(self.fix.id)  # rolled back: a record, not a plan to resume
        said = self.kind.rolled_back(self.fix, back, self.rollback_result)
        failed = result.outcomes[result.next_index] if result.next_index < len(
            result.outcomes) else None
        on_event(RunFailed(failed.step_id if failed else "", f"{result.message}; {said}",
                           failed.stderr if failed else "", None))
        return replace(result, message=f"{result.message}; {said}")

    def run_helper(self, step_id: str, *, timeout: float = 900.0) -> Result:
        return self.runner.run_helper(step_id, timeout=timeout)


def run_fix(fix: Plan, make_runner: Callable[[Plan], Runner],
            on_event: Callable[[RunEvent], None]) -> FixRun:
    """Run the fix; if it stops after the host was changed, run its rollback."""
    runner = FixRunner(fix, make_runner)
    result = runner.run(on_event)
    return FixRun(result, runner.rollback, runner.rollback_result)


# --------------------------------------------------------------------- applied fixes


@dataclass(frozen=True)
class Applied:
    """A fix applied on a host (every step done) and not undone since: the plan (its params
    say what was changed) and when its last step ended."""

    plan: Plan
    applied_at: float


def applied_records(store: PlanStore, host: str, kind: str, undo_kind: str) -> list[Applied]:
    """The fixes of `kind` applied on `host` and not undone (an `undo_kind` plan done with
    `of` = the fix's id), oldest first."""
    done_dir = store.done_directory
    if not done_dir.is_dir():
        return []
    fixes: list[Applied] = []
    undone: set[str] = set()
    for path in done_dir.glob("*.json"):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            plan = plan_from_dict(doc["plan"])
            outcomes = outcomes_from_dicts(doc.get("outcomes", []))
        except (OSError, ValueError, KeyError, TypeError, PlanFormatError):
            continue
        if plan.host != host:
            continue
        if plan.kind == undo_kind:
            undone.add(dict(plan.params).get("of", ""))
        elif plan.kind == kind and outcomes and \
                all(o.status is StepStatus.DONE for o in outcomes):
            ended = [o.ended_at for o in outcomes if o.ended_at is not None]
            fixes.append(Applied(plan, max(ended) if ended else plan.created_at))
    fixes.sort(key=lambda a: (a.plan.created_at, a.applied_at))
    return [a for a in fixes if a.plan.id not in undone]


def applied_fixes(store: PlanStore, host: str, kind: str, undo_kind: str) -> list[Plan]:
    return [a.plan for a in applied_records(store, host, kind, undo_kind)]
