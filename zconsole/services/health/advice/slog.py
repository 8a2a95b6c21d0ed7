"""The separate log device (SLOG): idle where it exists, missing where sync writes hit HDDs.

Findings (kind, severity, threshold), judged from the host's ZIL counters
(/proc/spl/kstat/zfs/zil, `ZilStats`) once the module has been loaded MIN_HOURS:
- `advice-slog-idle`  INFO     a pool has a log device and the host's log devices took fewer
                               than IDLE_PER_HOUR log blocks an hour since the module loaded
- `advice-slog-none`  WARNING  pools without a log device, on spinning disks, took at least
                               SYNC_PER_S log blocks a second on average (the ZIL written to
                               their own disks)

The counters are the host's sum over its pools (OpenZFS 2.2+ also keeps them per dataset;
zconsole does not read those): a figure is pinned on a pool only where no other pool could
have made it, and otherwise the advice names every pool it may be about and says so.
Why not `zpool iostat -q`/`-l` (the issue's first idea): their sync-queue figures are rates of
the moment, while these counters say what the log did since the module loaded, in one read.
"""

from __future__ import annotations

from zconsole.model.advice import Advice, AdviceAction, ZilStats
from zconsole.model.finding import Severity
from zconsole.model.pool import Pool, Section
from zconsole.model.reading import DiskInventory, HostReading
from zconsole.services import fmt

# Counters younger than this say nothing about a host's work: a day holds its nightly jobs.
MIN_HOURS = 24

# Fewer log blocks than this per hour on all the host's log devices: the odd `sync` call
# (each commits every dataset's log once), not a workload a SLOG speeds up.
IDLE_PER_HOUR = 1.0

# One log block written to a pool's own disks is one more small write the fsync caller
# waits for; on a spinning disk each costs a seek and part of a rotation (~5-10 ms), on top
# of the pool's other I/O. From five a second on average (day and night), a database or NFS
# export is waiting on HDDs that a small SSD with power-loss protection would answer in
# well under a millisecond.
SYNC_PER_S = 5.0


def _logs(pool: Pool) -> list[str]:
    return [v.name for v in pool.section(Section.LOGS)]


def _rotational(pool: Pool, inv: DiskInventory | None) -> list[str] | None:
    """The spinning disks under the pool's data vdevs; None when the disks are not known."""
    if inv is None:
        return None
    data = {v.name for v in pool.section(Section.DATA)}
    out: list[str] = []
    known = False
    for r in inv.roles:
        if r.pool != pool.name or not r.vdev_path or r.vdev_path[0] not in data:
            continue
        d = inv.device(r.disk)
        if d is None or d.rotational is None:
            continue
        known = True
        if d.rotational:
            out.append(r.disk)
    return out if known else None


def judge_slog(reading: HostReading, zil: ZilStats | None) -> list[Advice]:
    if zil is None or zil.age_s is None or zil.age_s < MIN_HOURS * 3600:
        return []
    pools = [e.status for e in reading.pools if e.status is not None]
    if not pools:
        return []
    hours = zil.age_s / 3600
    age = fmt.duration(zil.age_s, coarse=True)
    out: list[Advice] = []
    slog, normal = zil.slog_blocks, zil.normal_blocks
    with_log = [p for p in pools if _logs(p)]
    if slog is not None and with_log and slog / hours < IDLE_PER_HOUR:
        for p in with_log:
            logs = _logs(p)
            out.append(Advice(
                "advice-slog-idle", Severity.INFO, p.name,
                f"{p.name}: log device {', '.join(logs)} is idle: {slog:,} log blocks in "
                f"{age}" + ("" if len(with_log) == 1 else " on all the host's log devices"),
                why="A separate log device only speeds up synchronous writes (fsync, O_SYNC, "
                    "NFS, databases, sync=always); everything else goes from memory to the "
                    "pool in transaction groups, and the log is read only after a crash.",
                cost="Nothing is lost by removing a log device (zpool remove): ZFS commits "
                     "what it holds first. Keep it if a sync-heavy job is coming; otherwise "
                     "the bay may serve better as a spare or a special vdev.",
                evidence=(f"zil_itx_metaslab_slog_count: {slog:,} (host-wide)",
                          f"zil_commit_count: {zil.commits or 0:,}",
                          f"counters' age: {age} (since the ZFS module loaded)",
                          f"log vdevs of {p.name}: {', '.join(logs)}",
                          f"threshold: under {IDLE_PER_HOUR:g} log block an hour"),
                action=AdviceAction.remove(p.name, logs[0], "log") if len(logs) == 1 else None,
                pool=p.name))
    inv = reading.disks.value if reading.disks.ok else None
    bare = [p for p in pools if not _logs(p)]
    if normal is not None and bare and normal / zil.age_s >= SYNC_PER_S:
        spinning = [(p, _rotational(p, inv)) for p in bare]
        hdd = [(p, disks) for p, disks in spinning if disks]
        if hdd:
            rate = normal / zil.age_s
            alone = len(bare) == 1
            where = ", ".join(p.name for p in bare)
            for p, disks in hdd:
                out.append(Advice(
                    "advice-slog-none", Severity.WARNING, p.name,
                    f"{p.name} has no log device and its fsyncs wait for spinning disks: "
                    f"{rate:,.1f} log blocks a second on average"
                    + ("" if alone else f" among {where}"),
                    why="Each fsync or O_SYNC write waits until its log block is on stable "
                        "storage; without a log device that is a small write to the pool's "
                        "own HDDs, a seek and part of a rotation each, queued behind the "
                        "pool's other I/O. Databases and NFS clients wait for every one.",
                    cost="A log device needs a fast SSD with power-loss protection (a "
                         "consumer SSD can lose acknowledged writes), mirrored if losing the "
                         "last seconds of sync writes at a crash matters; it can be added and "
                         "removed online (zpool add POOL log ...). sync=disabled is not a "
                         "fix: it acknowledges writes that a crash then loses.",
                    evidence=(f"zil_itx_metaslab_normal_count: {normal:,} (host-wide"
                              + ("" if alone else ", every pool without a log device") + ")",
                              f"counters' age: {age} (since the ZFS module loaded)",
                              f"spinning disks of {p.name}: {', '.join(disks[:6])}"
                              + (" ..." if len(disks) > 6 else ""),
                              f"threshold: {SYNC_PER_S:g} log blocks a second"),
                    pool=p.name))
    return out
