"""`zfs`: argv parsing and the answer of each subcommand (list, get, set, snapshot,
destroy, clone, promote, send, receive, rename, mount, unmount, version).

Reads are printed by `render.zfs`; changes are made by `machine/` (properties, snapshots,
streams, datasets) and refused there with zfs_main.c's messages. A new subcommand is a
handler here plus a line in `SUBCOMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable

from zconsole.hosts.demo.getopt import Parsed
from zconsole.hosts.demo.machine import (
    CmdError,
    Machine,
    datasets,
    properties,
    snapshots,
    streams,
)
from zconsole.hosts.demo.render.zfs import (
    Row,
    canonical,
    known_prop,
    render_table,
    rows_for,
    sort_rows,
    zfs_get,
)
from zconsole.hosts.demo.tools._common import (
    Context,
    Handler,
    Out,
    Usage,
    deny,
    each,
    get_props,
    parse,
    subcommands,
)

PROPERTIES_FOOTER = ("\nThe following properties are supported:\n\n\tPROPERTY       EDIT  INHERIT "
                     "  VALUES\n\n")
USAGE = Usage(texts={
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
}, footers={"get": PROPERTIES_FOOTER, "list": PROPERTIES_FOOTER})
ALIASES = {"snap": "snapshot", "recv": "receive", "umount": "unmount"}
TYPE_WORDS = {"filesystem": "filesystem", "fs": "filesystem", "volume": "volume",
              "vol": "volume", "snapshot": "snapshot", "snap": "snapshot",
              "bookmark": "bookmark", "all": "all"}


def zfs_version(ctx: Context, argv: list[str]) -> Out:
    if argv and not (ctx.v23 and argv == ["-j"]):
        raise USAGE.error("version", ctx.v23, f"invalid option '{argv[0].lstrip('-')[:1]}'")
    if ctx.v23:
        return 0, "zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.3.2-2~bpo12+2\n", ""
    return 0, "zfs-2.1.11-1\nzfs-kmod-2.1.11-1\n", ""


def _types(spec: str | None, default: set[str]) -> set[str]:
    if spec is None:
        return default
    out: set[str] = set()
    for t in spec.split(","):
        if t not in TYPE_WORDS:
            raise CmdError(2, f"invalid type '{t}'\nusage:\n{USAGE.texts['list']}")
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


# ---------------------------------------------------------------------------------- reads


def zfs_list(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "list", argv, "HS:d:o:prs:t:" + ("j" if ctx.v23 else ""))
    cols = [canonical(c) for c in (p.last("o") or "name,used,available,referenced,"
                                                   "mountpoint").split(",")]
    for c in cols:
        if not known_prop(c):
            raise USAGE.error("list", ctx.v23, f"invalid property '{c}'")
    types = _types(p.last("t"), {"filesystem", "volume"})
    depth: int | None = None
    if p.last("d") is not None:
        try:
            depth = int(p.last("d") or "")
        except ValueError:
            raise USAGE.error("list", ctx.v23, "invalid depth 'x'") from None
    recurse = p.has("r") or depth is not None or not p.args
    roots, err = _roots(ctx, p.args)
    rows: list[Row] = list(rows_for(ctx.machine, roots, recurse=recurse,
                                    depth=depth if p.args else None, types=types))
    keys = [(v, o == "S") for o, v in p.opts if o in ("s", "S") and v is not None]
    if keys:
        rows = sort_rows(ctx.machine, rows, keys)
    if not rows and not err and not p.args:
        return 0, "", "no datasets available\n"
    out = render_table(ctx.machine, rows, cols, scripted=p.has("H"), literal=p.has("p")) \
        if rows else ""
    return (1 if err else 0), out, err


def zfs_get_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "get", argv, ":d:o:s:rt:Hp" + ("j" if ctx.v23 else ""))
    props = get_props(ctx, USAGE, p, known_prop)
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


def zfs_send(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "send", argv, "pvnPLecwbhDRi:I:t:")
    if len(p.args) != 1:
        raise USAGE.error("send", ctx.v23, "missing snapshot argument" if not p.args
                          else "too many arguments")
    unsupported = [o for o in "iIDt" if p.has(o)]
    if unsupported:
        return 1, "", (f"zfs send -{unsupported[0]}: not simulated by the demo host (full "
                       "and replication streams only)\n")
    return 0, streams.send(ctx.machine, p.args[0], p.has("p"), replicate=p.has("R")), ""


# -------------------------------------------------------------------------------- changes


def _props_opts(p: Parsed) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in p.values("o"):
        k, _, val = v.partition("=")
        out[k] = val
    return out


def zfs_set_cmd(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "set", argv, "u")
    assigns = [a for a in p.args if "=" in a]
    targets = [a for a in p.args if "=" not in a]
    if not p.args:
        raise USAGE.error("set", ctx.v23, "missing arguments")
    if not assigns:
        raise USAGE.error("set", ctx.v23, "missing property=value argument(s)")
    if not targets:
        raise USAGE.error("set", ctx.v23, "missing dataset name(s)")

    def one(change: tuple[str, str]) -> None:
        target, assign = change
        deny(ctx, f"cannot set property for '{target}'")
        k, _, v = assign.partition("=")
        properties.zfs_set(ctx.machine, target, k, v)

    return each([(t, a) for t in targets for a in assigns], one)


def zfs_snapshot(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "snapshot", argv, "ro:")
    if not p.args:
        raise USAGE.error("snapshot", ctx.v23, "missing snapshot argument")
    deny(ctx, "cannot create snapshots ")
    snapshots.snapshot(ctx.machine, p.args, p.has("r"), ctx.now)
    return 0, "", ""


def zfs_destroy(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "destroy", argv, "vpndfrR")
    if not p.args:
        raise USAGE.error("destroy", ctx.v23, "missing dataset argument")
    if len(p.args) > 1:
        raise USAGE.error("destroy", ctx.v23, "too many arguments")
    target = p.args[0]
    if not p.has("n"):
        deny(ctx, f"cannot destroy '{target}'")
    out, rc = snapshots.destroy(ctx.machine, target, recursive=p.has("r") or p.has("R"),
                                rdeps=p.has("R"), dry=p.has("n"), verbose=p.has("v"),
                                parsable=p.has("p"))
    return rc, out, ""


def zfs_clone(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "clone", argv, "po:u")
    if len(p.args) < 1:
        raise USAGE.error("clone", ctx.v23, "missing source dataset argument")
    if len(p.args) < 2:
        raise USAGE.error("clone", ctx.v23, "missing target dataset argument")
    if len(p.args) > 2:
        raise USAGE.error("clone", ctx.v23, "too many arguments")
    deny(ctx, f"cannot create '{p.args[1]}'")
    snapshots.clone(ctx.machine, p.args[0], p.args[1], p.has("p"), _props_opts(p), ctx.now)
    return 0, "", ""


def zfs_promote(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "promote", argv, "")
    if len(p.args) != 1:
        raise USAGE.error("promote", ctx.v23, "missing clone filesystem argument"
                          if not p.args else "too many arguments")
    deny(ctx, f"cannot promote '{p.args[0]}'")
    snapshots.promote(ctx.machine, p.args[0])
    return 0, "", ""


def zfs_receive(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "receive", argv, "uvnFsdeAhMo:x:")
    if len(p.args) != 1:
        raise USAGE.error("receive", ctx.v23, "missing snapshot argument" if not p.args
                          else "too many arguments")
    overrides: dict[str, str] = {}
    for v in p.values("o"):
        if "=" not in v:
            raise USAGE.error("receive", ctx.v23, "missing '=' for -o option")
        k, _, val = v.partition("=")
        overrides[k] = val
    deny(ctx, f"cannot receive new filesystem stream into '{p.args[0]}'")
    streams.receive(ctx.machine, p.args[0], ctx.stdin, unmounted=p.has("u"),
                    overrides=overrides, now=ctx.now, excluded=tuple(p.values("x")))
    return 0, "", ""


def zfs_rename(ctx: Context, argv: list[str]) -> Out:
    p = parse(ctx, USAGE, "rename", argv, "fpur")
    if len(p.args) != 2:
        raise USAGE.error("rename", ctx.v23, "missing source dataset argument"
                          if not p.args else "missing target dataset argument"
                          if len(p.args) == 1 else "too many arguments")
    deny(ctx, f"cannot rename '{p.args[0]}'")
    datasets.rename(ctx.machine, p.args[0], p.args[1])
    return 0, "", ""


def _one_filesystem(ctx: Context, argv: list[str], sub: str, optstring: str,
                    op: Callable[[Machine, str], None]) -> Out:
    """`zfs mount|unmount [opts] FS`: one filesystem argument, root only."""
    p = parse(ctx, USAGE, sub, argv, optstring)
    if len(p.args) != 1:
        raise USAGE.error(sub, ctx.v23, "missing filesystem argument" if not p.args
                          else "too many arguments")
    deny(ctx, f"cannot {sub} '{p.args[0]}'")
    op(ctx.machine, p.args[0])
    return 0, "", ""


def zfs_mount(ctx: Context, argv: list[str]) -> Out:
    return _one_filesystem(ctx, argv, "mount", "Olo:af", datasets.mount)


def zfs_unmount(ctx: Context, argv: list[str]) -> Out:
    return _one_filesystem(ctx, argv, "unmount", "fau", datasets.unmount)


SUBCOMMANDS: dict[str, Handler] = {
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

HANDLERS: dict[str, Handler] = {"zfs": subcommands("zfs", SUBCOMMANDS, ALIASES)}
