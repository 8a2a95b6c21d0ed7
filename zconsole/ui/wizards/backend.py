"""Where the wizard meets the plan builders (services.plans) and the runner
(services.runner), and where its journal lives.

Runs on the operator's machine: the audit log and saved plans are in `state_dir()`
(`$ZCONSOLE_STATE_DIR`, `$XDG_STATE_HOME/zconsole` or `~/.local/state/zconsole`). Rehearsals
on the demo host keep theirs under `state_dir()/demo`, never mixed with real hosts' history.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zconsole.hosts.base import Host
from zconsole.model.plan import Plan
from zconsole.model.reading import HostReading

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.wizards.screen import RunnerFactory


def journal_dir(app: ZConsoleApp) -> Path:
    from zconsole.hosts.journal import state_dir

    explicit = getattr(app, "state_directory", None)
    if explicit is not None:
        return Path(explicit)
    base = state_dir()
    return base / "demo" if app.host.simulated else base


def audit_path_for(app: ZConsoleApp) -> str:
    from zconsole.hosts.journal import AUDIT_FILE

    return str(journal_dir(app) / AUDIT_FILE)


def shown_path(path: str) -> str:
    """A path as the operator reads it: the home directory as ~."""
    home = str(Path.home())
    if home not in ("", "/") and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def store_for(app: ZConsoleApp) -> Any:
    from zconsole.hosts.journal import PLANS_DIR, PlanStore

    return PlanStore(journal_dir(app) / PLANS_DIR)


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

    def make(host: Host, plan: Plan) -> Any:
        return PlanRunner(host, plan, audit=audit, store=store, operator=operator_name(),
                          poll_interval=poll, fast_forward=fast_forward)

    return make


def _split(value: str) -> tuple[str, str]:
    pool, _, name = value.partition("\t")
    return pool, name


def build_plan(kind: str, host: Host, reading: HostReading | None,
               chosen: Mapping[str, str], force: bool) -> Plan:
    """Read the host afresh (blocking: a worker calls this) and build the plan with
    services.plans from what the wizard chose. `snapshot` is the one the choices were made
    on; the guards judge the fresh reading, never the screen's."""
    from zconsole.services.ops.zfs import plans

    if kind == "dedup-off":
        from zconsole.services.read.collect import collect
        from zconsole.services.read.dedup import read_dedup

        pool = chosen["pool"]
        snap = collect(host)
        report = read_dedup(host, pool, zfs=snap.zfs)
        datasets = [d for d in chosen.get("datasets", "").split("\n") if d]
        rewrite = [d for d in chosen.get("rewrite", "").split("\n") if d]
        return plans.build_dedup_off(report, datasets or None, rewrite=rewrite, reading=snap)
    if kind == "attach":
        pool, target = _split(chosen["target"])
        inputs = plans.read_inputs(host, pool)
        return plans.build_attach(inputs.reading, pool, target, chosen["disk"],
                                  props=inputs.props, force=force)
    if kind == "detach":
        pool, leaf = _split(chosen["member"])
        inputs = plans.read_inputs(host, pool)
        return plans.build_detach(inputs.reading, pool, leaf)
    if kind == "replace-grow":
        from zconsole.ui.wizards.choices import grow_members

        pool, vdev = _split(chosen["vdev"])
        inputs = plans.read_inputs(host, pool)
        members = grow_members(inputs.reading, pool, vdev)
        new = [chosen.get(f"new:{m.name}", "") for m in members]
        return plans.build_replace_grow(
            inputs.reading, pool, vdev, [n for n in new if n], props=inputs.props,
            expand=chosen.get("expand", "online-e"),
            on_site=chosen.get("site", "on-site") == "on-site", force=force)
    raise ValueError(f"unknown wizard {kind!r}")
