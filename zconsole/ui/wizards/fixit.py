"""The fix-its (and the advisor's commands) as wizards: the Host screen's fix (`f`) and undo
(`u`), and the Advice screen's run (`x`), open the same wizard
screen as the disk operations (preview of every command, typed confirmation, run, result),
with no choice to make: the plan comes from the host as read now
(`services.ops.fixit.ssh`, ...), except the boot's, whose fixes are listed to choose from
(`FixBootFlow`: each with its cost, the diagnosis' choice selected first, a blocked one
with its reason; `services.ops.fixit.boot_choice`). The fix runs under `FixRunner`
(`backend.runner_factory` picks it for the kind, a resumed fix too), which rolls the change
back when a step after it fails. An advice's command (`open_advice`) is judged again on a
fresh reading before its plan is shown (`services.ops.zfs.advice.plan_for`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zconsole.hosts.base import Host
from zconsole.model.plan import Plan
from zconsole.model.reading import HostReading
from zconsole.services.ops.fixit import boot as fix_boot
from zconsole.services.ops.fixit import session as fix_session
from zconsole.services.ops.fixit import ssh as fix_ssh
from zconsole.services.ops.fixit import ssh_auth as fix_ssh_auth
from zconsole.services.ops.fixit.boot_choice import FixChoice
from zconsole.services.ops.zfs import advice as advice_ops
from zconsole.ui.wizards.choices import Choice
from zconsole.ui.wizards.flows import Flow, Stage

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.wizards.screen import WizardScreen


class FixSshFlow(Flow):
    """Nothing to choose: straight to the plan."""

    KIND = fix_ssh.KIND
    TITLE = "Fix slow SSH logins (UseDNS no)"

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        return None


class UndoSshFlow(FixSshFlow):
    KIND = fix_ssh.UNDO_KIND
    TITLE = "Undo the SSH fix"


@dataclass
class FixBootFlow(FixSshFlow):
    """The boot's fixes to choose from (`fix_choices`, as the Host screen read them):
    narrowest first, each with its cost, a blocked one disabled with its reason, the
    diagnosis' choice selected first. The plan of the one picked is built from a fresh
    reading (`boot.plan_for(host, fix)`). Without choices: the diagnosis' choice."""

    KIND = fix_boot.KIND
    TITLE = "Fix slow boot (wait-online)"
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


class UndoBootFlow(FixSshFlow):
    KIND = fix_boot.UNDO_KIND
    TITLE = "Undo the boot fix"


class FixSessionFlow(FixSshFlow):
    KIND = fix_session.KIND
    TITLE = "Fix slow SSH logins (the session setup)"


class UndoSessionFlow(FixSshFlow):
    KIND = fix_session.UNDO_KIND
    TITLE = "Undo the session fix"


class FixSshAuthFlow(FixSshFlow):
    KIND = fix_ssh_auth.KIND
    TITLE = "Fix slow SSH logins (an authentication method off)"


class UndoSshAuthFlow(FixSshFlow):
    KIND = fix_ssh_auth.UNDO_KIND
    TITLE = "Undo the authentication method fix"


class AdviceFlow(FixSshFlow):
    KIND = advice_ops.KIND
    TITLE = "Run an advice's command"


FLOWS: dict[str, type[FixSshFlow]] = {cls.KIND: cls for cls in (
    FixSshFlow, UndoSshFlow, FixBootFlow, UndoBootFlow, FixSessionFlow, UndoSessionFlow,
    FixSshAuthFlow, UndoSshAuthFlow)}
# the fix of each Host screen panel when the panel does not say which (the boot's)
PANEL_KIND = {"ssh": fix_ssh.KIND, "boot": fix_boot.KIND}
UNDO_KIND = {fix_ssh.KIND: fix_ssh.UNDO_KIND, fix_boot.KIND: fix_boot.UNDO_KIND,
             fix_session.KIND: fix_session.UNDO_KIND,
             fix_ssh_auth.KIND: fix_ssh_auth.UNDO_KIND}


def open_fix(app: ZConsoleApp, build: Callable[[Host], Plan], *, undo: bool = False,
             panel: str = "ssh", kind: str | None = None) -> WizardScreen:
    """Push the wizard that previews and runs the plan `build(host)` makes (in a worker);
    `kind`: the fix-it's plan kind (fix-ssh, fix-session, fix-boot; default the panel's),
    `undo`: its undo."""
    from zconsole.ui.wizards.screen import WizardScreen

    fix = kind or PANEL_KIND[panel]
    cls = FLOWS[UNDO_KIND[fix] if undo else fix]
    flow = cls(builder=lambda host, _reading, _chosen, _force: build(host))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen


def open_boot_fix(app: ZConsoleApp, fix_choices: tuple[FixChoice, ...]) -> WizardScreen:
    """Push the boot fix's wizard: the fixes to choose from, then the plan of the one
    picked (`boot.plan_for(host, fix)`, in a worker)."""
    from zconsole.ui.wizards.screen import WizardScreen

    flow = FixBootFlow(builder=lambda host, _reading, chosen, _force: fix_boot.plan_for(
        host, chosen.get("fix") or None), fix_choices=fix_choices)
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen


def open_advice(app: ZConsoleApp, kind: str, pool: str, subject: str) -> WizardScreen:
    """Push the wizard that previews and runs the command of the advice `kind` on `subject`
    (in `pool`), judged again on a fresh reading first (blocked when no longer advised)."""
    from zconsole.ui.wizards.screen import WizardScreen

    flow = AdviceFlow(builder=lambda host, _reading, _chosen, _force: advice_ops.plan_for(
        host, kind, pool, subject, now=app.clock()))
    screen = WizardScreen(flow, host=app.host, reading=app.reading)
    app.push_screen(screen)
    return screen
