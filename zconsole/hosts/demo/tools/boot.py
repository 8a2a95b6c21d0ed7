"""The programs a boot fix (fix-boot) runs, over `machine.system` and `machine.files`, so the
whole fix can be rehearsed on `zconsole --demo slow-boot`; and the demo's reboot, which
recomputes the boot's figures from the files as they are then:

| program | forms answered |
|---|---|
| `netplan` | `get [KEY]`, `set --origin-hint=HINT KEY=VALUE`, `generate` |
| `dpkg-query` | `-W -f=${Version} PACKAGE` (netplan.io) |
| `test` | `-e PATH`, `-d PATH` (files, directories made with mkdir, /sys/class/net/IFACE) |
| `mkdir` | `-m MODE DIR` |
| `rmdir` | `DIR` (refused while something is in it) |
| `ifquery` | `--list [--allow=hotplug]` over /etc/network/interfaces and interfaces.d/* |

`systemctl daemon-reload|cat|show|mask|unmask` and `systemd-analyze verify` are answered by
`tools/system.py` through `systemctl_boot` and `verify` here.

netplan's files: the scenario's merged YAML (`System.netplan`, what `netplan get` prints) is
the base; each /etc/netplan/*.yaml in `machine.files` (what `netplan set` wrote) is laid over
it, as netplan merges. `netplan set --origin-hint` writes only the new key of the device
into the hint's file (with what that file held already), as netplan 0.106 to 1.2.2 do
(set.py: the definitions of the other files are left out of that file's state); that
definition is validated alone, so a vlan's is refused for its missing `link`, as netplan
does.
"""

from __future__ import annotations

import re

from zconsole.hosts.demo.machine import CmdError, Machine
from zconsole.hosts.demo.machine.system import JournalEntry, System
from zconsole.hosts.demo.render import system as render
from zconsole.hosts.demo.tools._common import Context, Handler, Out

UNIT = "systemd-networkd-wait-online.service"
UNIT_DIR = "/etc/systemd/system"
WAIT_BINARIES = ("/lib/systemd/systemd-networkd-wait-online",
                 "/usr/lib/systemd/systemd-networkd-wait-online")
UNIT_TEXT = f"""# /lib/systemd/system/{UNIT}
#  SPDX-License-Identifier: LGPL-2.1-or-later
#
#  This file is part of systemd.

[Unit]
Description=Wait for Network to be Configured
Documentation=man:systemd-networkd-wait-online.service(8)
ConditionCapability=CAP_NET_ADMIN
DefaultDependencies=no
Conflicts=shutdown.target
BindsTo=systemd-networkd.service
After=systemd-networkd.service
Before=network-online.target shutdown.target

[Service]
Type=oneshot
ExecStart=/lib/systemd/systemd-networkd-wait-online
RemainAfterExit=yes

[Install]
WantedBy=network-online.target
"""
NETPLAN_DIR = "/etc/netplan/"
SECTIONS = ("ethernets", "bridges", "vlans", "bonds")


def _system(ctx: Context) -> System:
    m = ctx.machine
    if m.system is None:
        m.system = render.clean_system(m)
    return m.system


def _deny(ctx: Context, program: str, what: str) -> None:
    if not ctx.root:
        raise CmdError(1, f"{program}: {what}: Permission denied\n")


# ------------------------------------------------------------------------------ netplan


def _devices(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """(section, device) -> scalar keys, of netplan's block YAML (the demo's shapes only)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    section = dev = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        ind = len(raw) - len(raw.lstrip(" "))
        key, _, value = raw.strip().partition(":")
        value = value.strip()
        if ind == 2:
            section, dev = (key if key in SECTIONS else None), None
        elif ind == 4 and section is not None:
            dev = key
            out.setdefault((section, dev), {})
        elif ind == 6 and section is not None and dev is not None and value \
                and not value.startswith("["):
            out[(section, dev)][key] = value
    return out


def _overlays(ctx: Context) -> list[str]:
    return [p for p in sorted(ctx.machine.files)
            if p.startswith(NETPLAN_DIR) and p.endswith(".yaml")]


def merged(ctx: Context) -> str:
    """`netplan get`: the base with every key of the files netplan set wrote laid over."""
    s = _system(ctx)
    text = s.netplan
    base = _devices(text)
    for path in _overlays(ctx):
        for (section, dev), keys in _devices(ctx.machine.files[path]).items():
            for key, value in keys.items():
                if base.get((section, dev), {}).get(key) != value:
                    text = _set_key(text, section, dev, key, value)
                    base.setdefault((section, dev), {})[key] = value
    return text


def _set_key(text: str, section: str, dev: str, key: str, value: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i, cur = 0, None
    while i < len(lines):
        line = lines[i]
        ind = len(line) - len(line.lstrip(" "))
        word = line.strip().partition(":")[0]
        if ind == 2:
            cur = word
        if ind == 4 and cur == section and word == dev:
            out.append(f"    {dev}:")
            i += 1
            block = []
            while i < len(lines) and len(lines[i]) - len(lines[i].lstrip(" ")) > 4:
                block.append(lines[i])
                i += 1
            block = [b for b in block if b.strip().partition(":")[0] != key
                     or len(b) - len(b.lstrip(" ")) != 6]
            out += block + [f"      {key}: {value}"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def _split_key(key: str) -> list[str]:
    return [k.replace("\\.", ".") for k in re.split(r"(?<!\\)\.", key)]


def netplan(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if not s.netplan:
        raise CmdError(127, "bash: line 1: netplan: command not found\n")  # as over ssh
    if argv == ["get"] or argv == ["get", "all"]:
        return 0, merged(ctx), ""
    if len(argv) == 2 and argv[0] == "get":
        path = _split_key(argv[1])
        if path[:1] == ["network"]:
            path = path[1:]
        if len(path) == 3:
            value = _devices(merged(ctx)).get((path[0], path[1]), {}).get(path[2])
            return 0, f"{value if value is not None else 'null'}\n", ""
        raise CmdError(1, "netplan: demo host answers only get SECTION.DEVICE.KEY\n")
    if len(argv) == 3 and argv[0] == "set" and argv[1].startswith("--origin-hint="):
        return _netplan_set(ctx, argv[1].partition("=")[2], argv[2])
    if argv == ["generate"]:
        _deny(ctx, "netplan generate", "/run/systemd/network")
        for file in _overlays(ctx):
            if any(line.strip() and not line.startswith((" ", "network:", "#"))
                   for line in ctx.machine.files[file].splitlines()):
                return 1, "", f"{file}:1:1: Error in network definition: invalid YAML\n"
        return 0, "", ""
    raise CmdError(1, "netplan: demo host answers get, set --origin-hint=H K=V, generate\n")


def _netplan_set(ctx: Context, hint: str, key_value: str) -> Out:
    key, sep, value = key_value.partition("=")
    path = _split_key(key)
    if path[:1] == ["network"]:
        path = path[1:]
    if not sep or not hint or len(path) != 3 or path[0] not in SECTIONS:
        raise CmdError(1, "netplan: demo host answers set SECTION.DEVICE.KEY=VALUE\n")
    file = f"{NETPLAN_DIR}{hint}.yaml"
    _deny(ctx, "netplan set", file)
    section, dev, k = path
    old = _devices(ctx.machine.files.get(file, ""))
    keys = dict(old.get((section, dev), {}))
    keys[k] = value
    if section == "vlans" and "link" not in keys:
        raise CmdError(1, f"{file}: Error in network definition: {dev}: missing 'link' "
                          "property\n")
    old[(section, dev)] = keys
    body = ["network:", "  version: 2"]
    for sec in SECTIONS:
        devs = sorted(d for s2, d in old if s2 == sec)
        if devs:
            body.append(f"  {sec}:")
            for d in devs:
                body.append(f"    {d}:")
                body += [f"      {kk}: {vv}" for kk, vv in sorted(old[(sec, d)].items())]
    ctx.machine.files[file] = "\n".join(body) + "\n"
    return 0, "", ""


def dpkg_query(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if len(argv) == 3 and argv[:2] == ["-W", "-f=${Version}"]:
        if argv[2] == "netplan.io" and s.netplan:
            return 0, s.netplan_version, ""
        return 1, "", f"dpkg-query: no packages found matching {argv[2]}\n"
    raise CmdError(2, "dpkg-query: demo host answers only -W -f=${Version} PACKAGE\n")


# ------------------------------------------------------------------------- files, dirs


def exists(ctx: Context, path: str) -> bool:
    m, s = ctx.machine, _system(ctx)
    path = path.rstrip("/") or "/"
    if path in m.files or path in s.dirs:
        return True
    if path == f"{UNIT_DIR}/{UNIT}":
        return s.enabled.get(UNIT) == "masked"
    if path.startswith("/sys/class/net/"):
        return path.rsplit("/", 1)[-1] in {ln.name for ln in m.links}
    return any(f.startswith(path + "/") for f in m.files)


def test(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 2 or argv[0] not in ("-e", "-d"):
        raise CmdError(2, "test: demo host answers only -e PATH, -d PATH\n")
    return (0 if exists(ctx, argv[1]) else 1), "", ""


def mkdir(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 3 or argv[0] != "-m":
        raise CmdError(1, "mkdir: demo host answers only -m MODE DIR\n")
    path = argv[2].rstrip("/")
    _deny(ctx, "mkdir", f"cannot create directory '{path}'")
    if exists(ctx, path):
        return 1, "", f"mkdir: cannot create directory '{path}': File exists\n"
    _system(ctx).dirs.add(path)
    return 0, "", ""


def rmdir(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 1:
        raise CmdError(1, "rmdir: demo host answers only DIR\n")
    path = argv[0].rstrip("/")
    _deny(ctx, "rmdir", f"failed to remove '{path}'")
    s = _system(ctx)
    if any(f.startswith(path + "/") for f in ctx.machine.files):
        return 1, "", f"rmdir: failed to remove '{path}': Directory not empty\n"
    if path not in s.dirs:
        return 1, "", f"rmdir: failed to remove '{path}': No such file or directory\n"
    s.dirs.discard(path)
    return 0, "", ""


def _stanzas(ctx: Context, word: str) -> list[str]:
    files = ctx.machine.files
    paths = ["/etc/network/interfaces",
             *sorted(p for p in files if p.startswith("/etc/network/interfaces.d/"))]
    out = []
    for p in paths:
        for line in files.get(p, "").splitlines():
            words = line.split()
            if words and words[0] == word:
                out += words[1:]
    return out


def ifquery(ctx: Context, argv: list[str]) -> Out:
    if argv == ["--list", "--allow=hotplug"]:
        return 0, "".join(f"{n}\n" for n in _stanzas(ctx, "allow-hotplug")), ""
    if argv == ["--list"]:
        return 0, "".join(f"{n}\n" for n in _stanzas(ctx, "auto")), ""
    raise CmdError(1, "ifquery: demo host answers only --list [--allow=hotplug]\n")


# ------------------------------------------------------------------------- systemd


def dropins(ctx: Context, unit: str) -> list[str]:
    d = f"{UNIT_DIR}/{unit}.d/"
    return sorted(p for p in ctx.machine.files if p.startswith(d) and p.endswith(".conf"))


def unit_cat(ctx: Context, unit: str) -> str:
    parts = [UNIT_TEXT]
    parts += [f"\n# {p}\n{ctx.machine.files[p]}" for p in dropins(ctx, unit)]
    return "".join(parts)


def exec_start(ctx: Context, unit: str) -> list[str]:
    out: list[str] = []
    for raw in unit_cat(ctx, unit).splitlines():
        if raw.startswith("ExecStart="):
            value = raw[len("ExecStart="):].strip()
            out = [*out, value] if value else []
    return out


def show(ctx: Context, s: System) -> str:
    """`systemctl show -p ExecStart -p DropInPaths -p ActiveState -p Result UNIT` in systemd
    252's order (tests/fixtures/host/*/show-wait-online.txt). The demo's ExecStart follows
    the files at once (a real one after `daemon-reload`, which every fix runs); the exec
    times are left `[n/a]`; a masked unit gets no ExecStart line."""
    mine = [e for e in s.journal if e.unit == UNIT]
    failed = bool(mine) and mine[-1].message.startswith("Failed to start")
    ran = any(u == UNIT for _, u in s.blame)
    lines = [f"Result={'exit-code' if failed else 'success'}"]
    if s.enabled.get(UNIT) != "masked":
        lines += [f"ExecStart={{ path={cmd.split()[0]} ; argv[]={cmd} ; ignore_errors=no ; "
                  "start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }"
                  for cmd in exec_start(ctx, UNIT)]
    lines += [f"ActiveState={'failed' if failed else 'active' if ran else 'inactive'}",
              "DropInPaths=" + " ".join(dropins(ctx, UNIT))]
    return "".join(f"{ln}\n" for ln in lines)


def systemctl_boot(ctx: Context, verb: str, units: list[str]) -> Out | None:
    """The systemctl verbs of the boot fixes (None: not one of them)."""
    s = _system(ctx)
    if verb == "show" and units == ["-p", "ExecStart", "-p", "DropInPaths", "-p",
                                    "ActiveState", "-p", "Result", UNIT]:
        return 0, show(ctx, s), ""
    if verb == "daemon-reload" and not units:
        _deny(ctx, "systemctl daemon-reload", "Access denied")
        s.reloads += 1
        return 0, "", ""
    if verb == "cat" and units == [UNIT]:
        if s.enabled.get(UNIT) == "masked":
            return 1, "", f"Unit {UNIT} is masked.\n"
        return 0, unit_cat(ctx, UNIT), ""
    if verb in ("mask", "unmask") and units == [UNIT]:
        _deny(ctx, f"systemctl {verb}", "Access denied")
        link = f"{UNIT_DIR}/{UNIT}"
        if verb == "mask":
            if s.enabled.get(UNIT) != "masked":
                s.unmasked[UNIT] = s.enabled.get(UNIT, "disabled")
                s.enabled[UNIT] = "masked"
            return 0, "", f"Created symlink {link} → /dev/null.\n"
        if s.enabled.get(UNIT) == "masked":
            s.enabled[UNIT] = s.unmasked.pop(UNIT, "enabled-runtime")
            return 0, "", f"Removed \"{link}\".\n"
        return 0, "", ""
    return None


def verify(ctx: Context, units: list[str]) -> Out:
    """`systemd-analyze verify [--man=no] UNIT`: unknown keys are warnings (exit 0); an
    ExecStart that is not an executable fails it, as systemd does."""
    if units not in ([UNIT], ["--man=no", UNIT]):
        raise CmdError(1, "systemd-analyze: demo host verifies only [--man=no] " + UNIT + "\n")
    err = []
    for path in dropins(ctx, UNIT):
        section = ""
        for n, line in enumerate(ctx.machine.files[path].splitlines(), 1):
            t = line.strip()
            if not t or t.startswith("#"):
                continue
            if t.startswith("["):
                section = t.strip("[]")
                continue
            key = t.partition("=")[0]
            if key not in ("ExecStart", "Environment", "TimeoutStartSec"):
                err.append(f"{path}:{n}: Unknown key name '{key}' in section '{section}', "
                           "ignoring.\n")
    for cmd in exec_start(ctx, UNIT):
        binary = cmd.split()[0].lstrip("-@:+!")
        if binary not in WAIT_BINARIES:
            err.append(f"{UNIT}: Command {binary} is not executable: No such file or "
                       "directory\n")
            return 1, "", "".join(err)
    return 0, "", "".join(err)


# ------------------------------------------------------------------------------ reboot

QUICK = "Startup finished in 3.902s (kernel) + 9.528s (userspace) = 13.430s \n" \
        "graphical.target reached after 9.235s in userspace.\n"
SLOW = "Startup finished in 3.967s (kernel) + 2min 9.636s (userspace) = 2min 13.603s \n" \
       "graphical.target reached after 2min 9.402s in userspace.\n"


def _optional(ctx: Context, link: str) -> bool:
    devs = _devices(merged(ctx))
    if any(d == link and keys.get("optional") == "true" for (_, d), keys in devs.items()):
        return True
    return link in _stanzas(ctx, "allow-hotplug") and link not in _stanzas(ctx, "auto")


def _waits_only_for_others(ctx: Context, stuck: list[str]) -> bool:
    """wait-online runs with `--interface=` and names none of the stuck links."""
    named = [a.split("=", 1)[1].split(":")[0] for c in exec_start(ctx, UNIT)
             for a in c.split() if a.startswith("--interface=")]
    return bool(named) and not set(named) & set(stuck)


NETWORKING = "networking.service"


def _ifup_waits(ctx: Context, machine: Machine) -> list[str]:
    """Ports `ifup -a` brings up at boot (`auto`) on DHCP that have no carrier: dhclient
    asks until it gives up, and networking.service with it."""
    dhcp = {line.split()[1] for p, text in ctx.machine.files.items()
            if p == "/etc/network/interfaces" or p.startswith("/etc/network/interfaces.d/")
            for line in text.splitlines()
            if line.split()[:1] == ["iface"] and line.split()[2:4] == ["inet", "dhcp"]}
    dark = {ln.name for ln in machine.links if not ln.carrier}
    return [n for n in _stanzas(ctx, "auto") if n in dhcp and n in dark]


def _ifup_journal(boot: float, port: str) -> list[JournalEntry]:
    """networking.service's journal of such a boot, as the host guest's capture shows it
    (tests/fixtures/host/ifupdown-dhcp-hang/journal-networking.txt): dhclient's
    DHCPDISCOVERs for a minute, then "No DHCPOFFERS received."."""
    out = [JournalEntry(boot + 4.18, NETWORKING, "systemd", 1,
                        f"Starting {NETWORKING} - Raise network interfaces...")]
    for at, interval in ((9.42, 8), (17.71, 8), (25.75, 13), (38.53, 10), (48.80, 10),
                         (58.16, 12)):
        out.append(JournalEntry(boot + at, NETWORKING, "dhclient", 413,
                                f"DHCPDISCOVER on {port} to 255.255.255.255 port 67 "
                                f"interval {interval}"))
    out += [JournalEntry(boot + 70.12, NETWORKING, "dhclient", 413, "No DHCPOFFERS received."),
            JournalEntry(boot + 70.12, NETWORKING, "dhclient", 413,
                         "No working leases in persistent database - sleeping."),
            JournalEntry(boot + 70.87, NETWORKING, "systemd", 1,
                         f"Finished {NETWORKING} - Raise network interfaces.")]
    return out


def reboot(machine: Machine, now: float) -> str:
    """The host boots again at `now`: wait-online runs (or not) as its files now say, and
    the boot's figures and journal follow. Returns how it went ("hang", "quick", "skipped")."""
    ctx = Context(machine=machine, now=now, v23=True, root=True, fast_forward=lambda t: None)
    s = _system(ctx)
    machine.boot_time = max(now, machine.boot_time + 1.0)  # a new boot, a new boot id
    stuck = [n for _, n, _, _, st in s.links if st == "configuring"]
    blame = [(t, u) for t, u in s.blame if u != UNIT]
    if not s.wanted_by or s.enabled.get(UNIT) == "masked":
        how = "skipped"
    elif any("--any" in c.split() for c in exec_start(ctx, UNIT)) or \
            all(_optional(ctx, n) for n in stuck) or _waits_only_for_others(ctx, stuck):
        how = "quick"
    else:
        how = "hang"
    boot = now
    if how == "hang":
        s.startup, blame = SLOW, [("2min 359ms", UNIT), *blame]
        s.journal += [
            JournalEntry(boot + 8.98, UNIT, "systemd", 1,
                         f"Starting {UNIT} - Wait for Network to be Configured..."),
            JournalEntry(boot + 129.31, UNIT, "systemd-networkd-wait-online", 345,
                         "Timeout occurred while waiting for network connectivity."),
            JournalEntry(boot + 129.35, UNIT, "systemd", 1,
                         f"Failed to start {UNIT} - Wait for Network to be Configured.")]
    elif how == "quick":
        s.startup, blame = QUICK, [*blame, ("412ms", UNIT)]
        s.journal += [
            JournalEntry(boot + 8.98, UNIT, "systemd", 1,
                         f"Starting {UNIT} - Wait for Network to be Configured..."),
            JournalEntry(boot + 9.39, UNIT, "systemd", 1,
                         f"Finished {UNIT} - Wait for Network to be Configured.")]
    else:
        s.startup = QUICK
    # ifupdown: networking.service waits for dhclient on such a port (the guest: 66.7 s)
    blame = [(t, u) for t, u in blame if u != NETWORKING]
    waits = _ifup_waits(ctx, machine)
    if waits:
        blame.insert(1 if how == "hang" else 0, ("1min 6.689s", NETWORKING))
        s.journal += _ifup_journal(boot, waits[0])
    else:
        blame.append(("1.022s", NETWORKING))
    s.blame = blame
    s.journal.sort(key=lambda e: e.at)
    machine.changed()
    return how


HANDLERS: dict[str, Handler] = {
    "netplan": netplan, "dpkg-query": dpkg_query, "test": test, "mkdir": mkdir,
    "rmdir": rmdir, "ifquery": ifquery,
}
