"""`zpool`: argv parsing and the answer of each subcommand (status, list, iostat, get, set,
attach, replace, detach, online, offline, scrub, wait, clear, labelclear, version).

Reads are printed by `render/`; changes are made by `machine/` and refused there with
libzfs's messages. A new subcommand is a handler here plus a line in `SUBCOMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable

from zconsole.hosts.demo.getopt import Parsed
from zconsole.hosts.demo.machine import CmdError, disks, pools, scans, vdevs
from zconsole.hosts.demo.machine.pools import Pool
from zconsole.hosts.demo.render.events import zpool_events, zpool_history
from zconsole.hosts.demo.render.iostat import zpool_iostat
from zconsole.hosts.demo.render.list import (
    DEFAULT_LIST,
    known_pool_prop,
    zpool_get,
    zpool_list,
    zpool_list_json,
)
from zconsole.hosts.demo.render.status import NameFlags, status_json, status_text
from zconsole.hosts.demo.tools._common import (
    Context,
    Handler,
    Out,
    Usage,
    deny,
    each,
    get_props,
    interval,
    parse,
    subcommands,
)
from zconsole.hosts.demo.tools._zpool_log import logged
from zconsole.hosts.demo.tools.zfs import zfs_version

USAGE = Usage(texts={
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
    "remove": "\tremove [-npw] <pool> <device> ...\n\tremove -s <pool>\n",
    "replace": "\treplace [-fsw] [-o property=value] <pool> <device> [new-device]\n",
    "online": "\tonline [--power] [-e] <pool> <device> ...\n",
    "offline": "\toffline [--power] [-f] [-t] <pool> <device> ...\n",
    "scrub": "\tscrub [-e | -s | -p | -C] [-w] <pool> ...\n",
    "wait": "\twait [-Hp] [-T d|u] [-t <activity>[,...]] <pool> [interval]\n",
    "clear": "\tclear [[--power]|[-nF]] <pool> [device]\n",
    "labelclear": "\tlabelclear [-f] <vdev>\n",
    "add": "\tadd [-afgLnPw] [-o property=value] <pool> <vdev> ...\n",
    "version": "\tversion [-j]\n",
    "events": "\tevents [-vHf [pool] | -c]\n",
    "history": "\thistory [-il] [<pool>] ...\n",
}, texts_21={
    "status": "\tstatus [-c [script1,script2,...]] [-igLpPstvxD]  [-T d|u] [pool] ... \n"
              "\t    [interval [count]]\n",
    "list": "\tlist [-gHLpPv] [-o property[,...]] [-T d|u] [pool] ... \n"
            "\t    [interval [count]]\n",
    "iostat": "\tiostat [[[-c [script1,script2,...][-lq]]|[-rw]] [-T d | u] [-ghHLpPvy]\n"
              "\t    [[pool ...]|[pool vdev ...]|[vdev ...]] [[-n] interval [count]]\n",
})
ACTIVITIES = ("discard", "free", "initialize", "replace", "remove", "resilver", "scrub",
              "trim", "raidz_expand")


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


def pool_arg(ctx: Context, sub: str, args: list[str]) -> Pool:
    """The pool named by the first argument; a usage error without one."""
    if not args:
        raise USAGE.error(sub, ctx.v23, "missing pool name argument")
    p = ctx.machine.pools.get(args[0])
    if p is None:
        raise CmdError(1, f"cannot open '{args[0]}': no such pool")
    return p


def pool_and_devices(ctx: Context, sub: str, argv: list[str], spec: str, missing: str,
                     longopts: dict[str, bool] | None = None) -> tuple[Parsed, Pool]:
    """`zpool SUB [opts] POOL DEVICE...`: the options and the pool; a usage error (`missing`)
    when no device follows the pool."""
    p = parse(ctx, USAGE, sub, argv, spec, longopts)
    pool = pool_arg(ctx, sub, p.args)
    if len(p.args) < 2:
        raise USAGE.error(sub, ctx.v23, missing)
    return p, pool


def _wait(ctx: Context, pool: Pool, activities: set[str]) -> None:
    """`-w` and `zpool wait`: until no awaited scan runs in the pool (a resilver deferred
    behind the running one included): the host jumps there, or waits in a rehearsal."""

    def end_of(now: float) -> float | None:
        sc = pool.scan
        if sc is None or sc.state != "SCANNING" or sc.paused_at:
            return None
        kind = "scrub" if sc.function == "SCRUB" else "resilver"
        if kind in activities or (kind == "resilver" and "replace" in activities):
            return sc.finish_time()
        return None

    if ctx.wait_until is not None:
        ctx.now = ctx.wait_until(end_of)
        return
    end = end_of(ctx.now)
    if end is not None and end > ctx.now:
        ctx.fast_forward(end + 1.0)
        ctx.now = end + 1.0


# ---------------------------------------------------------------------------------- reads


def zpool_status(ctx: Context, argv: list[str]) -> Out:
    spec = "c:igLpPstvxDT:" + ("ej" if ctx.v23 else "")
    longs = {"json-int": False, "json-flat-vdevs": False, "json-pool-key-guid": False,
             "power": False} if ctx.v23 else {}
    p = parse(ctx, USAGE, "status", argv, spec, longs)
    if (p.has("--json-int") or p.has("--json-flat-vdevs")) and not p.has("j"):
        raise USAGE.error("status", ctx.v23,
                          "'--json-int' only works with '-j' option" if p.has("--json-int")
                          else "'json-flat-vdevs' only works with '-j' option")
    args, every, count = interval(p.args)
    if every is not None and count is None:
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
    longs = {"json-int": False, "json-pool-key-guid": False} if ctx.v23 else {}
    p = parse(ctx, USAGE, "list", argv, ":gHLo:pPT:v" + ("j" if ctx.v23 else ""), longs)
    if p.has("--json-int") and not p.has("j"):
        raise USAGE.error("list", ctx.v23, "'--json-int' only works with '-j' option")
    props = p.last("o") or DEFAULT_LIST
    for prop in props.split(","):
        if not known_pool_prop(prop, ctx.v23) and prop != "name":
            raise USAGE.error("list", ctx.v23, f"invalid property '{prop}'")
    args, every, count = interval(p.args)
    if every is not None and count is None:
        raise TimeoutError
    pools, err = _pools(ctx, args)
    if not pools and not err:
        return 0, ("no pools available\n" if not p.has("H") else ""), ""
    if p.has("j"):
        out = zpool_list_json(ctx.machine, pools, props=props, literal=p.has("p"),
                              as_int=p.has("--json-int"), verbose=p.has("v"), flags=_flags(p))
        return (1 if err else 0), out * (count or 1), err
    out = zpool_list(ctx.machine, pools, props=props, scripted=p.has("H"),
                     literal=p.has("p"), verbose=p.has("v"), flags=_flags(p), v23=ctx.v23)
    return (1 if err else 0), (out * (count or 1)) if pools else "", err


def zpool_iostat_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "iostat", argv, "c:gLPT:vyhplqrwnH")
    args, every, count = interval(p.args)
    if every is not None and count is None:
        raise TimeoutError
    if every is not None and every <= 0:
        return 1, "", "interval cannot be zero\n"
    pools, err = _pools(ctx, args)
    if err:
        return 1, "", err
    out = zpool_iostat(ctx.machine, pools, ctx.now, verbose=p.has("v"), latency=p.has("l"),
                       scripted=p.has("H"), literal=p.has("p"), omit_first=p.has("y"),
                       interval=every, count=count, v23=ctx.v23, flags=_flags(p))
    return 0, out, ""


def zpool_get_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "get", argv, ":Hpo:" + ("j" if ctx.v23 else ""))
    props = get_props(ctx, USAGE, p, lambda prop: known_pool_prop(prop, ctx.v23))
    fields = ["name", "property", "value", "source"]
    if p.last("o"):
        o = p.last("o") or ""
        fields = fields if o == "all" else o.split(",")
        for f in fields:
            if f not in ("name", "property", "value", "source"):
                raise USAGE.error("get", ctx.v23, f"invalid field '{f}'")
    pools, err = _pools(ctx, p.args[1:])
    out = zpool_get(ctx.machine, pools, props, fields, scripted=p.has("H"),
                    literal=p.has("p"), v23=ctx.v23)
    return (1 if err else 0), out, err


def zpool_wait(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "wait", argv, "HpT:t:")
    acts: set[str] = set(ACTIVITIES)
    if p.values("t"):
        acts = set()
        for v in p.values("t"):
            for a in v.split(","):
                if a not in ACTIVITIES:
                    raise USAGE.error("wait", ctx.v23, f"invalid activity '{a}'")
                acts.add(a)
    if not p.args:
        raise USAGE.error("wait", ctx.v23, "missing 'pool' argument")
    pool = ctx.machine.pools.get(p.args[0])
    if pool is None:
        return 1, "", f"cannot open '{p.args[0]}': no such pool\n"
    _wait(ctx, pool, acts)
    return 0, "", ""


# -------------------------------------------------------------------------------- changes


def _ashift(p: Parsed) -> int | None:
    for v in p.values("o"):
        k, _, val = v.partition("=")
        if k == "ashift":
            return int(val)
    return None


def zpool_attach(ctx: Context, argv: list[str], replacing: bool = False) -> Out:
    sub = "replace" if replacing else "attach"
    p = parse(ctx, USAGE, sub, argv, "fswo:")
    for v in p.values("o"):
        if "=" not in v:
            raise USAGE.error(sub, ctx.v23, "missing '=' for -o option")
        if v.partition("=")[0] != "ashift":
            return 2, "", f"property '{v.partition('=')[0]}' is not a valid pool or vdev " \
                          "property\n"
    pool = pool_arg(ctx, sub, p.args)
    args = p.args[1:]
    if not args:
        raise USAGE.error(sub, ctx.v23, "missing <device> specification")
    old = args[0]
    if len(args) < 2:
        if not replacing:
            raise USAGE.error(sub, ctx.v23, "missing <new_device> specification")
        new = old
    else:
        new = args[1]
    if len(args) > 2:
        raise USAGE.error(sub, ctx.v23, "too many arguments")
    deny(ctx, f"cannot replace {old} with {new}" if replacing else f"cannot attach {new} to {old}")
    vdevs.attach(ctx.machine, pool, old, new, force=p.has("f"), replacing=replacing,
                 ashift=_ashift(p), now=ctx.now)
    if p.has("w"):
        _wait(ctx, pool, {"resilver", "replace"})
    return 0, "", ""


def zpool_replace(ctx: Context, argv: list[str]) -> Out:
    return zpool_attach(ctx, argv, replacing=True)


def zpool_remove(ctx: Context, argv: list[str]) -> Out:
    p, pool = pool_and_devices(ctx, "remove", argv, "npws", "missing device")
    for dev in p.args[1:]:
        deny(ctx, f"cannot remove {dev}")
        vdevs.remove(ctx.machine, pool, dev)
    return 0, "", ""


def zpool_detach(ctx: Context, argv: list[str]) -> Out:
    p, pool = pool_and_devices(ctx, "detach", argv, "", "missing <device> specification")
    deny(ctx, f"cannot detach {p.args[1]}")
    vdevs.detach(ctx.machine, pool, p.args[1], ctx.now)
    return 0, "", ""


def _each_device(ctx: Context, argv: list[str], sub: str, spec: str,
                 change: Callable[[Pool, str, Parsed], str | None]) -> Out:
    """`zpool SUB [opts] POOL DEVICE...`: `change` on every device, root only."""
    p, pool = pool_and_devices(ctx, sub, argv, spec, "missing device name", {"power": False})

    def one(dev: str) -> str | None:
        deny(ctx, f"cannot {sub} {dev}")
        return change(pool, dev, p)

    return each(p.args[1:], one)


def zpool_online(ctx: Context, argv: list[str]) -> Out:
    return _each_device(ctx, argv, "online", "et", lambda pool, dev, p: vdevs.online(
        ctx.machine, pool, dev, p.has("e"), ctx.now))


def zpool_offline(ctx: Context, argv: list[str]) -> Out:
    return _each_device(ctx, argv, "offline", "ft", lambda pool, dev, p: vdevs.offline(
        ctx.machine, pool, dev))


def zpool_set_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "set", argv, "")
    if not p.args:
        raise USAGE.error("set", ctx.v23, "missing property=value argument")
    if len(p.args) < 2:
        raise USAGE.error("set", ctx.v23, "missing pool name")
    if len(p.args) > 2:
        raise USAGE.error("set", ctx.v23, "too many pool names")
    if "=" not in p.args[0]:
        raise USAGE.error("set", ctx.v23, "missing value in property=value argument")
    prop, _, val = p.args[0].partition("=")
    pool = ctx.machine.pools.get(p.args[1])
    if pool is None:
        return 1, "", f"cannot open '{p.args[1]}': no such pool\n"
    deny(ctx, f"cannot set property for '{pool.name}'")
    pools.zpool_set(ctx.machine, pool, prop, val)
    return 0, "", ""


def zpool_scrub(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "scrub", argv, "spweC" if ctx.v23 else "spw")
    if p.has("s") and p.has("p"):
        raise USAGE.error("scrub", ctx.v23,
                          "invalid option combination: -s and -p are mutually exclusive")
    if not p.args:
        raise USAGE.error("scrub", ctx.v23, "missing pool name argument")

    def one(name: str) -> None:
        pool = ctx.machine.pools.get(name)
        if pool is None:
            raise CmdError(1, f"cannot open '{name}': no such pool")
        deny(ctx, f"cannot scrub {name}")
        scans.scrub(ctx.machine, pool, p.has("s"), p.has("p"), ctx.now)
        if p.has("w") and not p.has("s") and not p.has("p"):
            _wait(ctx, pool, {"scrub"})

    return each(p.args, one)


def zpool_clear(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "clear", argv, "FnX", {"power": False})
    pool = pool_arg(ctx, "clear", p.args)
    dev = p.args[1] if len(p.args) > 1 else None
    deny(ctx, f"cannot clear errors for {dev or pool.name}")
    pools.clear(ctx.machine, pool, dev)
    return 0, "", ""


def zpool_labelclear(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "labelclear", argv, "f")
    if len(p.args) != 1:
        raise USAGE.error("labelclear", ctx.v23,
                          "missing vdev name" if not p.args else "too many arguments")
    if not ctx.root:
        return 1, "", f"failed to open {p.args[0]}: Permission denied\n"
    disks.labelclear(ctx.machine, p.args[0], p.has("f"))
    return 0, "", ""


def zpool_add(ctx: Context, argv: list[str]) -> Out:
    """`zpool add [-f] POOL spare DEV...`: the demo adds hot spares only."""
    p, pool = pool_and_devices(ctx, "add", argv, "fgLnPo:", "missing vdev specification")
    deny(ctx, f"cannot add to '{pool.name}'")
    if p.args[1] != "spare" or len(p.args) < 3:
        return 1, "", "zconsole demo: zpool add only adds hot spares (spare DEV...)\n"
    for dev in p.args[2:]:
        vdevs.add_spare(ctx.machine, pool, dev, force=p.has("f"))
    return 0, "", ""


def zpool_events_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "events", argv, "vHfc")
    if len(p.args) > 1:
        raise USAGE.error("events", ctx.v23, "too many arguments")
    if p.has("c"):
        if p.args or p.has("v") or p.has("H") or p.has("f"):
            raise USAGE.error("events", ctx.v23, "invalid options combined with -c")
        deny(ctx, "failed to clear events")
        log = ctx.machine.zlog
        n = len(log.events) if log is not None else 0
        if log is not None:
            log.events.clear()
        return 0, f"cleared {n} events\n", ""
    if p.has("f"):
        raise TimeoutError  # follows the ring buffer until interrupted
    if not ctx.root:
        return 1, "", "Permission denied the ZFS utilities must be run as root.\n"
    return 0, zpool_events(ctx.machine, verbose=p.has("v"), scripted=p.has("H"),
                           pool=p.args[0] if p.args else None), ""


def zpool_history_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "history", argv, "li")
    found, err = _pools(ctx, p.args)
    if not found and not err:
        return 0, "", "no pools available\n"
    out = zpool_history(ctx.machine, [x.name for x in found], internal=p.has("i"),
                        long=p.has("l"))
    return (1 if err else 0), out, err


SUBCOMMANDS: dict[str, Handler] = {
    "add": zpool_add,
    "status": zpool_status,
    "list": zpool_list_cmd,
    "iostat": zpool_iostat_cmd,
    "get": zpool_get_cmd,
    "set": zpool_set_cmd,
    "attach": zpool_attach,
    "replace": zpool_replace,
    "detach": zpool_detach,
    "remove": zpool_remove,
    "online": zpool_online,
    "offline": zpool_offline,
    "scrub": zpool_scrub,
    "wait": zpool_wait,
    "clear": zpool_clear,
    "labelclear": zpool_labelclear,
    "version": zfs_version,  # the same answer and usage as `zfs version`
    "events": zpool_events_cmd,
    "history": zpool_history_cmd,
}
for _sub in ("add", "set", "attach", "replace", "detach", "online", "offline", "scrub", "clear"):
    SUBCOMMANDS[_sub] = logged(_sub, SUBCOMMANDS[_sub])

HANDLERS: dict[str, Handler] = {"zpool": subcommands("zpool", SUBCOMMANDS)}
