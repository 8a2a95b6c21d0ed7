"""The fix-it panels' judgement: why logins are slow, why the boot waits.

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
- the boot: `systemd-networkd-wait-online` waiting (2 min by default) for a link networkd
  still calls `configuring`, e.g. a port with no cable that asks for DHCP.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from zconsole.model.finding import Finding, Severity
from zconsole.model.fixit import (
    AppliedBootFix,
    BootReading,
    ConfigLine,
    Diagnosis,
    Fix,
    Login,
    NetLink,
    SshdSources,
    SshReading,
)
from zconsole.parsers.errors import ParseError
from zconsole.parsers.netplan import NetplanDevice, parse_netplan_get
from zconsole.services import fmt
from zconsole.services.health.fixit_session import line_text as _line
from zconsole.services.health.fixit_session import logind_cause as _logind
from zconsole.services.health.fixit_session import secs as _secs
from zconsole.services.health.fixit_session import user_manager_cause as _user_manager
from zconsole.services.health.fixit_session import with_journal_note

SLOW_LOOKUP = 1.0  # s: a reverse lookup slower than this is felt at every login
SLOW_PHASE = 5.0  # s: a login phase slower than this is the cause of a slow login
SLOW_WAIT = 10.0  # s: a wait-online run longer than this held the boot
# the verdict: the cause every login pays first, then the first login's own wait
VERDICT_ORDER = {"ssh-logind": 0, "ssh-usedns": 1, "ssh-user-manager": 2}
DROPIN_USEDNS = "/etc/ssh/sshd_config.d/00-zconsole-usedns.conf"
WAIT_ONLINE = "systemd-networkd-wait-online.service"
NETWORKING = "networking.service"  # ifupdown's `ifup -a` at boot (Before=network-online)
WAIT_BIN = "/lib/systemd/systemd-networkd-wait-online"
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


def _unread(parts: Iterable[tuple[str, object]]) -> tuple[str, ...]:
    out = []
    for what, part in parts:
        err = getattr(part, "error", None)
        if err and getattr(part, "error_type", None) != "Skipped":
            root = " (needs root)" if getattr(part, "needs_root", False) else ""
            out.append(f"{what}: {err}{root}")
    return tuple(out)


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
    unread = _unread([("effective settings", r.effective),
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
        verdict = Finding("ssh-unknown", Severity.UNKNOWN, "sshd",
                          "Not judged: neither sshd's settings nor the journal could be read"
                          + (" (zconsole is not root)" if not r.is_root else ""))
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


# ----------------------------------------------------------------------------------- boot


def _netplan(r: BootReading) -> dict[str, NetplanDevice] | None:
    if r.netplan.value is None:
        return None
    try:
        return parse_netplan_get(r.netplan.value)
    except ParseError:
        return None


def _why_link(link: NetLink, dev: NetplanDevice | None) -> str:
    what = {"no-carrier": "a port with no cable", "off": "a port that is switched off",
            "carrier": "a link with carrier but no address yet",
            "dormant": "a dormant link"}.get(link.operational, f"a link {link.operational}")
    if dev is not None and (dev.flag("dhcp4") or dev.flag("dhcp6")):
        what += " that asks for DHCP"
    return what


WAIT_DEFAULT_TIMEOUT = 120.0  # s: systemd-networkd-wait-online's own default (--timeout)


@dataclass(frozen=True)
class NextBoot:
    """What the next boot's wait-online would do, judged from what is set now (the links
    networkd is still configuring, netplan's `optional`, wait-online's loaded ExecStart, its
    enablement, who wants network-online.target). `links`: the links it would wait for in
    vain (empty: it would not wait); `timeout`: how long at most (None: no limit);
    `why_not`: why it would not wait, when it would not."""

    links: tuple[str, ...]
    timeout: float | None = WAIT_DEFAULT_TIMEOUT
    why_not: str = ""


def _exec_options(cmds: Sequence[Sequence[str]]) -> tuple[bool, set[str], set[str], float | None]:
    """(--any, --interface names, --ignore names, --timeout) over wait-online's commands."""
    any_, named, ignored = False, set(), set()
    timeout: float | None = WAIT_DEFAULT_TIMEOUT
    for argv in cmds:
        args = list(argv[1:])
        i = 0
        while i < len(args):
            a = args[i]
            value = None
            for long, short in (("--interface", "-i"), ("--ignore", ""), ("--timeout", "")):
                if a.startswith(long + "="):
                    value, a = a[len(long) + 1:], long
                elif a == long or (short and a == short):
                    value = args[i + 1] if i + 1 < len(args) else ""
                    a, i = long, i + 1
                elif short and a.startswith(short) and len(a) > len(short):
                    value, a = a[len(short):], long
            if a == "--any":
                any_ = True
            elif a == "--interface" and value:
                named.add(value.split(":", 1)[0])
            elif a == "--ignore" and value:
                ignored.add(value)
            elif a == "--timeout" and value is not None:
                try:
                    t = float(value)
                except ValueError:
                    t = WAIT_DEFAULT_TIMEOUT
                timeout = None if t == 0 else t
            i += 1
    return any_, named, ignored, timeout


def next_boot(r: BootReading) -> NextBoot:
    """Would the next boot wait for the network, and for which links: the ones networkd is
    still configuring now, unless netplan marks them optional, or wait-online's loaded
    command waits for any link (`--any`), only for others (`--interface`) or ignores them
    (`--ignore`); and only when wait-online is not masked and something wants
    network-online.target (else it does not run at all). A part not read counts as the
    packages' default (wait-online as shipped, nothing optional)."""
    stuck = [ln.name for ln in r.links.value or () if ln.setup == "configuring"]
    if not stuck:
        return NextBoot((), why_not="no link is left configuring")
    if r.wait_online_enabled.value == "masked":
        return NextBoot((), why_not=f"{WAIT_ONLINE} is masked")
    if r.wanted_by.value is not None and not r.wanted_by.value:
        return NextBoot((), why_not="nothing wants network-online.target")
    devs = _netplan(r) or {}
    optional = [n for n in stuck if n in devs and devs[n].flag("optional")]
    left = [n for n in stuck if n not in optional]
    cmds = r.wait_online_exec.value if r.wait_online_exec is not None else None
    timeout: float | None = WAIT_DEFAULT_TIMEOUT
    why_cmd = ""
    if cmds:
        any_, named, ignored, timeout = _exec_options(cmds)
        shown = " ".join(cmds[-1])
        if any_:
            return NextBoot((), timeout, f"wait-online runs `{shown}`: any one link will do")
        if named:
            left = [n for n in left if n in named]
            why_cmd = f"wait-online runs `{shown}`"
        if ignored:
            left = [n for n in left if n not in ignored]
            why_cmd = f"wait-online runs `{shown}`"
    if left:
        return NextBoot(tuple(left), timeout)
    reasons = []
    if optional:
        reasons.append(f"{', '.join(optional)} {'is' if len(optional) == 1 else 'are'} "
                       "optional in netplan")
    if why_cmd:
        reasons.append(why_cmd)
    return NextBoot((), timeout, "; ".join(reasons))


def _boot_evidence(r: BootReading, wait: Any, journal: Sequence[Any], stuck: Sequence[Any],
                   devs: Mapping[str, Any]) -> list[str]:
    """What the boot verdict rests on: blame, the boot figures, the chain, wait-online's
    journal, the stuck links and their netplan keys, who wants network-online.target."""
    evidence: list[str] = []
    if wait is not None:
        evidence.append(f"systemd-analyze blame: {wait.text} {wait.unit}")
    if r.startup.value is not None:
        evidence.append(f"systemd-analyze: {r.startup.value.text}")
    if r.chain.value:
        top = r.chain.value[0]
        if top.at is not None:
            evidence.append(f"systemd-analyze critical-chain: {top.unit} @{top.at:.3f}s")
    evidence += [j.text for j in journal if j.message.startswith(("Starting ", "Failed "))
                 or "Timeout occurred" in j.message or "Event loop failed" in j.message]
    evidence += [f"networkctl: {ln.name} {ln.type} {ln.operational} {ln.setup}"
                 for ln in stuck]
    for ln in stuck:
        d = devs.get(ln.name)
        if d is not None:
            keys = ", ".join(f"{k}: {v}" for k, v in d.keys.items())
            evidence.append(f"netplan get: {d.section}.{ln.name}: {keys or '(no keys)'}")
    enabled = r.wait_online_enabled.value
    if enabled:
        note = (" (netplan's generator enables it at every boot: `systemctl disable` "
                "does not stick)" if enabled == "enabled-runtime" else "")
        evidence.append(f"systemctl is-enabled {WAIT_ONLINE}: {enabled}{note}")
    wanted = r.wanted_by.value or ()
    if wanted:
        evidence.append("wants network-online.target: " + ", ".join(wanted))
    return evidence


def _boot_fixes(r: BootReading, links: Sequence[Any], stuck: Sequence[Any],
                devs: Mapping[str, Any], plan: object) -> list[Fix]:
    """The boot fixes, narrowest first, each with what it costs."""
    fixes: list[Fix] = []
    uplinks = [ln.name for ln in links if ln.setup == "configured"
               and ln.operational == "routable"] or ["UPLINK"]
    uplink = " and ".join(uplinks)
    for ln in stuck:
        d = devs.get(ln.name)
        if d is not None:
            fixes.append(Fix(
                f"Mark {ln.name} optional in netplan",
                f"`netplan set --origin-hint=90-zconsole {d.section}.{ln.name}.optional=true`"
                ", then `netplan generate` (networkd gets RequiredForOnline=no; no `netplan "
                "apply`: the links are not touched now)",
                f"networkd stops waiting for {ln.name} at boot; nothing else changes; "
                "takes effect at the next boot"))
        elif plan is None:
            fixes.append(Fix(
                f"Tell networkd {ln.name} is not required",
                f"a drop-in for {ln.name}'s .network file with `[Link]` "
                "`RequiredForOnline=no`",
                f"networkd stops waiting for {ln.name}; takes effect at the next boot"))
    dropin = f"/etc/systemd/system/{WAIT_ONLINE}.d/"
    fixes.append(Fix(
        f"Wait only for {uplink}",
        f"{dropin}90-zconsole-wait-online.conf: `[Service]` `ExecStart=` "
        f"`ExecStart={WAIT_BIN} {' '.join(f'--interface={u}' for u in uplinks)}` (the "
        "links configured and routable now)",
        f"if {uplink} {'is' if len(uplinks) == 1 else 'are'} renamed or missing, the boot "
        "waits the whole 2 min again; other links are not waited for"))
    fixes.append(Fix(
        "Wait for any one link",
        f"the same drop-in with `ExecStart={WAIT_BIN} --any`",
        "online as soon as any link is up: network-online.target may come before the "
        "default route"))
    users = ", ".join(r.wanted_by.value or ()) or "nothing read"
    fixes.append(Fix(
        "Mask wait-online (last resort)",
        f"`systemctl mask {WAIT_ONLINE}`",
        f"nothing holds network-online.target back: what wants it ({users}) starts "
        "before the network is configured; NFS, iSCSI and _netdev mounts race the network"))
    return fixes


def diagnose_boot(r: BootReading, applied: AppliedBootFix | None = None) -> Diagnosis:
    """The boot panel. `applied`: the last boot fix applied from zconsole and not undone;
    after the next boot its verdict is the comparison (`health.fixit_boot`): fixed, or not
    fixed (with the wait's own verdict), and before it the fix is pending."""
    d = _diagnose_boot(r)
    if applied is None:
        return d
    from zconsole.services.health.fixit_boot import judge_fix

    judged = judge_fix(r, applied)
    if judged.kind == "boot-fix-failed":  # the wait stays the verdict; this says why
        return replace(d, findings=(d.verdict, judged, *d.findings[1:]))
    # the fix worked, and the other unit still holds the boot (ifupdown after wait-online's
    # fix, wait-online after ifupdown's): that is the verdict, "fixed" beside it
    ifupdown = applied.fix == "ifupdown-hotplug"
    held = next((f for f in d.findings if f.severity is Severity.WARNING and
                 (f.kind != "boot-ifupdown" if ifupdown else f.kind == "boot-ifupdown")), None)
    if held is not None and judged.kind == "boot-fix-proven":
        rest = tuple(f for f in d.findings if f is not held)
        return replace(d, verdict=held, findings=(held, judged, *rest),
                       fixes=tuple(f for f in d.fixes
                                   if ("ifupdown" in f.title) != ifupdown))
    others = tuple(f for f in d.findings
                   if f is not d.verdict or f.severity.rank > Severity.OK.rank)
    return replace(d, verdict=judged, findings=(judged, *others),
                   fixes=() if judged.kind != "boot-fix-unknown" else d.fixes)


DHCP_DISCOVER = re.compile(r"DHCPDISCOVER on (\S+)")


def _ifupdown(r: BootReading) -> tuple[Finding, Fix] | None:
    """networking.service (ifupdown's `ifup -a`) held this boot: a port brought up with
    `auto` whose DHCP gets no answer (a port with no cable) holds it until dhclient gives up,
    and network-online.target with it (networking.service is ordered before it), whatever
    wait-online does. Judged from blame (networking.service's time) and its journal of this
    boot (dhclient's DHCPDISCOVER on the port, then "No DHCPOFFERS received"): a loaded host
    takes tens of seconds for a clean `ifup -a` too (22.9 s seen on the host guest)."""
    blame = r.blame.value or ()
    net = next((b for b in blame if b.unit == NETWORKING), None)
    if net is None or net.seconds < SLOW_WAIT:
        return None
    journal = r.networking_journal.value if r.networking_journal is not None else None
    if not journal:
        return None
    failed = [j for j in journal if "No DHCPOFFERS received" in j.message]
    if not failed:
        return None
    ports: list[str] = []
    for j in journal:
        m = DHCP_DISCOVER.search(j.message)
        if m is not None and m.group(1) not in ports:
            ports.append(m.group(1))
    link = ports[0] if len(ports) == 1 else "LINK"
    which = " and ".join(ports) or "a port"
    took = f"{net.seconds:.0f} s" if net.seconds < 600 else fmt.duration(net.seconds)
    msg = (f"Boot waits {took} for {NETWORKING}: ifupdown's `ifup -a` asks DHCP for "
           f"{which} and gets no answer")
    wanted = r.wanted_by.value
    users = ("not read" if wanted is None else ", ".join(wanted) if wanted else
             "nothing else")
    first = next((j for j in journal if DHCP_DISCOVER.search(j.message)), None)
    evidence = (f"systemd-analyze blame: {net.text} {NETWORKING}",
                *([_line(first)] if first is not None else []), _line(failed[-1]),
                f"{NETWORKING} is ordered before network.target and network-online.target: "
                f"ssh.service (after network.target) and what wants network-online "
                f"({users}) wait for it")
    fix = Fix(f"Bring {link} up on hotplug in ifupdown",
              f"`allow-hotplug {link}` instead of `auto {link}` in /etc/network/interfaces "
              "(or interfaces.d/): `ifup -a` no longer waits for it at boot",
              f"{link} comes up when the kernel reports it (udev), not by `ifup -a` at boot; "
              "takes effect at the next boot", plan="fix-boot")
    return Finding("boot-ifupdown", Severity.WARNING, "boot", msg, evidence,
                   factor=net.seconds), fix


def _diagnose_boot(r: BootReading) -> Diagnosis:
    blame = r.blame.value or ()
    wait = next((b for b in blame if b.unit == WAIT_ONLINE), None)
    journal = r.wait_online_journal.value or ()
    timed_out = [j for j in journal if "Timeout occurred while waiting" in j.message
                 or "Event loop failed" in j.message]
    links = r.links.value or ()
    stuck = [ln for ln in links if ln.setup == "configuring"]
    plan = _netplan(r)
    unread = _unread([("boot figures", r.startup), ("blame", r.blame),
                      ("critical chain", r.chain), ("links", r.links),
                      ("wait-online enabled?", r.wait_online_enabled),
                      ("wait-online journal", r.wait_online_journal),
                      ("who wants network-online.target", r.wanted_by),
                      ("netplan", r.netplan)])
    slow_ifup = any(b.unit == NETWORKING and b.seconds >= SLOW_WAIT for b in blame)
    if slow_ifup and r.networking_journal is not None:  # only where it would be judged
        unread += _unread([(f"{NETWORKING} journal", r.networking_journal)])
    findings: list[Finding] = []
    fixes: list[Fix] = []
    secs = wait.seconds if wait is not None else None
    if secs is None and journal:
        start = next((j for j in journal if j.message.startswith("Starting ")), None)
        end = journal[-1]
        if start is not None and end is not start:
            secs = end.at - start.at
    # wait-online ended by itself, well within its timeout: the links still configuring now
    # are not what it waited for (it would still be waiting), so they are not blamed for this
    # boot; the next boot may wait for them all the same (below)
    limit: float | None = WAIT_DEFAULT_TIMEOUT
    if r.wait_online_exec is not None and r.wait_online_exec.value:
        limit = _exec_options(r.wait_online_exec.value)[3]
    ended_itself = (not timed_out and secs is not None
                    and (limit is None or secs < 0.9 * limit))
    if (secs is not None and secs >= SLOW_WAIT) or timed_out:
        names = " and ".join(ln.name for ln in stuck)
        devs = plan or {}
        if ended_itself:
            why = "the network (wait-online ended by itself" + (
                f", within its {fmt.duration(limit)} timeout)" if limit is not None else ")")
        elif len(stuck) == 1:
            why = f"{stuck[0].name}, {_why_link(stuck[0], devs.get(stuck[0].name))}"
        elif stuck:
            why = names + ", links networkd is still configuring"
        else:
            why = "the network (no link is left configuring now: see the journal)"
        took = fmt.duration(secs) if secs is not None else "its whole timeout"
        msg = f"Boot waits {took} for {why}"
        evidence = _boot_evidence(r, wait, journal, stuck, devs)
        findings.append(Finding("boot-wait-online", Severity.WARNING, "boot", msg,
                                tuple(evidence), factor=secs))
        if not ended_itself:  # otherwise the next boot's judgement (below) offers them
            fixes += _boot_fixes(r, links, stuck, devs, plan)
        verdict = findings[0]
    elif r.blame.value is None and r.wait_online_journal.value is None:
        verdict = Finding("boot-unknown", Severity.UNKNOWN, "boot",
                          "Not judged: neither systemd-analyze blame nor the journal of "
                          "wait-online could be read")
    elif wait is None:
        verdict = Finding("boot-ok", Severity.OK, "boot",
                          f"The boot did not wait for the network: {WAIT_ONLINE} did not run "
                          "(nothing wanted network-online.target)")
    else:
        verdict = Finding("boot-ok", Severity.OK, "boot",
                          f"The boot did not wait long for the network: {WAIT_ONLINE} took "
                          f"{wait.text}")
    this_boot = verdict.kind == "boot-ok" or (verdict.kind == "boot-wait-online"
                                              and ended_itself)
    if stuck and this_boot:
        nb = next_boot(r)
        if nb.links:
            # this boot did not wait (a fix undone since, a unit enabled since), the next
            # one will: the panel offers the fix now, not after a 2-minute boot
            held = [ln for ln in stuck if ln.name in nb.links]
            devs = plan or {}
            if len(held) == 1:
                why = f"{held[0].name}, {_why_link(held[0], devs.get(held[0].name))}"
            else:
                why = " and ".join(nb.links) + ", links networkd is still configuring"
            upto = (f"up to {fmt.duration(nb.timeout)}" if nb.timeout is not None
                    else "with no time limit")
            cmds = r.wait_online_exec.value if r.wait_online_exec is not None else None
            evidence = [f"this boot: {verdict.message}",
                        *_boot_evidence(r, None, (), held, devs),
                        "wait-online's loaded command: " + (
                            " ".join(cmds[-1]) if cmds else "not read (taken as shipped)")]
            verdict = Finding("boot-will-wait", Severity.WARNING, "boot",
                              f"The next boot will wait {upto} for {why}",
                              tuple(evidence), factor=nb.timeout)
            findings.append(verdict)
            fixes += _boot_fixes(r, links, held, devs, plan)
        else:
            findings.append(Finding("boot-configuring", Severity.INFO, "boot",
                                    "networkd is still configuring " + ", ".join(
                                        ln.name for ln in stuck)
                                    + f"; the next boot does not wait for it ({nb.why_not})"))
    elif stuck and verdict.kind != "boot-wait-online":
        findings.append(Finding("boot-configuring", Severity.INFO, "boot",
                                "networkd is still configuring " + ", ".join(
                                    ln.name for ln in stuck)
                                + ": a boot that waits for the network would wait for it"))
    ifup = _ifupdown(r)
    if ifup is not None:
        if verdict.severity is Severity.WARNING:  # beside the wait-online verdict
            findings.append(ifup[0])
            fixes.append(ifup[1])
        else:  # the one thing that held this boot
            findings.insert(0, ifup[0])
            if verdict.kind != "boot-unknown":
                findings.insert(1, verdict)
            verdict = ifup[0]
            fixes.insert(0, ifup[1])
    if verdict not in findings:
        findings.insert(0, verdict)
    return Diagnosis("boot", verdict, tuple(findings), tuple(fixes), unread)
