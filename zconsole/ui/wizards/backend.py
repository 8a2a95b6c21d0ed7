"""Where the wizard meets the runner (services.ops.engine.runner), and where its journal lives.
(Plans come from the operation registry: `Flow.build` calls the kind's `wizard.plan`.)

Where the journal lives (audit log, saved plans): `zconsole.ui.journal.journal_dir`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from zconsole.hosts.base import Host
from zconsole.model.plan import Plan
from zconsole.ui.journal import journal_dir

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.wizards.screen import RunnerFactory


def audit_path_for(app: ZConsoleApp) -> str:
    from zconsole.hosts.journal import AUDIT_FILE

    return str(journal_dir(app) / AUDIT_FILE)


def shown_path(path: str) -> str:
    """A path as the operator reads it: the home directory as ~."""
    home = str(Path.home())
    if home not in ("", "/") and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def store_for(app: ZConsoleApp, host: Host | None = None) -> Any:
    from zconsole.hosts.journal import PLANS_DIR, PlanStore

    return PlanStore(journal_dir(app, host) / PLANS_DIR)


def operator_name() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name: still record something
        return "unknown"


def runner_factory(app: ZConsoleApp) -> RunnerFactory:
    from zconsole.hosts.journal import AuditLog
    from zconsole.services.ops.engine.runner import PlanRunner

    audit = AuditLog(audit_path_for(app))
    store = store_for(app)
    poll = getattr(app, "wizard_poll_interval", 2.0)
    fast_forward = getattr(app, "wizard_fast_forward", None)  # demo: tests may turn it off

    def plain(host: Host, plan: Plan) -> Any:
        # a rehearsal on the demo host lives through its waits as at the rack: no jump to
        # the end of a resilver, no hands swapping the disks by themselves
        ff = False if fast_forward is None and getattr(host, "rehearsal", False) else fast_forward
        return PlanRunner(host, plan, audit=audit, store=store, operator=operator_name(),
                          poll_interval=poll, fast_forward=ff)

    def make(host: Host, plan: Plan) -> Any:
        """A fix-it (its registry entry has a `Fixit`) runs under its FixRunner (the
        rollback), a resumed one too."""
        from zconsole.services.ops import registry
        from zconsole.services.ops.fixit.common import FixRunner

        spec = registry.fixit(plan.kind)
        if spec is not None:
            return FixRunner(plan, lambda p: plain(host, p), spec)
        return plain(host, plan)

    return make
