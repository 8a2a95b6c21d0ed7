"""The system programs the fix-it panels read, over `machine.system` (built on first use from
the clean host guest's captured shapes, `render.system.clean_system`):

| program | forms answered |
|---|---|
| `sshd` | `-t`, `-T`, `-T -C user=,addr=,host=` (root only: a user gets `no hostkeys available`); `usedns` follows the files |
| `ssh` | `[-o OPT]... localhost true`: a fresh login, slow while the running sshd has UseDNS yes |
| `journalctl` | `--no-pager -o short-iso-precise\\|json [-b] [--since -2h\\|@EPOCH] [-u UNIT]... [-n N]`; JSON with journald's own fields as systemd 252 writes them (`_PID`, `_UID`, `_COMM`, `_EXE`, `_SYSTEMD_UNIT`; PID 1 in init.scope with `UNIT=`), nothing at all when no entry matches |
| `getent` | `hosts ADDR`, `ahosts NAME` (the lookup's time is the command's duration); `-s files hosts 127.0.0.1` |
| `systemd-analyze` | (no argument), `blame`, `critical-chain network-online.target`, `verify [--man=no] UNIT` |
| `networkctl` | `list` |
| `systemctl` | `is-active UNIT...`, `is-enabled UNIT...`, `list-dependencies --reverse ... network-online.target`, `reload ssh`; `daemon-reload`, `cat`, `show -p ExecStart ...`, `mask`, `unmask` of wait-online (`tools/boot.py`); `cat user@UID.service`, `restart systemd-logind` (`tools/session.py`) |
| `grep` | `-n PATTERN FILE` |

`netplan` and the other programs of the boot fixes are in `tools/boot.py`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re

from zconsole.hosts.demo.machine import CmdError
from zconsole.hosts.demo.machine.system import JournalEntry, System
from zconsole.hosts.demo.render import system as render
from zconsole.hosts.demo.tools import boot, session
from zconsole.hosts.demo.tools._common import Context, Handler, Out
from zconsole.hosts.demo.tools.files import follow

NO_PAGER = ("--no-pager", "--plain", "--no-legend")


def _system(ctx: Context) -> System:
    m = ctx.machine
    if m.system is None:
        m.system = render.clean_system(m)
    return m.system


def _strip(argv: list[str]) -> list[str]:
    return [a for a in argv if a not in NO_PAGER]


SSHD_CONFIG = "/etc/ssh/sshd_config"
SSHD_CONFIG_D = "/etc/ssh/sshd_config.d/"
# keywords sshd accepts that `sshd -T` does not print under the same name
KEYWORDS = {"include", "match", "challengeresponseauthentication"}


# sshd's whitespace (misc.h WHITESPACE); a form feed may also end a line (servconf.c)
WS = " \t\r\n"


def words(line: str, most: int = 0) -> list[str]:
    """A line's words as sshd splits them: at its whitespace only (not at U+2028 or \\x1c,
    which Python's str.split takes for spaces)."""
    return [w for w in re.split(f"[{WS}]+", line.strip(WS), maxsplit=most) if w]


def _config(ctx: Context) -> list[tuple[str, int, str]]:
    """(file, line number, line) of sshd's files in the order it reads them: the drop-ins
    first (Debian's Include stands at the top), in name order, then the main file. Lines
    end at `\\n` only, as sshd reads them."""
    files = ctx.machine.files
    order = sorted(p for p in [*files, *ctx.machine.symlinks]
                   if p.startswith(SSHD_CONFIG_D) and p.endswith(".conf"))
    out = []
    for path in [*order, SSHD_CONFIG]:
        text = files.get(follow(ctx.machine, path), "")
        for n, line in enumerate(text.split("\n"), 1):
            body = line.lstrip(WS).rstrip(WS + "\f")
            if body and not body.startswith("#"):
                out.append((path, n, body))
    return out


def configured_usedns(ctx: Context) -> str:
    """The UseDNS sshd's files give (the first value wins; none: the default, no)."""
    for _, _, line in _config(ctx):
        ws = words(line)
        if ws[0].lower() == "usedns" and len(ws) > 1:
            return ws[1].lower()
    return "no"


# what the demo's `sshd -T` takes from the files (the first value wins; a Match block's
# lines apply to the clients it matches, before the global ones); the rest is System.sshd
FROM_FILES = ("usedns", "gssapiauthentication", "kerberosauthentication",
              "kbdinteractiveauthentication", "hostbasedauthentication", "permitrootlogin",
              "passwordauthentication")


def _criterion(patterns: str, value: str, address: bool) -> bool:
    """sshd's pattern lists: comma-separated, `!` negates, wildcards; CIDR for addresses."""
    import ipaddress

    def one(pat: str) -> bool:
        if address and "/" in pat:
            try:
                return ipaddress.ip_address(value) in ipaddress.ip_network(pat, strict=False)
            except ValueError:
                return False
        return fnmatch.fnmatchcase(value, pat)

    pats = [x for x in patterns.split(",") if x]
    if any(one(x[1:]) for x in pats if x.startswith("!")):
        return False
    return any(one(x) for x in pats if not x.startswith("!"))


def match_applies(match: str, spec: dict[str, str]) -> bool:
    """A `Match` line's criteria against a `-C` connection spec (All, User, Host, Address,
    LocalAddress, LocalPort; any other criterion: not matched)."""
    # imported here: the first frame of `zconsole --demo` does not need the fix-its' model
    # (issue 28: 8 ms of dataclasses on Python 3.10)
    from zconsole.model.fixit import match_criteria

    keys = {"user": "user", "host": "host", "address": "addr", "localaddress": "laddr",
            "localport": "lport"}
    criteria = match_criteria(match)
    return criteria is not None and all(
        crit in keys and _criterion(value, spec.get(keys[crit], ""),
                                    crit in ("address", "localaddress"))
        for crit, value in criteria)


def configured(ctx: Context, spec: dict[str, str] | None = None) -> dict[str, str]:
    """keyword -> value as sshd's files set it: the first global value wins; with a `-C`
    spec, the first value of a Match block that matches it wins over the global one. A
    Match block ends at the next Match or at the end of its file (servconf.c restores the
    includer's state after an included file)."""
    glob: dict[str, str] = {}
    matched: dict[str, str] = {}
    block: str | None = None
    last = ""
    for path, _, line in _config(ctx):
        if path != last:
            block, last = None, path
        ws = words(line, 1)
        k, v = ws[0].lower(), (ws[1].strip(WS) if len(ws) > 1 else "")
        if v.lower() in ("yes", "no"):
            v = v.lower()
        if k == "match":
            block = line
        elif block is None:
            glob.setdefault(k, v)
        elif spec is not None and match_applies(block, spec):
            matched.setdefault(k, v)
    return {**glob, **matched}


def _sshd_t(ctx: Context, s: System) -> Out:
    bad = [(path, n, words(line)[0]) for path, n, line in _config(ctx)
           if words(line)[0].lower() not in s.sshd and words(line)[0].lower() not in KEYWORDS]
    if not bad:
        return 0, "", ""
    err = "".join(f"{path}: line {n}: Bad configuration option: {word}\n"
                  for path, n, word in bad)
    return 255, "", err + f"{bad[0][0]}: terminating, {len(bad)} bad configuration options\n"


def sshd(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if not argv or argv[0] not in ("-T", "-t"):
        raise CmdError(1, "sshd: demo host answers only -T and -t\n")
    if not ctx.root:
        raise CmdError(1, "sshd: no hostkeys available -- exiting.\n")
    if argv == ["-t"]:
        return _sshd_t(ctx, s)
    values = {k: list(v) for k, v in s.sshd.items()}
    values["usedns"] = [configured_usedns(ctx)]
    spec = dict(p.partition("=")[::2] for p in argv[2].split(",")) \
        if len(argv) == 3 and argv[1] == "-C" else None
    for k, v in configured(ctx, spec).items():
        if k in FROM_FILES:
            values[k] = [v]
    if spec is not None:
        addr = spec.get("addr", "")
        for prefix, changes in s.sshd_match:
            if addr.startswith(prefix):
                for k, v in changes.items():
                    values[k] = [v]
    elif len(argv) != 1:
        raise CmdError(255, "sshd: option requires an argument -- C\n")
    return 0, "".join(f"{k} {v}\n" for k, vs in values.items() for v in vs), ""


def _since(ctx: Context, text: str) -> float:
    if text.startswith("@"):
        return float(text[1:])
    if text.startswith("-") and text.endswith("h"):
        return ctx.now - float(text[1:-1]) * 3600
    if text.startswith("-") and text.endswith("min"):
        return ctx.now - float(text[1:-3]) * 60
    raise CmdError(1, f'Failed to parse timestamp: {text}\n')


def journalctl(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    args = _strip(argv)
    units: list[str] = []
    since = 0.0
    last: int | None = None
    i = 0
    mode = "short"
    while i < len(args):
        a = args[i]
        if a == "-o" and i + 1 < len(args):
            mode = args[i + 1]
            if mode not in ("short", "short-iso-precise", "json"):
                raise CmdError(1, f"Unknown output format '{mode}'.\n")
            i += 2
            continue
        if a == "-b":
            since = max(since, ctx.machine.boot_time)
        elif a == "--since" and i + 1 < len(args):
            since = max(since, _since(ctx, args[i + 1]))
            i += 1
        elif a == "-u" and i + 1 < len(args):
            u = args[i + 1]
            units.append(u if "." in u else u + ".service")
            i += 1
        elif a == "-n" and i + 1 < len(args):
            last = int(args[i + 1])
            i += 1
        else:
            raise CmdError(1, f"journalctl: unrecognized option '{a}'\n")
        i += 1
    # a demo reboot is over at once (tools/boot.reboot: its blame has every figure): the
    # lines of the current boot are all there, even those stamped after the clock's now
    boot = ctx.machine.boot_time
    rows = [e for e in s.journal if since <= e.at and (e.at <= ctx.now or e.at >= boot)
            and (not units or any(fnmatch.fnmatchcase(e.unit, u) for u in units))]
    if last is not None:
        rows = rows[-last:]
    if not ctx.root:
        # a user outside adm/systemd-journal sees only their own lines: none of these
        return 1, "", render.JOURNAL_HINT
    if mode == "json":  # one object a line; no `-- No entries --` in this format
        return 0, "".join(_json_entry(ctx, e) + "\n" for e in rows), ""
    if not rows:
        return 0, "-- No entries --\n", ""
    return 0, "".join(render.journal_line(ctx.machine.hostname, e) + "\n" for e in rows), ""


# the writers' programs and how they log (as the host guest's journal shows them)
_EXE = {"systemd": "/usr/lib/systemd/systemd", "sshd": "/usr/sbin/sshd",
        "systemd-logind": "/usr/lib/systemd/systemd-logind", "dhclient": "/usr/sbin/dhclient",
        "systemd-networkd-wait-online": "/usr/lib/systemd/systemd-networkd-wait-online",
        "logger": "/usr/bin/logger"}
_SYSLOG = ("sshd", "dhclient", "logger")  # syslog(3) writers (SYSLOG_PID, SYSLOG_TIMESTAMP)


def _json_entry(ctx: Context, e: JournalEntry) -> str:
    """`journalctl -o json` of one entry: the writer's fields (SYSLOG_IDENTIFIER, MESSAGE)
    and journald's own (`_`: from the kernel: the writer's PID, uid, name, cgroup). PID 1
    speaks about a unit from init.scope, naming it in `UNIT=`."""
    m = ctx.machine
    usec = round(e.at * 1e6)
    ids = hashlib.sha256(m.hostname.encode()).hexdigest()
    comm = "systemd" if e.pid == 1 else (e.comm or e.ident)
    unit = "init.scope" if e.pid == 1 else e.unit
    if unit.startswith(("session-", "user@")):
        slice_ = f"user-{e.uid}.slice"
        cgroup = f"/user.slice/{slice_}/{unit}"
    else:
        slice_ = "-.slice" if e.pid == 1 else "system.slice"
        cgroup = f"/{unit}" if e.pid == 1 else f"/system.slice/{unit}"
    d: dict[str, str] = {
        "__CURSOR": f"s={ids[:32]};i={usec % 0xfffff:x};b={ids[32:]};t={usec:x}",
        "__REALTIME_TIMESTAMP": str(usec),
        "__MONOTONIC_TIMESTAMP": str(max(0, round((e.at - m.boot_time) * 1e6))),
        "_BOOT_ID": ids[32:], "_MACHINE_ID": ids[:32], "_HOSTNAME": m.hostname,
        "_RUNTIME_SCOPE": "system", "PRIORITY": "6", "SYSLOG_IDENTIFIER": e.ident,
        "_TRANSPORT": "syslog" if comm in _SYSLOG else "journal",
        "_PID": str(e.pid), "_UID": str(e.uid), "_GID": str(e.uid), "_COMM": comm,
        "_EXE": _EXE.get(comm, f"/usr/bin/{comm}"), "_SYSTEMD_CGROUP": cgroup,
        "_SYSTEMD_UNIT": unit, "_SYSTEMD_SLICE": slice_,
        "_SOURCE_REALTIME_TIMESTAMP": str(usec), "MESSAGE": e.message}
    if e.pid == 1:
        d["UNIT"] = e.unit
    if comm in _SYSLOG:
        d["SYSLOG_PID"] = str(e.pid)
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def getent(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if argv[:2] == ["-s", "files"]:  # /etc/hosts alone
        if argv[2:] == ["hosts", "127.0.0.1"]:
            return 0, "127.0.0.1       localhost\n", ""
        return 2, "", ""
    if len(argv) != 2 or argv[0] not in ("hosts", "ahosts"):
        raise CmdError(1, "Unknown database or bad arguments\n")
    hit = s.lookups.get(f"{argv[0]} {argv[1]}")
    if hit is None and argv == ["hosts", "127.0.0.1"]:  # /etc/hosts, as on every Debian
        return 0, "127.0.0.1       localhost\n", ""
    if hit is None:
        return 2, "", ""
    ctx.took = hit.seconds
    return hit.rc, hit.stdout, ""


def systemd_analyze(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    args = _strip(argv)
    if not args:
        return 0, s.startup, ""
    if args == ["blame"]:
        width = max((len(t) for t, _ in s.blame), default=0)
        return 0, "".join(f"{t.rjust(width)} {u}\n" for t, u in s.blame), ""
    if args == ["critical-chain", "network-online.target"]:
        return 0, render.CHAIN_LEGEND + s.chain, ""
    if args[:1] == ["verify"]:
        return boot.verify(ctx, args[1:])
    raise CmdError(1, f"Unknown command verb {args[0]}.\n")


def networkctl(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if _strip(argv) != ["list"]:
        raise CmdError(1, "networkctl: demo host answers only `list`\n")
    return 0, render.networkctl_list(s.links), ""


def systemctl(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    args = _strip(argv)
    if not args:
        raise CmdError(1, "systemctl: demo host needs a verb\n")
    verb, units = args[0], args[1:]
    if verb == "is-active":
        states = [s.active.get(u, "inactive") for u in units]
        return (0 if all(x == "active" for x in states) else 3), "".join(
            x + "\n" for x in states), ""
    if verb == "is-enabled":
        states = [s.enabled.get(u, "disabled") for u in units]
        ok = all(x in ("enabled", "enabled-runtime", "static", "alias") for x in states)
        return (0 if ok else 1), "".join(x + "\n" for x in states), ""
    if verb == "list-dependencies" and units == ["--reverse", "network-online.target"]:
        return 0, "network-online.target\n" + "".join(f"{w}\n" for w in s.wanted_by), ""
    if verb == "reload" and units in (["ssh"], ["ssh.service"]):
        return _reload_ssh(ctx, s)
    done = boot.systemctl_boot(ctx, verb, units)
    if done is None:
        done = session.systemctl_session(ctx, verb, units)
    if done is not None:
        return done
    raise CmdError(1, f"Unknown command verb {verb}.\n")


def _reload_ssh(ctx: Context, s: System) -> Out:
    if not ctx.root:
        raise CmdError(1, "Failed to reload ssh.service: Access denied\n")
    rc, _, err = _sshd_t(ctx, s)
    if rc != 0:  # the unit's ExecReload runs sshd -t first
        raise CmdError(1, "Job for ssh.service failed because the control process exited "
                          "with error code.\n")
    s.running_usedns = configured_usedns(ctx)
    s.journal.append(JournalEntry(ctx.now, "ssh.service", "systemd", 1,
                                  "Reloading ssh.service - OpenBSD Secure Shell server..."))
    s.journal.append(JournalEntry(ctx.now + 0.01, "ssh.service", "sshd", 2104,
                                  "Received SIGHUP; restarting."))
    s.journal.append(JournalEntry(ctx.now + 0.02, "ssh.service", "systemd", 1,
                                  "Reloaded ssh.service - OpenBSD Secure Shell server."))
    return 0, "", ""


def ssh(ctx: Context, argv: list[str]) -> Out:
    """A fresh login to this host (`ssh [-o OPT]... localhost|ADDRESS true`); while the
    running sshd looks names up it waits `dns_delay` for a login from one of the host's own
    addresses, not from localhost (loopback's names are in /etc/hosts). The journal gets
    the login's lines, as a real one's."""
    s = _system(ctx)
    args = list(argv)
    while len(args) >= 2 and args[0] == "-o":
        args = args[2:]
    own = {a for link in ctx.machine.links for a, _ in [*link.addrs, *link.addrs6]}
    if len(args) != 2 or args[1] != "true" or (args[0] != "localhost" and args[0] not in own):
        raise CmdError(255, "ssh: demo host answers only [-o OPT]... localhost|OWN-ADDRESS "
                            "true\n")
    addr = "127.0.0.1" if args[0] == "localhost" else args[0]
    running = s.running_usedns or (s.sshd.get("usedns") or ["no"])[0]
    wait = s.dns_delay if running == "yes" and addr != "127.0.0.1" else 0.0
    ctx.took = wait + s.login_base
    s.logins += 1
    reverse = ctx.machine.hostname if wait else None
    s.journal += render.login(ctx.now, 3100 + s.logins, 40 + s.logins, addr=addr,
                              port=40000 + s.logins, reverse=reverse, auth=wait)
    return 0, "", ""


def grep(ctx: Context, argv: list[str]) -> Out:
    """`grep -n PATTERN FILE` over the machine's files (and PAM's common-session line)."""
    if len(argv) != 3 or argv[0] != "-n":
        raise CmdError(2, "grep: demo host answers only -n PATTERN FILE\n")
    pattern, path = argv[1], argv[2]
    text = ctx.machine.files.get(follow(ctx.machine, path))
    if text is None and path == "/etc/pam.d/common-session":
        text = render.COMMON_SESSION
    if text is None:
        raise CmdError(2, f"grep: {path}: No such file or directory\n")
    hits = [f"{n}:{line}\n" for n, line in enumerate(text.split("\n"), 1)
            if pattern in line]
    return (0 if hits else 1), "".join(hits), ""


HANDLERS: dict[str, Handler] = {
    "sshd": sshd, "journalctl": journalctl, "getent": getent,
    "systemd-analyze": systemd_analyze, "networkctl": networkctl, "systemctl": systemctl,
    "grep": grep, "ssh": ssh,
}
