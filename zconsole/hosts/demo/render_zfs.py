"""`zfs list` and `zfs get`: datasets, snapshots and their properties."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from zconsole.hosts.demo.fmt import nicebytes, ratio, zfs_creation
from zconsole.hosts.demo.machine.common import MiB
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot
from zconsole.hosts.demo.machine.properties import (
    INHERITABLE_DEFAULTS,
    NOT_INHERITED,
    canonical,
    inherited,
)
from zconsole.hosts.demo.machine.state import Machine

NUMERIC = {"used", "available", "referenced", "usedbysnapshots", "usedbydataset",
           "usedbychildren", "usedbyrefreservation", "written", "logicalused",
           "logicalreferenced", "createtxg", "creation", "guid", "volsize", "userrefs",
           "snapshot_count", "filesystem_count", "objsetid", "compressratio",
           "refcompressratio"}
HEADERS = {"name": "NAME", "used": "USED", "available": "AVAIL", "referenced": "REFER",
           "mountpoint": "MOUNTPOINT", "origin": "ORIGIN", "clones": "CLONES",
           "createtxg": "CREATETXG", "creation": "CREATION", "type": "TYPE",
           "usedbysnapshots": "USEDSNAP", "usedbydataset": "USEDDS",
           "usedbychildren": "USEDCHILD", "usedbyrefreservation": "USEDREFRESERV",
           "compressratio": "RATIO", "compression": "COMPRESS", "dedup": "DEDUP",
           "recordsize": "RECSIZE", "logicalused": "LUSED", "logicalreferenced": "LREFER",
           "volsize": "VOLSIZE", "guid": "GUID", "written": "WRITTEN",
           "snapshot_count": "SSCOUNT", "mounted": "MOUNTED", "userrefs": "USERREFS"}
LEFT = {"name", "mountpoint", "origin", "clones", "type", "compression", "dedup", "mounted",
        "creation"}
GET_ALL = ("type creation used available referenced compressratio mounted quota reservation "
           "recordsize mountpoint sharenfs checksum compression atime devices exec setuid "
           "readonly zoned snapdir aclmode aclinherit createtxg canmount xattr copies version "
           "utf8only normalization casesensitivity vscan nbmand sharesmb refquota "
           "refreservation guid primarycache secondarycache usedbysnapshots usedbydataset "
           "usedbychildren usedbyrefreservation logbias objsetid dedup mlslabel sync dnodesize "
           "refcompressratio written logicalused logicalreferenced volmode filesystem_limit "
           "snapshot_limit filesystem_count snapshot_count snapdev acltype context fscontext "
           "defcontext rootcontext relatime redundant_metadata overlay encryption keylocation "
           "keyformat pbkdf2iters special_small_blocks").split()
VOLUME_SKIP = {"mounted", "quota", "recordsize", "mountpoint", "sharenfs", "atime", "devices",
               "exec", "setuid", "zoned", "snapdir", "aclmode", "aclinherit", "canmount",
               "xattr", "version", "utf8only", "normalization", "casesensitivity", "vscan",
               "nbmand", "sharesmb", "refquota", "filesystem_limit", "filesystem_count",
               "acltype", "relatime", "overlay", "dnodesize", "special_small_blocks"}
KNOWN = set(GET_ALL) | set(HEADERS) | {"name", "origin", "clones", "volsize", "volblocksize",
                                       "userrefs", "defer_destroy", "keystatus"}
COMPRESS_RATIO = {"off": 100, "lz4": 131, "zstd": 158, "on": 131, "gzip": 149}


def known_prop(prop: str) -> bool:
    return canonical(prop) in KNOWN or ":" in prop


@dataclass
class Row:
    """A dataset or snapshot as a property source."""

    name: str
    type: str
    ds: Dataset
    snap: Snapshot | None = None


def pool_avail(m: Machine, pool: str) -> int:
    p = m.pools.get(pool)
    if p is None:
        return 0
    size = p.size()
    slop = min(max(size >> 5, 128 * MiB), 128 << 30)
    return max(0, size - p.alloc - slop)


def used_total(m: Machine, ds: Dataset) -> int:
    return ds.used_self + ds.snap_used + sum(used_total(m, m.datasets[c])
                                             for c in m.children_of(ds.name))


def value(m: Machine, row: Row, prop: str, literal: bool) -> tuple[str, str]:
    """(value, source) of one property, printed as `zfs get` prints it."""
    prop = canonical(prop)
    ds, snap = row.ds, row.snap

    def size(n: int) -> str:
        return str(n) if literal else nicebytes(n)

    if prop == "name":
        return row.name, "-"
    if prop == "type":
        return row.type, "-"
    if snap is not None:
        if prop == "used":
            return size(snap.used), "-"
        if prop == "referenced":
            return size(snap.refer), "-"
        if prop in ("available", "mountpoint", "origin", "quota", "reservation",
                    "usedbysnapshots", "usedbydataset", "usedbychildren",
                    "usedbyrefreservation", "volsize", "canmount", "snapshot_count",
                    "filesystem_count", "filesystem_limit", "snapshot_limit", "refquota",
                    "refreservation", "recordsize", "mounted", "sharenfs", "sharesmb"):
            return "-", "-"
        if prop == "clones":
            return ",".join(m.clones_of(snap.name)) or "-", "-"
        if prop == "createtxg":
            return str(snap.createtxg), "-"
        if prop == "creation":
            return (str(snap.creation) if literal else zfs_creation(snap.creation)), "-"
        if prop == "guid":
            return str(snap.guid), "-"
        if prop == "written":
            return size(snap.used), "-"
        if prop == "userrefs":
            return str(snap.userrefs), "-"
        if prop == "defer_destroy":
            return "off", "-"
        if prop in ("logicalreferenced",):
            return size(int(snap.refer * 1.31)), "-"
        if prop in ("compressratio", "refcompressratio"):
            r = COMPRESS_RATIO.get(inherited(m, ds, "compression")[0], 131)
            return (f"{r // 100}.{r % 100:02d}" if literal else ratio(r)), "-"
        if prop in INHERITABLE_DEFAULTS:
            return inherited(m, ds, prop)[0], "-"
        return "-", "-"
    if prop == "used":
        return size(used_total(m, ds)), "-"
    if prop == "available":
        return size(pool_avail(m, ds.pool)), "-"
    if prop == "referenced":
        return size(ds.refer), "-"
    if prop == "usedbysnapshots":
        return size(ds.snap_used), "-"
    if prop == "usedbydataset":
        return size(ds.used_self), "-"
    if prop == "usedbychildren":
        return size(sum(used_total(m, m.datasets[c]) for c in m.children_of(ds.name))), "-"
    if prop == "usedbyrefreservation":
        return size(0), "-"
    if prop == "written":
        return size(ds.used_self // 50), "-"
    if prop in ("logicalused", "logicalreferenced"):
        r = COMPRESS_RATIO.get(inherited(m, ds, "compression")[0], 131)
        base = used_total(m, ds) if prop == "logicalused" else ds.refer
        return size(base * r // 100), "-"
    if prop in ("compressratio", "refcompressratio"):
        r = COMPRESS_RATIO.get(inherited(m, ds, "compression")[0], 131)
        return (f"{r // 100}.{r % 100:02d}" if literal else ratio(r)), "-"
    if prop == "origin":
        return (ds.origin or "-"), "-"
    if prop == "clones":
        return "-", "-"
    if prop == "createtxg":
        return str(ds.createtxg), "-"
    if prop == "creation":
        return (str(ds.creation) if literal else zfs_creation(ds.creation)), "-"
    if prop == "guid":
        return str(ds.guid), "-"
    if prop == "objsetid":
        return str(ds.guid % 100000 + 54), "-"
    if prop == "snapshot_count":
        return str(m.snapshot_count(ds.name)), "-"
    if prop == "filesystem_count":
        return str(len([n for n in m.datasets if n.startswith(ds.name + "/")])), "-"
    if prop == "version":
        return ("-", "-") if ds.type == "volume" else ("5", "-")
    if prop in ("utf8only", "normalization", "casesensitivity"):
        return {"utf8only": "off", "normalization": "none",
                "casesensitivity": "sensitive"}[prop], "-"
    if ds.type == "volume":
        if prop == "volsize":
            return size(ds.volsize), "local"
        if prop == "volblocksize":
            return ds.props.get("volblocksize", "16K"), "default" if "volblocksize" not in \
                ds.props else "-"
        if prop in VOLUME_SKIP:
            return "-", "-"
    if prop == "volsize":
        return "-", "-"
    if prop == "mounted":
        mountpoint = value(m, row, "mountpoint", literal)[0]
        return ("yes" if ds.mounted and mountpoint not in ("none", "legacy") else "no"), "-"
    if prop == "mountpoint":
        if "mountpoint" in ds.props:
            return ds.props["mountpoint"], "local"
        cur = ds.parent
        suffix = ds.name.split("/", 1)[1] if "/" in ds.name else ""
        while cur is not None:
            parent = m.datasets.get(cur)
            if parent is not None and "mountpoint" in parent.props:
                rest = ds.name[len(cur) + 1:]
                return parent.props["mountpoint"].rstrip("/") + "/" + rest, f"inherited from {cur}"
            cur = parent.parent if parent is not None else None
        return "/" + ds.pool + ("/" + suffix if suffix else ""), "default"
    if prop in ("zoned", "vscan", "nbmand"):
        return "off", "default"
    if prop in ("aclmode", "aclinherit"):
        return {"aclmode": "discard", "aclinherit": "restricted"}[prop], "default"
    if prop in ("mlslabel",):
        return "none", "default"
    if prop in ("context", "fscontext", "defcontext", "rootcontext"):
        return "none", "default"
    if prop == "keystatus":
        return "-", "-"
    if prop in INHERITABLE_DEFAULTS:
        return inherited(m, ds, prop)
    if prop in NOT_INHERITED:
        if prop in ds.props:
            return ds.props[prop], "local"
        return NOT_INHERITED[prop], "default"
    if ":" in prop:
        if prop in ds.props:
            return ds.props[prop], "local"
        return "-", "-"
    return "-", "-"


# ------------------------------------------------------------------------------ listing


def rows_for(m: Machine, roots: list[str], *, recurse: bool, depth: int | None,
             types: set[str]) -> Iterator[Row]:
    """Datasets depth-first, each followed by its snapshots (createtxg order)."""
    for root in roots:
        if "@" in root:
            s = m.find_snapshot(root)
            ds = m.datasets.get(root.split("@", 1)[0])
            if s is not None and ds is not None:
                yield Row(s.name, "snapshot", ds, s)
            continue
        yield from _walk(m, root, 0, recurse, depth, types)


def _walk(m: Machine, name: str, level: int, recurse: bool, depth: int | None,
          types: set[str]) -> Iterator[Row]:
    ds = m.datasets[name]
    if ds.type in types:
        yield Row(ds.name, ds.type, ds)
    can_descend = recurse and (depth is None or level < depth)
    if "snapshot" in types and (can_descend or (level == 0 and not recurse and
                                                types == {"snapshot"})):
        for s in m.snapshots_of(name):
            yield Row(s.name, "snapshot", ds, s)
    if can_descend:
        for c in m.children_of(name):
            yield from _walk(m, c, level + 1, recurse, depth, types)


def render_table(m: Machine, rows: list[Row], cols: list[str], *, scripted: bool,
                 literal: bool) -> str:
    data = [[value(m, r, c, literal)[0] for c in cols] for r in rows]
    if scripted:
        return "".join("\t".join(r) + "\n" for r in data)
    headers = [HEADERS.get(c, c.upper()) for c in cols]
    widths = [max([len(h)] + [len(r[i]) for r in data]) for i, h in enumerate(headers)]
    out = []
    for r in [headers, *data]:
        cells = []
        for i, c in enumerate(r):
            last = i == len(r) - 1
            if cols[i] in LEFT or cols[i].split(":")[0] != cols[i]:
                cells.append(c if last else c.ljust(widths[i]))
            else:
                cells.append(c.rjust(widths[i]))
        out.append("  ".join(cells))
    return "\n".join(out) + "\n"


def sort_rows(m: Machine, rows: list[Row], keys: list[tuple[str, bool]]) -> list[Row]:
    for prop, desc in reversed(keys):
        prop = canonical(prop)

        def key(r: Row, prop: str = prop) -> tuple[int, object]:
            v = value(m, r, prop, True)[0]
            if prop in NUMERIC:
                try:
                    return (0, float(v))
                except ValueError:
                    return (1, 0.0)
            return (0, v)

        rows = sorted(rows, key=key, reverse=desc)
    return rows


def zfs_get(m: Machine, rows: list[Row], props: list[str], fields: list[str], *,
            scripted: bool, literal: bool, sources: set[str] | None) -> str:
    out_rows: list[list[str]] = []
    for r in rows:
        names: list[str] = []
        for p in props:
            if p == "all":
                for q in GET_ALL:
                    if r.type == "volume" and q in VOLUME_SKIP:
                        continue
                    names.append(q)
                    if q == "quota" and r.type == "volume":
                        names.append("volsize")
                for k in sorted(r.ds.props):
                    if ":" in k and r.snap is None:
                        names.append(k)
            else:
                names.append(canonical(p))
        for p in names:
            v, src = value(m, r, p, literal)
            kind = ("local" if src == "local" else "default" if src == "default"
                    else "inherited" if src.startswith("inherited") else "none")
            if sources is not None and kind not in sources:
                continue
            full = {"name": r.name, "property": p, "value": v, "source": src,
                    "received": "-"}
            out_rows.append([full[f] for f in fields])
    if scripted:
        return "".join("\t".join(x) + "\n" for x in out_rows)
    headers = [f.upper() for f in fields]
    widths = [max([len(h)] + [len(x[i]) for x in out_rows]) for i, h in enumerate(headers)]
    lines = []
    for x in [headers, *out_rows]:
        lines.append("  ".join(c if i == len(x) - 1 else c.ljust(widths[i])
                               for i, c in enumerate(x)))
    return "\n".join(lines) + "\n"
