"""Plans and step outcomes to JSON-friendly dicts and back (exact round trip).

Used to save progress (`hosts.journal.PlanStore`) and to resume after the console was closed.
The documents carry a `format` number; a document of an unknown format is refused rather than
half-read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zconsole.model import plan as model
from zconsole.model.command import Command

FORMAT = 1


class PlanFormatError(ValueError):
    """A saved document that is not a plan zconsole can read."""


def _pairs(pairs: tuple[tuple[str, str], ...]) -> list[list[str]]:
    return [[k, v] for k, v in pairs]


def _from_pairs(raw: Any, what: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list):
        raise PlanFormatError(f"{what}: expected a list of pairs")
    out: list[tuple[str, str]] = []
    for item in raw:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise PlanFormatError(f"{what}: expected [key, value], got {item!r}")
        out.append((str(item[0]), str(item[1])))
    return tuple(out)


def _strs(raw: Any, what: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise PlanFormatError(f"{what}: expected a list of strings")
    return tuple(raw)


def _opt_str(raw: Any, what: str) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    raise PlanFormatError(f"{what}: expected a string or null")


def _num(raw: Any, what: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise PlanFormatError(f"{what}: expected a number")
    return float(raw)


def _opt_num(raw: Any, what: str) -> float | None:
    return None if raw is None else _num(raw, what)


# --- to dicts --------------------------------------------------------------------------------

def command_to_dict(c: Command) -> dict[str, Any]:
    d: dict[str, Any] = {"argv": list(c.argv), "purpose": c.purpose, "writes": c.writes,
                         "then": [list(a) for a in c.then]}
    if c.diff:  # only the commands that change a file carry one
        d["diff"] = c.diff
    return d


def predicate_to_dict(p: model.Predicate) -> dict[str, Any]:
    return {"kind": p.kind, "params": _pairs(p.params), "description": p.description}


def check_to_dict(c: model.Check) -> dict[str, Any]:
    return {"name": c.name, "passed": c.passed, "level": c.level.value, "detail": c.detail,
            "force_flag": c.force_flag}


def step_to_dict(s: model.Step) -> dict[str, Any]:
    return {
        "id": s.id,
        "title": s.title,
        "explanation": s.explanation,
        "command": command_to_dict(s.command) if s.command is not None else None,
        "prechecks": [predicate_to_dict(p) for p in s.prechecks],
        "postchecks": [predicate_to_dict(p) for p in s.postchecks],
        "wait": None if s.wait is None else {
            "pool": s.wait.pool, "activity": s.wait.activity,
            "description": s.wait.description,
            "until": [predicate_to_dict(p) for p in s.wait.until]},
        "confirmation": None if s.confirmation is None else {
            "prompt": s.confirmation.prompt, "expected": s.confirmation.expected},
        "operator_action": s.operator_action,
    }


def plan_to_dict(plan: model.Plan) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "id": plan.id,
        "kind": plan.kind,
        "title": plan.title,
        "host": plan.host,
        "pool": plan.pool,
        "created_at": plan.created_at,
        "preview": list(plan.preview),
        "checks": [check_to_dict(c) for c in plan.checks],
        "steps": [step_to_dict(s) for s in plan.steps],
        "params": _pairs(plan.params),
    }


def outcome_to_dict(o: model.StepOutcome) -> dict[str, Any]:
    return {"step_id": o.step_id, "status": o.status.value, "started_at": o.started_at,
            "ended_at": o.ended_at, "returncode": o.returncode, "stderr": o.stderr,
            "message": o.message}


# --- from dicts ------------------------------------------------------------------------------

def _map(raw: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise PlanFormatError(f"{what}: expected an object")
    return raw


def command_from_dict(raw: Any) -> Command:
    d = _map(raw, "command")
    then_raw = d.get("then", [])
    if not isinstance(then_raw, list):
        raise PlanFormatError("command.then: expected a list")
    try:
        return Command(argv=_strs(d.get("argv"), "command.argv"),
                       purpose=str(d.get("purpose", "")), writes=bool(d.get("writes", False)),
                       then=tuple(_strs(a, "command.then[]") for a in then_raw),
                       diff=str(d.get("diff", "")))
    except ValueError as e:
        if isinstance(e, PlanFormatError):
            raise
        raise PlanFormatError(f"command: {e}") from None


def predicate_from_dict(raw: Any) -> model.Predicate:
    d = _map(raw, "predicate")
    return model.Predicate(kind=str(d.get("kind", "")),
                           params=_from_pairs(d.get("params", []), "predicate.params"),
                           description=str(d.get("description", "")))


def _predicates(raw: Any, what: str) -> tuple[model.Predicate, ...]:
    if not isinstance(raw, list):
        raise PlanFormatError(f"{what}: expected a list")
    return tuple(predicate_from_dict(p) for p in raw)


def check_from_dict(raw: Any) -> model.Check:
    d = _map(raw, "check")
    try:
        level = model.CheckLevel(d.get("level"))
    except ValueError:
        raise PlanFormatError(f"check.level: unknown level {d.get('level')!r}") from None
    return model.Check(name=str(d.get("name", "")), passed=bool(d.get("passed")), level=level,
                       detail=str(d.get("detail", "")),
                       force_flag=_opt_str(d.get("force_flag"), "check.force_flag"))


def step_from_dict(raw: Any) -> model.Step:
    d = _map(raw, "step")
    wait = None
    if d.get("wait") is not None:
        w = _map(d["wait"], "step.wait")
        wait = model.Wait(pool=str(w.get("pool", "")), activity=str(w.get("activity", "")),
                          description=str(w.get("description", "")),
                          until=_predicates(w.get("until", []), "wait.until"))
    conf = None
    if d.get("confirmation") is not None:
        c = _map(d["confirmation"], "step.confirmation")
        conf = model.Confirmation(prompt=str(c.get("prompt", "")),
                                  expected=str(c.get("expected", "")))
    return model.Step(
        id=str(d.get("id", "")),
        title=str(d.get("title", "")),
        explanation=str(d.get("explanation", "")),
        command=command_from_dict(d["command"]) if d.get("command") is not None else None,
        prechecks=_predicates(d.get("prechecks", []), "step.prechecks"),
        postchecks=_predicates(d.get("postchecks", []), "step.postchecks"),
        wait=wait,
        confirmation=conf,
        operator_action=_opt_str(d.get("operator_action"), "step.operator_action"),
    )


def plan_from_dict(raw: Mapping[str, Any]) -> model.Plan:
    d = _map(raw, "plan")
    fmt = d.get("format", FORMAT)
    if fmt != FORMAT:
        raise PlanFormatError(f"plan format {fmt!r} is not one this zconsole reads ({FORMAT})")
    for key in ("id", "kind", "title", "host", "pool", "created_at", "steps"):
        if key not in d:
            raise PlanFormatError(f"plan: missing {key!r}")
    steps_raw = d["steps"]
    checks_raw = d.get("checks", [])
    if not isinstance(steps_raw, list) or not isinstance(checks_raw, list):
        raise PlanFormatError("plan: steps and checks must be lists")
    return model.Plan(
        id=str(d["id"]),
        kind=str(d["kind"]),
        title=str(d["title"]),
        host=str(d["host"]),
        pool=str(d["pool"]),
        created_at=_num(d["created_at"], "plan.created_at"),
        preview=_strs(d.get("preview", []), "plan.preview"),
        checks=tuple(check_from_dict(c) for c in checks_raw),
        steps=tuple(step_from_dict(s) for s in steps_raw),
        params=_from_pairs(d.get("params", []), "plan.params"),
    )


def outcome_from_dict(raw: Mapping[str, Any]) -> model.StepOutcome:
    d = _map(raw, "outcome")
    try:
        status = model.StepStatus(d.get("status"))
    except ValueError:
        raise PlanFormatError(f"outcome.status: unknown status {d.get('status')!r}") from None
    rc = d.get("returncode")
    if rc is not None and (isinstance(rc, bool) or not isinstance(rc, int)):
        raise PlanFormatError("outcome.returncode: expected an integer or null")
    return model.StepOutcome(step_id=str(d.get("step_id", "")), status=status,
                             started_at=_opt_num(d.get("started_at"), "outcome.started_at"),
                             ended_at=_opt_num(d.get("ended_at"), "outcome.ended_at"),
                             returncode=rc, stderr=str(d.get("stderr", "")),
                             message=str(d.get("message", "")))


def outcomes_from_dicts(raw: Sequence[Mapping[str, Any]]) -> list[model.StepOutcome]:
    return [outcome_from_dict(o) for o in raw]
