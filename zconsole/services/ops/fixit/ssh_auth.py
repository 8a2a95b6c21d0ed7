"""fix-ssh-auth: an authentication method sshd offers that the operator wants off
(GSSAPIAuthentication, KerberosAuthentication, KbdInteractiveAuthentication,
HostbasedAuthentication; fixit-facts A.2, ranks 2-4). A Debian/Ubuntu client tries GSSAPI
first whenever the server offers it and may wait for a Kerberos server that does not answer;
the others offer prompts or trust nobody meant to use.

The change, as a plan the engine runs like the other fix-its (exact argv, re-checked,
audited, rolled back when a step after it fails): a drop-in
/etc/ssh/sshd_config.d/00-zconsole-METHOD.conf, read before every other file (Debian's
`Include` stands at the top of sshd_config), with `Method no` for every client and, for each
`Match` block that switches the method on, the same `Match` line followed by `Method no`.
sshd keeps the first value it obtains, globally and among the Match blocks a client matches,
and a Match block in an included file ends with that file (servconf.c restores the
includer's Match state after each included file): so the drop-in wins for exactly the
clients each block matches, and no vendor file is edited. Then `sshd -t` validates,
`sshd -T` proves `method no` for every client and `sshd -T -C` for a client each Match block
matches (when zconsole can stand for one: Address, User, Host, LocalAddress, LocalPort, All),
`systemctl reload ssh` applies it (open sessions stay) and a fresh login from localhost
must succeed (before the change, and after it): after an authentication change a refused
login (`Permission denied`) proves nothing, so it fails the step and the change is rolled
back. Undo: the drop-in goes again, validated, the old value proven, reloaded.

Refused (blocked, naming who would be locked out and the file:line) when switching the
method off could lock someone out, which `sshd -t` cannot see: an `AuthenticationMethods`
line (global, or in a Match block: sshd_config(5) "AuthenticationMethods", "Match") names
the method (`keyboard-interactive` for KbdInteractiveAuthentication and its alias
ChallengeResponseAuthentication, `gssapi-with-mic` for GSSAPIAuthentication, `hostbased`
for HostbasedAuthentication): a user whose every listed chain needs a method sshd no
longer offers cannot log in at all; or the journal of the last week shows logins that
used it (`Accepted keyboard-interactive/pam for USER from ...`, or `Partial ...` for one
step of a chain).
"""

from __future__ import annotations

import fnmatch
import ipaddress
import uuid
from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host, HostError, PathNotFound
from zconsole.hosts.journal import PlanStore
from zconsole.model.fixit import ConfigLine, JournalLine, SshdSources, match_criteria
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, predicate
from zconsole.parsers.errors import ParseError
from zconsole.services.health.fixit import AUTH_COSTS, AUTH_KEYS
from zconsole.services.ops.engine.events import RunResult
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit import ssh as fix_ssh
from zconsole.services.ops.fixit.ssh_lockout import AUTH_NAMES, lockout, read_journal
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.read.fixit import SSHD_CONFIG_D, read_sshd_sources

KIND, UNDO_KIND, ROLLBACK_KIND = common.kinds("fix-ssh-auth")
LOCK = fix_ssh.LOCK  # one writer of sshd's files at a time, whichever fix
# the methods, in the order the SSH panel lists them, and what switching each off costs
METHODS = AUTH_KEYS
COSTS = AUTH_COSTS
ROOT = "root"
# sshd_config(5): "ChallengeResponseAuthentication is a deprecated alias for this"
ALIASES = {"kbdinteractiveauthentication": ("challengeresponseauthentication",)}


def dropin(method: str) -> str:
    return f"{SSHD_CONFIG_D}/00-zconsole-{method}.conf"


def dropin_lines(method: str, matches: Sequence[str]) -> tuple[str, ...]:
    name = METHODS[method]
    out = [f"# zconsole fix-ssh-auth: {name} off (read first: the first value wins, in each "
           "Match block too)", f"{name} no"]
    for m in matches:
        out += [m, f"    {name} no"]
    return tuple(out)


def _address_for(patterns: str) -> str | None:
    """An address the first positive pattern of an sshd address list matches (a CIDR's
    first host, a wildcard's ones filled in); None when no such address can be made."""
    for pat in patterns.split(","):
        if not pat or pat.startswith("!"):
            continue
        try:
            if "/" in pat:
                net = ipaddress.ip_network(pat, strict=False)
                return str(next(net.hosts(), net.network_address))
            if not any(c in pat for c in "*?"):
                return str(ipaddress.ip_address(pat))
            guess = pat.replace("*", "1").replace("?", "1")
            while ":" not in guess and guess.count(".") < 3:
                guess += ".1"  # `10.1.*`: the star stands for more than one octet
            if fnmatch.fnmatchcase(guess, pat):
                return str(ipaddress.ip_address(guess))
        except ValueError:
            continue
    return None


def client_for(match: str, default_user: str = ROOT) -> str | None:
    """A `sshd -T -C` connection spec for a client `match` (a `Match ...` line) applies to,
    or None when zconsole cannot stand for one (Group, RDomain, negations only, ...)."""
    criteria = match_criteria(match)
    if criteria is None:
        return None
    spec = {"user": default_user, "host": "", "addr": ""}
    for crit, value in criteria:
        first = next((p for p in value.split(",") if p and not p.startswith("!")), None)
        if first is None:
            return None
        if crit == "address":
            addr = _address_for(value)
            if addr is None:
                return None
            spec["addr"] = addr
        elif crit == "localaddress":
            addr = _address_for(value)
            if addr is None:
                return None
            spec["laddr"] = addr
        elif crit == "localport" and first.isdigit():
            spec["lport"] = first
        elif crit in ("user", "host") and not any(c in first for c in "*?"):
            spec[crit] = first
        else:
            return None
    # sshd -T -C wants user, host and addr all given
    if not spec["addr"]:
        spec["addr"] = "127.0.0.1"
    if not spec["host"]:
        spec["host"] = spec["addr"]
    return ",".join(f"{k}={v}" for k, v in spec.items())


def _plan(title: str, host: str, now: float, *, kind: str = KIND, plan_id: str | None = None,
          preview: Sequence[str] = (), checks: Sequence[Check] = (),
          steps: Sequence[Step] = (), params: tuple[tuple[str, str], ...] = ()) -> Plan:
    return common.make_plan(kind, title, host, now, LOCK, plan_id=plan_id, preview=preview,
                            checks=checks, steps=steps, params=params)


def _prove(method: str, value: str, connection: str = "", match: str = "", n: int = 0
           ) -> Step:
    who = f"for a client `{match}` matches ({connection})" if connection else "for every client"
    sid = "prove" if not connection else f"prove-match-{n}"
    return Step(id=sid, title=f"Prove the effective value {who}: {method} {value}",
                explanation="`sshd -T` prints the settings sshd will use"
                            + (" for that client, its Match blocks applied" if connection
                               else "") + "; the first value read wins.",
                postchecks=(predicate("sshd_effective",
                                      f"sshd -T{' -C ' + connection if connection else ''} "
                                      f"shows {method} {value}", key=method, value=value,
                                      **({"connection": connection} if connection else {})),))


LOGIN_BEFORE = predicate("login_answers", "a fresh login from localhost succeeds before "
                         "the change (else no login could prove it after)", need="login")


def _answers() -> Step:
    return Step(id="verify", title="Verify with a fresh login",
                explanation="the host opens `ssh -o BatchMode=yes localhost true`: the login "
                            "must succeed. After an authentication change a refused login "
                            "(`Permission denied`) proves nothing: zconsole rolls the change "
                            "back.",
                postchecks=(predicate("login_answers", "a fresh login from localhost "
                                                       "succeeds", need="login"),))


def yes_lines(sources: SshdSources, method: str) -> tuple[ConfigLine | None, list[ConfigLine]]:
    """The global line that sets `method` (the first), and the Match blocks' lines that
    switch it on (one per distinct Match line, in reading order)."""
    names = (method, *ALIASES.get(method, ()))
    glob = next((c for c in sources.lines if c.keyword in names and c.match is None), None)
    seen: set[str] = set()
    blocks: list[ConfigLine] = []
    for c in (c for c in sources.lines if c.keyword in names and c.match is not None):
        if c.value.lower() == "yes" and c.match is not None and c.match not in seen:
            seen.add(c.match)
            blocks.append(c)
    return glob, blocks


def _said(c: ConfigLine) -> str:
    inside = f" inside `{c.match}`" if c.match else ""
    return f"{c.where}{inside}"


def choose_method(effective: Mapping[str, str], sources: SshdSources) -> str | None:
    """The first method (the panel's order) on for every client or in a Match block."""
    for m in METHODS:
        if effective.get(m) == "yes" or yes_lines(sources, m)[1]:
            return m
    return None


def build_fix_ssh_auth(host: str, method: str | None, effective: Mapping[str, str] | None,
                       sources: SshdSources | None, texts: Mapping[str, str], *,
                       plan_id: str | None = None, now: float = 0.0,
                       refused: str | None = None,
                       journal: Sequence[JournalLine] | None = ()) -> Plan:
    """The plan from what was read: `effective` (`sshd -T` for every client, keyword ->
    first value, lower case), where each line comes from, the raw texts of the files (to
    know whether the drop-in exists), what `sshd -t` said (None: accepted), and sshd's
    journal of the last week (None: it could not be read)."""
    pid = plan_id or uuid.uuid4().hex
    title = "Fix slow SSH logins: switch an authentication method off"

    def blocked(check: str, why: str) -> Plan:
        return _plan(title, host, now, plan_id=pid, checks=(
            Check(check, False, CheckLevel.BLOCK, why),), params=(("method", method or ""),))

    unread = _unread(refused, effective, sources)
    if unread is not None:
        return blocked(*unread)
    assert effective is not None and sources is not None
    if method is None:
        method = choose_method(effective, sources)
        if method is None:
            return blocked("auth", "no authentication method the panel names ("
                           + ", ".join(METHODS.values()) + ") is on, for every client or in "
                           "a Match block: there is nothing to fix here")
    if method not in METHODS:
        return blocked("method", f"{method}: not one of " + ", ".join(METHODS))
    name = METHODS[method]
    title = f"Fix slow SSH logins: {name} off"
    glob, blocks = yes_lines(sources, method)
    everyone = effective.get(method, "?")
    if everyone != "yes" and not blocks:
        return blocked("auth", f"sshd -T shows {method} {everyone} and no Match block sets it "
                       "yes: there is nothing to fix here")
    locked = lockout(method, sources, journal)
    if any(c.level is CheckLevel.BLOCK for c in locked):
        return _plan(title, host, now, plan_id=pid, checks=locked,
                     params=(("method", method),))
    file = dropin(method)
    if file in texts:
        return blocked("drop-in-free", f"{file} exists already: zconsole does not overwrite "
                       "it")
    matches = [c.match for c in blocks if c.match is not None]
    lines = dropin_lines(method, matches)
    where = _where(everyone, glob, blocks)
    preview = [f"{name} yes is set " + "; ".join(where) + ".",
               f"The fix: {file} with `{name} no`"
               + (" and, for each of those Match blocks, the same Match line with "
                  f"`{name} no`" if matches else "")
               + ": read before every other file, so its values win; no vendor file is "
                 "edited.",
               f"What it costs: {COSTS[method]}.",
               "Undo: from the Host screen (u), itself a plan."]
    checks = [Check("method", True, CheckLevel.INFO, f"{name} yes: " + "; ".join(where)),
              Check("open-sessions", True, CheckLevel.INFO, "open SSH sessions stay: reload, "
                    "not restart, and Debian's ssh.service has KillMode=process"),
              *locked]
    if method in AUTH_NAMES:
        checks.append(Check("no-lockout", True, CheckLevel.INFO,
                            f"no AuthenticationMethods line names {AUTH_NAMES[method]}"
                            + ("" if journal is None else
                               ", and no login of the last week used it")))
    clients = [(m, spec) for m in matches if (spec := client_for(m)) is not None]
    checks += [Check("match-client", True, CheckLevel.INFO,
                     f"`{m}`: zconsole cannot stand for a client it matches, so the value "
                     "there is not proven by sshd -T -C (the drop-in repeats the same Match "
                     "line)") for m in matches if client_for(m) is None]
    steps = [_write_step(file, name, lines, bool(matches)), fix_ssh.validate_step(),
             _prove(method, "no"),
             *(_prove(method, "no", spec, m, n) for n, (m, spec) in enumerate(clients, 1)),
             fix_ssh.reload_step(), _answers()]
    params = (("method", method), ("mode", "drop-in"), ("file", file), ("was", everyone),
              ("what", f"{name} no ({file})"),
              ("clients", "\t".join(spec for _, spec in clients)),
              ("matches", "\t".join(m for m, _ in clients)),
              *common.left_params(common.lines_text(lines), None))
    return _plan(title, host, now, plan_id=pid, preview=preview, checks=checks, steps=steps,
                 params=params)


def _unread(refused: str | None, effective: Mapping[str, str] | None,
            sources: SshdSources | None) -> tuple[str, str] | None:
    """Why nothing can be planned from what was read (check name, reason), or None."""
    if refused is not None:
        return "sshd-valid", fix_ssh.REFUSED.format(refused)
    if effective is None:
        return "sshd-read", ("sshd -T could not be read (it needs root): the effective "
                             "methods are unknown")
    if sources is None:
        return "sshd-config", "sshd's files could not be read"
    return None


def _where(everyone: str, glob: ConfigLine | None, blocks: Sequence[ConfigLine]) -> list[str]:
    """Where the method is on: for every client (and the line that says so), and for the
    clients each Match block matches."""
    where = []
    if everyone == "yes":
        where.append(f"for every client ({_said(glob)})" if glob is not None else
                     "for every client")
    return where + [f"for the clients `{c.match}` matches ({c.where})" for c in blocks]


def _write_step(file: str, name: str, lines: Sequence[str], matches: bool) -> Step:
    """The drop-in written, behind the typed confirmation: `NAME no` (and its Match blocks)."""
    word = f"{name} no"
    return Step(id="write", title=f"Write {file}",
                explanation=f"a new drop-in with `{name} no`"
                            + (", for the Match blocks too" if matches else "")
                            + ", named 00-… so sshd reads it before every other file (the "
                              "first value wins); no vendor file is edited.",
                command=common.write_command(file, lines, "write the drop-in"),
                prechecks=(fix_ssh.VALID_BEFORE, common.not_symlink(file),
                           predicate("file_absent", f"{file} does not exist yet", path=file),
                           LOGIN_BEFORE),
                postchecks=(predicate("file_line", f"{file} says {name} no", path=file,
                                      line="2", text=lines[1]),),
                confirmation=Confirmation(f"This changes sshd's configuration. Type {word!r} "
                                          "to go on:", word))


def restore_plan(fix: Plan, *, reload: bool, undo: bool, plan_id: str | None = None,
                 now: float = 0.0, host: Host | None = None) -> Plan:
    """The drop-in of `fix` goes again (`rm -f`), `sshd -t`, and a reload when sshd had (or
    may have) read it. `undo` (the operator's, later): the drop-in must still be the one
    zconsole wrote, typed confirmation, and the old value for every client proven again."""
    p = dict(fix.params)
    method, file = p.get("method", ""), p.get("file", "")
    name = METHODS.get(method, method)
    word = "Undo" if undo else "Roll back"
    confirm = common.undo_confirmation(f"{file} ({name} as before)") if undo else None
    left = common.left_of(fix) if undo else None
    if undo and left is None:
        return common.unrecorded_plan(fix, UNDO_KIND, f"{word} the SSH fix ({file})", now,
                                      LOCK, plan_id=plan_id)
    restore = common.remove_step(file, confirmation=confirm,
                                 left=left.text if left is not None else None,
                                 what="the drop-in zconsole wrote")
    if undo:
        restore = fix_ssh.valid_first(restore)
    steps = [restore, fix_ssh.validate_step()]
    if undo:
        # the value for every client as it was (the Match blocks' clients get theirs back
        # with the only file the fix added gone)
        if p.get("was") in ("yes", "no"):
            steps.append(_prove(method, p.get("was", "")))
    if reload or undo:
        steps.append(fix_ssh.reload_step())
    if not undo:
        steps = common.as_rollback(steps)
    refused = common.undo_refusal(host, fix) if undo and host is not None else None
    return _plan(f"{word} the SSH fix ({file})", fix.host, now,
                 kind=UNDO_KIND if undo else ROLLBACK_KIND, plan_id=plan_id,
                 preview=[f"{word}: {file} goes again ({name} as before plan "
                          f"{fix.id[:12]})"],
                 steps=steps, params=(*fix.params, ("of", fix.id)),
                 checks=(refused,) if refused is not None else ())


def undo_plan(fix: Plan, *, plan_id: str | None = None, now: float = 0.0,
              host: Host | None = None) -> Plan:
    return restore_plan(fix, reload=True, undo=True, plan_id=plan_id, now=now, host=host)


def rollback_for(fix: Plan, result: RunResult, *, now: float = 0.0) -> Plan | None:
    """The rollback a failed run needs: none if it stopped before the file was written."""
    return fix_ssh.rollback_with(restore_plan, fix, result, now=now)


def rolled_back(fix: Plan, back: Plan, result: RunResult) -> str:
    if result.done:
        reload = "; sshd reloaded" if "rollback-reload" in [s.id for s in back.steps] else ""
        return (f"rolled back: {dict(fix.params).get('file')} is removed; sshd -t passes"
                f"{reload}. Nothing stays applied.")
    return common.rollback_stopped(fix, result)




# ------------------------------------------------------------------------ reading the host


def plan_for(host: Host, method: str | None = None, *, plan_id: str | None = None) -> Plan:
    """Read the host and build the fix (the CLI and the Host screen both call this)."""
    effective = fix_ssh.read_effective(host)
    try:
        sources: SshdSources | None = read_sshd_sources(host)
    except (HostError, OSError, ParseError):
        sources = None
    texts: dict[str, str] = {}
    if sources is not None:
        for m in METHODS:
            try:
                texts[dropin(m)] = host.read_text(dropin(m))
            except (PathNotFound, HostError, OSError):
                continue
    return build_fix_ssh_auth(str(host.label), method, effective, sources, texts,
                              plan_id=plan_id, now=host.now(),
                              refused=fix_ssh.read_refusal(host), journal=read_journal(host))


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan fix-ssh-auth [--method METHOD] --dry-run`."""
    return plan_for(host, req.text("method") or None)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    """The Host screen's `f`: the first method on, in the SSH panel's order."""
    return plan_for(host, answers.get("method") or None)


def applied_fixes(store: PlanStore, host: str) -> list[Plan]:
    """Fixes applied on `host` (every step done) and not undone since, newest last."""
    return common.applied_fixes(store, host, KIND, UNDO_KIND)
