"""The runner's events (services/ops/engine/events.py) as what one line of the wizard shows.

Kept apart from the screen so the mapping is tested on its own, event by event.
"""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.model.plan import StepOutcome
from zconsole.services.ops.engine import events as run
from zconsole.ui.wizards import render

PHASE_WORD = {"pre": "before", "post": "after", "until": "at the end"}


@dataclass(frozen=True)
class EventView:
    kind: str  # step-started, command, check, progress, step-done, operator, failed, other
    step_id: str | None = None
    text: str = ""
    ok: bool = True
    percent: float | None = None
    stderr: str = ""
    explanation: str | None = None
    outcome: StepOutcome | None = None
    helper: str | None = None
    output: str = ""  # a command's stdout (shown for read-only commands: the proof)
    bar: bool = True  # a progress with a bar (a scan); False: only its sentence (a disk swap)

# what a watch that has no figures says loudly (bay.py: a wrong disk pulled, a disk refused)
ALARMS = ("⚠", "✖")


def view(ev: run.RunEvent) -> EventView:
    if isinstance(ev, run.StepStarted):
        what = f"$ {ev.command}" if ev.command else ev.title
        if ev.resumed:
            what = f"{ev.title} (resumed: watching again)"
        return EventView("step-started", ev.step_id, what)
    if isinstance(ev, run.CommandFinished):
        r = ev.result
        took = f" in {r.duration:.1f} s" if r.duration else ""
        return EventView("command", ev.step_id, f"$ {ev.command}  → exit {r.returncode}{took}",
                         ok=r.returncode == 0, output=r.stdout)
    if isinstance(ev, run.CheckResult):
        when = PHASE_WORD.get(ev.phase, ev.phase)
        return EventView("check", ev.step_id,
                         f"{ev.predicate.description} ({when}): {ev.detail}", ok=ev.ok)
    if isinstance(ev, run.WaitProgress):
        if ev.error:
            return EventView("progress", ev.step_id, f"could not look: {ev.error} (still "
                             "watching; ZFS carries on)", ok=False)
        if not ev.scanning:
            return EventView("progress", ev.step_id, ev.detail, percent=100.0)
        if ev.percent is None and ev.total_bytes is None and ev.function == ev.activity \
                and ev.detail:
            # a watch of something other than a scan (the disks of a bay): its own words
            return EventView("progress", ev.step_id, ev.detail, bar=False,
                             ok=not any(a in ev.detail for a in ALARMS))
        text = render.progress_line(ev.function or ev.activity, ev.percent, ev.done_bytes,
                                    ev.total_bytes, ev.zpool_eta_s, ev.own_eta_s)
        return EventView("progress", ev.step_id, text, percent=ev.percent)
    if isinstance(ev, run.StepDone):
        o = ev.outcome
        return EventView("step-done", o.step_id, o.message, outcome=o)
    if isinstance(ev, run.NeedsOperator):
        return EventView("operator", ev.step_id, ev.text, helper=ev.helper)
    if isinstance(ev, run.RunFailed):
        return EventView("failed", ev.step_id or None, ev.message, ok=False, stderr=ev.stderr,
                         explanation=ev.explanation)
    return EventView("other", None, str(ev))


def result_status(result: run.RunResult) -> str:
    """done, failed, cancelled, awaiting-operator."""
    return result.status
