"""The fix-its (and the advisor's commands) as wizards: the Host screen's fix (`f`) and undo
(`u`), and the Advice screen's run (`x`), open the same wizard
screen as the disk operations (preview of every command, typed confirmation, run, result).
Which flow, which plan and which undo come from the kind's registry entry
(`services.ops.registry`: `make_flow(kind)`, `Wizard.plan`, `Fixit.undo`): nothing here
names a fix-it but the boot's, the one with a choice (`FixBootFlow`: its fixes listed, each
with its cost, the diagnosis' choice selected first, a blocked one with its reason;
`services.ops.fixit.boot_choice`). The fix runs under `FixRunner`
(`backend.runner_factory` picks it for the kind, a resumed fix too), which rolls the change
back when a step after it fails. An advice's command (`open_advice`) is judged again on a
fresh reading before its plan is shown (`services.ops.zfs.advice.plan_for`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zconsole.model.plan import Plan
from zconsole.model.reading import HostReading
from zconsole.services.ops import registry
from zconsole.services.ops.fixit import boot as fix_boot
from zconsole.services.ops.fixit.boot_choice import FixChoice
from zconsole.ui.wizards.choices import Choice
from zconsole.ui.wizards.flows import Flow, PlanFlow, Stage, make_flow, wizard_flow

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.wizards.screen import WizardScreen


@wizard_flow
@dataclass
class FixBootFlow(PlanFlow):
    """The boot's fixes to choose from (`fix_choices`, as the Host screen read them):
    narrowest first, each with its cost, a blocked one disabled with its reason, the
    diagnosis' choice selected first. The plan of the one picked is built from a fresh
    reading (the entry's `plan_wizard`: `boot.plan_for(host, fix)`). Without choices: the
    diagnosis' choice."""

    KIND = fix_boot.KIND
    fix_choices: tuple[FixChoice, ...] = ()

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "fix" in chosen or not self.fix_choices:
            return None
        return Stage("fix", "Which fix? Narrowest first; each takes effect at the next boot.",
                     tuple(boot_option(c) for c in self.fix_choices),
                     preselect=next((c.fix for c in self.fix_choices if c.chosen), ""))


def boot_option(c: FixChoice) -> Choice:
    """One line of the boot fixes' list: its title (the diagnosis' choice said), its cost,
    and why it cannot be planned here (then not selectable)."""
    label = c.title + (" (the diagnosis' choice)" if c.chosen else "")
    detail = f"costs: {c.cost}" + (f" · not possible here: {c.blocked}" if c.blocked else "")
    return Choice(c.fix, label, detail, enabled=c.blocked is None)


def open_fix(app: ZConsoleApp, kind: str, *, undo_of: Plan | None = None,
             fix_choices: tuple[FixChoice, ...] = ()) -> WizardScreen:
    """Push the wizard of the fix-it `kind` (its plan built from the host in a worker), or,
    with `undo_of` (an applied fix of that kind), of its undo. `fix_choices`: the fixes the
    panel read to choose from (the boot's)."""
    from zconsole.ui.wizards.screen import WizardScreen

    spec = registry.fixit(kind)
    if spec is None:
        raise KeyError(f"{kind!r} is not a fix-it kind of the operation registry")
    flow: Flow
    if undo_of is not None:
        fix = undo_of
        flow = PlanFlow(kind=kind, heading=spec.undo_title,
                        builder=lambda host, _reading, _chosen, _force: spec.undo(fix, host))
    else:
        flow = make_flow(kind, **({"fix_choices": fix_choices} if fix_choices else {}))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen


def open_advice(app: ZConsoleApp, kind: str, pool: str, subject: str) -> WizardScreen:
    """Push the wizard that previews and runs the command of the advice `kind` on `subject`
    (in `pool`), judged again on a fresh reading first (blocked when no longer advised)."""
    from zconsole.services.ops.zfs import advice as advice_ops
    from zconsole.ui.wizards.screen import WizardScreen

    flow = PlanFlow(kind=advice_ops.KIND,
                    builder=lambda host, _reading, _chosen, _force: advice_ops.plan_for(
                        host, kind, pool, subject, now=app.clock()))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen
