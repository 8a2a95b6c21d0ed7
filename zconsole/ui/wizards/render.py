"""Text the wizard shows: the plan preview, the step list while it runs, progress lines.

Plain functions returning Content or Hanging paragraphs (wrapped lines hang under their
text), so tests can read exactly what the operator reads. Every level is a word and a
symbol; colour (a theme variable) only reinforces it. Plans name devices, serials and pools
the host reported: all of it is shown through `kit.text.plain`.

A disk is named by its full by-id name once, where a text first mentions it, and by its
serial after that (`ShortNames`): a redundancy sentence then reads "mirror-0 keeps 2 copies
(PN2334PBJ1A2BT, PN2334PBJ4K7XT)" instead of two 40-character names. The commands, the
log and ZFS's own words are never shortened: they show the exact argv and output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from textual.content import Content

from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, StepStatus
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, Para, para, plain
from zconsole.ui.wizards.argv import CommandText

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


def short_names(reading: HostReading | None) -> dict[str, str]:
    """Every by-id name of every disk of the reading -> the disk's serial."""
    inventory = reading.disks.value if reading is not None else None
    if inventory is None:
        return {}
    return {name: d.serial for d in inventory.devices if d.serial
            for name in d.by_id if name != d.serial}


class ShortNames:
    """One text read top to bottom: a by-id name as it is the first time, its serial after.
    Only whole names are replaced (not `/dev/disk/by-id/NAME`, not `NAME-part1`)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names
        self.seen: set[str] = set()
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        self._pattern = (re.compile(rf"(?<![\w/.:-])({alternatives})(?![\w.:-])")
                         if names else None)

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        name = match.group(1)
        if name in self.seen:
            return self.names[name]
        self.seen.add(name)
        return name


def confirmations(plan: Plan, start_at: int = 0) -> list[Confirmation]:
    """Typed confirmations still ahead, in order, each asked once."""
    out: list[Confirmation] = []
    for step in plan.steps[start_at:]:
        c = step.confirmation
        if c is not None and c not in out:
            out.append(c)
    return out


def preview_text(plan: Plan, *, short: ShortNames | None = None,
                 resuming: str | None = None) -> Hanging:
    """Title, redundancy first, then every check with its level as a word and a symbol."""
    short = short or ShortNames({})
    items: list[Content | Para] = []
    if resuming:
        items += [plain(f"Resuming: {resuming}", "bold"), Content("")]
    items.append(Content.assemble(plain(short(plan.title), "bold"),
                                  plain(f"  on {plan.host}")))
    if plan.preview:
        heading = ("Redundancy now, during and after" if plan.kind in DISK_KINDS
                   else "Before anything runs")
        items += [Content(""), Content.styled(heading, "bold")]
        items += [para(short(line), "  ") for line in plan.preview]
    if plan.checks:
        items += [Content(""), Content.styled("Checks", "bold")]
        for c in plan.checks:
            word, level = check_label(c)
            items.append(para(short(c.detail), Content.styled(f"  {word:<11}", _style(level))
                              + " "))
    if plan.blocked:
        items += [Content(""), Content.styled(
            "✖ This plan cannot run: a check above blocks it. Nothing has been run.",
            f"bold {_style('bad')}")]
    return Hanging(*items)


def steps_detail(plan: Plan, *, start_at: int = 0, short: ShortNames | None = None
                 ) -> Hanging:
    """The steps in plain words: what each does, what it waits for, what proves it."""
    short = short or ShortNames({})
    items: list[Content | Para] = [Content.styled("Steps", "bold")]
    for i, step in enumerate(plan.steps):
        done = i < start_at
        items.append(para(plain(short(step.title) + ("  (done)" if done else ""),
                                "dim" if done else ""),
                          Content.styled(f"  {i + 1}. ", "bold")))
        if done:
            continue
        if step.explanation:
            items.append(para(short(step.explanation), "     ", "dim"))
        if step.operator_action:
            items.append(para(short(step.operator_action), "     ✋ on site: "))
        if step.wait is not None:
            items.append(para(short(step.wait.description), "     ◷ waits: "))
        items += [para(short(p.description), "     proves: ", "dim") for p in step.postchecks]
    return Hanging(*items)


def commands_text(plan: Plan, *, start_at: int = 0) -> CommandText:
    """Every command exactly as it will run, numbered by step; a command breaks only
    between its arguments (argv.py)."""
    parts: list[Content | Command] = []
    for i, step in enumerate(plan.steps):
        if step.command is None:
            continue
        mark = "(done) " if i < start_at else ""
        prefix = "# writes" if step.command.writes else "# reads only"
        parts.append(plain(f"{prefix}, step {i + 1}: {mark}{step.command.purpose}", "dim"))
        parts.append(step.command)
        if step.command.diff:  # the file's change (host text: plain, never markup)
            parts.append(plain(step.command.diff.rstrip("\n"), "dim"))
    if not parts:
        parts.append(Content.styled("(this plan runs no command)", "dim"))
    return CommandText(parts)


def copyable(plan: Plan, start_at: int = 0) -> list[tuple[int, Command]]:
    """(step number, command) of each command still to run, in order: what `y` copies, one
    at a time."""
    return [(i + 1, s.command) for i, s in enumerate(plan.steps)
            if s.command is not None and i >= start_at]


def force_text(plan: Plan, names: Mapping[str, str] | None = None) -> Hanging:
    short = ShortNames(names or {})
    items: list[Content | Para] = [
        Content.styled("A second, explicit confirmation is needed", "bold"), Content("")]
    for c in plan.checks:
        if c.needs_force:
            items.append(para(plain(short(c.detail)), Content.styled("  ▲ ", _style("warn"))))
            if c.force_flag:
                items.append(para(f"overriding adds {c.force_flag} to the command", "    ",
                                  "dim"))
    items += [Content(""), Content(
        "Press f to override with the flag shown, or Escape to go back. Overriding writes a "
        "new label over whatever is on that disk.")]
    return Hanging(*items)


def steps_text(plan: Plan, status: Mapping[str, StepStatus], messages: Mapping[str, str],
               names: Mapping[str, str] | None = None) -> list[Content | Para]:
    """Each step with its status (symbol and word), and its last message under it."""
    short = ShortNames(names or {})
    items: list[Content | Para] = []
    for i, step in enumerate(plan.steps):
        sym, word, level = STATUS_MARK[status.get(step.id, StepStatus.PENDING)]
        items.append(para(Content.assemble(plain(f"{i + 1}. {short(step.title)} · "),
                                           Content.styled(word, _style(level))),
                          Content.styled(f" {sym} ", _style(level))))
        msg = messages.get(step.id)
        if msg:
            items.append(para(short(msg), "      ", "dim"))
    return items


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
