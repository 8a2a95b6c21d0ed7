"""What the fix-it plans share (fix-ssh, fix-boot): the backup of a file they touch, its
restore, the change as a unified diff, the runner that rolls a half-applied fix back, and
the applied fixes read back from the plan store (what an undo is built from).

* **Backup**: `cp -a FILE /var/backups/zconsole-<plan id>-<name>` keeps the content, mode and
  owner; the copy is proven byte for byte (`cmp -s`) before anything is changed, and the
  step refuses to overwrite an older copy.
* **Restore**: `cp -a` of the copy back over the file, proven byte for byte again; only when
  the file is still byte for byte what the fix left (its sha256, recorded in the fix's params
  with the text itself, is re-checked right before: `file_sha256`) and the copy is what was
  saved. A hand edit since refuses the undo, showing the diff of the file now against what
  the fix left; a file the fix created goes (`rm -f`) under the same check.
* **Lines**: counted on `\n` only (`split_lines`), as sed and sshd count them; never
  `str.splitlines()`, which also breaks at \f, \x1c-\x1e, U+0085, U+2028/9 and a lone \r.
* **Links**: a configuration file that is a symbolic link is refused (`not_symlink`, at plan
  time and right before each write): `cp -a` would back up the link, `sed -i` replace it
  with a regular file and the undo restore whatever the target is by then.
* **Diff**: `unified_diff(path, before, after)` (difflib) of the file's text; the command that
  makes the change carries it (`Command.diff`), so the preview shows it and the audit log's
  intent record holds it before the command runs; the undo's command carries the reverse.
* **Rollback**: a fix-it's registry entry carries its `operation.Fixit` (its undo and
  rollback kinds, how it builds its rollback; `registry.fixit(kind)`);
  `FixRunner` runs the fix and, when it stopped after the host was changed, runs the
  rollback plan (its steps named `rollback-…`), itself audited like any plan.
* **Undo**: `applied_fixes` lists the fixes whose every step is done and that no undo of the
  same kind names since; the domain builds the undo plan from that record (its params say
  what was changed and where the copy is).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from zconsole.hosts.base import Host, HostError, PathNotFound, Result
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import (
    Check,
    CheckLevel,
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
from zconsole.services.ops.fixit.lines import (  # noqa: F401 - common.X, as always
    bre_literal,
    delete_line,
    lines_text,
    plain_line,
    replace_line,
    sed_delete,
    sha256,
    split_lines,
    text_lines,
    unified_diff,
)
from zconsole.services.ops.operation import Fixit

BACKUP_DIR = "/var/backups"


def kinds(kind: str) -> tuple[str, str, str]:
    """A fix-it's plan kind, its undo's and its rollback's, as the audit log, the plan store
    and the registry name them: ("fix-ssh", "fix-ssh-undo", "fix-ssh-rollback")."""
    return kind, f"{kind}-undo", f"{kind}-rollback"


def backup_path(plan_id: str, file: str) -> str:
    """Where the copy of `file` goes: /var/backups/zconsole-<12 hex of the plan>-<name>."""
    return f"{BACKUP_DIR}/zconsole-{plan_id[:12]}-{file.rsplit('/', 1)[-1]}"


def not_symlink(path: str) -> Predicate:
    return predicate("not_symlink", f"{path} is not a symbolic link", path=path)


def file_is(path: str, text: str | None, what: str) -> Predicate:
    """`path` is byte for byte `text` (None: it does not exist); a refusal shows the diff."""
    if text is None:
        return predicate("file_absent", f"{path} does not exist ({what})", path=path)
    return predicate("file_sha256", f"{path} is byte for byte {what}", path=path,
                     sha256=sha256(text), text=text)


def link_refusal(path: str, target: str) -> str:
    return (f"{path} is a symbolic link to {target}: zconsole does not edit it (`cp -a` would "
            "keep only the link, `sed -i` would replace it with a regular file, so later "
            "edits of the shared file no longer reach it, and an undo would put back "
            f"whatever {target} holds by then); edit {target} by hand, or replace the link "
            "with a copy first")


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
    """`cp -a FILE BACKUP`: content, mode and owner; never over an older copy, never of a
    link (`cp -a` would copy the link, not the content)."""
    return Step(id=step_id, title=f"Back up {file}",
                explanation=f"`cp -a` keeps the content, mode and owner in {backup}; the "
                            "rollback and the undo copy it back.",
                command=Command(("cp", "-a", file, backup), f"back up {what}", writes=True),
                prechecks=(not_symlink(file),
                           predicate("file_absent", f"{backup} does not exist yet",
                                     path=backup),),
                postchecks=(predicate("files_equal", f"{backup} is a copy of {file}",
                                      path=file, copy=backup),))


@dataclass(frozen=True)
class Left:
    """What an undo re-checks right before it writes: the file as the fix left it (`text`,
    None: the fix removed it) and the copy as it was saved (`before`, None: not known)."""

    text: str | None
    before: str | None = None


def _left_checks(file: str, backup: str | None, left: Left | None) -> tuple[Predicate, ...]:
    if left is None:
        return ()
    out = [not_symlink(file), file_is(file, left.text, "what the fix left")]
    if backup and left.before is not None:
        out.append(file_is(backup, left.before, "the copy saved before the fix"))
    return tuple(out)


def restore_step(file: str, backup: str, *, confirmation: Confirmation | None = None,
                 left: Left | None = None, step_id: str = "restore") -> Step:
    """`cp -a BACKUP FILE`, proven byte for byte. With `left` (the operator's undo): only
    while the file is what the fix left and the copy what was saved; the diff is the
    reverse of the fix's."""
    diff = unified_diff(file, left.text, left.before) \
        if left is not None and left.before is not None else ""
    return Step(id=step_id, title=f"Restore {file} from {backup}",
                explanation="`cp -a` puts back the content, mode and owner saved before the "
                            "change" + (", only if the file is still byte for byte what the "
                                        "fix left (else the undo refuses and shows what "
                                        "changed)" if left is not None else "") + ".",
                command=Command(("cp", "-a", backup, file), f"restore {file}", writes=True,
                                diff=diff),
                prechecks=_left_checks(file, backup, left),
                postchecks=(predicate("files_equal", f"{file} is byte for byte the saved "
                                      "copy", path=file, copy=backup),),
                confirmation=confirmation)


def remove_step(file: str, *, prechecks: Sequence[Predicate] = (),
                confirmation: Confirmation | None = None, left: str | None = None,
                what: str = "the file zconsole wrote", step_id: str = "restore") -> Step:
    """`rm -f FILE`: a file zconsole created goes again. With `left` (the text zconsole
    wrote): only while the file is still byte for byte that text."""
    checks = _left_checks(file, None, Left(left)) if left is not None else ()
    return Step(id=step_id, title=f"Remove {file}",
                explanation=f"{what} goes; nothing else changes.",
                command=Command(("rm", "-f", file), f"remove {file}", writes=True,
                                diff=unified_diff(file, left, None) if left is not None
                                else ""),
                prechecks=(*checks, *prechecks),
                postchecks=(predicate("file_absent", f"{file} is gone", path=file),),
                confirmation=confirmation)


def left_of(fix: Plan) -> Left | None:
    """What the applied `fix` recorded of its file: `left` (the text it left; "" with
    `left_sha256` "" : it removed the file) and `before` (the text it found). None: a fix
    applied by a zconsole that did not record them (its undo is refused)."""
    p = dict(fix.params)
    if "left_sha256" not in p:
        return None
    text = p.get("left", "") if p["left_sha256"] else None
    if text is not None and sha256(text) != p["left_sha256"]:
        return None
    before = p.get("before") if "before" in p else None
    return Left(text, before)


def left_params(left: str | None, before: str | None) -> tuple[tuple[str, str], ...]:
    """The params a fix records of its file: the text it leaves (and its sha256; "" for a
    file it removes) and the text it found (None: it created the file)."""
    out = [("left_sha256", sha256(left)), ("left", left or "")]
    if before is not None:
        out.append(("before", before))
    return tuple(out)


def link_target(host: Host, path: str) -> str | None:
    """Where `path` links to (`readlink`), None when it is no link (or cannot be read: the
    run re-checks right before it writes)."""
    try:
        r = host.run(["readlink", "--", path], check=False)
    except HostError:
        return None
    target = r.stdout.strip()
    if r.returncode != 0 or not target:
        return None
    try:
        real = host.realpath(path)
    except (HostError, OSError):
        real = target
    return target if real in ("", path, target) else f"{target} (resolved: {real})"


def undo_refusal(host: Host, fix: Plan) -> Check | None:
    """Read now what the undo of `fix` re-checks right before it writes: None when the file
    is still byte for byte what the fix left, else a BLOCK check saying what changed (the
    diff of the file now against what the fix left)."""
    p = dict(fix.params)
    file, left = p.get("file", ""), left_of(fix)
    if left is None:
        return Check("undo-record", False, CheckLevel.BLOCK, unrecorded(fix))
    target = link_target(host, file)
    if target is not None:
        return Check("undo-link", False, CheckLevel.BLOCK, link_refusal(file, target))
    try:
        now: str | None = host.read_text(file)
    except PathNotFound:
        now = None
    except (HostError, OSError):
        return None  # the run re-checks right before it writes
    if now == left.text or (now is not None and sha256(now) == sha256(left.text)):
        return None
    if left.text is None:
        why = (f"{file} exists again since plan {fix.id[:12]} removed it: zconsole does not "
               "put its copy over it; what is there now:\n" + unified_diff(file, None, now))
    elif now is None:
        why = f"{file} is gone since plan {fix.id[:12]} changed it: nothing to undo there"
    else:
        why = (f"{file} changed since plan {fix.id[:12]} left it (a hand edit, or a later "
               "fix: undo the newest first): the undo would lose that, so it refuses. What "
               "changed since:\n" + unified_diff(file, left.text, now))
    return Check("undo-changed", False, CheckLevel.BLOCK, why)


def unrecorded_plan(fix: Plan, kind: str, title: str, now: float, lock: str, *,
                    plan_id: str | None = None) -> Plan:
    """The undo of a fix that did not record what it left: a plan that is only its refusal
    (nothing to run)."""
    return make_plan(kind, title, fix.host, now, lock, plan_id=plan_id,
                     checks=(Check("undo-record", False, CheckLevel.BLOCK, unrecorded(fix)),),
                     params=(*fix.params, ("of", fix.id)))


def unrecorded(fix: Plan) -> str:
    p = dict(fix.params)
    copy = f" (the copy: {p['backup']})" if p.get("backup") else ""
    return (f"plan {fix.id[:12]} did not record what it left in {p.get('file', '?')}: "
            "zconsole cannot tell whether it was changed since, and does not undo it; put "
            f"it back by hand{copy}")


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


class FixRunner:
    """Runs a fix (what the Host screen's wizard runs, and `run_fix`): the fix's own runner,
    then, if it stopped after the host was changed, the rollback plan's (its steps are
    "rollback-…": the wizard logs them beside the fix's). The last event says what the
    rollback did."""

    def __init__(self, fix: Plan, make_runner: Callable[[Plan], Runner],
                 spec: Fixit | None = None) -> None:
        self.fix = fix
        if spec is None:
            from zconsole.services.ops import registry  # the registry imports this module

            spec = registry.fixit(fix.kind)
            if spec is None:
                raise KeyError(f"{fix.kind!r} is not a fix-it kind of the operation registry")
        self.kind = spec
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
