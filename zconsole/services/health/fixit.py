"""The SSH panel's judgement: why logins are slow (the boot panel's is `health.boot`).

Each panel gives one `Diagnosis`: a verdict in one line (a `Finding`, the worst cause found),
the other findings, each with its evidence (file:line and value, journal lines with their
times, the timed lookup), and the fixes narrowest first with what each costs or breaks.
The fixes are text: nothing here changes the host (the plans are the next step).

Causes judged (facts: shared/reference/fixit-facts.md, measured on the Debian 12 host guest):
- reverse DNS: `UseDNS yes` (Debian's default is no: someone set it) and the lookup of the
  client address is slow, or sshd logged `reverse mapping checking getaddrinfo ... failed`;
- the session setup (`health.fixit_session`): the user's manager (CreateSession waits for
  `user@UID.service`; a slow one holds the first login of a user, 25 s with the fault
  recipe) and the drop-in that slows it; logind or dbus not answering
  (`pam_systemd(sshd:session): Failed to create session: ...` after 2 min, systemd 252's
  CreateSession timeout, or 90 s with dbus frozen);
"""

from __future__ import annotations

from zconsole.model.finding import Finding, Severity
from zconsole.model.fixit import (
    ConfigLine,
    Diagnosis,
    Fix,
    Login,
    SshdSources,
    SshReading,
)
from zconsole.services.health.fixit_session import line_text as _line
from zconsole.services.health.fixit_session import logind_cause as _logind
from zconsole.services.health.fixit_session import secs as _secs
from zconsole.services.health.fixit_session import unread_parts, with_journal_note
from zconsole.services.health.fixit_session import user_manager_cause as _user_manager

SLOW_LOOKUP = 1.0  # s: a reverse lookup slower than this is felt at every login
SLOW_PHASE = 5.0  # s: a login phase slower than this is the cause of a slow login
# the verdict: the cause every login pays first, then the first login's own wait
VERDICT_ORDER = {"ssh-logind": 0, "ssh-usedns": 1, "ssh-user-manager": 2}
DROPIN_USEDNS = "/etc/ssh/sshd_config.d/00-zconsole-usedns.conf"
AUTH_KEYS = {
    "gssapiauthentication": "GSSAPIAuthentication",
    "kerberosauthentication": "KerberosAuthentication",
    "kbdinteractiveauthentication": "KbdInteractiveAuthentication",
    "hostbasedauthentication": "HostbasedAuthentication",
}
RELOAD = ("validate with `sshd -t`, prove the value with `sshd -T`, apply with "
          "`systemctl reload ssh` (open sessions survive: Debian's unit has KillMode=process)")


def _first(values: tuple[str, ...] | None) -> str | None:
    return values[0] if values else None


def _setting(reading: SshReading, key: str) -> tuple[str | None, str]:
    """The effective value of `key` for the client (Match applied) if read, else for
    everyone; and which of the two it is."""
    if reading.effective_client.value is not None:
        return _first(reading.effective_client.value.get(key)), "for this client"
    if reading.effective.value is not None:
        return _first(reading.effective.value.get(key)), "for every client"
    return None, ""


def _where(src: SshdSources | None, key: str, value: str | None) -> ConfigLine | None:
    """The line the effective value comes from: the first global one, else a Match block's
    line with that value."""
    if src is None:
        return None
    line = src.origin(key)
    if line is not None and (value is None or line.value.lower() == value.lower()):
        return line
    return next((c for c in src.in_match(key)
                 if value is None or c.value.lower() == value.lower()), line)


def _said(c: ConfigLine) -> str:
    inside = f", inside `{c.match}`" if c.match else ""
    return f"{c.where}: {AUTH_KEYS.get(c.keyword, c.keyword)} {c.value}{inside}"


# ------------------------------------------------------------------------------------ ssh


def _reverse_dns(r: SshReading, src: SshdSources | None,
                 logins: tuple[Login, ...]) -> tuple[Finding, tuple[Fix, ...]] | None:
    usedns, scope = _setting(r, "usedns")
    if usedns != "yes":
        return None
    origin = _where(src, "usedns", "yes")
    where = origin.where if origin is not None else "(file not found: read sshd_config)"
    lookup = r.lookup.value
    with_lines = [lg for lg in logins if lg.reverse_lines]
    evidence = [f"UseDNS yes {scope} (sshd -T); set at {where}"
                + (f", inside `{origin.match}`" if origin is not None and origin.match else "")]
    wait = 0.0
    if lookup is not None:
        name = lookup.text.split()[1] if len(lookup.text.split()) > 1 else "no name"
        evidence.append(f"getent hosts {r.client}: {_secs(lookup.seconds)} → {name}")
        wait = lookup.seconds
        fwd = r.forward.value
        if fwd is not None:
            evidence.append(f"getent ahosts {name} (sshd checks the name forward): "
                            f"{_secs(fwd.seconds)}"
                            + ("" if fwd.returncode == 0 else " → not found"))
            wait += fwd.seconds
    servers = [ln.split()[1] for ln in (r.resolv.value or "").splitlines()
               if ln.startswith("nameserver") and len(ln.split()) > 1]
    if servers:
        evidence.append(f"resolver: {', '.join(servers)} (/etc/resolv.conf)")
    last = with_lines[-1] if with_lines else None
    if last is not None:
        evidence.append(f"the last such login: {last.user or '?'} from {last.addr or '?'}")
        evidence += [_line(j) for j in last.reverse_lines[:3]]
        acc = next((j for j in last.lines if j.message.startswith("Accepted ")), None)
        if acc is not None:
            evidence.append(_line(acc))
    slow = wait >= SLOW_LOOKUP or bool(with_lines)
    if not slow:
        msg = (f"UseDNS yes ({where}): every login looks up the client's name; the lookup "
               f"of {r.client or 'the client'} answered in {_secs(wait)} now")
        return Finding("ssh-usedns", Severity.INFO, "sshd", msg, tuple(evidence)), ()
    msg = (f"Logins wait {_secs(wait)} for a reverse DNS lookup of the client address"
           if wait >= SLOW_LOOKUP else
           "Logins look up the client's name (reverse DNS) and the lookup fails")
    fixes: list[Fix] = []
    cost = ("`from=\"hostname\"` patterns in authorized_keys and `Match Host NAME` stop "
            "matching names; sshd's log shows addresses instead of names")
    if origin is not None and origin.file.startswith("/etc/ssh/sshd_config.d/"):
        fixes.append(Fix(f"Remove `UseDNS {origin.value}` at {origin.where}",
                         f"delete line {origin.line_no} of {origin.file}; {RELOAD}", cost,
                         plan="fix-ssh"))
    fixes.append(Fix(f"Override it with {DROPIN_USEDNS}",
                     f"a drop-in with `UseDNS no` (named 00-… so it is read first and wins; "
                     f"outside any Match block); {RELOAD}",
                     cost + "; one more file to know about",
                     plan="" if fixes else "fix-ssh"))
    fixes.append(Fix("Make the lookup fast instead",
                     f"give {r.client or 'the client'} a PTR record (and its name an A record) "
                     "on the DNS server in /etc/resolv.conf, or a line in /etc/hosts",
                     "nothing in sshd changes; every program on the host resolves faster"))
    return Finding("ssh-usedns", Severity.WARNING, "sshd", msg, tuple(evidence),
                   factor=wait), tuple(fixes)


AUTH_COSTS = {  # as services.ops.fixit.ssh_auth.COSTS (health never imports ops)
    "gssapiauthentication": "Kerberos single sign-on (GSSAPI) logins to this host stop working",
    "kerberosauthentication": "passwords are no longer checked against a Kerberos KDC",
    "kbdinteractiveauthentication": "PAM conversations stop: one-time-password or other "
                                    "two-factor prompts that rely on keyboard-interactive "
                                    "no longer work",
    "hostbasedauthentication": "host-based trust (a client host's key, shosts.equiv) no "
                               "longer lets anyone in",
}


def _auth_fixes(src: SshdSources | None, keys: list[str]) -> tuple[Fix, ...]:
    """For each method on: a drop-in 00-zconsole-METHOD.conf that wins (fixit-facts A.2,
    ranks 2-4); the fix-ssh-auth plan applies it."""
    out = []
    for key in keys:
        name = AUTH_KEYS[key]
        blocks = sorted({c.match for c in (src.in_match(key) if src is not None else ())
                         if c.match is not None and c.value.lower() == "yes"})
        also = (" and the same Match line with it for " + ", ".join(f"`{b}`" for b in blocks)
                if blocks else "")
        out.append(Fix(f"Switch {name} off",
                       f"a drop-in /etc/ssh/sshd_config.d/00-zconsole-{key}.conf with "
                       f"`{name} no`{also} (read first, so it wins); {RELOAD}",
                       AUTH_COSTS[key], plan="fix-ssh-auth"))
    return tuple(out)


def _auth_methods(r: SshReading, src: SshdSources | None) -> list[Finding]:
    out = []
    for key, name in AUTH_KEYS.items():
        value, scope = _setting(r, key)
        if value != "yes":
            # on only in a Match block this client is not covered by (`Match Group ops`):
            # named all the same, for the clients the block matches (unless an earlier
            # block with the same Match line, read first, sets it: the first value wins)
            first: dict[str, ConfigLine] = {}
            for c in (src.in_match(key) if src is not None else ()):
                first.setdefault(c.match or "", c)
            for c in first.values():
                if c.value.lower() == "yes" and c.match is not None:
                    out.append(Finding(
                        "ssh-auth-method", Severity.INFO, "sshd",
                        f"{name} yes for the clients `{c.match}` matches ({c.where})",
                        (f"{c.where}: {name} {c.value}, inside `{c.match}`",)))
                    break
            continue
        origin = _where(src, key, "yes")
        where = _said(origin) if origin is not None else "file not found"
        note = {"gssapiauthentication": "a Debian/Ubuntu client (GSSAPIAuthentication yes by "
                "default) tries it first and waits for a Kerberos server that may not answer",
                "kerberosauthentication": "passwords are checked against a KDC first",
                "kbdinteractiveauthentication": "PAM conversations (prompts) are offered",
                "hostbasedauthentication": "the client host's key is trusted"}[key]
        msg = f"{name} yes {scope} ({where}): {note}"
        out.append(Finding("ssh-auth-method", Severity.INFO, "sshd", msg,
                           (f"sshd -T: {key} yes {scope}",)))
    return out


def _socket(r: SshReading) -> list[Finding]:
    s = r.services.value or {}
    if s.get("ssh.service") != "active" and s.get("ssh.socket") == "active":
        return [Finding("ssh-socket", Severity.INFO, "sshd",
                        "ssh.service is inactive and ssh.socket listens: sshd is "
                        "socket-activated (started per connection), not down")]
    return []


def diagnose_ssh(r: SshReading) -> Diagnosis:
    src = r.sources.value
    logins = r.logins.value or ()
    causes = [c for c in (_reverse_dns(r, src, logins), _logind(r, logins),
                          _user_manager(r)) if c is not None]
    warn = sorted((c for c in causes if c[0].severity is Severity.WARNING),
                  key=lambda c: VERDICT_ORDER.get(c[0].kind, 9))
    info = [c[0] for c in causes if c[0].severity is not Severity.WARNING]
    findings = [c[0] for c in warn] + info + _auth_methods(r, src) + _socket(r)
    fixes = tuple(f for c in warn for f in c[1])
    on = [k for k in AUTH_KEYS if any(f.kind == "ssh-auth-method" and
                                      f.message.startswith(AUTH_KEYS[k] + " yes")
                                      for f in findings)]
    fixes += _auth_fixes(src, on)
    unread = unread_parts([("effective settings", r.effective),
                      ("effective settings for the client", r.effective_client),
                      ("sshd_config files", r.sources), ("logins (journal)", r.logins),
                      ("reverse lookup", r.lookup), ("forward check", r.forward),
                      ("resolver", r.resolv),
                      ("PAM session", r.pam_systemd), ("services", r.services),
                      ("user managers", r.user_units), ("session daemons", r.daemons),
                      ("logind now", r.logind_now)])
    if src is not None:
        unread += tuple(src.problems)
    advice = ("On your workstation: `GSSAPIAuthentication no` in ~/.ssh/config (Debian and "
              "Ubuntu clients try GSSAPI by default), and no `mdns`/`mdns4` after `dns` in "
              "its /etc/nsswitch.conf `hosts:` line",)
    if warn:
        verdict = warn[0][0]
    elif r.effective.value is None and r.effective_client.value is None and r.logins.value is None:
        # a host never reached is not said to refuse a user: whether this is root is unknown
        why = (r.unreachable if r.unreachable is not None else
               "neither sshd's settings nor the journal could be read"
               + (" (zconsole is not root)" if not r.is_root else ""))
        verdict = Finding("ssh-unknown", Severity.UNKNOWN, "sshd", f"Not judged: {why}")
    else:
        times = [lg for lg in logins if lg.accepted_at is not None]
        if times:
            worst = max((lg.setup_seconds or 0.0) + (lg.auth_seconds or 0.0) for lg in times)
            msg = (f"No cause of slow logins found: {len(times)} logins in the journal, the "
                   f"slowest spent {_secs(worst)} in the phases sshd logs")
        else:
            msg = "No cause of slow logins found (no login in the journal of the last 2 h)"
        verdict = Finding("ssh-ok", Severity.OK, "sshd", msg)
    verdict, findings = with_journal_note(r, verdict, findings)
    return Diagnosis("ssh", verdict, tuple(findings), fixes, unread, advice)
