"""fix-ssh: logins wait for a reverse DNS lookup because sshd has `UseDNS yes`. The narrowest
fix, as a plan the engine runs like any disk operation (exact argv, re-checked, audited):

* the `yes` is in a drop-in under /etc/ssh/sshd_config.d/ (outside any Match block, and no
  later line sets it again): back that file up (`cp -a`: content, mode, owner), then delete
  that one line (`sed -i`);
* else: write /etc/ssh/sshd_config.d/00-zconsole-usedns.conf with `UseDNS no` (read first,
  so it wins; vendor files are never edited in place);

then `sshd -t` validates, `sshd -T` proves the effective value is `usedns no`,
`systemctl reload ssh` applies it (Debian's unit has KillMode=process: open sessions stay),
and a fresh `ssh -o BatchMode=yes ADDRESS true` from the host's own address (one sshd must
look up while UseDNS is yes) proves a login is answered quickly: within 5 s, or no slower
than a login from localhost (no lookup) on a host that is slow as a whole.

A step that fails after the file was changed stops the run (the engine's rule); `run_fix`
then runs the rollback: `restore_plan`, itself a plan, recorded like the fix (restore the
copy or remove the drop-in, `sshd -t`, and `systemctl reload ssh` when the reload had
begun). The operator's undo later is the same plan built from the applied fix
(`undo_plan`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from zconsole.hosts.base import Host, HostError, PathNotFound
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.fixit import SshdSources
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Confirmation,
    Plan,
    Step,
    predicate,
)
from zconsole.parsers.errors import ParseError
from zconsole.parsers.sshd import parse_sshd_T
from zconsole.services.ops.engine.events import RunResult
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit.common import (  # noqa: F401 - the names fix-ssh always had
    BACKUP_DIR,
    FixRun,
    FixRunner,
    Runner,
    backup_path,
    run_fix,
)
from zconsole.services.ops.fixit.predicates import SSHD, SSHD_T, sshd_t_refusal
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.read.fixit import NO_HOSTKEYS, SSHD_CONFIG_D, read_sshd_sources

KIND, UNDO_KIND, ROLLBACK_KIND = common.kinds("fix-ssh")
DROPIN = f"{SSHD_CONFIG_D}/00-zconsole-usedns.conf"
DROPIN_LINES = ("# zconsole fix-ssh: sshd does not look up the names of its clients", "UseDNS no")
LOCK = "sshd"  # the engine's one-writer lock on the host is named after this
LOGIN_LIMIT = 5.0  # seconds a fresh login may take for the fix to count as proven
CONFIRM = "UseDNS no"
RELOAD: tuple[str, ...] = ("systemctl", "reload", "ssh")
REFUSED = ("refused by sshd -t before any change ({}): sshd's files as they are now would "
           "not start sshd (the running sshd still uses what it read at its last start or "
           "reload); zconsole changes nothing until that is fixed")
COST = ("`from=\"hostname\"` patterns in authorized_keys and `Match Host NAME` stop matching "
        "names; sshd's log shows addresses instead of names")


@dataclass(frozen=True)
class Target:
    """What the fix changes: `mode` "remove-line" (line `line` of `file`, reading `text`) or
    "drop-in" (`file` is the new drop-in)."""

    mode: str
    file: str
    line: int = 0
    text: str = ""


def choose(sources: SshdSources, texts: Mapping[str, str]) -> Target:
    """The narrowest change: remove the line when it is a global line of a drop-in and no
    later global line sets `UseDNS yes` again; else the drop-in."""
    lines = [c for c in sources.lines if c.keyword == "usedns" and c.match is None]
    origin = lines[0] if lines else None
    if origin is not None and origin.value.lower() == "yes" \
            and origin.file.startswith(SSHD_CONFIG_D + "/") and origin.file != DROPIN:
        after = lines[1] if len(lines) > 1 else None
        raw = common.text_lines(texts.get(origin.file, ""))  # on \n only, as sed counts
        if (after is None or after.value.lower() != "yes") and 0 < origin.line_no <= len(raw) \
                and common.plain_line(raw[origin.line_no - 1]):
            return Target("remove-line", origin.file, origin.line_no, raw[origin.line_no - 1])
    return Target("drop-in", DROPIN)


def _plan(kind: str, title: str, host: str, now: float, *, plan_id: str | None = None,
          preview: Sequence[str] = (), checks: Sequence[Check] = (),
          steps: Sequence[Step] = (), params: tuple[tuple[str, str], ...] = ()) -> Plan:
    return common.make_plan(kind, title, host, now, LOCK, plan_id=plan_id, preview=preview,
                            checks=checks, steps=steps, params=params)


def validate_step() -> Step:
    return Step(id="validate", title="Validate the configuration (sshd -t)",
                explanation="sshd reads every file as it would at start; exit 0 and no output "
                            "means it would accept them. If it refuses, zconsole puts the "
                            "files back as they were and nothing is applied.",
                command=Command((SSHD, "-t"), "validate sshd's configuration"))


def reload_step() -> Step:
    return Step(id="reload", title="Apply: systemctl reload ssh",
                explanation="sshd re-reads its files (SIGHUP after the unit's own sshd -t); "
                            "open sessions, this one included, are not cut (the unit has "
                            "KillMode=process).",
                command=Command(RELOAD, "reload sshd", writes=True))


def _prove(value: str) -> Step:
    return Step(id="prove", title=f"Prove the effective value: usedns {value}",
                explanation="`sshd -T` prints the settings sshd will use; the first value "
                            "read wins, so this is where a forgotten line elsewhere shows.",
                postchecks=(predicate("sshd_effective", f"sshd -T shows usedns {value}",
                                      key="usedns", value=value),))


def _verify() -> Step:
    return Step(id="verify", title="Verify with a fresh login",
                explanation=f"the host opens `ssh -o BatchMode=yes ADDRESS true` from its own "
                            f"address (`hostname -I`; sshd looked such a client up) and times "
                            f"it: sshd must answer within {LOGIN_LIMIT:g} s, or no slower than "
                            "a login from localhost, which needs no lookup (a slow host is "
                            "slow either way). If it does not, zconsole rolls the change back.",
                postchecks=(predicate("login_fast", f"a fresh login is answered within "
                                                    f"{LOGIN_LIMIT:g} s or as fast as one "
                                                    "from localhost",
                                      seconds=f"{LOGIN_LIMIT:g}"),))


VALID_BEFORE = predicate("sshd_valid", "sshd -t accepts sshd's files as they are, before any "
                         "change")


def valid_first(step: Step) -> Step:
    """`step` (the first that changes anything) re-checks that sshd -t accepts the files as
    they are right before it runs: a file broken by someone else since the last reload
    refuses the fix there, before anything is written (else the fix's own sshd -t would
    fail, and the rollback's too, on a file zconsole never touched)."""
    return replace(step, prechecks=(VALID_BEFORE, *step.prechecks))


def _change_steps(t: Target, backup: str, before: str | None) -> list[Step]:
    confirm = Confirmation(f"This changes sshd's configuration. Type {CONFIRM!r} to go on:",
                           CONFIRM)
    if t.mode == "remove-line":
        after = common.delete_line(before, t.line) if before is not None else None
        diff = common.unified_diff(t.file, before, after) if before is not None else ""
        same = (common.file_is(t.file, before, "what the preview read"),) \
            if before is not None else ()
        return [
            valid_first(common.backup_step(t.file, backup, what="the drop-in")),
            Step(id="write", title=f"Remove line {t.line} of {t.file}",
                 explanation=f"deletes `{t.text.strip()}` and nothing else: sed deletes "
                             f"line {t.line} only if it still reads exactly that.",
                 command=Command(("sed", "-i", "-e", common.sed_delete(t.line, t.text),
                                  t.file), f"delete line {t.line}", writes=True, diff=diff),
                 prechecks=(common.not_symlink(t.file),
                            predicate("file_line", f"{t.file}:{t.line} still reads "
                                                   f"{t.text!r}", path=t.file,
                                      line=str(t.line), text=t.text), *same),
                 postchecks=(common.file_is(t.file, after, "the preview's result"),)
                 if after is not None else (),
                 confirmation=confirm),
        ]
    return [Step(id="write", title=f"Write {t.file}",
                 explanation="a new drop-in with `UseDNS no`, named 00-… so sshd reads it "
                             "before every other file (the first value wins); no vendor file "
                             "is edited.",
                 command=common.write_command(t.file, DROPIN_LINES, "write the drop-in"),
                 prechecks=(VALID_BEFORE, common.not_symlink(t.file),
                            predicate("file_absent", f"{t.file} does not exist yet",
                                      path=t.file),),
                 postchecks=(common.file_is(t.file, common.lines_text(DROPIN_LINES),
                                            "the drop-in zconsole wrote"),),
                 confirmation=confirm)]


def build_fix_ssh(host: str, usedns: str | None, sources: SshdSources | None,
                  texts: Mapping[str, str], *, plan_id: str | None = None,
                  now: float = 0.0, refused: str | None = None,
                  links: Mapping[str, str] | None = None) -> Plan:
    """The fix as a plan, from what was read: the effective value (`sshd -T`), where each
    line comes from, and the raw texts of the files. `refused`: what `sshd -t` said of the
    files as they are (None: it accepted them): then nothing is changed. `links`: the files
    that are symbolic links (path -> target): such a file is never edited."""
    title = "Fix slow SSH logins: stop the reverse DNS lookup (UseDNS no)"
    pid = plan_id or uuid.uuid4().hex
    if refused is not None:  # sshd -T fails on such files too: not a question of root
        return _plan(KIND, title, host, now, plan_id=pid, checks=(Check(
            "sshd-valid", False, CheckLevel.BLOCK, REFUSED.format(refused)),))
    if usedns is None:
        return _plan(KIND, title, host, now, plan_id=pid, checks=(Check(
            "sshd-read", False, CheckLevel.BLOCK, "sshd -T could not be read (it needs "
            "root): the effective UseDNS is unknown"),))
    if usedns != "yes":
        return _plan(KIND, title, host, now, plan_id=pid, checks=(Check(
            "usedns", False, CheckLevel.BLOCK, f"sshd -T shows usedns {usedns}: sshd does not "
            "look up client names, there is nothing to fix here"),))
    if sources is None:
        return _plan(KIND, title, host, now, plan_id=pid, checks=(Check(
            "sshd-config", False, CheckLevel.BLOCK, "sshd's files could not be read"),))
    t = choose(sources, texts)
    backup = backup_path(pid, t.file)
    where = f"{t.file}:{t.line} (`{t.text.strip()}`)" if t.mode == "remove-line" else None
    preview = [f"UseDNS yes is set at {where}: that line is removed (backup: {backup})"
               if where else f"UseDNS yes is set outside a drop-in zconsole may edit: "
                             f"{t.file} is written with `UseDNS no`",
               f"What it costs: {COST}",
               "Undo: from the Host screen (the file as it was), itself a plan."]
    checks = [Check("usedns", True, CheckLevel.INFO, "sshd -T shows usedns yes"),
              Check("open-sessions", True, CheckLevel.INFO, "open SSH sessions stay: reload, "
                    "not restart, and Debian's ssh.service has KillMode=process")]
    if t.mode == "drop-in" and t.file in texts:
        checks.append(Check("drop-in-free", False, CheckLevel.BLOCK,
                            f"{t.file} exists already: zconsole does not overwrite it"))
    if t.file in (links or {}):
        checks.append(Check("symlink", False, CheckLevel.BLOCK,
                            common.link_refusal(t.file, (links or {})[t.file])))

    steps = [*_change_steps(t, backup, texts.get(t.file)), validate_step(), _prove("no"),
             reload_step(), _verify()]
    before = texts.get(t.file) if t.mode == "remove-line" else None
    left = common.delete_line(before, t.line) if before is not None else \
        common.lines_text(DROPIN_LINES)
    params = (("mode", t.mode), ("file", t.file), ("line", str(t.line)), ("text", t.text),
              ("backup", backup if t.mode == "remove-line" else ""), ("was", usedns),
              *(common.left_params(left, before)
                if t.mode == "drop-in" or before is not None else ()))
    return _plan(KIND, title, host, now, plan_id=pid, preview=preview, checks=checks,
                 steps=steps, params=params)


def restore_plan(fix: Plan, *, reload: bool, undo: bool, plan_id: str | None = None,
                 now: float = 0.0, host: Host | None = None) -> Plan:
    """Put the file of `fix` back as it was: the copy (`cp -a`) or no drop-in (`rm -f`);
    `sshd -t`; reload when sshd had (or may have) re-read the changed file. `undo` (the
    operator's, later): the file must still be byte for byte what the fix left (re-checked
    right before; with `host`, read now too: a change is a blocked plan showing its diff),
    the fix needs typed confirmation, and the old effective value is proven again."""
    p = dict(fix.params)
    file, backup = p.get("file", ""), p.get("backup", "")
    kind = UNDO_KIND if undo else ROLLBACK_KIND
    word = "Undo" if undo else "Roll back"
    confirm = Confirmation(f"This puts {file} back as it was (UseDNS {p.get('was', 'yes')} "
                           "again). Type 'undo' to go on:", "undo") if undo else None
    left = common.left_of(fix) if undo else None
    if undo and left is None:
        return common.unrecorded_plan(fix, kind, f"{word} the SSH fix ({file})", now, LOCK,
                                      plan_id=plan_id)
    if p.get("mode") == "remove-line":
        restore = common.restore_step(file, backup, confirmation=confirm, left=left)
    else:
        restore = common.remove_step(file, confirmation=confirm,
                                     left=left.text if left is not None else None,
                                     what="the drop-in zconsole wrote")
    if undo:  # the operator's, later: the files may have been broken by someone since
        restore = valid_first(restore)
    steps = [restore, validate_step()]
    if undo:
        steps.append(_prove(p.get("was", "yes")))
    if reload or undo:
        steps.append(reload_step())
    if not undo:  # beside the fix's own steps in the wizard's log: other names
        steps = common.as_rollback(steps)
    preview = [f"{word}: {file} as it was before plan {fix.id[:12]}"]
    refused = common.undo_refusal(host, fix) if undo and host is not None else None
    return _plan(kind, f"{word} the SSH fix ({file})", fix.host, now, plan_id=plan_id,
                 preview=preview, steps=steps, params=(*fix.params, ("of", fix.id)),
                 checks=(refused,) if refused is not None else ())


def undo_plan(fix: Plan, *, plan_id: str | None = None, now: float = 0.0,
              host: Host | None = None) -> Plan:
    return restore_plan(fix, reload=True, undo=True, plan_id=plan_id, now=now, host=host)


# ------------------------------------------------------------------------------ running


def rollback_with(restore: Callable[..., Plan], fix: Plan, result: RunResult, *,
                  now: float = 0.0) -> Plan | None:
    """The rollback a failed run of an sshd fix needs (`restore(fix, reload=, undo=False,
    now=)`): none if it stopped before the file was changed; a reload when sshd had (or may
    have) read it."""
    if result.done or result.status != "failed":
        return None
    if not common.changed_host(fix, result, ("write",)):
        return None
    ids = [s.id for s in fix.steps]
    reloaded = "reload" in ids and result.next_index >= ids.index("reload")
    return restore(fix, reload=reloaded, undo=False, now=now)


def rollback_for(fix: Plan, result: RunResult, *, now: float = 0.0) -> Plan | None:
    """The rollback a failed run needs: none if it stopped before the file was changed."""
    return rollback_with(restore_plan, fix, result, now=now)


def rolled_back(fix: Plan, back: Plan, result: RunResult) -> str:
    p = dict(fix.params)
    if result.done:
        what = (f"{p.get('file')} is its backup again, byte for byte"
                if p.get("mode") == "remove-line" else f"{p.get('file')} is removed")
        reload = "; sshd reloaded" if "rollback-reload" in [s.id for s in back.steps] else ""
        return f"rolled back: {what}; sshd -t passes{reload}. Nothing stays applied."
    return common.rollback_stopped(fix, result)




# ------------------------------------------------------------------------ reading the host


def read_effective(host: Host) -> dict[str, str] | None:
    """`sshd -T` for every client: keyword -> first value (lower case), None if unread."""
    try:
        r = host.run([SSHD, "-T"], check=False)
    except HostError:
        return None
    if r.returncode != 0:
        return None
    try:
        values = parse_sshd_T(r.stdout)
    except ParseError:
        return None
    return {k: v[0].lower() for k, v in values.items() if v}


def read_usedns(host: Host) -> str | None:
    return (read_effective(host) or {}).get("usedns")


def read_refusal(host: Host) -> str | None:
    """What `sshd -t` says of sshd's files as they are (None: accepted, or not known: the
    run re-checks right before the first change)."""
    try:
        r = host.run(list(SSHD_T), check=False)
    except HostError:
        return None
    if NO_HOSTKEYS in r.stderr:  # a user, not root: sshd -t cannot tell
        return None
    return sshd_t_refusal(r)


def read_texts(host: Host, sources: SshdSources) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in {*sources.files, DROPIN}:
        try:
            out[path] = host.read_text(path)
        except PathNotFound:
            continue
        except (HostError, OSError):
            continue
    return out


def plan_for(host: Host, *, plan_id: str | None = None) -> Plan:
    """Read the host and build the fix (the CLI and the Host screen both call this)."""
    usedns = read_usedns(host)
    try:
        sources: SshdSources | None = read_sshd_sources(host)
    except (HostError, OSError, ParseError):
        sources = None
    texts = read_texts(host, sources) if sources is not None else {}
    refused = read_refusal(host)
    links = {f: t for f in texts if (t := common.link_target(host, f)) is not None} \
        if usedns == "yes" else {}
    return build_fix_ssh(str(host.label), usedns, sources, texts, plan_id=plan_id,
                         now=host.now(), refused=refused, links=links)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan fix-ssh --dry-run`."""
    return plan_for(host)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    return plan_for(host)


def applied_fixes(store: PlanStore, host: str) -> list[Plan]:
    """Fixes applied on `host` (every step done) and not undone since, newest last."""
    return common.applied_fixes(store, host, KIND, UNDO_KIND)
