"""The argv dispatcher: zpool, zfs, udevadm, lsblk, ip, bridge and a few small tools.

Options are parsed like glibc getopt does for the real tools (any order, clustered, `--`);
unknown options and subcommands give the real usage error (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zconsole.hosts.demo.getopt import OptError, Parsed, getopt
from zconsole.hosts.demo.machine import (
    datasets,
    disks,
    pools,
    properties,
    scans,
    snapshots,
    streams,
    vdevs,
)
from zconsole.hosts.demo.machine.common import CmdError
from zconsole.hosts.demo.machine.pools import Pool
from zconsole.hosts.demo.machine.state import Machine
from zconsole.hosts.demo.render.block import disk_properties, export_db, lsblk_json
from zconsole.hosts.demo.render.iostat import zpool_iostat
from zconsole.hosts.demo.render.list import DEFAULT_LIST, known_pool_prop, zpool_get, zpool_list
from zconsole.hosts.demo.render.net import bridge_vlan, ip_addr, ip_link
from zconsole.hosts.demo.render.status import NameFlags, status_json, status_text
from zconsole.hosts.demo.render.zfs import (
    Row,
    canonical,
    known_prop,
    render_table,
    rows_for,
    sort_rows,
    zfs_get,
)

Out = tuple[int, str, str]


class NotFound(Exception):
    """The program does not exist on the demo machine."""


USAGE_ZPOOL_21 = {
    "status": "\tstatus [-c [script1,script2,...]] [-igLpPstvxD]  [-T d|u] [pool] ... \n"
              "\t    [interval [count]]\n",
    "list": "\tlist [-gHLpPv] [-o property[,...]] [-T d|u] [pool] ... \n"
            "\t    [interval [count]]\n",
    "iostat": "\tiostat [[[-c [script1,script2,...][-lq]]|[-rw]] [-T d | u] [-ghHLpPvy]\n"
              "\t    [[pool ...]|[pool vdev ...]|[vdev ...]] [[-n] interval [count]]\n",
}
USAGE_ZPOOL = {
    "status": "\tstatus [--power] [-j [--json-int] [--json-flat-vdevs] [--json-pool-key-guid]]\n"
              "\t    [-c [script1,script2,...]] [-DegiLpPstvx] [-T d|u] [pool] ...\n"
              "\t    [interval [count]]\n",
    "list": "\tlist [-gHLpPv] [-o property[,...]] [-j [--json-int, --json-pool-key-guid]]\n"
            "\t    [-T d|u] [pool] ... [interval [count]]\n",
    "iostat": "\tiostat [[[-c [script1,script2,...][-lq]]|[-rw]] [-T d | u] [-ghHLpPvy]\n"
              "\t    [[pool ...]|[pool vdev ...]|[vdev ...]] [[-n] interval [count]]\n",
    "get": "\tget [-Hp] [-o \"all\" | field[,...]] <\"all\" | property[,...]> <pool> ...\n",
    "set": "\tset <property=value> <pool>\n",
    "attach": "\tattach [-fsw] [-o property=value] <pool> <device> <new-device>\n",
    "detach": "\tdetach <pool> <device>\n",
    "replace": "\treplace [-fsw] [-o property=value] <pool> <device> [new-device]\n",
    "online": "\tonline [--power] [-e] <pool> <device> ...\n",
    "offline": "\toffline [--power] [-f] [-t] <pool> <device> ...\n",
    "scrub": "\tscrub [-e | -s | -p | -C] [-w] <pool> ...\n",
    "wait": "\twait [-Hp] [-T d|u] [-t <activity>[,...]] <pool> [interval]\n",
    "clear": "\tclear [[--power]|[-nF]] <pool> [device]\n",
    "labelclear": "\tlabelclear [-f] <vdev>\n",
    "version": "\tversion [-j]\n",
}
USAGE_ZFS = {
    "list": "\tlist [-Hp] [-r|-d max] [-o property[,...]] [-s property]...\n"
            "\t    [-S property]... [-t type[,...]] [filesystem|volume|snapshot] ...\n",
    "get": "\tget [-rHp] [-d max] [-o \"all\" | field[,...]]\n"
           "\t    [-t type[,...]] [-s source[,...]]\n"
           "\t    <\"all\" | property[,...]> [filesystem|volume|snapshot|bookmark] ...\n",
    "set": "\tset <property=value> ... <filesystem|volume|snapshot> ...\n",
    "snapshot": "\tsnapshot [-r] [-o property=value] ... "
                "<filesystem|volume>@<snap> ...\n",
    "destroy": "\tdestroy [-fnpRrv] <filesystem|volume>\n"
               "\tdestroy [-dnpRrv] <filesystem|volume>@<snap>[%<snap>][,...]\n"
               "\tdestroy <filesystem|volume>#<bookmark>\n",
    "clone": "\tclone [-p] [-o property=value] ... <snapshot> <filesystem|volume>\n",
    "promote": "\tpromote <clone-filesystem>\n",
    "send": "\tsend [-DLPbcehnpsvw] [-i|-I snapshot] <snapshot>\n",
    "receive": "\treceive [-FhMnsuv] [-o <property>=<value>] ... [-x <property>] ...\n"
               "\t    <filesystem|volume|snapshot>\n",
    "rename": "\trename [-f] <filesystem|volume|snapshot> <filesystem|volume|snapshot>\n",
    "mount": "\tmount [-flvO] [-o opts] <-a | filesystem>\n",
    "unmount": "\tunmount [-fu] <-a | filesystem|mountpoint>\n",
    "version": "\tversion [-j]\n",
}
ACTIVITIES = ("discard", "free", "initialize", "replace", "remove", "resilver", "scrub",
              "trim", "raidz_expand")


@dataclass
class Context:
    machine: Machine
    now: float
    v23: bool
    root: bool
    fast_forward: Callable[[float], None]  # move the simulation to an absolute time
    stdin: str | None = None  # what a pipeline's previous stage wrote (zfs receive reads it)


def _usage(tool: str, sub: str, v23: bool, msg: str = "") -> Out:
    table = (USAGE_ZPOOL if v23 or sub not in USAGE_ZPOOL_21 else USAGE_ZPOOL_21) \
        if tool == "zpool" else USAGE_ZFS
    body = table.get(sub, f"\t{sub}\n")
    err = (msg + "\n" if msg else "") + "usage:\n" + body
    if tool == "zfs" and sub in ("get", "list"):
        err += ("\nThe following properties are supported:\n\n\tPROPERTY       EDIT  INHERIT "
                "  VALUES\n\n")
    return 2, "", err


def _opts(tool: str, sub: str, argv: list[str], spec: str, ctx: Context,
          longopts: dict[str, bool] | None = None) -> Parsed | Out:
    try:
        return getopt(argv, spec, longopts)
    except OptError as e:
        return _usage(tool, sub, ctx.v23, e.message)


def _pools(ctx: Context, names: list[str]) -> tuple[list[Pool], str]:
    m = ctx.machine
    if not names:
        return [m.pools[k] for k in sorted(m.pools)], ""
    out: list[Pool] = []
    err = ""
    for n in names:
        if n in m.pools:
            out.append(m.pools[n])
        else:
            err += f"cannot open '{n}': no such pool\n"
    return out, err


def _flags(p: Parsed) -> NameFlags:
    return NameFlags(full_path=p.has("P"), follow_links=p.has("L"), guid=p.has("g"))


def _interval(args: list[str]) -> tuple[list[str], float | None, int | None]:
    """Trailing `interval [count]` as zpool's get_interval_count reads them."""
    def num(s: str) -> bool:
        try:
            float(s)
        except ValueError:
            return False
        return not s.startswith("-")

    interval: float | None = None
    count: int | None = None
    if args and num(args[-1]):
        if len(args) >= 2 and num(args[-2]):
            interval, count = float(args[-2]), int(float(args[-1]))
            args = args[:-2]
        else:
            interval = float(args[-1])
            args = args[:-1]
    return args, interval, count


def _deny(ctx: Context, text: str) -> Out | None:
    if ctx.root:
        return None
    return 1, "", text + ": permission denied\n"


# ------------------------------------------------------------------------------- zpool


def zpool(ctx: Context, argv: list[str]) -> Out:
    if not argv:
        return 2, "", "usage: zpool command args ...\nwhere 'command' is one of the following:\n"
    sub, rest = argv[0], argv[1:]
    handler = ZPOOL.get(sub)
    if handler is None:
        return 2, "", (f"unrecognized command '{sub}'\nusage: zpool command args ...\n"
                       "where 'command' is one of the following:\n")
    try:
        return handler(ctx, rest)
    except CmdError as e:
        return e.rc, "", e.stderr


def zpool_version(ctx: Context, argv: list[str]) -> Out:
    return zfs_version(ctx, argv)


def zpool_status(ctx: Context, argv: list[str]) -> Out:
    spec = "c:igLpPstvxDT:" + ("ej" if ctx.v23 else "")
    longs = {"json-int": False, "json-flat-vdevs": False, "json-pool-key-guid": False,
             "power": False} if ctx.v23 else {}
    p = _opts("zpool", "status", argv, spec, ctx, longs)
    if not isinstance(p, Parsed):
        return p
    if (p.has("--json-int") or p.has("--json-flat-vdevs")) and not p.has("j"):
        return _usage("zpool", "status", ctx.v23,
                      "'--json-int' only works with '-j' option" if p.has("--json-int")
                      else "'json-flat-vdevs' only works with '-j' option")
    args, interval, count = _interval(p.args)
    if interval is not None and count is None:
        raise TimeoutError
    pools, err = _pools(ctx, args)
    if not pools:
        if err:
            return 1, "", err
        return 0, "no pools available\n", ""
    if p.has("j"):
        out = status_json(ctx.machine, pools, ctx.now, as_int=p.has("--json-int"),
                          literal=p.has("p"), flat=p.has("--json-flat-vdevs"),
                          flags=_flags(p), explain=p.has("x"))
    else:
        out = status_text(ctx.machine, pools, ctx.now, literal=p.has("p"), flags=_flags(p),
                          dedup=p.has("D"), verbose=p.has("v"), explain=p.has("x"),
                          v23=ctx.v23, named=bool(args))
    reps = count or 1
    return (1 if err else 0), out * reps, err


def zpool_list_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "list", argv, ":gHLo:pPT:v" + ("j" if ctx.v23 else ""), ctx)
    if not isinstance(p, Parsed):
        return p
    props = p.last("o") or DEFAULT_LIST
    for prop in props.split(","):
        if not known_pool_prop(prop, ctx.v23) and prop != "name":
            return _usage("zpool", "list", ctx.v23, f"invalid property '{prop}'")
    args, interval, count = _interval(p.args)
    if interval is not None and count is None:
        raise TimeoutError
    pools, err = _pools(ctx, args)
    if not pools and not err:
        return 0, ("no pools available\n" if not p.has("H") else ""), ""
    out = zpool_list(ctx.machine, pools, props=props, scripted=p.has("H"),
                     literal=p.has("p"), verbose=p.has("v"), flags=_flags(p), v23=ctx.v23)
    return (1 if err else 0), (out * (count or 1)) if pools else "", err


def zpool_iostat_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "iostat", argv, "c:gLPT:vyhplqrwnH", ctx)
    if not isinstance(p, Parsed):
        return p
    args, interval, count = _interval(p.args)
    if interval is not None and count is None:
        raise TimeoutError
    if interval is not None and interval <= 0:
        return 1, "", "interval cannot be zero\n"
    pools, err = _pools(ctx, args)
    if err:
        return 1, "", err
    out = zpool_iostat(ctx.machine, pools, ctx.now, verbose=p.has("v"), latency=p.has("l"),
                       scripted=p.has("H"), literal=p.has("p"), omit_first=p.has("y"),
                       interval=interval, count=count, v23=ctx.v23, flags=_flags(p))
    return 0, out, ""


def zpool_get_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "get", argv, ":Hpo:" + ("j" if ctx.v23 else ""), ctx)
    if not isinstance(p, Parsed):
        return p
    if not p.args:
        return _usage("zpool", "get", ctx.v23, "missing property argument")
    props = p.args[0].split(",")
    for prop in props:
        if prop != "all" and not known_pool_prop(prop, ctx.v23):
            return _usage("zpool", "get", ctx.v23, f"bad property list: invalid property "
                                                   f"'{prop}'")
    fields = ["name", "property", "value", "source"]
    if p.last("o"):
        o = p.last("o") or ""
        fields = fields if o == "all" else o.split(",")
        for f in fields:
            if f not in ("name", "property", "value", "source"):
                return _usage("zpool", "get", ctx.v23, f"invalid field '{f}'")
    pools, err = _pools(ctx, p.args[1:])
    out = zpool_get(ctx.machine, pools, props, fields, scripted=p.has("H"),
                    literal=p.has("p"), v23=ctx.v23)
    return (1 if err else 0), out, err


def _pool_arg(ctx: Context, sub: str, args: list[str], what: str = "pool name") -> Pool:
    if not args:
        raise CmdError(2, f"missing {what} argument\nusage:\n{USAGE_ZPOOL[sub]}")
    p = ctx.machine.pools.get(args[0])
    if p is None:
        raise CmdError(1, f"cannot open '{args[0]}': no such pool")
    return p


def _ashift(p: Parsed) -> int | None:
    for v in p.values("o"):
        k, _, val = v.partition("=")
        if k == "ashift":
            return int(val)
    return None


def zpool_attach(ctx: Context, argv: list[str], replacing: bool = False) -> Out:
    sub = "replace" if replacing else "attach"
    p = _opts("zpool", sub, argv, "fswo:", ctx)
    if not isinstance(p, Parsed):
        return p
    for v in p.values("o"):
        if "=" not in v:
            return _usage("zpool", sub, ctx.v23, "missing '=' for -o option")
        if v.partition("=")[0] != "ashift":
            return 2, "", f"property '{v.partition('=')[0]}' is not a valid pool or vdev " \
                          "property\n"
    pool = _pool_arg(ctx, sub, p.args)
    args = p.args[1:]
    if not args:
        return _usage("zpool", sub, ctx.v23, "missing <device> specification")
    old = args[0]
    if len(args) < 2:
        if not replacing:
            return _usage("zpool", sub, ctx.v23, "missing <new_device> specification")
        new = old
    else:
        new = args[1]
    if len(args) > 2:
        return _usage("zpool", sub, ctx.v23, "too many arguments")
    denied = _deny(ctx, f"cannot replace {old} with {new}" if replacing
                   else f"cannot attach {new} to {old}")
    if denied:
        return denied
    vdevs.attach(ctx.machine, pool, old, new, force=p.has("f"), replacing=replacing,
               ashift=_ashift(p), now=ctx.now)
    if p.has("w"):
        _wait(ctx, pool, {"resilver", "replace"})
    return 0, "", ""


def zpool_replace(ctx: Context, argv: list[str]) -> Out:
    return zpool_attach(ctx, argv, replacing=True)


def zpool_detach(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "detach", argv, "", ctx)
    if not isinstance(p, Parsed):
        return p
    pool = _pool_arg(ctx, "detach", p.args)
    if len(p.args) < 2:
        return _usage("zpool", "detach", ctx.v23, "missing <device> specification")
    denied = _deny(ctx, f"cannot detach {p.args[1]}")
    if denied:
        return denied
    vdevs.detach(ctx.machine, pool, p.args[1], ctx.now)
    return 0, "", ""


def zpool_online(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "online", argv, "et", ctx, {"power": False})
    if not isinstance(p, Parsed):
        return p
    pool = _pool_arg(ctx, "online", p.args)
    if len(p.args) < 2:
        return _usage("zpool", "online", ctx.v23, "missing device name")
    rc, err = 0, ""
    for dev in p.args[1:]:
        denied = _deny(ctx, f"cannot online {dev}")
        if denied:
            return denied
        try:
            err += vdevs.online(ctx.machine, pool, dev, p.has("e"), ctx.now)
        except CmdError as e:
            rc, err = 1, err + e.stderr
    return rc, "", err


def zpool_offline(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "offline", argv, "ft", ctx, {"power": False})
    if not isinstance(p, Parsed):
        return p
    pool = _pool_arg(ctx, "offline", p.args)
    if len(p.args) < 2:
        return _usage("zpool", "offline", ctx.v23, "missing device name")
    rc, err = 0, ""
    for dev in p.args[1:]:
        denied = _deny(ctx, f"cannot offline {dev}")
        if denied:
            return denied
        try:
            vdevs.offline(ctx.machine, pool, dev)
        except CmdError as e:
            rc, err = 1, err + e.stderr
    return rc, "", err


def zpool_set_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "set", argv, "", ctx)
    if not isinstance(p, Parsed):
        return p
    if not p.args:
        return _usage("zpool", "set", ctx.v23, "missing property=value argument")
    if len(p.args) < 2:
        return _usage("zpool", "set", ctx.v23, "missing pool name")
    if len(p.args) > 2:
        return _usage("zpool", "set", ctx.v23, "too many pool names")
    if "=" not in p.args[0]:
        return _usage("zpool", "set", ctx.v23, "missing value in property=value argument")
    prop, _, val = p.args[0].partition("=")
    pool = ctx.machine.pools.get(p.args[1])
    if pool is None:
        return 1, "", f"cannot open '{p.args[1]}': no such pool\n"
    denied = _deny(ctx, f"cannot set property for '{pool.name}'")
    if denied:
        return denied
    pools.zpool_set(ctx.machine, pool, prop, val)
    return 0, "", ""


def zpool_scrub(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "scrub", argv, "spweC" if ctx.v23 else "spw", ctx)
    if not isinstance(p, Parsed):
        return p
    if p.has("s") and p.has("p"):
        return _usage("zpool", "scrub", ctx.v23,
                      "invalid option combination: -s and -p are mutually exclusive")
    if not p.args:
        return _usage("zpool", "scrub", ctx.v23, "missing pool name argument")
    rc, err = 0, ""
    for name in p.args:
        pool = ctx.machine.pools.get(name)
        if pool is None:
            rc, err = 1, err + f"cannot open '{name}': no such pool\n"
            continue
        denied = _deny(ctx, f"cannot scrub {name}")
        if denied:
            return denied
        try:
            scans.scrub(ctx.machine, pool, p.has("s"), p.has("p"), ctx.now)
        except CmdError as e:
            rc, err = 1, err + e.stderr
            continue
        if p.has("w") and not p.has("s") and not p.has("p"):
            _wait(ctx, pool, {"scrub"})
    return rc, "", err


def _wait(ctx: Context, pool: Pool, activities: set[str]) -> None:
    sc = pool.scan
    if sc is None or sc.state != "SCANNING" or sc.paused_at:
        return
    kind = "scrub" if sc.function == "SCRUB" else "resilver"
    if kind in activities or (kind == "resilver" and "replace" in activities):
        end = sc.finish_time()
        if end > ctx.now:
            ctx.fast_forward(end + 1.0)
            ctx.now = end + 1.0


def zpool_wait(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "wait", argv, "HpT:t:", ctx)
    if not isinstance(p, Parsed):
        return p
    acts: set[str] = set(ACTIVITIES)
    if p.values("t"):
        acts = set()
        for v in p.values("t"):
            for a in v.split(","):
                if a not in ACTIVITIES:
                    return _usage("zpool", "wait", ctx.v23, f"invalid activity '{a}'")
                acts.add(a)
    if not p.args:
        return _usage("zpool", "wait", ctx.v23, "missing 'pool' argument")
    pool = ctx.machine.pools.get(p.args[0])
    if pool is None:
        return 1, "", f"cannot open '{p.args[0]}': no such pool\n"
    _wait(ctx, pool, acts)
    return 0, "", ""


def zpool_clear(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "clear", argv, "FnX", ctx, {"power": False})
    if not isinstance(p, Parsed):
        return p
    pool = _pool_arg(ctx, "clear", p.args)
    dev = p.args[1] if len(p.args) > 1 else None
    denied = _deny(ctx, f"cannot clear errors for {dev or pool.name}")
    if denied:
        return denied
    pools.clear(ctx.machine, pool, dev)
    return 0, "", ""


def zpool_labelclear(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zpool", "labelclear", argv, "f", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 1:
        return _usage("zpool", "labelclear", ctx.v23,
                      "missing vdev name" if not p.args else "too many arguments")
    if not ctx.root:
        return 1, "", f"failed to open {p.args[0]}: Permission denied\n"
    disks.labelclear(ctx.machine, p.args[0], p.has("f"))
    return 0, "", ""


ZPOOL: dict[str, Callable[[Context, list[str]], Out]] = {
    "status": zpool_status,
    "list": zpool_list_cmd,
    "iostat": zpool_iostat_cmd,
    "get": zpool_get_cmd,
    "set": zpool_set_cmd,
    "attach": zpool_attach,
    "replace": zpool_replace,
    "detach": zpool_detach,
    "online": zpool_online,
    "offline": zpool_offline,
    "scrub": zpool_scrub,
    "wait": zpool_wait,
    "clear": zpool_clear,
    "labelclear": zpool_labelclear,
    "version": zpool_version,
}


# --------------------------------------------------------------------------------- zfs


def zfs(ctx: Context, argv: list[str]) -> Out:
    if not argv:
        return 2, "", "usage: zfs command args ...\nwhere 'command' is one of the following:\n"
    sub, rest = argv[0], argv[1:]
    aliases = {"snap": "snapshot", "recv": "receive", "umount": "unmount"}
    handler = ZFS.get(aliases.get(sub, sub))
    if handler is None:
        return 2, "", (f"unrecognized command '{sub}'\nusage: zfs command args ...\n"
                       "where 'command' is one of the following:\n")
    try:
        return handler(ctx, rest)
    except CmdError as e:
        return e.rc, "", e.stderr


def zfs_version(ctx: Context, argv: list[str]) -> Out:
    if argv and not (ctx.v23 and argv == ["-j"]):
        return _usage("zfs", "version", ctx.v23, f"invalid option '{argv[0].lstrip('-')[:1]}'")
    if ctx.v23:
        return 0, "zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.3.2-2~bpo12+2\n", ""
    return 0, "zfs-2.1.11-1\nzfs-kmod-2.1.11-1\n", ""


TYPE_WORDS = {"filesystem": "filesystem", "fs": "filesystem", "volume": "volume",
              "vol": "volume", "snapshot": "snapshot", "snap": "snapshot",
              "bookmark": "bookmark", "all": "all"}


def _types(spec: str | None, default: set[str]) -> set[str]:
    if spec is None:
        return default
    out: set[str] = set()
    for t in spec.split(","):
        if t not in TYPE_WORDS:
            raise CmdError(2, f"invalid type '{t}'\nusage:\n{USAGE_ZFS['list']}")
        w = TYPE_WORDS[t]
        out |= {"filesystem", "volume", "snapshot", "bookmark"} if w == "all" else {w}
    return out


def _roots(ctx: Context, args: list[str]) -> tuple[list[str], str]:
    m = ctx.machine
    if not args:
        return sorted(n for n in m.datasets if "/" not in n), ""
    roots: list[str] = []
    err = ""
    for a in args:
        if "@" in a:
            if m.find_snapshot(a) is None:
                err += f"cannot open '{a}': dataset does not exist\n"
                continue
        elif a not in m.datasets:
            err += f"cannot open '{a}': dataset does not exist\n"
            continue
        roots.append(a)
    return roots, err


def zfs_list(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "list", argv, "HS:d:o:prs:t:" + ("j" if ctx.v23 else ""), ctx)
    if not isinstance(p, Parsed):
        return p
    cols = [canonical(c) for c in (p.last("o") or "name,used,available,referenced,"
                                                   "mountpoint").split(",")]
    for c in cols:
        if not known_prop(c):
            return _usage("zfs", "list", ctx.v23, f"invalid property '{c}'")
    types = _types(p.last("t"), {"filesystem", "volume"})
    depth: int | None = None
    if p.last("d") is not None:
        try:
            depth = int(p.last("d") or "")
        except ValueError:
            return _usage("zfs", "list", ctx.v23, "invalid depth 'x'")
    recurse = p.has("r") or depth is not None or not p.args
    roots, err = _roots(ctx, p.args)
    rows: list[Row] = list(rows_for(ctx.machine, roots, recurse=recurse,
                                    depth=depth if p.args else None, types=types))
    keys = [(k, False) for k in p.values("s")] + [(k, True) for k in p.values("S")]
    keys = []
    for o, v in p.opts:
        if o in ("s", "S") and v is not None:
            keys.append((v, o == "S"))
    if keys:
        rows = sort_rows(ctx.machine, rows, keys)
    if not rows and not err and not p.args:
        return 0, "", "no datasets available\n"
    out = render_table(ctx.machine, rows, cols, scripted=p.has("H"), literal=p.has("p")) \
        if rows else ""
    return (1 if err else 0), out, err


def zfs_get_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "get", argv, ":d:o:s:rt:Hp" + ("j" if ctx.v23 else ""), ctx)
    if not isinstance(p, Parsed):
        return p
    if not p.args:
        return _usage("zfs", "get", ctx.v23, "missing property argument")
    props = p.args[0].split(",")
    for prop in props:
        if prop != "all" and not known_prop(prop):
            return _usage("zfs", "get", ctx.v23, f"bad property list: invalid property "
                                                 f"'{prop}'")
    fields = ["name", "property", "value", "source"]
    if p.last("o"):
        o = p.last("o") or ""
        fields = ["name", "property", "value", "received", "source"] if o == "all" else \
            o.split(",")
    sources = set((p.last("s") or "").split(",")) if p.last("s") else None
    depth = int(p.last("d") or "0") if p.last("d") else None
    types = _types(p.last("t"), {"filesystem", "volume", "snapshot"}) if p.last("t") else \
        {"filesystem", "volume", "snapshot"}
    recurse = p.has("r") or depth is not None
    roots, err = _roots(ctx, p.args[1:])
    if not p.args[1:]:
        recurse = True
    rows = list(rows_for(ctx.machine, roots, recurse=recurse, depth=depth,
                         types=types if recurse else types | {"filesystem", "volume"}))
    if not recurse:
        rows = [r for r in rows if r.name in roots]
    out = zfs_get(ctx.machine, rows, props, fields, scripted=p.has("H"), literal=p.has("p"),
                  sources=sources)
    return (1 if err else 0), out, err


def _props_opts(p: Parsed) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in p.values("o"):
        k, _, val = v.partition("=")
        out[k] = val
    return out


def zfs_set_cmd(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "set", argv, "u", ctx)
    if not isinstance(p, Parsed):
        return p
    assigns = [a for a in p.args if "=" in a]
    targets = [a for a in p.args if "=" not in a]
    if not p.args:
        return _usage("zfs", "set", ctx.v23, "missing arguments")
    if not assigns:
        return _usage("zfs", "set", ctx.v23, "missing property=value argument(s)")
    if not targets:
        return _usage("zfs", "set", ctx.v23, "missing dataset name(s)")
    rc, err = 0, ""
    for t in targets:
        denied = _deny(ctx, f"cannot set property for '{t}'")
        if denied:
            return denied
        for a in assigns:
            k, _, v = a.partition("=")
            try:
                properties.zfs_set(ctx.machine, t, k, v)
            except CmdError as e:
                rc, err = max(rc, e.rc), err + e.stderr
    return rc, "", err


def zfs_snapshot(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "snapshot", argv, "ro:", ctx)
    if not isinstance(p, Parsed):
        return p
    if not p.args:
        return _usage("zfs", "snapshot", ctx.v23, "missing snapshot argument")
    denied = _deny(ctx, "cannot create snapshots ")
    if denied:
        return denied
    snapshots.snapshot(ctx.machine, p.args, p.has("r"), ctx.now)
    return 0, "", ""


def zfs_destroy(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "destroy", argv, "vpndfrR", ctx)
    if not isinstance(p, Parsed):
        return p
    if not p.args:
        return _usage("zfs", "destroy", ctx.v23, "missing dataset argument")
    if len(p.args) > 1:
        return _usage("zfs", "destroy", ctx.v23, "too many arguments")
    target = p.args[0]
    if not p.has("n"):
        denied = _deny(ctx, f"cannot destroy '{target}'")
        if denied:
            return denied
    out, rc = snapshots.destroy(ctx.machine, target, recursive=p.has("r") or p.has("R"),
                          rdeps=p.has("R"), dry=p.has("n"), verbose=p.has("v"),
                          parsable=p.has("p"))
    return rc, out, ""


def zfs_clone(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "clone", argv, "po:u", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) < 1:
        return _usage("zfs", "clone", ctx.v23, "missing source dataset argument")
    if len(p.args) < 2:
        return _usage("zfs", "clone", ctx.v23, "missing target dataset argument")
    if len(p.args) > 2:
        return _usage("zfs", "clone", ctx.v23, "too many arguments")
    denied = _deny(ctx, f"cannot create '{p.args[1]}'")
    if denied:
        return denied
    snapshots.clone(ctx.machine, p.args[0], p.args[1], p.has("p"), _props_opts(p), ctx.now)
    return 0, "", ""


def zfs_promote(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "promote", argv, "", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 1:
        return _usage("zfs", "promote", ctx.v23,
                      "missing clone filesystem argument" if not p.args else
                      "too many arguments")
    denied = _deny(ctx, f"cannot promote '{p.args[0]}'")
    if denied:
        return denied
    snapshots.promote(ctx.machine, p.args[0])
    return 0, "", ""


def zfs_send(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "send", argv, "pvnPLecwbhDRi:I:t:", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 1:
        return _usage("zfs", "send", ctx.v23, "missing snapshot argument" if not p.args
                      else "too many arguments")
    unsupported = [o for o in "RiIDt" if p.has(o)]
    if unsupported:
        return 1, "", (f"zfs send -{unsupported[0]}: not simulated by the demo host (full "
                       "streams of one snapshot only)\n")
    return 0, streams.send(ctx.machine, p.args[0], p.has("p")), ""


def zfs_receive(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "receive", argv, "uvnFsdeAhMo:x:", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 1:
        return _usage("zfs", "receive", ctx.v23, "missing snapshot argument" if not p.args
                      else "too many arguments")
    overrides: dict[str, str] = {}
    for v in p.values("o"):
        if "=" not in v:
            return _usage("zfs", "receive", ctx.v23, "missing '=' for -o option")
        k, _, val = v.partition("=")
        overrides[k] = val
    denied = _deny(ctx, f"cannot receive new filesystem stream into '{p.args[0]}'")
    if denied:
        return denied
    streams.receive(ctx.machine, p.args[0], ctx.stdin, unmounted=p.has("u"),
                overrides=overrides, now=ctx.now)
    return 0, "", ""


def zfs_rename(ctx: Context, argv: list[str]) -> Out:
    p = _opts("zfs", "rename", argv, "fpur", ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 2:
        return _usage("zfs", "rename", ctx.v23, "missing source dataset argument"
                      if not p.args else "missing target dataset argument"
                      if len(p.args) == 1 else "too many arguments")
    denied = _deny(ctx, f"cannot rename '{p.args[0]}'")
    if denied:
        return denied
    datasets.rename(ctx.machine, p.args[0], p.args[1])
    return 0, "", ""


def _one_filesystem(ctx: Context, argv: list[str], sub: str, optstring: str,
                    op: Callable[[Any, str], None]) -> Out:
    """`zfs mount|unmount [opts] FS`: one filesystem argument, root only."""
    p = _opts("zfs", sub, argv, optstring, ctx)
    if not isinstance(p, Parsed):
        return p
    if len(p.args) != 1:
        return _usage("zfs", sub, ctx.v23, "missing filesystem argument" if not p.args
                      else "too many arguments")
    denied = _deny(ctx, f"cannot {sub} '{p.args[0]}'")
    if denied:
        return denied
    op(ctx.machine, p.args[0])
    return 0, "", ""


def zfs_mount(ctx: Context, argv: list[str]) -> Out:
    return _one_filesystem(ctx, argv, "mount", "Olo:af", datasets.mount)


def zfs_unmount(ctx: Context, argv: list[str]) -> Out:
    return _one_filesystem(ctx, argv, "unmount", "fau", datasets.unmount)


ZFS: dict[str, Callable[[Context, list[str]], Out]] = {
    "version": zfs_version,
    "list": zfs_list,
    "get": zfs_get_cmd,
    "set": zfs_set_cmd,
    "snapshot": zfs_snapshot,
    "destroy": zfs_destroy,
    "clone": zfs_clone,
    "promote": zfs_promote,
    "send": zfs_send,
    "receive": zfs_receive,
    "rename": zfs_rename,
    "mount": zfs_mount,
    "unmount": zfs_unmount,
}


# ------------------------------------------------------------------------------ others


def udevadm(ctx: Context, argv: list[str]) -> Out:
    if argv[:1] != ["info"]:
        return 1, "", f"udevadm: unknown command '{argv[0] if argv else ''}'\n" if argv else \
            "udevadm: missing or unknown command\n"
    rest = argv[1:]
    if rest in (["--export-db"], ["-e"]):
        return 0, export_db(ctx.machine), ""
    query = None
    name = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a.startswith("--query="):
            query = a.split("=", 1)[1]
        elif a in ("-q", "--query") and i + 1 < len(rest):
            query = rest[i + 1]
            i += 1
        elif a.startswith("--name="):
            name = a.split("=", 1)[1]
        elif a in ("-n", "--name") and i + 1 < len(rest):
            name = rest[i + 1]
            i += 1
        elif not a.startswith("-"):
            name = a
        else:
            return 1, "", f"udevadm: invalid option -- '{a.lstrip('-')[:1]}'\n"
        i += 1
    if query != "property" or name is None:
        return 1, "", "udevadm: only --query=property --name=DEV is simulated\n"
    hit = ctx.machine.disk_by_any(name)
    if hit is None:
        dev = name if name.startswith("/") else "/dev/" + name
        return 4, "", f"Unknown device \"{dev}\": No such device\n"
    d, part = hit
    pobj = next((x for x in d.partitions if x.number == part), None) if part else None
    props = disk_properties(ctx.machine, d, pobj)
    return 0, "".join(f"{k}={v}\n" for k, v in props.items()), ""


def lsblk(ctx: Context, argv: list[str]) -> Out:
    p = _opts("lsblk", "lsblk", argv, "Jbo:dpn", ctx,
              {"json": False, "bytes": False, "output": True, "nodeps": False, "paths": False,
               "noheadings": False})
    if not isinstance(p, Parsed):
        return 1, "", "lsblk: unrecognized option\n"
    cols = (p.last("o") or p.last("--output") or "NAME,MAJ:MIN,RM,SIZE,RO,TYPE,MOUNTPOINT"
            ).upper().split(",")
    from zconsole.hosts.demo.render.block import LSBLK_KEYS

    for c in cols:
        if c not in LSBLK_KEYS:
            return 1, "", f"lsblk: unknown column: {c}\n"
    if not (p.has("J") or p.has("--json")):
        return 1, "", "lsblk: the demo answers only -J (JSON) output\n"
    return 0, lsblk_json(ctx.machine, cols, nbytes=p.has("b") or p.has("--bytes"),
                         nodeps=p.has("d") or p.has("--nodeps"),
                         paths=p.has("p") or p.has("--paths")), ""


def ip(ctx: Context, argv: list[str]) -> Out:
    flags = [a for a in argv if a.startswith("-")]
    words = [a for a in argv if not a.startswith("-")]
    if "-j" not in flags and "-json" not in flags:
        return 1, "", "the demo answers only ip -j (JSON)\n"
    details = "-d" in flags or "-details" in flags
    if words[:1] in (["link"], ["l"]) and words[1:] in ([], ["show"]):
        return 0, ip_link(ctx.machine, details), ""
    if words[:1] in (["addr"], ["a"], ["address"]) and words[1:] in ([], ["show"]):
        return 0, ip_addr(ctx.machine), ""
    return 255, "", f'Object "{words[0] if words else ""}" is unknown, try "ip help".\n'


def bridge(ctx: Context, argv: list[str]) -> Out:
    flags = [a for a in argv if a.startswith("-")]
    words = [a for a in argv if not a.startswith("-")]
    if "-j" in flags and words[:1] == ["vlan"] and words[1:] in ([], ["show"]):
        return 0, bridge_vlan(ctx.machine), ""
    return 255, "", f'Command "{" ".join(words)}" is unknown, try "bridge help".\n'


def dd(ctx: Context, argv: list[str]) -> Out:
    """Only the read-only form zconsole uses to blink a disk's LED:
    dd if=/dev/... of=/dev/null bs=1M count=N iflag=direct."""
    args = dict(a.partition("=")[::2] for a in argv[1:])
    src = args.get("if", "")
    if args.get("of") != "/dev/null":
        return 1, "", "dd: the demo host only reads (of=/dev/null)\n"
    hit = ctx.machine.disk_by_any(src)
    if hit is None:
        return 1, "", f"dd: failed to open '{src}': No such file or directory\n"
    disk, _ = hit
    bs = 1 << 20 if args.get("bs", "1M") in ("1M", "1048576") else 512
    count = int(args.get("count", "0") or 0)
    blocks = min(count, disk.size // bs) if count else disk.size // bs
    n = blocks * bs
    secs = max(n / (165 * (1 << 20)), 0.001)
    return 0, "", (f"{blocks}+0 records in\n{blocks}+0 records out\n{n} bytes copied, "
                   f"{secs:.1f} s, {n / secs / 1e6:.0f} MB/s\n")


def simple(ctx: Context, argv: list[str]) -> Out:
    prog = argv[0]
    if prog == "uname" and argv[1:] == ["-r"]:
        return 0, ctx.machine.kernel + "\n", ""
    if prog == "uname" and argv[1:] == []:
        return 0, "Linux\n", ""
    if prog == "hostname" and argv[1:] == []:
        return 0, ctx.machine.hostname + "\n", ""
    if prog == "id" and argv[1:] == ["-u"]:
        return 0, ("0\n" if ctx.root else "1000\n"), ""
    if prog == "true":
        return 0, "", ""
    return 1, "", f"{prog}: invalid option\n"
