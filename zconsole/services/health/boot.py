"""The boot panel's judgement: why the boot waits for the network, and what the next boot will do.

`systemd-networkd-wait-online` waiting (2 min by default) for a link networkd still calls
`configuring` (a port with no cable that asks for DHCP), and ifupdown's `ifup -a` holding the
boot for its DHCP (networking.service is ordered before network-online.target): each found
from blame, critical-chain, networkctl, netplan and the units' journals of this boot, with its
evidence and the fixes narrowest first. A boot that did not wait is judged for the next one
(the links still configuring, netplan's `optional`, wait-online's loaded command, the mask).
After a fix, `health.fixit_boot` compares this boot with the one before. Facts:
shared/reference/fixit-facts.md, measured on the Debian 12 host guest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from zconsole.model.finding import Finding, Severity
from zconsole.model.fixit import AppliedBootFix, BootReading, Diagnosis, Fix, NetLink
from zconsole.parsers.errors import ParseError
from zconsole.parsers.netplan import NetplanDevice, parse_netplan_get
from zconsole.services import fmt
from zconsole.services.health.fixit_session import line_text as _line
from zconsole.services.health.fixit_session import unread_parts

SLOW_WAIT = 10.0  # s: a wait-online run longer than this held the boot
WAIT_ONLINE = "systemd-networkd-wait-online.service"
NETWORKING = "networking.service"  # ifupdown's `ifup -a` at boot (Before=network-online)
WAIT_BIN = "/lib/systemd/systemd-networkd-wait-online"


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
    evidence += list(r.skipped)  # lines left out of the readings, counted
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
    unread = unread_parts([("boot figures", r.startup), ("blame", r.blame),
                      ("critical chain", r.chain), ("links", r.links),
                      ("wait-online enabled?", r.wait_online_enabled),
                      ("wait-online journal", r.wait_online_journal),
                      ("who wants network-online.target", r.wanted_by),
                      ("netplan", r.netplan)])
    slow_ifup = any(b.unit == NETWORKING and b.seconds >= SLOW_WAIT for b in blame)
    if slow_ifup and r.networking_journal is not None:  # only where it would be judged
        unread += unread_parts([(f"{NETWORKING} journal", r.networking_journal)])
    findings: list[Finding] = []
    fixes: list[Fix] = []
    secs = waited(wait, journal)
    # wait-online ended by itself, well within its timeout: the links still configuring now
    # are not what it waited for (it would still be waiting), so they are not blamed for this
    # boot; the next boot may wait for them all the same (below)
    limit: float | None = WAIT_DEFAULT_TIMEOUT
    if r.wait_online_exec is not None and r.wait_online_exec.value:
        limit = _exec_options(r.wait_online_exec.value)[3]
    ended_itself = (not timed_out and secs is not None
                    and (limit is None or secs < 0.9 * limit))
    if (secs is not None and secs >= SLOW_WAIT) or timed_out:
        devs = plan or {}
        why = ("the network (wait-online ended by itself" + (
            f", within its {fmt.duration(limit)} timeout)" if limit is not None else ")")
            if ended_itself else _waited_for(stuck, devs))
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
                          f"Not judged: {r.unreachable}" if r.unreachable is not None else
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
    verdict, later, more = _next_boot(r, verdict, stuck, links, plan, this_boot)
    findings += later
    fixes += more
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


def _next_boot(r: BootReading, verdict: Finding, stuck: Sequence[NetLink],
               links: Sequence[NetLink], plan: dict[str, NetplanDevice] | None,
               this_boot: bool) -> tuple[Finding, list[Finding], list[Fix]]:
    """A link left configuring: whether the next boot will wait for it (the verdict then,
    with its fixes now rather than after a 2-minute boot) or not (said, as INFO)."""
    later: list[Finding] = []
    more: list[Fix] = []
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
            later.append(verdict)
            more += _boot_fixes(r, links, held, devs, plan)
        else:
            later.append(Finding("boot-configuring", Severity.INFO, "boot",
                                    "networkd is still configuring " + ", ".join(
                                        ln.name for ln in stuck)
                                    + f"; the next boot does not wait for it ({nb.why_not})"))
    elif stuck and verdict.kind != "boot-wait-online":
        later.append(Finding("boot-configuring", Severity.INFO, "boot",
                                "networkd is still configuring " + ", ".join(
                                    ln.name for ln in stuck)
                                + ": a boot that waits for the network would wait for it"))
    return verdict, later, more


def waited(wait: Any, journal: Sequence[Any]) -> float | None:
    """wait-online's seconds this boot: blame's, or from its journal's first Starting line to
    its last line when blame has none. Restarted since the boot (its journal of this boot
    has two Starting lines), the wait that held the boot is its first run, from the first
    Starting line to the Finished or Failed-to-start line that ended it: blame gives the
    last run (a live restart with `--any` took 0.8 s after a boot that waited 2 min, and the
    panel said the boot had waited 0.8 s)."""
    first = first_run(journal)
    if first is not None:
        return first
    if wait is not None:
        return float(wait.seconds)
    start = next((j for j in journal if j.message.startswith("Starting ")), None)
    if start is not None and journal and journal[-1] is not start:
        return float(journal[-1].at - start.at)
    return None


def first_run(journal: Sequence[Any]) -> float | None:
    """A unit's first run of this boot, in seconds, when its journal shows it started more
    than once (None otherwise, or when the first run's end is not in it)."""
    starts = [i for i, j in enumerate(journal) if j.message.startswith("Starting ")]
    if len(starts) < 2:
        return None
    end = next((j for j in journal[starts[0] + 1:starts[1]]
                if j.message.startswith(("Finished ", "Failed to start "))), None)
    return None if end is None else float(end.at - journal[starts[0]].at)


def _waited_for(stuck: Sequence[NetLink], devs: Mapping[str, NetplanDevice]) -> str:
    """The links the boot waited for, in words (wait-online timed out, or ran long)."""
    if len(stuck) == 1:
        return f"{stuck[0].name}, {_why_link(stuck[0], devs.get(stuck[0].name))}"
    if stuck:
        return " and ".join(ln.name for ln in stuck) + ", links networkd is still configuring"
    return "the network (no link is left configuring now: see the journal)"
