"""How the pools are built: ashift, mixed media in a vdev, vdev imbalance, copies as redundancy.

Findings (kind, severity, threshold):
- `advice-ashift`     WARNING  a leaf's ashift is below its disk's physical sector (zpool's
                               own `block size: 512B configured, 4096B native`)
- `advice-mixed-media` WARNING a mirror/raidz/draid mixes rotational disks with SSD/NVMe
- `advice-imbalance`  INFO     top-level data vdevs' CAP differ by IMBALANCE_SPREAD points
- `advice-copies`     WARNING  copies=2/3 on a pool whose data vdevs are all single disks
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from zconsole.model.advice import Advice, DatasetProps
from zconsole.model.finding import Severity
from zconsole.model.pool import Pool, PoolUsage, ScanState, Section, Vdev
from zconsole.model.reading import DiskInventory, HostReading
from zconsole.services.health.advice.common import group_by_origin, source_words

# Top-level data vdevs whose capacity (zpool list -v CAP) differs by this many percentage
# points: ZFS allocates new writes by each vdev's free space, not its speed, so the emptiest
# vdev takes most new writes and its disks become the pool's bottleneck (issue 16). Vdevs
# added to a pool filled to 60-70 % show such spreads; a few points are normal noise.
IMBALANCE_SPREAD = 25

# Containers whose members should be alike.
_GROUPS = frozenset({"mirror", "raidz", "draid"})

# Why a vdev should not mix spinning disks with SSD/NVMe; the disk-choosing plans (attach,
# replace, replace-grow, raidz expansion) warn with the same words before they make the mix.
MIXED_MEDIA_WHY = (
    "ZFS does not send a vdev's reads to its faster member and every write waits for the "
    "slowest disk, so the SSD's speed is mostly wasted (a public measurement of random 16K "
    "reads: HDD 18.5 MB/s, SSD 160 MB/s, the mirror of both 32.6 MB/s).")


def mixes_media(rotational: Iterable[bool | None]) -> bool:
    """The advisor's rule: rotational and non-rotational disks in one vdev (unknown: None,
    ignored)."""
    return len({r for r in rotational if r is not None}) > 1



def _ashift(pool: Pool) -> Iterator[Advice]:
    for section in (Section.DATA, Section.SPECIAL, Section.DEDUP, Section.LOGS):
        for top in pool.section(section):
            low = [v for v in top.leaves()
                   if v.ashift is not None and v.native_ashift is not None
                   and v.ashift < v.native_ashift]
            if not low:
                continue
            a, n = low[0].ashift or 0, low[0].native_ashift or 0
            yield Advice(
                "advice-ashift", Severity.WARNING, top.name,
                f"{pool.name}: {top.name} writes {1 << a} B blocks (ashift {a}) to disks with "
                f"{1 << n} B physical sectors",
                why="Every write smaller than a physical sector makes the disk read, change "
                    "and rewrite the whole sector, so small writes and metadata updates are "
                    "several times slower than they need to be.",
                cost=f"ashift is fixed when a vdev is created: no property or command changes "
                     f"it. The only fix is a new vdev or pool created with -o ashift={n} and "
                     f"the data copied over (zfs send | zfs receive).",
                evidence=(f"vdev: {top.name}",
                          *(f"{v.name}: ashift {v.ashift} ({1 << (v.ashift or 0)} B), "
                            f"native {1 << (v.native_ashift or 0)} B" for v in low)),
                pool=pool.name)


def _media(inv: DiskInventory, pool: str, top: Vdev) -> list[tuple[str, bool, str]]:
    """(disk, rotational, "transport, model") of the disks under one top-level vdev."""
    out = []
    for r in inv.roles:
        if r.pool != pool or not r.vdev_path or r.vdev_path[0] != top.name:
            continue
        d = inv.device(r.disk)
        if d is None or d.rotational is None:
            continue
        out.append((r.disk, d.rotational,
                    ", ".join(x for x in (d.transport, d.model) if x) or "?"))
    return out


def _mixed_media(pool: Pool, inv: DiskInventory | None) -> Iterator[Advice]:
    if inv is None:
        return
    for section in (Section.DATA, Section.SPECIAL, Section.DEDUP):
        for top in pool.section(section):
            if top.type not in _GROUPS:
                continue
            media = _media(inv, pool.name, top)
            if not mixes_media(rot for _, rot, _ in media):
                continue
            hdd = [d for d, rot, _ in media if rot]
            ssd = [d for d, rot, _ in media if not rot]
            yield Advice(
                "advice-mixed-media", Severity.WARNING, top.name,
                f"{pool.name}: {top.name} mixes spinning disks ({', '.join(hdd)}) with "
                f"SSD/NVMe ({', '.join(ssd)})",
                why=MIXED_MEDIA_WHY,
                cost="Replacing the odd disks with ones of the same kind (the replace wizard, "
                     "zpool replace) resilvers the vdev while the pool stays online; the SSD "
                     "may serve better as its own pool, a special vdev or an L2ARC.",
                evidence=tuple(f"{d}: {'rotational' if rot else 'non-rotational'} ({tran})"
                               for d, rot, tran in media),
                pool=pool.name)


def _imbalance(pool: Pool, usage: PoolUsage | None) -> Iterator[Advice]:
    if usage is None or (pool.removal is not None
                         and pool.removal.state is ScanState.IN_PROGRESS):
        return  # a device removal is moving the data itself
    tops = {v.name for v in pool.vdevs if not v.removing and v.type != "indirect"}
    rows = [r for r in usage.vdevs if r.section is Section.DATA and r.name in tops
            and r.capacity is not None and (r.depth in (None, 0))]
    if len(rows) < 2:
        return
    full = max(rows, key=lambda r: r.capacity or 0)
    empty = min(rows, key=lambda r: r.capacity or 0)
    spread = (full.capacity or 0) - (empty.capacity or 0)
    if spread < IMBALANCE_SPREAD:
        return
    yield Advice(
        "advice-imbalance", Severity.INFO, pool.name,
        f"{pool.name}: {full.name} is {full.capacity} % full, {empty.name} {empty.capacity} %",
        why="ZFS sends new writes to the vdevs by their free space, not their speed: the "
            "emptiest vdev takes most new writes, so its disks alone set the pool's write "
            "speed until the vdevs even out.",
        cost="ZFS never moves written blocks between vdevs: the balance returns only as data "
             "is rewritten (zfs send | zfs receive into a new dataset, or copy and delete). "
             "No command rebalances in place.",
        evidence=tuple(f"{r.name}: CAP {r.capacity} %" for r in rows),
        pool=pool.name)


def _single_disk(pool: Pool) -> bool:
    """Every data vdev is one disk (or file): a single-disk or striped pool."""
    return bool(pool.vdevs) and all(v.is_leaf for v in pool.vdevs)


def _copies(pool: Pool, props: tuple[DatasetProps, ...]) -> Iterator[Advice]:
    if not _single_disk(pool):
        return
    mine = [p for p in props if p.pool == pool.name]
    for g in group_by_origin(mine, "copies", ("2", "3")):
        layout = "a single disk" if len(pool.vdevs) == 1 else \
            f"a stripe of {len(pool.vdevs)} single disks"
        yield Advice(
            "advice-copies", Severity.WARNING, g.origin,
            f"{pool.name} is {layout} and relies on copies={g.value} "
            f"({source_words(g, 'copies')}{g.names(': ')})",
            why="copies keeps extra copies of each block, often on the same disk: when that "
                "disk fails the pool is lost with every copy, and in public tests it did "
                "poorly against corruption too. It does not replace a mirror.",
            cost="Attaching a second disk to each single-disk vdev (the attach wizard, zpool "
                 "attach) makes it a mirror with no downtime; copies then only costs space, "
                 "and lowering it affects new writes only.",
            evidence=(f"data vdevs: {', '.join(v.name for v in pool.vdevs)}",
                      *(f"{d.name}: copies={d.value('copies')} ({d.source('copies')})"
                        for d in g.datasets[:5])),
            pool=pool.name)


def judge_layout(reading: HostReading, props: tuple[DatasetProps, ...] | None
                 ) -> list[Advice]:
    out: list[Advice] = []
    inv = reading.disks.value if reading.disks.ok else None
    for entry in reading.pools:
        if entry.status is None:
            continue
        out.extend(_ashift(entry.status))
        out.extend(_mixed_media(entry.status, inv))
        out.extend(_imbalance(entry.status, entry.usage))
        if props is not None:
            out.extend(_copies(entry.status, props))
    return out
