"""Dataset settings: compression, atime, xattr, recordsize, dedup, snapshot sprawl.

Findings (kind, severity, threshold) — one per place a value is set (a dataset that sets it,
or the pool's default), listing the datasets that get it from there:
- `advice-compression` INFO     compression=off on datasets holding COMPRESSION_MIN_BYTES
- `advice-atime`       INFO     atime=on with relatime=off on filesystems
- `advice-xattr`       INFO     acltype=posix with xattr=on/dir (Linux)
- `advice-recordsize`  INFO     a libvirt/Proxmox image directory at recordsize >= 128K
- `advice-dedup`       INFO, WARNING when the DDT needs more than DDT_ARC_SHARE of the ARC's
                                maximum or the ratio achieved is below DEDUP_MIN_RATIO
- `advice-snapshots`   WARNING  a dataset with SNAPSHOT_SPRAWL snapshots or more (where the
                                host counts them: snapshot_count)
- `advice-volblocksize` INFO    a volume on raidz whose volblocksize keeps under
                                VOLBLOCK_MIN_SHARE of the data share a 128K block gets there
                                (raidz_alloc: OpenZFS's vdev_raidz_asize)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from zconsole.model.advice import Advice, AdviceAction, DatasetProps
from zconsole.model.arc import ArcStats
from zconsole.model.finding import Severity
from zconsole.model.pool import DedupSummary, Section, Vdev
from zconsole.model.reading import DiskInventory, HostReading
from zconsole.services import fmt
from zconsole.services.health.advice.common import (
    GIB,
    group_by_origin,
    set_locally,
    source_words,
)

# compression=off matters where there is data to compress: lz4 costs less CPU than the I/O it
# saves and gives up quickly on incompressible blocks (issue 16). Below 1 GiB the advice is
# noise.
COMPRESSION_MIN_BYTES = 1 * GIB

# The DDT must stay in RAM to be fast; ARC metadata is limited to part of the ARC (2.1:
# arc_meta_limit, 75 % of c_max). A DDT that needs a quarter of the ARC's maximum already
# competes with every other cached block.
DDT_ARC_SHARE = 0.25

# A dedup ratio below 1.5x saves less than the DDT and its per-write lookups cost.
DEDUP_MIN_RATIO = 1.5

# "Tens of thousands of snapshots on a dataset" (issue 16): listing them takes minutes on real
# hosts (zfs-linux-facts.md, measured cost of listing).
SNAPSHOT_SPRAWL = 10_000

# Directories that hold VM disk images by convention (libvirt, Proxmox VE's dir storage):
# a guest writes 4K-64K blocks into them; at recordsize 128K every small write rewrites a
# whole record. Only where the workload can be told from the mountpoint.
VM_IMAGE_DIRS = ("/var/lib/libvirt/images", "/var/lib/vz/images")
VM_RECORDSIZE = 64 * 1024
MYSQL_DIRS = ("/var/lib/mysql",)  # Debian's and Ubuntu's datadir for MySQL and MariaDB
INNODB_PAGE = 16 * 1024  # innodb_page_size's default


def _compression(props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    for g in group_by_origin(props, "compression", ("off",)):
        if g.referenced < COMPRESSION_MIN_BYTES:
            continue
        yield Advice(
            "advice-compression", Severity.INFO, g.origin,
            f"compression is off on {fmt.plural(len(g.datasets), 'dataset')} holding "
            f"{fmt.size(g.referenced)} ({source_words(g, 'compression')})",
            why="lz4 costs less CPU than the disk I/O it saves and gives up quickly on "
                "blocks that do not compress, so it is a win on almost every dataset.",
            cost="Only new writes are compressed: data already written stays as it is until "
                 "it is rewritten (copied, or sent and received).",
            evidence=tuple(f"{d.name}: compression=off ({d.source('compression')}), "
                           f"{fmt.size(d.number('referenced') or 0)}"
                           for d in g.datasets[:5]),
            action=AdviceAction.set(g.origin, "compression", "lz4", before="off",
                                   was_local=set_locally(g, "compression")), pool=g.origin.split("/")[0])


def _atime(props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    # grouped by where relatime=off comes from: that is where relatime=on fixes it
    fs = [p for p in props if p.type == "filesystem" and p.value("atime") == "on"]
    for g in group_by_origin(fs, "relatime", ("off",)):
        yield Advice(
            "advice-atime", Severity.INFO, g.origin,
            f"atime is on without relatime on {fmt.plural(len(g.datasets), 'filesystem')} "
            f"(relatime=off, {source_words(g, 'relatime')}{g.names(': ')})",
            why="With atime=on and relatime=off every read of a file also writes its access "
                "time: reads turn into writes, and snapshots grow on a read-only workload.",
            cost="None worth naming: relatime=on updates the access time at most once a day "
                 "(what most Linux filesystems do); atime=off stops it, which mail tools "
                 "that compare atime and mtime may notice.",
            evidence=tuple(f"{d.name}: atime=on ({d.source('atime')}), relatime=off "
                           f"({d.source('relatime')})" for d in g.datasets[:5]),
            action=AdviceAction.set(g.origin, "relatime", "on", before="off",
                                   was_local=set_locally(g, "relatime")), pool=g.origin.split("/")[0])


def _xattr(props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    posix = [p for p in props if p.type == "filesystem"
             and p.value("acltype") in ("posix", "posixacl")]
    for g in group_by_origin(posix, "xattr", ("on", "dir")):
        yield Advice(
            "advice-xattr", Severity.INFO, g.origin,
            f"POSIX ACLs are kept in xattr directories on "
            f"{fmt.plural(len(g.datasets), 'filesystem')} "
            f"(xattr={g.value}, {source_words(g, 'xattr')}{g.names(': ')})",
            why="On Linux POSIX ACLs are extended attributes; with xattr=on (dir) each one is "
                "a file in a hidden directory, so reading a file's ACL costs extra lookups "
                "and seeks. xattr=sa keeps small ones beside the file's dnode.",
            cost="Only xattrs written afterwards are stored as system attributes; existing "
                 "ones stay in their directories until they are rewritten.",
            evidence=tuple(f"{d.name}: xattr={d.value('xattr')} ({d.source('xattr')}), "
                           f"acltype={d.value('acltype')}" for d in g.datasets[:5]),
            action=AdviceAction.set(g.origin, "xattr", "sa", before=g.value,
                                   was_local=set_locally(g, "xattr")), pool=g.origin.split("/")[0])


@dataclass(frozen=True)
class _Workload:
    """Directories whose files are read and written in small fixed blocks, and the
    recordsize that suits them."""

    what: str  # "VM images"
    dirs: tuple[str, ...]
    recordsize: int
    why: str
    cost: str


_WORKLOADS = (
    _Workload(
        "VM images", VM_IMAGE_DIRS, VM_RECORDSIZE,
        why="A guest writes its disk in 4K-64K blocks; at a large recordsize each small "
            "write reads and rewrites a whole record, and its snapshots keep the whole "
            "old record.",
        cost="Only files written afterwards use the new recordsize: existing images keep "
             "theirs until they are copied (a zvol's volblocksize cannot change at all)."),
    # Oracle's ZFS tuning guide for MySQL: recordsize 16K for the InnoDB data files, the
    # default for its logs
    _Workload(
        "MySQL/MariaDB data", MYSQL_DIRS, INNODB_PAGE,
        why="InnoDB reads and writes 16K pages: at a larger recordsize each page written "
            "reads and rewrites a whole record, and snapshots keep the whole old record. "
            "Oracle's ZFS tuning guide for MySQL sets 16K for the InnoDB data files and "
            "the default for the logs.",
        cost="Only files written afterwards use the new recordsize: existing tablespaces "
             "keep theirs until they are rebuilt (a dump and restore, or ALTER TABLE ... "
             "FORCE); the redo logs do better on a dataset of their own at the default."),
)


def _recordsize(props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    """A filesystem mounted where VM images or InnoDB data live, at a recordsize above the
    blocks they are written in."""
    for w in _WORKLOADS:
        for p in props:
            mp, rs = p.value("mountpoint"), p.number("recordsize")
            if p.type != "filesystem" or mp is None or rs is None or rs <= w.recordsize:
                continue
            if not any(mp == d or mp.startswith(d + "/") for d in w.dirs):
                continue
            yield Advice(
                "advice-recordsize", Severity.INFO, p.name,
                f"{p.name} holds {w.what} ({mp}) at recordsize {fmt.size(rs)}",
                why=w.why, cost=w.cost,
                evidence=(f"mountpoint: {mp}", f"recordsize: {rs} ({p.source('recordsize')})"),
                action=AdviceAction.set(p.name, "recordsize", f"{w.recordsize // 1024}K",
                                        before=str(rs), after=str(w.recordsize),
                                        was_local=p.source("recordsize") in (
                                            "local", "received")),
                pool=p.pool)


def _dedup(reading: HostReading, props: tuple[DatasetProps, ...] | None,
           ddt: Mapping[str, DedupSummary], arc: ArcStats | None) -> Iterator[Advice]:
    ratios = {u.name: u.dedupratio for u in reading.pool_usage.value or ()}
    on: dict[str, list[DatasetProps]] = {}
    for p in props or ():
        if (p.value("dedup") or "off") != "off":
            on.setdefault(p.pool, []).append(p)
    for pool in [*on, *(n for n in ddt if n not in on)]:
        table = ddt.get(pool)
        ratio = ratios.get(pool)
        arc_max = arc.c_max if arc is not None else None
        core = table.core_total_bytes if table is not None else None
        heavy = core is not None and arc_max is not None and core > arc_max * DDT_ARC_SHARE
        poor = ratio is not None and ratio < DEDUP_MIN_RATIO
        sev = Severity.WARNING if heavy or poor else Severity.INFO
        names = on.get(pool, [])
        what = (f"dedup is on for {fmt.plural(len(names), 'dataset')}" if names
                else "the pool holds deduplicated data")
        figures = []
        if ratio is not None:
            figures.append(f"ratio {ratio:.2f}x")
        if core is not None:
            figures.append(f"DDT {fmt.size(core)} in RAM")
        yield Advice(
            "advice-dedup", sev, pool,
            f"{pool}: {what}" + (f" ({', '.join(figures)})" if figures else ""),
            why="Every write to a deduplicated dataset looks its block up in the dedup table "
                "(DDT), which must stay in RAM to be fast; it pays only when the ratio "
                "achieved is high and the table fits beside the rest of the ARC.",
            cost="dedup=off affects new writes only: the table stays until the deduplicated "
                 "blocks are freed or rewritten (snapshots keep them). The dedup-off wizard "
                 "(Pools screen, or zconsole plan dedup-off) walks through it.",
            evidence=tuple(x for x in (
                f"dedup ratio: {ratio:.2f}x" if ratio is not None else None,
                (f"DDT: {table.entries:,} entries, {fmt.size(core)} in RAM, "
                 f"{fmt.size(table.disk_total_bytes)} on disk")
                if table is not None and core is not None else None,
                f"ARC maximum: {fmt.size(arc_max)}" if arc_max is not None else None,
                *(f"{d.name}: dedup={d.value('dedup')} ({d.source('dedup')})"
                  for d in names[:5]),
            ) if x is not None),
            pool=pool)


# `zfs get -p snapshot_count` of a dataset the host does not count (no snapshot_limit on it
# or above: `none` without -p) is UINT64_MAX, seen on the 2.1.11 guest.
NOT_COUNTED = 2**64 - 1


def _count(p: DatasetProps) -> int | None:
    n = p.number("snapshot_count")
    return None if n is None or n >= NOT_COUNTED else n


def _snapshots(props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    for p in props:
        n = _count(p)
        if n is None or n < SNAPSHOT_SPRAWL:
            continue
        # snapshot_count counts the dataset's descendants' snapshots too: report the deepest
        # dataset that crosses the line, not each of its ancestors
        if any(q.name.startswith(p.name + "/") and (_count(q) or 0) >= SNAPSHOT_SPRAWL
               for q in props):
            continue
        yield Advice(
            "advice-snapshots", Severity.WARNING, p.name,
            f"{p.name} has {n:,} snapshots",
            why="Tens of thousands of snapshots make every listing, replication and "
                "destroy slow (listing them takes minutes on real hosts), and each keeps the "
                "blocks it shares with nothing else.",
            cost="Destroying old snapshots frees only the blocks no other snapshot or clone "
                 "still uses; a snapshot that a clone depends on cannot be destroyed (the "
                 "Datasets screen shows each one's blast radius). Thin the schedule that "
                 "makes them, too.",
            evidence=(f"snapshot_count: {n}",),
            pool=p.pool)


# A raidz block is its data sectors plus parity per row, padded to a multiple of parity+1
# sectors (openzfs/zfs module/zfs/vdev_raidz.c, vdev_raidz_asize), and ZFS accounts every
# block as if it were 128K. A small volblocksize on a wide raidz pads heavily: 8K on a 6-wide
# raidz2 with 4K sectors takes 24K, a third data, where 128K blocks are two thirds data, so
# the volume takes twice the space it holds. Below three quarters of the 128K share, say so.
VOLBLOCK_MIN_SHARE = 0.75
ACCOUNTING_BLOCK = 128 * 1024


def raidz_alloc(psize: int, ashift: int, width: int, parity: int) -> int:
    """Bytes a raidz vdev allocates for a block of `psize` bytes (vdev_raidz_asize)."""
    sectors = ((psize - 1) >> ashift) + 1
    sectors += parity * ((sectors + width - parity - 1) // (width - parity))
    sectors = -(-sectors // (parity + 1)) * (parity + 1)
    return sectors << ashift


def _raidz_ashift(top: Vdev, inv: DiskInventory | None, pool: str) -> tuple[int, str] | None:
    """(ashift, where it comes from) of a raidz vdev: configured (zpool shows it where it
    differs from the disks'), else what ZFS picks at creation, the disks' physical sector."""
    configured = {v.ashift for v in top.leaves() if v.ashift is not None}
    if configured:
        return max(configured), "configured"
    if inv is None:
        return None
    sectors = []
    for r in inv.roles:
        if r.pool == pool and r.vdev_path and r.vdev_path[0] == top.name:
            d = inv.device(r.disk)
            if d is not None and d.physical_sector:
                sectors.append(d.physical_sector)
    if not sectors:
        return None
    phy = max(sectors)
    return min(max(phy.bit_length() - 1, 9), 14), f"the disks' {phy} B physical sectors"


def _volblocksize(reading: HostReading, props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    inv = reading.disks.value if reading.disks.ok else None
    for entry in reading.pools:
        pool = entry.status
        if pool is None:
            continue
        tops = pool.section(Section.DATA)
        raidz = [t for t in tops if t.type == "raidz" and t.parity and len(t.children) > t.parity]
        if not raidz or len(raidz) != len(tops):
            continue  # blocks may land on a mirror or a disk: the share is not known
        shapes = []
        for top in raidz:
            got = _raidz_ashift(top, inv, pool.name)
            if got is None:
                break
            shapes.append((top, got[0], got[1]))
        else:
            for p in props:
                vbs = p.number("volblocksize")
                if p.type != "volume" or p.pool != pool.name or not vbs:
                    continue
                worst = None
                for top, ashift, origin in shapes:
                    width, parity = len(top.children), top.parity or 0
                    share = vbs / raidz_alloc(vbs, ashift, width, parity)
                    full = ACCOUNTING_BLOCK / raidz_alloc(ACCOUNTING_BLOCK, ashift, width,
                                                          parity)
                    if share < full * VOLBLOCK_MIN_SHARE and (worst is None
                                                              or share / full < worst[0]):
                        worst = (share / full, top, ashift, origin, share, full)
                if worst is None:
                    continue
                ratio, top, ashift, origin, share, full = worst
                alloc = raidz_alloc(vbs, ashift, len(top.children), top.parity or 0)
                yield Advice(
                    "advice-volblocksize", Severity.INFO, p.name,
                    f"{p.name}: each {fmt.size(vbs)} block takes {fmt.size(alloc)} on "
                    f"{top.name} ({fmt.pct(share)} data, {fmt.pct(full)} for 128K blocks)",
                    why="raidz pads every block to whole rows of data and parity, and ZFS "
                        "counts space as if blocks were 128K: small volume blocks on a wide "
                        f"raidz take about {1 / ratio:.1f}x the space the volume shows as "
                        "used, and the pool fills sooner than its size says.",
                    cost="volblocksize is fixed when a volume is created: a new volume with a "
                         "larger one (e.g. 64K; small guest writes then read and rewrite more) "
                         "and the data copied over. A mirror pool has no such padding.",
                    evidence=(f"volblocksize: {vbs} ({p.source('volblocksize')})",
                              f"{top.name}: {len(top.children)} disks, raidz{top.parity}, "
                              f"ashift {ashift} ({origin})",
                              f"{fmt.size(vbs)} block: {fmt.size(alloc)} allocated",
                              f"128K block: {fmt.size(raidz_alloc(ACCOUNTING_BLOCK, ashift, len(top.children), top.parity or 0))} allocated"),
                    pool=pool.name)


def judge_datasets(reading: HostReading, props: tuple[DatasetProps, ...] | None,
                   ddt: Mapping[str, DedupSummary]) -> list[Advice]:
    arc = reading.arc.value if reading.arc.ok else None
    out: list[Advice] = []
    if props is not None:
        out.extend(_compression(props))
        out.extend(_atime(props))
        out.extend(_xattr(props))
        out.extend(_recordsize(props))
        out.extend(_snapshots(props))
        out.extend(_volblocksize(reading, props))
    out.extend(_dedup(reading, props, ddt, arc))
    return out
