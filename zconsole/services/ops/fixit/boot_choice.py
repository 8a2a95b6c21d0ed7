"""fix-boot's choice (the Host screen's list, issue 26 item 7): every fix narrowest first
(`boot_facts.FIXES`), each with what it costs and, when it cannot be planned on this host,
why (`boot_facts.applicable`); the one the diagnosis chooses (`boot_facts.choose`) is
marked, so the wizard selects it first. Whichever the operator picks, its plan is
`boot.plan_for(host, fix)`, built from a fresh reading (a fix that no longer applies is a
blocked plan saying why)."""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.hosts.base import Host
from zconsole.model.fixit import BootReading
from zconsole.services.ops.fixit.boot import COSTS, _mask_cost
from zconsole.services.ops.fixit.boot_facts import (
    ANY,
    FIXES,
    IFACE,
    IFUPDOWN,
    MASK,
    NETPLAN,
    BootFacts,
    applicable,
    choose,
    ifupdown_candidates,
    ifupdown_held,
    read_facts,
    stuck_links,
    uplinks,
    waits,
    would_wait,
)

TITLES = {NETPLAN: "Mark the stuck link optional in netplan",
          IFACE: "wait-online waits only for the links that matter",
          ANY: "wait-online waits for any one link",
          IFUPDOWN: "ifupdown brings the port up on hotplug",
          MASK: "Mask wait-online (last resort)"}


@dataclass(frozen=True)
class FixChoice:
    """One fix the operator may choose (the Host screen's list): what it does, what it
    costs, why it cannot be planned here (None: it can), and whether it is the diagnosis'
    own choice (`choose`)."""

    fix: str
    title: str
    cost: str
    blocked: str | None = None
    chosen: bool = False


def choices(facts: BootFacts) -> tuple[FixChoice, ...]:
    """Every fix, narrowest first (FIXES), each with its cost and why it is blocked; the
    one the diagnosis chooses is marked. `build_fix_boot(..., fix)` builds any of them (a
    blocked one as a blocked plan saying why)."""
    default = choose(facts)[0] if waits(facts) or would_wait(facts) or \
        ifupdown_held(facts) is not None else None
    links = stuck_links(facts)
    if default == IFUPDOWN or (not links and ifupdown_candidates(facts)):
        links = ifupdown_candidates(facts)[:1]
    out = []
    for fix in FIXES:
        cost = _mask_cost(facts) if fix == MASK else COSTS[fix].format(
            links=", ".join(links) or "the stuck link",
            uplinks=", ".join(uplinks(facts)) or "the links configured and routable now")
        name = TITLES[fix].replace("the stuck link", ", ".join(links)) \
            if fix == NETPLAN and links else TITLES[fix]
        out.append(FixChoice(fix, name, cost, applicable(facts, fix), fix == default))
    return tuple(out)


def read_choices(host: Host, reading: BootReading | None = None) -> tuple[FixChoice, ...]:
    """Read what the fixes need (`reading`: the boot panel's, when already read) and list
    them."""
    return choices(read_facts(host, reading))
