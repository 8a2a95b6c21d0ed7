"""Text the wizard shows: the plan preview, the step list while it runs, progress lines.

Plain functions returning rich Text, so tests can read exactly what the operator reads.
Every level is a word and a symbol; colour (theme variables, passed in) only reinforces it.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, StepStatus
from zconsole.services import fmt

DISK_KINDS = ("attach", "detach", "replace", "replace-grow")


def check_label(check: Check) -> tuple[str, str]:
    """(symbol + word, level for colour) for one plan-time check."""
    if check.passed:
        return "✔ OK", "ok"
    if check.level is CheckLevel.BLOCK:
        return "✖ BLOCKS", "bad"
    if check.level is CheckLevel.CONFIRM:
        flag = f" {check.force_flag}" if check.force_flag else ""
        return f"▲ NEEDS{flag}", "warn"
    if check.level is CheckLevel.WARN:
        return "▲ WARNING", "warn"
    return "· NOTE", "off"


STATUS_MARK = {
    StepStatus.PENDING: ("○", "pending", "off"),
    StepStatus.RUNNING: ("▶", "running", "warn"),
    StepStatus.WAITING: ("◷", "waiting", "warn"),
    StepStatus.DONE: ("✔", "done", "ok"),
    StepStatus.FAILED: ("✖", "FAILED", "bad"),
    StepStatus.SKIPPED: ("✔", "already done", "ok"),
}


def _style(colours: Mapping[str, str], level: str) -> str:
    return colours.get(f"health-{level}", "")


def confirmations(plan: Plan, start_at: int = 0) -> list[Confirmation]:
    """Typed confirmations still ahead, in order, each asked once."""
    out: list[Confirmation] = []
    for step in plan.steps[start_at:]:
        c = step.confirmation
        if c is not None and c not in out:
            out.append(c)
    return out


def preview_text(plan: Plan, colours: Mapping[str, str], *, start_at: int = 0) -> Text:
    """Title, redundancy first, then every check with its level as a word and a symbol."""
    t = Text()
    t.append(plan.title, style="bold")
    t.append(f"  on {plan.host}\n")
    if plan.preview:
        heading = ("Redundancy now, during and after" if plan.kind in DISK_KINDS
                   else "Before anything runs")
        t.append(f"\n{heading}\n", style="bold")
        for line in plan.preview:
            t.append(f"  {line}\n")
    if plan.checks:
        t.append("\nChecks\n", style="bold")
        for c in plan.checks:
            word, level = check_label(c)
            t.append(f"  {word:<11}", style=_style(colours, level))
            t.append(f" {c.detail}\n")
    if plan.blocked:
        t.append("\n✖ This plan cannot run: a check above blocks it. Nothing has been run.\n",
                 style=f"bold {_style(colours, 'bad')}")
    t.rstrip()
    return t


def steps_detail(plan: Plan, *, start_at: int = 0) -> Text:
    """The steps in plain words: what each does, what it waits for, what proves it."""
    t = Text()
    t.append("Steps\n", style="bold")
    for i, step in enumerate(plan.steps):
        done = i < start_at
        t.append(f"  {i + 1}. ", style="bold")
        t.append(step.title + ("  (done)" if done else ""), style="dim" if done else "")
        t.append("\n")
        if step.explanation and not done:
            t.append(f"     {step.explanation}\n", style="dim")
        if step.operator_action and not done:
            t.append(f"     ✋ on site: {step.operator_action}\n")
        if step.wait is not None and not done:
            t.append(f"     ◷ waits: {step.wait.description}\n")
        for p in step.postchecks:
            if not done:
                t.append(f"     proves: {p.description}\n", style="dim")
    t.rstrip()
    return t


def commands_text(plan: Plan, *, start_at: int = 0) -> Text:
    """Every command exactly as it will run (Command.display), numbered by step."""
    t = Text()
    n = 0
    for i, step in enumerate(plan.steps):
        if step.command is None:
            continue
        n += 1
        mark = "(done) " if i < start_at else ""
        prefix = "# writes" if step.command.writes else "# reads only"
        t.append(f"{prefix}, step {i + 1}: {mark}{step.command.purpose}\n", style="dim")
        t.append(step.command.display() + "\n")
    if n == 0:
        t.append("(this plan runs no command)\n", style="dim")
    t.rstrip()
    return t


def force_text(plan: Plan, colours: Mapping[str, str]) -> Text:
    t = Text()
    t.append("A second, explicit confirmation is needed\n\n", style="bold")
    for c in plan.checks:
        if c.needs_force:
            t.append("  ▲ ", style=_style(colours, "warn"))
            t.append(f"{c.detail}\n")
            if c.force_flag:
                t.append(f"    overriding adds {c.force_flag} to the command\n", style="dim")
    t.append("\nPress f to override with the flag shown, or Escape to go back. Overriding "
             "writes a new label over whatever is on that disk.\n")
    return t


def steps_text(plan: Plan, status: Mapping[str, StepStatus], messages: Mapping[str, str],
               colours: Mapping[str, str]) -> Text:
    t = Text()
    for i, step in enumerate(plan.steps):
        st = status.get(step.id, StepStatus.PENDING)
        sym, word, level = STATUS_MARK[st]
        t.append(f" {sym} ", style=_style(colours, level))
        t.append(f"{i + 1}. {step.title} · ")
        t.append(word, style=_style(colours, level))
        t.append("\n")
        msg = messages.get(step.id)
        if msg:
            t.append(f"      {msg}\n", style="dim")
    t.rstrip()
    return t


def progress_line(activity: str, percent: float | None, done: int | None, total: int | None,
                  zpool_eta: int | None, own_eta: int | None, pace: float | None = None
                  ) -> str:
    """`resilver 42.1% · 1.2G of 2.9G · zconsole: about 4 min (0.85%/min) · zpool: 3 min`."""
    bits = [activity + (f" {percent:.1f}%" if percent is not None else ", progress unknown")]
    if done is not None and total:
        bits.append(f"{fmt.size(done, short=True)} of {fmt.size(total, short=True)}")
    if own_eta is not None:
        pace_s = f" ({pace:.2f}%/min)" if pace is not None else ""
        bits.append(f"zconsole: about {fmt.duration(own_eta)}{pace_s}")
    else:
        bits.append("zconsole's own estimate after a few readings")
    if zpool_eta is not None:
        bits.append(f"zpool: {fmt.duration(zpool_eta)}")
    return " · ".join(bits)


def step_by_id(plan: Plan, step_id: str) -> tuple[int, Step] | None:
    for i, s in enumerate(plan.steps):
        if s.id == step_id:
            return i, s
    return None
