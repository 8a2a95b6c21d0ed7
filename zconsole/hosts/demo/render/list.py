"""`zpool list [-v] [-H] [-p] [-o ...]` and `zpool get`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from zconsole.hosts.demo.fmt import nicenum, ratio
from zconsole.hosts.demo.machine.pools import Pool, Vdev, expand_size
from zconsole.hosts.demo.machine.state import Machine
from zconsole.hosts.demo.render.status import NameFlags, pool_state, state_name, vdev_name

# property -> (header, right-justified)
LIST_COLUMNS: dict[str, tuple[str, bool]] = {
    "name": ("NAME", False),
    "size": ("SIZE", True),
    "allocated": ("ALLOC", True),
    "free": ("FREE", True),
    "checkpoint": ("CKPOINT", True),
    "expandsize": ("EXPANDSZ", True),
    "fragmentation": ("FRAG", True),
    "capacity": ("CAP", True),
    "dedupratio": ("DEDUP", True),
    "health": ("HEALTH", True),
    "altroot": ("ALTROOT", False),
    "guid": ("GUID", True),
    "version": ("VERSION", True),
    "autoexpand": ("EXPAND", False),
    "autoreplace": ("REPLACE", False),
    "ashift": ("ASHIFT", True),
    "readonly": ("RDONLY", False),
    "freeing": ("FREEING", True),
    "leaked": ("LEAKED", True),
    "comment": ("COMMENT", False),
    "bootfs": ("BOOTFS", False),
    "cachefile": ("CACHEFILE", False),
    "failmode": ("FAILMODE", False),
    "listsnapshots": ("LISTSNAPS", False),
    "delegation": ("DELEGATION", False),
    "multihost": ("MULTIHOST", False),
    "autotrim": ("AUTOTRIM", False),
    "load_guid": ("LOAD_GUID", True),
    "compatibility": ("COMPATIBILITY", False),
    "bcloneused": ("BCLONE_USED", True),
    "bclonesaved": ("BCLONE_SAVED", True),
    "bcloneratio": ("BCLONE_RATIO", True),
    "dedup_table_size": ("DDTSIZE", True),
    "dedup_table_quota": ("DDTQUOTA", True),
    "dedupcached": ("DDTCACHED", True),
    "last_scrubbed_txg": ("LAST_SCRUBBED_TXG", True),
}
ALIASES = {"alloc": "allocated", "cap": "capacity", "dedup": "dedupratio",
           "expandsz": "expandsize", "frag": "fragmentation", "ckpoint": "checkpoint",
           "rdonly": "readonly", "replace": "autoreplace", "expand": "autoexpand",
           "listsnaps": "listsnapshots", "ddtsize": "dedup_table_size"}
V23_ONLY = {"bcloneused", "bclonesaved", "bcloneratio", "dedup_table_size", "dedup_table_quota",
            "dedupcached", "last_scrubbed_txg"}
DEFAULT_LIST = ("name,size,allocated,free,checkpoint,expandsize,fragmentation,capacity,"
                "dedupratio,health,altroot")

DEFAULTS = {"autoexpand": "off", "autoreplace": "off", "autotrim": "off", "failmode": "wait",
            "listsnapshots": "off", "delegation": "on", "multihost": "off", "readonly": "off",
            "cachefile": "-", "comment": "-", "bootfs": "-", "altroot": "-",
            "compatibility": "off", "dedup_table_quota": "auto"}

GET_ALL_ORDER = ("size capacity altroot health guid version bootfs delegation autoreplace "
                 "cachefile failmode listsnapshots autoexpand dedupratio free allocated "
                 "readonly ashift comment expandsize freeing fragmentation leaked multihost "
                 "checkpoint load_guid autotrim compatibility bcloneused bclonesaved "
                 "bcloneratio dedup_table_size dedup_table_quota dedupcached "
                 "last_scrubbed_txg").split()

FEATURES_21 = ("async_destroy empty_bpobj lz4_compress multi_vdev_crash_dump spacemap_histogram "
               "enabled_txg hole_birth extensible_dataset embedded_data bookmarks filesystem_limits "
               "large_blocks large_dnode sha512 skein edonr userobj_accounting encryption "
               "project_quota device_removal obsolete_counts zpool_checkpoint spacemap_v2 "
               "allocation_classes resilver_defer bookmark_v2 redaction_bookmarks redacted_datasets "
               "bookmark_written log_spacemap livelist device_rebuild zstd_compress draid").split()
FEATURES_23 = FEATURES_21 + ("zilsaxattr head_errlog blake3 block_cloning vdev_zaps_v2 "
                             "redaction_list_spill raidz_expansion fast_dedup longname "
                             "large_microzap").split()
ACTIVE = {"async_destroy", "empty_bpobj", "lz4_compress", "spacemap_histogram", "enabled_txg",
          "hole_birth", "extensible_dataset", "embedded_data", "large_blocks", "large_dnode",
          "userobj_accounting", "project_quota", "spacemap_v2", "log_spacemap",
          "zstd_compress", "livelist", "bookmark_v2"}


def canonical(prop: str) -> str:
    return ALIASES.get(prop, prop)


def pool_value(m: Machine, p: Pool, prop: str, literal: bool) -> tuple[str, str]:
    """(value, source) of a pool property as `zpool get` prints it."""
    prop = canonical(prop)
    size = p.size()

    def sz(n: int) -> str:
        return str(n) if literal else nicenum(n)

    if prop == "name":
        return p.name, "-"
    if prop == "size":
        return sz(size), "-"
    if prop == "allocated":
        return sz(p.alloc), "-"
    if prop == "free":
        return sz(p.free()), "-"
    if prop == "capacity":
        cap = p.alloc * 100 // size if size else 0
        return (str(cap) if literal else f"{cap}%"), "-"
    if prop == "fragmentation":
        return (str(p.frag) if literal else f"{p.frag}%"), "-"
    if prop == "checkpoint":
        return "-", "-"
    if prop == "expandsize":
        e = p.expandsize()
        if e == 0:
            return "-", "-"
        return sz(e), "-"
    if prop == "dedupratio":
        r = p.ddt.dedupratio_x100 if p.ddt else 100
        return (f"{r // 100}.{r % 100:02d}" if literal else ratio(r)), "-"
    if prop == "health":
        return pool_state(p), "-"
    if prop == "guid":
        return str(p.guid), "-"
    if prop == "load_guid":
        return str(p.guid ^ 0x5A5A5A5A5A5A5A5A), "-"
    if prop == "version":
        return "-", "default"
    if prop == "ashift":
        return p.props.get("ashift", "0"), "local" if "ashift" in p.props else "default"
    if prop in ("freeing", "leaked", "bcloneused", "bclonesaved", "dedupcached"):
        return sz(0) if literal else "0", "-"
    if prop == "bcloneratio":
        return ("1.00" if literal else "1.00x"), "-"
    if prop == "dedup_table_size":
        ddt = p.ddt
        n = ddt.entries * ddt.disk_per_entry if ddt else 0
        return sz(n), "-"
    if prop == "last_scrubbed_txg":
        return str(max(4, p.txg - 4000) if p.scan else 0), "-"
    if prop.startswith("feature@"):
        f = prop[len("feature@"):]
        if p.props.get(prop) == "disabled":  # a scenario's pool created without it
            return "disabled", "local"
        deferring = f == "resilver_defer" and p.scan is not None and bool(p.scan.deferred) \
            and p.scan.state == "SCANNING"  # active while a resilver waits (zpool-features)
        if f == "device_rebuild" or f in ACTIVE or deferring:
            return "active", "local"
        return "enabled", "local"
    if prop in p.props:
        return p.props[prop], "local"
    if prop in DEFAULTS:
        return DEFAULTS[prop], "default"
    raise KeyError(prop)


def known_pool_prop(prop: str, v23: bool) -> bool:
    prop = canonical(prop)
    if prop.startswith("feature@"):
        return prop[len("feature@"):] in (FEATURES_23 if v23 else FEATURES_21)
    if prop in V23_ONLY and not v23:
        return False
    return prop in LIST_COLUMNS or prop in DEFAULTS or prop in GET_ALL_ORDER


def zpool_get(m: Machine, pools: list[Pool], props: list[str], fields: list[str], *,
              scripted: bool, literal: bool, v23: bool) -> str:
    rows: list[list[str]] = []
    for p in pools:
        names: list[str] = []
        for prop in props:
            if prop == "all":
                names.extend(x for x in GET_ALL_ORDER if v23 or x not in V23_ONLY)
                names.extend("feature@" + f for f in (FEATURES_23 if v23 else FEATURES_21))
            else:
                names.append(prop)
        for prop in names:
            value, source = pool_value(m, p, prop, literal)
            full = {"name": p.name, "property": canonical(prop), "value": value,
                    "source": source}
            rows.append([full[f] for f in fields])
    return _table(rows, [f.upper() for f in fields], scripted)


def _table(rows: list[list[str]], header: list[str], scripted: bool) -> str:
    if scripted:
        return "".join("\t".join(r) + "\n" for r in rows)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    out = []
    for r in [header, *rows]:
        cells = [c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)]
        out.append("  ".join(cells).rstrip() if False else "  ".join(cells))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- zpool list


def _namewidth(m: Machine, pools: list[Pool], verbose: bool, flags: NameFlags) -> int:
    w = 0
    for p in pools:
        w = max(w, len(p.name))
        if verbose:
            def walk(v: Vdev, depth: int) -> None:
                nonlocal w
                w = max(w, len(vdev_name(m, v, flags)) + depth)
                for c in v.children:
                    walk(c, depth + 2)
            for t in p.top + p.cache + p.spares:
                walk(t, 2)
    return max(w, 9)


def _col_width(prop: str, values: list[str]) -> int:
    header = LIST_COLUMNS.get(prop, (prop.upper(), True))[0]
    fixed = {"size": 5, "allocated": 5, "free": 5, "checkpoint": 7, "expandsize": 8,
             "fragmentation": 5, "capacity": 5, "dedupratio": 5, "health": 8}
    return max(len(header), fixed.get(prop, 0), *(len(v) for v in values)) if values else len(
        header)


def zpool_list(m: Machine, pools: list[Pool], *, props: str, scripted: bool, literal: bool,
               verbose: bool, flags: NameFlags, v23: bool) -> str:
    cols = [canonical(c) for c in props.split(",")]
    width = _namewidth(m, pools, verbose, flags)
    values = {p.name: [p.name if c == "name" else pool_value(m, p, c, literal)[0] for c in cols]
              for p in pools}
    widths = [width if c == "name" else _col_width(c, [values[p.name][i] for p in pools])
              for i, c in enumerate(cols)]
    out: list[str] = []
    if not scripted:
        cells = []
        for i, c in enumerate(cols):
            h = LIST_COLUMNS.get(c, (c.upper(), True))[0]
            right = LIST_COLUMNS.get(c, (c, True))[1]
            last = i == len(cols) - 1
            if last and not right:
                cells.append(h)
            else:
                cells.append(h.rjust(widths[i]) if right else h.ljust(widths[i]))
        out.append("  ".join(cells))
    for p in pools:
        vals = values[p.name]
        if scripted:
            out.append("\t".join(vals))
        else:
            cells = []
            for i, c in enumerate(cols):
                right = LIST_COLUMNS.get(c, (c, True))[1]
                last = i == len(cols) - 1
                if last and not right:
                    cells.append(vals[i])
                else:
                    cells.append(vals[i].rjust(widths[i]) if right else vals[i].ljust(widths[i]))
            out.append("  ".join(cells))
        if verbose:
            out.extend(_list_vdevs(m, p, width, scripted, literal, flags))
    return "\n".join(out) + "\n"


def _permyriad(v: int) -> str:
    if v < 1000:
        return f"{v / 100:1.2f}%"
    if v < 10000:
        return f"{v / 100:2.1f}%"
    return f"{v / 100:3.0f}%"


DASHES = "{name:<{w}}      -      -      -        -         -      -      -      -         -"


VDEV_LIST_PROPS = ("size", "allocated", "free", "checkpoint", "expandsize", "fragmentation",
                   "capacity", "dedupratio", "health")
"""The columns of a vdev row of `zpool list -v`, in order."""


def _vdev_cells(p: Pool, v: Vdev, literal: bool, isspare: bool) -> list[str]:
    """One vdev row's cells of `zpool list -v` (`VDEV_LIST_PROPS`)."""

    def sz(n: int) -> str:
        if n == 0:
            return "-"
        return str(n) if literal else nicenum(n)

    top = p.is_top(v)
    cells: list[str]
    if top and not v.is_log:
        alloc = p.top_alloc(v)
        size, a, f = sz(v.asize), sz(alloc), sz(v.asize - alloc)
        frag = str(p.frag) if literal else f"{p.frag}%"
        capv = alloc * 10000 // v.asize if v.asize else 0
        cap = str(capv // 100) if literal else _permyriad(capv)
        esz = sz(expand_size(v))
        cells = [size, a, f, "-", esz, frag, cap, "-"]
    elif top:
        alloc = p.top_alloc(v)
        capv = alloc * 10000 // v.asize if v.asize else 0
        cells = [sz(v.asize), sz(alloc), sz(v.asize - alloc), "-", "-",
                 str(0) if literal else "0%",
                 str(capv // 100) if literal else _permyriad(capv), "-"]
    elif v.is_leaf:
        psize = v.psize if not v.not_present else 0
        cells = [sz(psize), "-", "-", "-", "-", "-", "-", "-"]
    else:
        cells = ["-", "-", "-", "-", "-", "-", "-", "-"]
    state = state_name(v)
    if isspare:
        state = "INUSE" if v.aux == "SPARED" else ("AVAIL" if v.state == "ONLINE" else state)
    cells.append(state)
    return cells


def _classes(p: Pool) -> list[tuple[str, list[Vdev]]]:
    """The vdev classes `zpool list -v` shows, in order: (class, top-level vdevs)."""
    return [("normal", p.data_vdevs()), ("logs", p.log_vdevs()), ("cache", p.cache),
            ("spare", p.spares)]


def _list_vdevs(m: Machine, p: Pool, width: int, scripted: bool, literal: bool,
                flags: NameFlags) -> list[str]:
    out: list[str] = []

    def line(v: Vdev, depth: int, isspare: bool = False) -> None:
        name = vdev_name(m, v, flags)
        cells = _vdev_cells(p, v, literal, isspare)
        if scripted:
            out.append("\t" + name + "\t" + "\t".join(cells))
        else:
            lead = " " * depth + name
            lead = lead if len(lead) > width else lead.ljust(width)
            ws = [5, 5, 5, 7, 8, 5, 5, 5, 8]
            out.append(lead + "".join("  " + c.rjust(ws[i]) for i, c in enumerate(cells)))
        for c in v.children:
            line(c, depth + 2, isspare)

    for t in p.data_vdevs():
        line(t, 2)
    logs = p.log_vdevs()
    if logs:
        out.append(DASHES.format(name="logs", w=width))
        for t in logs:
            line(t, 2)
    if p.cache:
        out.append(DASHES.format(name="cache", w=width))
        for t in p.cache:
            line(t, 2)
    if p.spares:
        out.append(DASHES.format(name="spare", w=width))
        for t in p.spares:
            line(t, 2, isspare=True)
    return out


PropFn = Callable[[Machine, Pool, str, bool], tuple[str, str]]


# ------------------------------------------------------------------------ zpool list -j


def _json_value(value: str, source: str, as_int: bool) -> dict[str, Any]:
    """`{"value": ..., "source": {"type": ..., "data": "-"}}` as OpenZFS 2.3 prints a
    property; with --json-int, a number is a JSON integer."""
    v: str | int = int(value) if as_int and value.isdigit() else value
    kind = {"-": "NONE", "default": "DEFAULT", "local": "LOCAL"}.get(source, source.upper())
    return {"value": v, "source": {"type": kind, "data": "-"}}


def zpool_list_json(m: Machine, pools: list[Pool], *, props: str, literal: bool,
                    as_int: bool, verbose: bool, flags: NameFlags) -> str:
    """`zpool list -j [--json-int] [-p] [-v] [-o ...]` (OpenZFS 2.3): pools by name, each
    with its properties as value/source objects; -v adds the vdev tree by class."""
    cols = [canonical(c) for c in props.split(",") if canonical(c) != "name"]
    exact = literal or as_int

    def num(n: int) -> str | int:
        return n if as_int else str(n)

    out: dict[str, Any] = {
        "output_version": {"command": "zpool list", "vers_major": 0, "vers_minor": 1},
        "pools": {},
    }
    for p in pools:
        item: dict[str, Any] = {
            "name": p.name, "type": "POOL", "state": pool_state(p), "guid": num(p.guid),
            "txg": num(p.txg), "spa_version": num(5000), "zpl_version": num(5),
            "properties": {c: _json_value(*pool_value(m, p, c, exact), as_int) for c in cols},
        }
        if verbose:
            def vdev(v: Vdev, cls: str, isspare: bool, p: Pool = p) -> dict[str, Any]:
                cells = _vdev_cells(p, v, exact, isspare)
                d: dict[str, Any] = {
                    "name": vdev_name(m, v, flags), "vdev_type": v.type, "guid": num(v.guid),
                    "class": cls, "state": cells[-1],
                    "properties": {k: _json_value(c, "-", as_int)
                                   for k, c in zip(VDEV_LIST_PROPS, cells, strict=True)},
                }
                if v.children:
                    d["vdevs"] = {vdev_name(m, c, flags): vdev(c, cls, isspare)
                                  for c in v.children}
                return d

            for cls, tops in _classes(p):
                if tops:
                    key = "vdevs" if cls == "normal" else cls
                    item[key] = {vdev_name(m, t, flags): vdev(t, cls, cls == "spare")
                                 for t in tops}
        out["pools"][p.name] = item
    return json.dumps(out, separators=(",", ":")) + "\n"
