"""fix-session: logins wait in the session setup (pam_systemd asks systemd-logind over D-Bus
to create the session; logind starts the user's manager, user@UID.service, and answers when
it runs). The SSH panel names the service at fault (`health.fixit`: the logind, dbus and
user-manager causes); the fixes that are plans, each run by the engine like any other
(exact argv, re-checked right before, audited, verified):

* `restart-logind`: systemd-logind does not answer (pam_systemd: "Failed to create session:
  Connection timed out" after 2 min on systemd 252; its process stopped): `systemctl restart
  systemd-logind.service` (systemd sends a stopped process SIGCONT with its SIGTERM), then
  `loginctl list-sessions` proves logind answers again. Nothing is changed on disk, so there
  is nothing to undo. Refused when logind answers at the re-check (nothing to restart), and
  never offered when the system bus itself (dbus-daemon) is at fault: restarting it cuts
  every service off the bus, so the panel explains instead.
* `user-dropin`: the user's manager is slow to start because of a drop-in of user@.service
  outside the packages' files (/etc or /run; the panel names it, file:line): `cp -a` it to
  /var/backups (content, mode, owner), `rm -f` it, `systemctl daemon-reload`, and `systemctl
  cat` proves it is gone. The undo puts the copy back (`cp -a`, proven byte for byte) and
  reloads; it is itself a plan. A drop-in of the packages (/usr/lib, /lib) is not removed.

Removing pam_systemd from the PAM session (so no login asks logind at all) is explained in
the panel with its cost, never done from here.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from zconsole.hosts.base import Host, HostError
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.finding import Severity
from zconsole.model.fixit import SshReading
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, predicate
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.health.fixit_session import SlowManager, at_fault, slow_manager
from zconsole.services.ops.engine.events import RunResult
from zconsole.services.ops.fixit import common
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.read.fixit import read_ssh, unit_cat

KIND, UNDO_KIND, ROLLBACK_KIND = common.kinds("fix-session")
LOCK = "session"  # the engine's one-writer lock on the host is named after this

RESTART = "restart-logind"
DROPIN = "user-dropin"
FIXES = (RESTART, DROPIN)
LOGIND = "systemd-logind.service"
RESTART_ARGV: tuple[str, ...] = ("systemctl", "restart", LOGIND)
DAEMON_RELOAD: tuple[str, ...] = ("systemctl", "daemon-reload")
LOGIND_LIMIT = 10.0  # s: logind answers `loginctl list-sessions` within this, or it does not
CONFIRM = {RESTART: "restart logind", DROPIN: "remove the drop-in"}
COSTS = {
    RESTART: "logins during the restart wait a moment; open sessions keep running (logind "
             "keeps their state in /run/systemd and reads it back at start)",
    DROPIN: "undoes someone's change to every user's manager (ask who made it and why; the "
            "copy stays in /var/backups); managers already running keep it until they stop",
}
PAM_NOTE = ("Not done from here: dropping pam_systemd from the PAM session (pam-auth-update) "
            "would stop logins asking logind at all, at a cost: no logind session, no "
            "XDG_RUNTIME_DIR, no user@.service, no loginctl or lingering, for every login.")


def _plan(title: str, host: str, now: float, *, plan_id: str | None = None, kind: str = KIND,
          preview: tuple[str, ...] = (), checks: tuple[Check, ...] = (),
          steps: tuple[Step, ...] = (), params: tuple[tuple[str, str], ...] = ()) -> Plan:
    return common.make_plan(kind, title, host, now, LOCK, plan_id=plan_id, preview=preview,
                            checks=checks, steps=steps, params=params)


def _confirm(fix: str, what: str) -> Confirmation:
    return Confirmation(f"This {what}. Type {CONFIRM[fix]!r} to go on:", CONFIRM[fix])


def _restart_plan(host: str, now: float, pid: str, took: float | None) -> Plan:
    waited = f"{took:.0f} s" if took is not None else "until pam_systemd gave up"
    step = Step(
        id="restart", title=f"Restart {LOGIND}",
        explanation="systemd stops logind (SIGTERM, and SIGCONT so that a stopped process "
                    "gets it) and starts it again; it reads the sessions' state back from "
                    "/run/systemd.",
        command=Command(RESTART_ARGV, "restart systemd-logind", writes=True),
        prechecks=(predicate("logind_answers", f"logind still does not answer within "
                             f"{LOGIND_LIMIT:g} s (else there is nothing to restart)",
                             seconds=f"{LOGIND_LIMIT:g}", want="no"),),
        confirmation=_confirm(RESTART, "restarts systemd-logind"))
    prove = Step(
        id="prove", title="Prove logind answers: loginctl list-sessions",
        explanation="the same D-Bus call pam_systemd's CreateSession makes its way to; a "
                    "new login gets its session again.",
        postchecks=(predicate("logind_answers", f"loginctl list-sessions answers within "
                              f"{LOGIND_LIMIT:g} s", seconds=f"{LOGIND_LIMIT:g}"),
                    predicate("command_line", f"systemctl is-active {LOGIND} says active",
                              argv=f"systemctl\tis-active\t{LOGIND}", line="active",
                              want="yes")))
    preview = (f"Logins waited {waited} for systemd-logind, which did not answer.",
               f"The fix: systemctl restart {LOGIND}; nothing on disk changes.",
               f"What it costs: {COSTS[RESTART]}.", PAM_NOTE,
               "There is no undo: a restart changes nothing to put back.")
    return _plan("Fix slow SSH logins: restart systemd-logind", host, now, plan_id=pid,
                 preview=preview, steps=(step, prove),
                 checks=(Check("open-sessions", True, CheckLevel.INFO,
                               "open sessions keep running across logind's restart"),),
                 params=(("fix", RESTART), ("what", f"systemctl restart {LOGIND}")))


def _dropin_plan(host: str, now: float, pid: str, sm: SlowManager,
                 before: str | None = None) -> Plan:
    path = sm.files[0]
    first = next((n, x) for p, n, x in sm.lines if p == path)
    backup = common.backup_path(pid, path)
    listed = f"# {path}"
    same = (common.file_is(path, before, "what the preview read"),) \
        if before is not None else ()
    steps = (
        common.backup_step(path, backup, what=path),
        common.remove_step(
            path, step_id="remove", what=f"the drop-in of {sm.unit.split('@')[0]}@.service",
            prechecks=(predicate("file_line", f"{path}:{first[0]} still reads {first[1]!r}",
                                 path=path, line=str(first[0]), text=first[1]), *same),
            confirmation=_confirm(DROPIN, f"removes {path} (a copy is kept)")),
        Step(id="reload", title="systemctl daemon-reload",
             explanation="systemd reads the unit files again (nothing is started or stopped; "
                         "the next manager to start goes without the drop-in).",
             command=Command(DAEMON_RELOAD, "reload systemd's unit files", writes=True)),
        Step(id="prove", title=f"Prove: systemctl cat {sm.unit}",
             explanation="systemd no longer lists the drop-in for the user's manager.",
             postchecks=(predicate("command_line", f"systemctl cat {sm.unit} no longer "
                                   f"lists {path}", argv="\t".join(unit_cat(sm.unit)),
                                   line=listed, want="no"),)),
    )
    preview = (f"The first login of {sm.login.user or 'a user'} waited {sm.seconds:.0f} s for "
               f"{sm.unit}; {path}:{first[0]} runs `{first[1]}` before the manager starts.",
               f"The fix: remove {path} (backup: {backup}), systemctl daemon-reload.",
               f"What it costs: {COSTS[DROPIN]}.", PAM_NOTE,
               "Undo: from the Host screen (u), itself a plan: the copy goes back.")
    return _plan(f"Fix slow SSH logins: remove the drop-in {path}", host, now, plan_id=pid,
                 preview=preview, steps=steps,
                 params=(("fix", DROPIN), ("what", f"the drop-in {path} removed"),
                         ("file", path), ("backup", backup), ("unit", sm.unit),
                         *(common.left_params(None, before) if before is not None else ())))


def build_fix_session(host: str, reading: SshReading, *, plan_id: str | None = None,
                      now: float = 0.0, texts: Mapping[str, str] | None = None,
                      links: Mapping[str, str] | None = None) -> Plan:
    """The fix for the session-setup cause the SSH panel names, from what it read; `texts`:
    the drop-ins' texts as read (their sha256 is recorded: the undo puts the copy back only
    while it is still that), `links`: those that are symbolic links (never removed)."""
    pid = plan_id or uuid.uuid4().hex
    d = diagnose_ssh(reading)
    v = d.verdict
    title = "Fix slow SSH logins (the session setup)"

    def blocked(name: str, why: str) -> Plan:
        return _plan(title, host, now, plan_id=pid,
                     checks=(Check(name, False, CheckLevel.BLOCK, why),))

    if v.kind == "ssh-logind" and v.severity is Severity.WARNING:
        if at_fault(reading) == "dbus-daemon":
            return blocked("dbus", "the system bus (dbus-daemon) did not answer: zconsole does "
                                   "not restart it (that cuts every service off the bus); see "
                                   "the panel")
        return _restart_plan(host, now, pid, v.factor)
    if v.kind == "ssh-user-manager":
        sm = slow_manager(reading)
        if sm is None or not sm.files:
            if sm is not None and sm.vendor:
                why = (f"only the packages' drop-ins act at its start ({', '.join(sm.vendor)})"
                       ": zconsole does not remove those; override one in /etc instead")
            elif sm is not None and reading.user_units is not None \
                    and reading.user_units.value is not None:
                why = (f"no drop-in of {sm.unit} acts at its start now: nothing to remove "
                       f"(the next first login of {sm.login.user or 'the user'} will tell)")
            else:
                why = "the slow manager's unit could not be read (systemctl cat)"
            return blocked("dropin", why)
        if sm.files[0] in (links or {}):
            return blocked("symlink", common.link_refusal(sm.files[0],
                                                          (links or {})[sm.files[0]]))
        return _dropin_plan(host, now, pid, sm, (texts or {}).get(sm.files[0]))
    return blocked("session", f"{v.message}: no session-setup cause to fix here")


def undo_plan(fix: Plan, *, plan_id: str | None = None, now: float = 0.0,
              undo: bool = True, host: Host | None = None) -> Plan:
    """Put the drop-in back (the copy, `cp -a`, byte for byte), reload, prove it is listed
    again: only while no file stands at its path and the copy is what was saved (re-checked
    right before; with `host`, read now too). `undo` False: the automatic rollback of a run
    that stopped after the removal."""
    p = dict(fix.params)
    path, backup, unit = p.get("file", ""), p.get("backup", ""), p.get("unit", "")
    confirm = common.undo_confirmation(path) if undo else None
    word = "Undo" if undo else "Roll back"
    left = common.left_of(fix) if undo else None
    if undo and left is None:
        return common.unrecorded_plan(fix, UNDO_KIND, f"{word} the session fix ({path})",
                                      now, LOCK, plan_id=plan_id)
    refused = common.undo_refusal(host, fix) if undo and host is not None else None
    steps = [common.restore_step(path, backup, confirmation=confirm, left=left),
             Step(id="reload", title="systemctl daemon-reload",
                  explanation="systemd reads the drop-in again.",
                  command=Command(DAEMON_RELOAD, "reload systemd's unit files", writes=True)),
             Step(id="prove", title=f"Prove: systemctl cat {unit}",
                  explanation="systemd lists the drop-in for the user's manager again.",
                  postchecks=(predicate("command_line", f"systemctl cat {unit} lists {path}",
                                        argv="\t".join(unit_cat(unit)), line=f"# {path}",
                                        want="yes"),))]
    if not undo:
        steps = common.as_rollback(steps)
    return _plan(f"{word} the session fix ({path})", fix.host, now, plan_id=plan_id,
                 kind=UNDO_KIND if undo else ROLLBACK_KIND,
                 preview=(f"{word}: {path} as it was before plan {fix.id[:12]}",),
                 steps=tuple(steps), params=(*fix.params, ("of", fix.id)),
                 checks=(refused,) if refused is not None else ())


def rollback_for(fix: Plan, result: RunResult, *, now: float = 0.0) -> Plan | None:
    """Only the drop-in's removal has something to put back."""
    if result.done or result.status != "failed" or dict(fix.params).get("fix") != DROPIN:
        return None
    if not common.changed_host(fix, result, ("remove",)):
        return None
    return undo_plan(fix, undo=False, now=now)


def rolled_back(fix: Plan, back: Plan, result: RunResult) -> str:
    if result.done:
        return (f"rolled back: {dict(fix.params).get('file')} is its backup again, byte for "
                "byte; systemd reloaded. Nothing stays applied.")
    return common.rollback_stopped(fix, result)




def plan_for(host: Host, *, plan_id: str | None = None) -> Plan:
    """Read the host as the SSH panel does and build the fix (the CLI and the Host screen);
    the drop-in it would remove is read too (its text, and whether it is a link)."""
    reading = read_ssh(host)
    sm = slow_manager(reading)
    texts: dict[str, str] = {}
    links: dict[str, str] = {}
    for path in (sm.files[:1] if sm is not None else ()):
        try:
            texts[path] = host.read_text(path)
        except (HostError, OSError):
            pass
        target = common.link_target(host, path)
        if target is not None:
            links[path] = target
    return build_fix_session(str(host.label), reading, plan_id=plan_id, now=host.now(),
                             texts=texts, links=links)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan fix-session --dry-run`."""
    return plan_for(host)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    return plan_for(host)


def applied_fixes(store: PlanStore, host: str) -> list[Plan]:
    """Drop-in removals applied on `host` and not undone (a restart has no undo)."""
    return [p for p in common.applied_fixes(store, host, KIND, UNDO_KIND)
            if dict(p.params).get("fix") == DROPIN]
