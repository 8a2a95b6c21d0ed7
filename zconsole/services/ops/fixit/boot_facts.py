"""fix-boot's facts: what the plans are made of and from (the constants, the host's files
and the diagnosis read into BootFacts) and which fix applies to which host, narrowest first.
The plans themselves are in boot.py (see its docstring for the four fixes)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zconsole.hosts.base import Host, HostError, PathNotFound
from zconsole.model.fixit import BootReading, Diagnosis
from zconsole.model.reading import Part
from zconsole.parsers.errors import ParseError
from zconsole.parsers.netplan import NetplanDevice, parse_netplan_get
from zconsole.services.health.boot import diagnose_boot
from zconsole.services.ops.fixit.common import kinds
from zconsole.services.ops.fixit.lines import text_lines
from zconsole.services.read.fixit import read_boot

KIND, UNDO_KIND, ROLLBACK_KIND = kinds("fix-boot")
LOCK = "wait-online"  # the engine's one-writer lock on the host is named after this

NETPLAN = "netplan-optional"
IFACE = "wait-online-interface"
ANY = "wait-online-any"
IFUPDOWN = "ifupdown-hotplug"
MASK = "mask"
FIXES = (NETPLAN, IFACE, ANY, IFUPDOWN, MASK)  # narrowest first
DROPIN_FIXES = (IFACE, ANY)  # the two that write the wait-online drop-in

UNIT = "systemd-networkd-wait-online.service"
WAIT_BIN = "/lib/systemd/systemd-networkd-wait-online"  # resolves on every merged-/usr target
DROPIN_DIR = f"/etc/systemd/system/{UNIT}.d"
DROPIN = f"{DROPIN_DIR}/90-zconsole-wait-online.conf"
EXEC_ANY = f"{WAIT_BIN} --any"
DROPIN_LINES = ("# zconsole fix-boot: wait for any one link, not for every link",
                "[Service]", "ExecStart=", f"ExecStart={EXEC_ANY}")


def systemd_word(text: str) -> str:
    """`text` as one word of a unit's command line that systemd passes on as it is
    (systemd.service(5), "Command lines"): a backslash and quotes escaped, `%` specifiers as
    `%%`, `$` variables as `$$`. A link name may hold any of them (the kernel forbids only
    white space, '/' and ':')."""
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")
            .replace("%", "%%").replace("$", "$$"))


def exec_interfaces(links: Sequence[str]) -> str:
    """wait-online's command that waits for `links` only (several: all of them), each link
    name escaped for systemd (`systemd_word`)."""
    return " ".join([WAIT_BIN, *(f"--interface={systemd_word(ln)}" for ln in links)])


def dropin_lines(fix: str, links: Sequence[str] = ()) -> tuple[str, ...]:
    """The drop-in's lines for `fix` (wait-online-any, or wait-online-interface for
    `links`)."""
    if fix == ANY:
        return DROPIN_LINES
    return (f"# zconsole fix-boot: wait for {', '.join(links)} only, not for every link",
            "[Service]", "ExecStart=", f"ExecStart={exec_interfaces(links)}")
NETPLAN_HINT = "90-zconsole"
NETPLAN_FILE = f"/etc/netplan/{NETPLAN_HINT}.yaml"
INTERFACES = "/etc/network/interfaces"
INTERFACES_D = "/etc/network/interfaces.d"
MASK_LINK = f"/etc/systemd/system/{UNIT}"
NETPLAN_VERSION: tuple[str, ...] = ("dpkg-query", "-W", "-f=${Version}", "netplan.io")
DAEMON_RELOAD: tuple[str, ...] = ("systemctl", "daemon-reload")
# --man=no: verify would run man(1) for the unit's Documentation= and fail where manuals are
# not installed (seen on the host guest: "Command 'man systemd-networkd-wait-online.service(8)'
# failed with code 1"), which says nothing about the drop-in
VERIFY: tuple[str, ...] = ("systemd-analyze", "verify", "--man=no", UNIT)
HOTPLUG_LIST: tuple[str, ...] = ("ifquery", "--list", "--allow=hotplug")
NEXT_BOOT = ("It takes effect at the NEXT boot (wait-online already ran for this one): "
             "nothing changes now, no link is touched. After a reboot the Host screen "
             "compares the new boot's wait-online time with this boot's.")
CONFIRM = {NETPLAN: "optional", IFACE: "wait only for", ANY: "wait for any",
           IFUPDOWN: "allow-hotplug", MASK: "mask wait-online"}


@dataclass(frozen=True)
class BootFacts:
    """What the plan is built from: the boot panel's reading and diagnosis, and what the
    fixes touch (netplan's version and its 90-zconsole file, ifupdown's files, the drop-in
    and its directory)."""

    reading: BootReading
    diagnosis: Diagnosis
    netplan_version: str | None = None  # dpkg's version of netplan.io (None: not known)
    netplan_file: str | None = None  # /etc/netplan/90-zconsole.yaml as it is (None: absent)
    ifupdown: Mapping[str, str] = field(default_factory=dict)  # path -> text
    dropin: str | None = None  # the drop-in as it is (None: absent)
    dropin_dir: bool = False  # its directory exists


# ------------------------------------------------------------------------------ choosing


def netplan_devices(facts: BootFacts) -> dict[str, NetplanDevice] | None:
    text = facts.reading.netplan.value
    if text is None:
        return None
    try:
        return parse_netplan_get(text)
    except ParseError:
        return None


def stuck_links(facts: BootFacts) -> list[str]:
    return [ln.name for ln in facts.reading.links.value or () if ln.setup == "configuring"]


def uplinks(facts: BootFacts) -> list[str]:
    """The links that matter: networkd shows them configured and routable now (what the
    boot's wait-online can wait for alone); the stuck ones never are."""
    return [ln.name for ln in facts.reading.links.value or ()
            if ln.setup == "configured" and ln.operational == "routable"]


def waits(facts: BootFacts) -> bool:
    """The diagnosis says the boot waited for wait-online."""
    return facts.diagnosis.verdict.kind == "boot-wait-online"


def would_wait(facts: BootFacts) -> bool:
    """This boot did not wait (a fix undone since, say), but the next one would: the boot
    panel's own judgement (`health.boot.next_boot`: a link left configuring that netplan
    does not mark optional and that wait-online's loaded command does not pass over,
    something wants network-online.target, wait-online not masked)."""
    return facts.diagnosis.verdict.kind == "boot-will-wait"


def wait_before(facts: BootFacts) -> float | None:
    f = next((f for f in facts.diagnosis.findings if f.kind == "boot-wait-online"), None)
    return f.factor if f is not None else None


def ifupdown_held(facts: BootFacts) -> float | None:
    """networking.service's seconds when ifupdown held this boot (the panel's finding)."""
    f = next((f for f in facts.diagnosis.findings if f.kind == "boot-ifupdown"), None)
    return f.factor if f is not None else None


def wait_limit(facts: BootFacts) -> float | None:
    """In a boot that did not wait, how long the next one would (the boot panel's "will
    wait up to": wait-online's timeout as loaded); None when not known or no limit."""
    f = next((f for f in facts.diagnosis.findings if f.kind == "boot-will-wait"), None)
    return f.factor if f is not None else None


def netplan_version_problem(version: str | None) -> str | None:
    """Why `netplan set --origin-hint` cannot be used with this netplan (None: it can, or
    the version is not known and the result is proven by `netplan get`)."""
    if version is None:
        return None
    m = re.match(r"(?:\d+:)?(\d+)\.(\d+)", version)
    if m is None:
        return None
    v = (int(m.group(1)), int(m.group(2)))
    if v < (0, 101):
        return f"netplan {version} has no `netplan set` (it came with 0.101)"
    if v == (0, 105):
        return (f"netplan {version}'s `netplan set --origin-hint` ignores a change to a "
                "device defined in another file (LP: #1997467, fixed in 0.106)")
    return None


# sections whose definitions netplan validates as incomplete without more keys than
# `optional` (src/validation.c, validate_netdef_grammar: a vlan's `link` and `id`, a
# tunnel's `mode`, a vrf's `table`, a wifi's access points, a virtual ethernet's `peer`)
NEEDS_MORE = {"vlans": "`link` and `id`", "tunnels": "`mode`", "vrfs": "`table`",
              "wifis": "`access-points`", "virtual-ethernets": "`peer`"}


def incomplete_problem(link: str, section: str) -> str:
    """Why `netplan set --origin-hint` cannot mark `link` of `section` optional, on any
    netplan: it writes only `optional: true` for it into the hint's file (the definitions
    of the other files are left out of that file's state: `load_nullable_overrides`, in
    netplan/cli/commands/set.py from 0.106 to 1.2.2), and that definition alone is
    validated and refused (Debian 12's 0.106: `missing 'link' property`)."""
    return (f"{link} is defined under {section}: `netplan set --origin-hint` writes only "
            f"`optional: true` for it into {NETPLAN_FILE}, and netplan validates that "
            f"definition on its own, without its {NEEDS_MORE[section]} (netplan 0.106, "
            "Debian 12: `missing 'link' property`; set.py is the same up to 1.2.2)")


def ifupdown_lines(facts: BootFacts, link: str) -> list[tuple[str, int]]:
    """(file, line number) of every line that reads exactly `auto LINK`."""
    out = []
    for path in sorted(facts.ifupdown):
        for n, line in enumerate(text_lines(facts.ifupdown[path]), 1):  # sed's numbers
            if line.strip() == f"auto {link}" and line == line.rstrip():
                out.append((path, n))
    return out


def ifupdown_candidates(facts: BootFacts) -> list[str]:
    """Links ifupdown brings up at boot (`auto LINK`) that have no carrier or that networkd
    left configuring: `ifup -a` (networking.service) waits for them."""
    stuck = stuck_links(facts)
    out = []
    for ln in facts.reading.links.value or ():
        held = ln.setup == "configuring" or ln.operational in ("no-carrier", "off")
        if ln.name != "lo" and held and (not stuck or ln.name in stuck) \
                and len(ifupdown_lines(facts, ln.name)) == 1:
            out.append(ln.name)
    return out


def _netplan_unread(part: Part[str]) -> str:
    """Why netplan's configuration is not known: absent (netplan is not in use), or a read
    that failed for another reason (a timeout on a loaded host is not "not in use")."""
    if part.error_type in (None, "CommandNotFound", "ParseError"):
        return "netplan is not in use here (`netplan get` could not be read)"
    return (f"netplan's configuration could not be read ({part.error}); read the host "
            "again before choosing this fix")


def applicable(facts: BootFacts, fix: str) -> str | None:
    """None when `fix` can be planned from these facts, else why not (one sentence)."""
    stuck = stuck_links(facts)
    if fix == IFUPDOWN:
        if not facts.ifupdown:
            return f"{INTERFACES} could not be read (is ifupdown installed?)"
        if not ifupdown_candidates(facts):
            return ("no link without carrier is brought up by a single `auto LINK` line of "
                    f"{INTERFACES} or {INTERFACES_D}/*")
        return None
    if not waits(facts) and not would_wait(facts):
        return f"the boot did not wait for {UNIT}: there is nothing to fix here"
    if fix == NETPLAN:
        devs = netplan_devices(facts)
        if devs is None:
            return _netplan_unread(facts.reading.netplan)
        if not stuck:
            return "no link is left configuring now: there is no link to mark optional"
        missing = [s for s in stuck if s not in devs]
        if missing:
            return f"netplan does not define {', '.join(missing)}"
        already = [s for s in stuck if devs[s].flag("optional")]
        if already:
            return (f"{', '.join(already)} is optional in netplan already: the wait comes "
                    "from elsewhere")
        incomplete = [s for s in stuck if devs[s].section in NEEDS_MORE]
        if incomplete:
            return incomplete_problem(incomplete[0], devs[incomplete[0]].section)
        return netplan_version_problem(facts.netplan_version)
    if fix in DROPIN_FIXES:
        if facts.dropin is not None:
            return f"{DROPIN} exists already: zconsole does not overwrite it"
        if fix == IFACE and not uplinks(facts):
            return ("no link is configured and routable now: there is no link to wait for "
                    "instead")
        return None
    if fix == MASK:
        if facts.reading.wait_online_enabled.value == "masked":
            return f"{UNIT} is masked already"
        return None
    return f"unknown fix {fix!r} (known: {', '.join(FIXES)})"


def choose(facts: BootFacts) -> tuple[str, list[str]]:
    """The narrowest fix the diagnosis allows, and why each narrower one was passed over:
    netplan when netplan defines the stuck link, ifupdown when an `auto` line brings it up,
    else the drop-in. The mask is never chosen by itself."""
    passed: list[str] = []
    if facts.diagnosis.verdict.kind == "boot-ifupdown":  # ifupdown alone held the boot
        why = applicable(facts, IFUPDOWN)
        return IFUPDOWN, [] if why is None else [f"{IFUPDOWN}: {why}"]
    for fix in (NETPLAN, IFUPDOWN):
        why = applicable(facts, fix)
        if why is None and (fix != IFUPDOWN or waits(facts) or would_wait(facts)):
            return fix, passed
        if why is not None:
            passed.append(f"{fix}: {why}")
    return ANY, passed


# ------------------------------------------------------------------------ reading the host


def _text(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path)
    except (HostError, OSError):
        return None


def read_facts(host: Host, reading: BootReading | None = None) -> BootFacts:
    """The boot panel's reading and diagnosis, and what the fixes touch."""
    r = reading if reading is not None else read_boot(host)
    d = diagnose_boot(r)
    version = None
    try:
        res = host.run(list(NETPLAN_VERSION), check=False)
        if res.returncode == 0 and res.stdout.strip():
            version = res.stdout.strip()
    except HostError:
        version = None
    ifupdown: dict[str, str] = {}
    main = _text(host, INTERFACES)
    if main is not None:
        ifupdown[INTERFACES] = main
        try:
            names = host.list_dir(INTERFACES_D)
        except (HostError, OSError):
            names = []
        for name in names:
            text = _text(host, f"{INTERFACES_D}/{name}")
            if text is not None:
                ifupdown[f"{INTERFACES_D}/{name}"] = text
    try:
        host.list_dir(DROPIN_DIR)
        dropin_dir = True
    except PathNotFound:
        dropin_dir = False
    except (HostError, OSError):
        dropin_dir = True  # not known: never mkdir over it (the pre-check would refuse)
    return BootFacts(r, d, version, _text(host, NETPLAN_FILE), ifupdown, _text(host, DROPIN),
                     dropin_dir)


def with_optional(text: str, link: str) -> str:
    """`netplan get`'s text with `optional: true` for `link` (the diff shown; netplan
    writes the file itself)."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped in (f"{link}:", f"{link}: {{}}"):
            ind = len(line) - len(line.lstrip(" "))
            out.append(" " * ind + f"{link}:")
            i += 1
            while i < len(lines) and (not lines[i].strip()
                                      or len(lines[i]) - len(lines[i].lstrip(" ")) > ind):
                out.append(lines[i])
                i += 1
            out.append(" " * (ind + 2) + "optional: true")
            continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def sed_escape(text: str) -> str:
    """`text` as a literal in a sed basic regular expression (and its replacement)."""
    return re.sub(r"([\\/.*\[\]^$&])", r"\\\1", text)
