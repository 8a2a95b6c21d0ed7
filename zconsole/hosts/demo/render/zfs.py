"""`zfs list` and `zfs get`: datasets, snapshots and their properties."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from zconsole.hosts.demo.fmt import nicebytes, ratio, zfs_creation
from zconsole.hosts.demo.machine.common import MiB
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot
from zconsole.hosts.demo.machine.properties import (
    INHERITABLE_DEFAULTS,
    NOT_INHERITED,
    canonical,
    inherited,
    mountpoint,
    size_bytes,
)
from zconsole.hosts.demo.machine.state import Machine

NUMERIC = {"used", "available", "referenced", "usedbysnapshots", "usedbydataset",
           "usedbychildren", "usedbyrefreservation", "written", "logicalused",
           "logicalreferenced", "createtxg", "creation", "guid", "volsize", "userrefs",
           "snapshot_count", "filesystem_count", "objsetid", "compressratio",
           "refcompressratio", "quota", "refquota", "reservation", "refreservation"}
HEADERS = {"name": "NAME", "used": "USED", "available": "AVAIL", "referenced": "REFER",
           "mountpoint": "MOUNTPOINT", "origin": "ORIGIN", "clones": "CLONES",
           "createtxg": "CREATETXG", "creation": "CREATION", "type": "TYPE",
           "usedbysnapshots": "USEDSNAP", "usedbydataset": "USEDDS",
           "usedbychildren": "USEDCHILD", "usedbyrefreservation": "USEDREFRESERV",
           "compressratio": "RATIO", "compression": "COMPRESS", "dedup": "DEDUP",
           "recordsize": "RECSIZE", "logicalused": "LUSED", "logicalreferenced": "LREFER",
           "volsize": "VOLSIZE", "guid": "GUID", "written": "WRITTEN",
           "snapshot_count": "SSCOUNT", "mounted": "MOUNTED", "userrefs": "USERREFS",
           "quota": "QUOTA", "refquota": "REFQUOTA", "reservation": "RESERV",
           "refreservation": "REFRESERV"}
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


def dataset_avail(m: Machine, ds: Dataset) -> int:
    """AVAIL as zfs says it: the pool's free space, less where a quota of the dataset or of
    an ancestor, or the dataset's refquota, leaves less (zfsprops(7): quota, refquota)."""
    avail = pool_avail(m, ds.pool)
    cur: Dataset | None = ds
    while cur is not None:
        quota = limit_bytes(cur.props.get("quota")) if cur.type == "filesystem" else 0
        if quota:
            avail = min(avail, max(0, quota - used_total(m, cur)))
        cur = m.datasets.get(cur.parent) if cur.parent is not None else None
    refquota = limit_bytes(ds.props.get("refquota")) if ds.type == "filesystem" else 0
    if refquota:
        avail = min(avail, max(0, refquota - ds.refer))
    return avail


def limit_bytes(text: str | None) -> int:
    """A quota or reservation as set (`10G`, `none`, absent) in bytes, 0 for none."""
    return 0 if text is None or text == "none" else size_bytes(text)


def used_total(m: Machine, ds: Dataset) -> int:
    return ds.used_self + ds.snap_used + sum(used_total(m, m.datasets[c])
                                             for c in m.children_of(ds.name))


Value = tuple[str, str]
"""(value, source) of one property, as `zfs get` prints them."""


class Ask:
    """What a property function reads: the machine, the dataset (a snapshot's own dataset
    for a snapshot) and whether `-p` asked for exact numbers. (A plain class with slots: one
    is made per value, and `zfs list` asks for millions.)"""

    __slots__ = ("ds", "literal", "m")

    def __init__(self, m: Machine, ds: Dataset, literal: bool) -> None:
        self.m = m
        self.ds = ds
        self.literal = literal

    def size(self, n: int) -> str:
        return str(n) if self.literal else nicebytes(n)

    def time(self, t: int) -> str:
        return str(t) if self.literal else zfs_creation(t)

    def compression_x100(self) -> int:
        """How much the dataset's compression shrinks its data, times 100."""
        return COMPRESS_RATIO.get(inherited(self.m, self.ds, "compression")[0], 131)

    def ratio(self) -> str:
        r = self.compression_x100()
        return f"{r // 100}.{r % 100:02d}" if self.literal else ratio(r)


PropFn = Callable[[Ask], Value]
SnapFn = Callable[[Ask, Snapshot], Value]


def _fixed(text: str, source: str = "-") -> PropFn:
    return lambda a: (text, source)


def _children_used(a: Ask) -> int:
    return sum(used_total(a.m, a.m.datasets[c]) for c in a.m.children_of(a.ds.name))


def _filesystem_count(a: Ask) -> Value:
    return str(len([n for n in a.m.datasets if n.startswith(a.ds.name + "/")])), "-"


_BLOCK_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20}


def _block(a: Ask, text: str) -> str:
    """A block size as set (`128K`), in bytes with -p (`131072`), as zfs prints it."""
    if not a.literal:
        return text
    unit = text[-1:].upper() if text[-1:].isalpha() else ""
    number = text[:-1] if unit else text
    if unit not in _BLOCK_UNITS or not number.isdigit():
        return text
    return str(int(number) * _BLOCK_UNITS[unit])


def _volblocksize(a: Ask) -> Value:
    return _block(a, a.ds.props.get("volblocksize", "16K")), (
        "default" if "volblocksize" not in a.ds.props else "-")


def _limit(prop: str) -> PropFn:
    """quota, refquota, reservation, refreservation: `none` (`0` with -p) when not set, else
    the size as zfs prints sizes (bytes with -p), source local."""
    def get(a: Ask) -> Value:
        text = a.ds.props.get(prop)
        n = limit_bytes(text)
        shown = str(n) if a.literal else (nicebytes(n) if n else "none")
        return shown, "default" if text is None else "local"
    return get


def _recordsize(a: Ask) -> Value:
    text, source = inherited(a.m, a.ds, "recordsize")
    return _block(a, text), source


def _mounted(a: Ask) -> Value:
    mp = mountpoint(a.m, a.ds)[0]
    return ("yes" if a.ds.mounted and mp not in ("none", "legacy") else "no"), "-"


SNAPSHOT_DASH = ("available", "mountpoint", "origin", "quota", "reservation", "usedbysnapshots",
                 "usedbydataset", "usedbychildren", "usedbyrefreservation", "volsize",
                 "canmount", "snapshot_count", "filesystem_count", "filesystem_limit",
                 "snapshot_limit", "refquota", "refreservation", "recordsize", "mounted",
                 "sharenfs", "sharesmb")

SNAPSHOT_PROPS: dict[str, SnapFn] = {
    "used": lambda a, s: (a.size(s.used), "-"),
    "referenced": lambda a, s: (a.size(s.refer), "-"),
    **dict.fromkeys(SNAPSHOT_DASH, lambda a, s: ("-", "-")),
    "clones": lambda a, s: (",".join(a.m.clones_of(s.name)) or "-", "-"),
    "createtxg": lambda a, s: (str(s.createtxg), "-"),
    "creation": lambda a, s: (a.time(s.creation), "-"),
    "guid": lambda a, s: (str(s.guid), "-"),
    "written": lambda a, s: (a.size(s.used), "-"),
    "userrefs": lambda a, s: (str(s.userrefs), "-"),
    "defer_destroy": lambda a, s: ("off", "-"),
    "logicalreferenced": lambda a, s: (a.size(int(s.refer * 1.31)), "-"),
    "compressratio": lambda a, s: (a.ratio(), "-"),
    "refcompressratio": lambda a, s: (a.ratio(), "-"),
}
"""A snapshot's properties; the inheritable ones show the dataset's value, the rest "-"."""

DATASET_PROPS: dict[str, PropFn] = {
    "used": lambda a: (a.size(used_total(a.m, a.ds)), "-"),
    "available": lambda a: (a.size(dataset_avail(a.m, a.ds)), "-"),
    "referenced": lambda a: (a.size(a.ds.refer), "-"),
    "usedbysnapshots": lambda a: (a.size(a.ds.snap_used), "-"),
    "usedbydataset": lambda a: (a.size(a.ds.used_self), "-"),
    "usedbychildren": lambda a: (a.size(_children_used(a)), "-"),
    "usedbyrefreservation": lambda a: (a.size(0), "-"),
    "written": lambda a: (a.size(a.ds.used_self // 50), "-"),
    "logicalused": lambda a: (a.size(used_total(a.m, a.ds) * a.compression_x100() // 100), "-"),
    "logicalreferenced": lambda a: (a.size(a.ds.refer * a.compression_x100() // 100), "-"),
    "compressratio": lambda a: (a.ratio(), "-"),
    "refcompressratio": lambda a: (a.ratio(), "-"),
    "origin": lambda a: (a.ds.origin or "-", "-"),
    "clones": _fixed("-"),
    "createtxg": lambda a: (str(a.ds.createtxg), "-"),
    "creation": lambda a: (a.time(a.ds.creation), "-"),
    "guid": lambda a: (str(a.ds.guid), "-"),
    "objsetid": lambda a: (str(a.ds.guid % 100000 + 54), "-"),
    "snapshot_count": lambda a: (str(a.m.snapshot_count(a.ds.name)), "-"),
    "filesystem_count": _filesystem_count,
    "version": lambda a: ("-", "-") if a.ds.type == "volume" else ("5", "-"),
    "utf8only": _fixed("off"),
    "normalization": _fixed("none"),
    "casesensitivity": _fixed("sensitive"),
}
"""Properties of filesystems and volumes alike (asked first)."""

VOLUME_PROPS: dict[str, PropFn] = {
    "volsize": lambda a: (a.size(a.ds.volsize), "local"),
    "volblocksize": _volblocksize,
    **dict.fromkeys(VOLUME_SKIP, _fixed("-")),
}
"""A volume's own properties, and "-" for the filesystem-only ones (asked second)."""

LATER_PROPS: dict[str, PropFn] = {
    "volsize": _fixed("-"),
    "volblocksize": _fixed("-"),
    "recordsize": _recordsize,
    "mounted": _mounted,
    "mountpoint": lambda a: mountpoint(a.m, a.ds),
    **dict.fromkeys(("zoned", "vscan", "nbmand"), _fixed("off", "default")),
    "aclmode": _fixed("discard", "default"),
    "aclinherit": _fixed("restricted", "default"),
    **dict.fromkeys(("mlslabel", "context", "fscontext", "defcontext", "rootcontext"),
                    _fixed("none", "default")),
    "keystatus": _fixed("-"),
    **{p: _limit(p) for p in ("quota", "refquota", "reservation", "refreservation")},
}
"""Asked third: for a volume only what `VOLUME_PROPS` did not answer."""


def value(m: Machine, row: Row, prop: str, literal: bool) -> Value:
    """(value, source) of one property, printed as `zfs get` prints it. A property is looked
    up in the tables above, in their order; what none of them names is an inheritable
    property, a non-inherited one with a default, a user property (`a:b`) or "-"."""
    prop = canonical(prop)
    if prop == "name":
        return row.name, "-"
    if prop == "type":
        return row.type, "-"
    ask = Ask(m, row.ds, literal)
    if row.snap is not None:
        snap_fn = SNAPSHOT_PROPS.get(prop)
        if snap_fn is not None:
            return snap_fn(ask, row.snap)
        return (inherited(m, row.ds, prop)[0] if prop in INHERITABLE_DEFAULTS else "-"), "-"
    fn = DATASET_PROPS.get(prop)
    if fn is None and row.ds.type == "volume":
        fn = VOLUME_PROPS.get(prop)
    if fn is None:
        fn = LATER_PROPS.get(prop)
    return fn(ask) if fn is not None else _unlisted(m, row.ds, prop)


def _unlisted(m: Machine, ds: Dataset, prop: str) -> Value:
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
