"""Text the wizard shows: the plan preview, the step list while it runs, progress lines.

Plain functions returning Content, so tests can read exactly what the operator reads.
Every level is a word and a symbol; colour (a theme variable) only reinforces it. Plans name
devices, serials and pools the host reported: all of it is shown through `kit.text.plain`.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.content import Content

from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, StepStatus
from zconsole.services import fmt
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import plain

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


def _style(level: str) -> str:
    return LEVEL_STYLE.get(level, "")


def confirmations(plan: Plan, start_at: int = 0) -> list[Confirmation]:
    """Typed confirmations still ahead, in order, each asked once."""
    out: list[Confirmation] = []
    for step in plan.steps[start_at:]:
        c = step.confirmation
        if c is not None and c not in out:
            out.append(c)
    return out


def preview_text(plan: Plan, *, start_at: int = 0) -> Content:
    """Title, redundancy first, then every check with its level as a word and a symbol."""
    parts: list[Content | str] = [plain(plan.title, "bold"), plain(f"  on {plan.host}\n")]
    if plan.preview:
        heading = ("Redundancy now, during and after" if plan.kind in DISK_KINDS
                   else "Before anything runs")
        parts.append(Content.styled(f"\n{heading}\n", "bold"))
        parts += [plain(f"  {line}\n") for line in plan.preview]
    if plan.checks:
        parts.append(Content.styled("\nChecks\n", "bold"))
        for c in plan.checks:
            word, level = check_label(c)
            parts.append(Content.styled(f"  {word:<11}", _style(level)))
            parts.append(plain(f" {c.detail}\n"))
    if plan.blocked:
        parts.append(Content.styled(
            "\n✖ This plan cannot run: a check above blocks it. Nothing has been run.\n",
            f"bold {_style('bad')}"))
    return Content.assemble(*parts).rstrip()


def steps_detail(plan: Plan, *, start_at: int = 0) -> Content:
    """The steps in plain words: what each does, what it waits for, what proves it."""
    parts: list[Content | str] = [Content.styled("Steps\n", "bold")]
    for i, step in enumerate(plan.steps):
        done = i < start_at
        parts.append(Content.styled(f"  {i + 1}. ", "bold"))
        parts.append(plain(step.title + ("  (done)" if done else ""), "dim" if done else ""))
        parts.append("\n")
        if done:
            continue
        if step.explanation:
            parts.append(plain(f"     {step.explanation}\n", "dim"))
        if step.operator_action:
            parts.append(plain(f"     ✋ on site: {step.operator_action}\n"))
        if step.wait is not None:
            parts.append(plain(f"     ◷ waits: {step.wait.description}\n"))
        parts += [plain(f"     proves: {p.description}\n", "dim") for p in step.postchecks]
    return Content.assemble(*parts).rstrip()


def commands_text(plan: Plan, *, start_at: int = 0) -> Content:
    """Every command exactly as it will run (Command.display), numbered by step."""
    parts: list[Content] = []
    for i, step in enumerate(plan.steps):
        if step.command is None:
            continue
        mark = "(done) " if i < start_at else ""
        prefix = "# writes" if step.command.writes else "# reads only"
        parts.append(plain(f"{prefix}, step {i + 1}: {mark}{step.command.purpose}\n", "dim"))
        parts.append(plain(step.command.display() + "\n"))
    if not parts:
        parts.append(Content.styled("(this plan runs no command)\n", "dim"))
    return Content.assemble(*parts).rstrip()


def force_text(plan: Plan) -> Content:
    parts: list[Content | str] = [
        Content.styled("A second, explicit confirmation is needed\n\n", "bold")]
    for c in plan.checks:
        if c.needs_force:
            parts.append(Content.styled("  ▲ ", _style("warn")))
            parts.append(plain(f"{c.detail}\n"))
            if c.force_flag:
                parts.append(plain(f"    overriding adds {c.force_flag} to the command\n",
                                   "dim"))
    parts.append("\nPress f to override with the flag shown, or Escape to go back. Overriding "
                 "writes a new label over whatever is on that disk.\n")
    return Content.assemble(*parts)


def steps_text(plan: Plan, status: Mapping[str, StepStatus], messages: Mapping[str, str]
               ) -> Content:
    parts: list[Content | str] = []
    for i, step in enumerate(plan.steps):
        sym, word, level = STATUS_MARK[status.get(step.id, StepStatus.PENDING)]
        parts.append(Content.styled(f" {sym} ", _style(level)))
        parts.append(plain(f"{i + 1}. {step.title} · "))
        parts.append(Content.styled(word, _style(level)))
        parts.append("\n")
        msg = messages.get(step.id)
        if msg:
            parts.append(plain(f"      {msg}\n", "dim"))
    return Content.assemble(*parts).rstrip()


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


def refusal_text(message: str, stderr: str, explanation: str | None) -> Content:
    """ZFS's words verbatim, then what they mean."""
    first = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "")
    if first and first in message:  # the runner quotes ZFS's first line: show it once
        message = message.split(first, 1)[0].rstrip(" :") + ", ZFS's own words:"
    parts: list[Content | str] = []
    if message:
        parts.append(plain(message + "\n", "bold"))
    if stderr.strip():
        parts.append(plain(stderr.rstrip() + "\n"))
    if explanation:
        parts.append(Content.styled("\nWhat this means: ", "bold"))
        parts.append(plain(explanation))
    return Content.assemble(*parts).rstrip()


def identify_command(plan: Plan, operator_index: int) -> Command | None:
    """The read-only command that makes the disk of an on-site step blink: the step's own
    read-only command, or a read-only step named identify next to it."""
    step = plan.steps[operator_index]
    if step.command is not None and not step.command.writes:
        return step.command
    for j in (operator_index - 1, operator_index + 1):
        if 0 <= j < len(plan.steps):
            s = plan.steps[j]
            if s.command is not None and not s.command.writes and "identify" in s.id:
                return s.command
    return None
