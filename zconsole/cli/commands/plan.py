"""`zconsole plan KIND POOL ARG... --dry-run`: print an operation plan exactly as a wizard
would run it.

    zconsole plan attach tank mirror-1 sdh --dry-run
    zconsole plan replace-grow tank mirror-0 sdc sdd --expand autoexpand --dry-run --json
    zconsole plan fix-ssh --dry-run
    zconsole plan self-test sdb [--long] --dry-run
    zconsole plan fix-boot [--fix netplan-optional|wait-online-interface|wait-online-any|
                                                 ifupdown-hotplug|mask] --dry-run
    options: --host [USER@]HOST | --demo [SCENARIO] [--zfs-version 2.1|2.3], --json

The KINDs, their ARGs and their options come from the operation registry
(`services/ops/registry.py`; `zconsole plan --help` lists them): this module only parses,
chooses the host, calls the kind's `plan` and prints. The plan is read from the host (nothing
is written): the redundancy preview, every check with its level as a word and a symbol, then
every step with the exact command as it would run, its pre-checks, post-checks, wait and typed
confirmation. Plans run from the console's wizards; this command only prints them
(`--dry-run` is required, to say so explicitly).

Exit status: 0 the plan could run, 3 it is blocked (a BLOCK check failed), 1 the host could
not be read, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from zconsole.cli.commands._target import add_target_options, target_host
from zconsole.hosts.base import Host, HostError
from zconsole.model.hosttext import json_safe, visible
from zconsole.model.plan import Check, CheckLevel, Plan, Step
from zconsole.services.ops import registry
from zconsole.services.ops.operation import CliOption, PlanRequest

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_BLOCKED = 3


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kinds = registry.kinds()
    pp = sub.add_parser(
        "plan", help=f"print the plan of an operation ({', '.join(kinds)}) without "
                     "running it",
        description="Read the host and print what a wizard would do: redundancy, checks "
                    "and every command exactly as it would run. Nothing is changed.")
    pp.add_argument("kind", choices=kinds, help="the operation")
    host_wide = [op.kind for op in registry.OPERATIONS if not op.cli.pool]
    pp.add_argument("pool", nargs="?", default="",
                    help=f"the pool (none for a host-wide kind: {', '.join(host_wide)})")
    pp.add_argument("args", nargs="*", metavar="ARG",
                    help="; ".join(f"{op.kind}: {op.cli.usage}" for op in registry.OPERATIONS
                                   if op.cli.usage))
    pp.add_argument("--dry-run", action="store_true", help="print the plan (required)")
    pp.add_argument("--json", action="store_true", help="print the plan as JSON")
    for opt in registry.cli_options():
        _add_option(pp, opt)
    add_target_options(pp, "plan", "plan on")


def _add_option(pp: argparse.ArgumentParser, opt: CliOption) -> None:
    if opt.many:
        pp.add_argument(opt.flag, action="append", default=[], metavar=opt.metavar,
                        help=opt.help)
    elif opt.choices:
        pp.add_argument(opt.flag, choices=opt.choices, default=opt.default, help=opt.help)
    else:
        pp.add_argument(opt.flag, action="store_true", help=opt.help)


# ------------------------------------------------------------------------------- building


def build(host: Host, kind: str, request: PlanRequest) -> Plan:
    """Read the host and build the plan (raises ValueError for wrong arguments)."""
    op = registry.get(kind)
    op.cli.check(kind, request.args, request.pool)
    return op.plan(host, request)


def request_from(args: argparse.Namespace) -> PlanRequest:
    """The parsed command line as the registry's kinds read it. A host-wide kind's words
    after KIND are its ARGs (`plan self-test sdb`: DISK, not a POOL)."""
    pool, rest = args.pool, tuple(args.args)
    if pool and args.kind in registry.BY_KIND and not registry.get(args.kind).cli.pool:
        pool, rest = "", (pool, *rest)
    return PlanRequest(pool, rest,
                       {opt.dest: getattr(args, opt.dest) for opt in registry.cli_options()})


# ------------------------------------------------------------------------------- printing

_LEVEL = {CheckLevel.BLOCK: ("✗", "BLOCK"), CheckLevel.CONFIRM: ("?", "CONFIRM"),
          CheckLevel.WARN: ("!", "WARN"), CheckLevel.INFO: ("i", "INFO")}


def check_line(c: Check) -> str:
    if c.passed:
        symbol, word = "✓", "ok"
    else:
        symbol, word = _LEVEL[c.level]
    extra = ""
    if c.needs_force:
        extra = f" [needs {c.force_flag or 'force'} after a second confirmation]"
    return f"{symbol} {word:<7} {c.name}: {c.detail}{extra}"


def verdict(plan: Plan) -> str:
    blocking = [c for c in plan.checks if c.blocking]
    if blocking:
        return (f"BLOCKED: {len(blocking)} blocking check(s) failed "
                f"({', '.join(c.name for c in blocking)}); nothing may run.")
    force = [c for c in plan.checks if c.needs_force]
    if force:
        return (f"NEEDS CONFIRMATION: {', '.join(c.name for c in force)} must be confirmed "
                "a second time (the commands then carry -f).")
    warns = [c for c in plan.checks if not c.passed and c.level is CheckLevel.WARN]
    return ("READY" + (f" after acknowledging {len(warns)} warning(s)." if warns else "."))


def _step_lines(n: int, step: Step) -> list[str]:
    kind = ("operator" if step.operator_action else "runs" if step.command is not None
            else "waits" if step.wait is not None else "checks")
    out = [f"{n}. {step.title}  [{step.id}, {kind}]", f"   {step.explanation}"]
    if step.command is not None:
        rw = "writes" if step.command.writes else "read-only"
        if step.operator_action:
            rw += ", runs only on request (identify)"
        out.append(f"   $ {step.command.display()}    # {rw}")
        out.extend(f"   | {d}" for d in step.command.diff.splitlines())
    for p in step.prechecks:
        out.append(f"   before: {p.description}")
    if step.wait is not None:
        until = "; ".join(p.description for p in step.wait.until)
        out.append(f"   wait:   {step.wait.description} ({step.wait.activity})"
                   + (f" until {until}" if until else ""))
    if step.operator_action:
        out.append(f"   operator: {step.operator_action}")
    for p in step.postchecks:
        out.append(f"   proves: {p.description}")
    if step.confirmation is not None:
        out.append(f"   type:   {step.confirmation.expected!r} ({step.confirmation.prompt})")
    return out


def render(plan: Plan) -> str:
    lines = [f"Plan: {plan.title}",
             f"  kind {plan.kind}, host {plan.host}, pool {plan.pool}, id {plan.id}"]
    if plan.preview:
        lines.append("")
        lines.append("Redundancy and what is at stake:")
        lines.extend(f"  {s}" for s in plan.preview)
    if plan.checks:
        lines.append("")
        lines.append("Checks:")
        lines.extend(f"  {check_line(c)}" for c in plan.checks)
    if plan.steps:
        lines.append("")
        lines.append("Steps (every command exactly as it would run):")
        for i, step in enumerate(plan.steps, 1):
            lines.extend(f"  {x}" for x in _step_lines(i, step))
    lines.append("")
    lines.append(verdict(plan))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- entry


def _host(args: argparse.Namespace) -> Host:
    return target_host(args, "plan")


def run_plan(args: argparse.Namespace, out: TextIO | None = None,
             err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    if not args.dry_run:
        print("zconsole plan: only prints plans; pass --dry-run (plans run from the "
              "console's wizards, with typed confirmations)", file=err)
        return EXIT_USAGE
    try:
        host = _host(args)
        plan = build(host, args.kind, request_from(args))
    except ValueError as e:
        print(f"zconsole plan: {visible(e)}", file=err)
        return EXIT_USAGE
    except HostError as e:
        print(f"zconsole plan: {visible(e)}", file=err)
        return EXIT_ERROR
    if args.json:
        from zconsole.services.ops.engine.plan_io import plan_to_dict

        out.write(json_safe(json.dumps(plan_to_dict(plan), indent=2, ensure_ascii=False)) + "\n")
    else:
        out.write(visible(render(plan), multiline=True))
    return EXIT_BLOCKED if plan.blocked else EXIT_OK


def run(args: argparse.Namespace) -> int:
    return run_plan(args)
