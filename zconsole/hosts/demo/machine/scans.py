"""Scrubs and resilvers. A `Scan`'s progress is a pure function of time. Here: starting,
pausing, resuming and cancelling a scrub (`zpool scrub [-p|-s]`), the resilver an attach or
replace starts, and what ZFS does when a scan completes (a replacing-N vdev loses its old
child, autoexpand grows the vdev).

A new device beside a running resilver (zpool-features(7), `resilver_defer`): with the feature
(every pool of OpenZFS 2.x unless it was disabled at creation: the pool property
`feature@resilver_defer=disabled` in a scenario) the running resilver carries on and the new
device waits, "(awaiting resilver)" in `zpool status`, until it ends; then a new resilver
starts for the waiting devices (their replacing-N keeps its old child until that one ends).
Without it the running resilver restarts from the beginning and covers the new device too.

The pace: a scan started while the machine runs a rehearsal (`Machine.pace`, the console's
`zconsole --demo`) issues `pace` times faster than the disks would; its `rate` is the
accelerated one (progress and ETA), the disks' I/O load stays at their real speed
(`Scan.load`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine import zlog
from zconsole.hosts.demo.machine.common import CmdError, MiB
from zconsole.hosts.demo.machine.disks import disk_speed
from zconsole.hosts.demo.machine.pools import expand_size, recompute_states

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.disks import Disk
    from zconsole.hosts.demo.machine.pools import Pool, Vdev
    from zconsole.hosts.demo.machine.state import Machine


@dataclass
class Scan:
    """A scrub or resilver. Progress is a pure function of time: issued(now)."""

    function: str  # SCRUB or RESILVER
    state: str  # SCANNING, FINISHED, CANCELED
    start_time: float
    to_examine: int
    rate: float  # bytes issued per second
    base_time: float  # issued == base_issued at base_time
    base_issued: float = 0.0
    skipped: int = 0
    end_time: float = 0.0
    errors: int = 0
    processed_final: int = 0
    paused_at: float = 0.0
    spent_paused: float = 0.0
    pass_start: float = 0.0
    pace: float = 1.0  # how much faster than the disks this scan runs (a rehearsal)
    # devices waiting for this resilver to end (resilver_defer): (leaf guid, bytes, speed)
    deferred: list[tuple[int, int, float]] = field(default_factory=list)

    @property
    def load(self) -> float:
        """Bytes per second the scan asks of the disks (its rate at the disks' own speed)."""
        return self.rate / self.pace

    def issued(self, now: float) -> int:
        total = self.to_examine - self.skipped
        if self.state != "SCANNING":
            return total if self.state == "FINISHED" else int(self.base_issued)
        if self.paused_at:
            return int(min(total, self.base_issued))
        return int(min(total, self.base_issued + self.rate * max(0.0, now - self.base_time)))

    def finish_time(self) -> float:
        total = self.to_examine - self.skipped
        return self.base_time + max(0.0, total - self.base_issued) / max(self.rate, 1.0)

    def examined(self, now: float) -> int:
        # the scanner runs ahead of the issuer while it sorts blocks
        if self.state != "SCANNING":
            return self.to_examine
        ahead = min(self.to_examine, int(self.issued(now) * 1.08 + 64 * MiB))
        return ahead

    def processed(self, now: float) -> int:
        if self.state == "FINISHED":
            return self.processed_final
        if self.function == "SCRUB":
            return 0
        return self.issued(now)


def defers(p: Pool) -> bool:
    """Whether the pool has `feature@resilver_defer` (enabled on every OpenZFS 2.x pool unless
    a scenario says it was disabled at creation)."""
    return p.props.get("feature@resilver_defer", "enabled") != "disabled"


def is_deferred(p: Pool, leaf: Vdev) -> bool:
    """The leaf waits for the running resilver to end ("(awaiting resilver)")."""
    sc = p.scan
    return (sc is not None and sc.state == "SCANNING"
            and any(g == leaf.guid for g, _, _ in sc.deferred))


def start_resilver(m: Machine, p: Pool, top: Vdev, now: float, source: Disk | None,
                   target: Disk) -> None:
    speed = float(min(disk_speed(target), disk_speed(source) if source else disk_speed(target)))
    alloc = p.top_alloc(top)
    sc = p.scan
    deferred: list[tuple[int, int, float]] = []
    if sc is not None and sc.state == "SCANNING" and sc.function == "RESILVER":
        if defers(p):
            # the running resilver carries on; the new device waits for its end
            leaf = next((v for v in top.walk() if v.is_leaf and v.disk == target.name
                         and v.resilvering), None)
            if leaf is not None:
                sc.deferred.append((leaf.guid, alloc, speed))
                p.txg += 3
                return
        # no resilver_defer: the running resilver restarts and covers the new device too
        alloc = max(alloc, sc.to_examine)
        deferred = sc.deferred
    _resilver(m, p, now, alloc, speed, deferred)


def _resilver(m: Machine, p: Pool, now: float, alloc: int, speed: float,
              deferred: list[tuple[int, int, float]]) -> None:
    pace = m.pace
    p.scan = Scan(function="RESILVER", state="SCANNING", start_time=now, to_examine=alloc,
                  rate=speed * pace, base_time=now, base_issued=0.0, pass_start=now,
                  pace=pace, deferred=deferred)
    p.txg += 3


def scrub(m: Machine, p: Pool, stop: bool, pause: bool, now: float) -> None:
    sc = p.scan
    running = sc is not None and sc.state == "SCANNING"
    if stop:
        if not running or sc is None or sc.function != "SCRUB":
            if running and sc is not None and sc.function == "RESILVER":
                raise CmdError(1, f"cannot cancel scrubbing {p.name}: currently resilvering")
            raise CmdError(1, f"cannot cancel scrubbing {p.name}: there is no active scrub")
        sc.base_issued = float(sc.issued(now))
        sc.state, sc.end_time = "CANCELED", now
        return
    if pause:
        if not running or sc is None or sc.function != "SCRUB":
            raise CmdError(1, f"cannot pause scrubbing {p.name}: there is no active scrub")
        if not sc.paused_at:
            sc.base_issued = float(sc.issued(now))
            sc.paused_at = now
        return
    if running and sc is not None:
        if sc.function == "RESILVER":
            raise CmdError(1, f"cannot scrub {p.name}: currently resilvering")
        if sc.paused_at:
            sc.spent_paused += now - sc.paused_at
            sc.paused_at = 0.0
            sc.base_time = now
            return
        raise CmdError(1, f"cannot scrub {p.name}: currently scrubbing; use 'zpool scrub -s' "
                          "to cancel current scrub")
    disks = [m.disks[v.disk] for v in p.root.walk() if v.is_leaf and v.disk]
    rate = sum(disk_speed(d) for d in disks) / 2.2 if disks else 100 * MiB
    if sc is not None:
        p.scan_history.append(sc)
    p.scan = Scan(function="SCRUB", state="SCANNING", start_time=now, to_examine=p.alloc,
                  rate=rate * m.pace, base_time=now, pass_start=now, pace=m.pace)
    p.txg += 2


def is_resilver_source(pool: Pool, leaf: Vdev) -> bool:
    for top in pool.root.walk():
        if leaf in top.children and any(c.resilvering for c in top.children):
            return True
    return False


def finish_resilver(pool: Pool, waiting: frozenset[int] = frozenset()) -> list[Vdev]:
    """What ZFS does when a resilver completes: replacing-N loses its old child, except where
    the new child is `waiting` (guids of deferred devices: they keep resilvering).
    Returns the detached leaves."""
    gone: list[Vdev] = []
    for top in list(pool.root.walk()):
        for i, child in enumerate(list(top.children)):
            if child.type == "replacing" and child.children[-1].guid in waiting:
                continue
            if child.type == "replacing":
                new = child.children[-1]
                new.resilvering = False
                gone.extend(child.children[:-1])
                if top.type == "root":
                    new.id, new.asize, new.ms_shift, new.is_log = (
                        child.id, child.asize, child.ms_shift, child.is_log)
                top.children[i] = new
            elif child.type == "spare":
                for c in child.children:
                    c.resilvering = c.resilvering and c.guid in waiting
    for v in pool.root.walk():
        v.resilvering = v.resilvering and v.guid in waiting
    _return_spares(pool)
    recompute_states(pool)
    return gone


def _return_spares(pool: Pool) -> None:
    """spa_vdev_resilver_done: a spare-N whose original disk is healthy again (it was
    replaced) lets its hot spare go: the spare is AVAIL again, spare-N becomes the disk."""
    spare_disks = {s.disk for s in pool.spares}
    for top in list(pool.root.walk()):
        for i, child in enumerate(list(top.children)):
            if child.type != "spare":
                continue
            originals = [c for c in child.children if c.disk not in spare_disks]
            if len(originals) != 1 or originals[0].state != "ONLINE" or \
                    not originals[0].is_leaf:
                continue
            keep = originals[0]
            for c in child.children:
                if c is not keep:
                    for s in pool.spares:
                        if s.disk == c.disk:
                            s.aux = None
            if top.type == "root":
                keep.id, keep.asize, keep.ms_shift, keep.is_log = (
                    child.id, child.asize, child.ms_shift, child.is_log)
            top.children[i] = keep


def next_scan_end(m: Machine, now: float) -> float | None:
    """The first moment before `now` at which a running scan finishes, if any."""
    best: float | None = None
    for p in m.pools.values():
        sc = p.scan
        if sc is not None and sc.state == "SCANNING" and not sc.paused_at:
            t = sc.finish_time()
            if t <= now and (best is None or t < best):
                best = max(t, m.last)
    return best


def complete_scans(m: Machine, t: float) -> None:
    """Finish every scan that is done at `t`: the state, the txg, a resilver's
    detached leaves (their labels wiped) and autoexpand growth."""
    for p in m.pools.values():
        sc = p.scan
        if sc is None or sc.state != "SCANNING" or sc.paused_at:
            continue
        if sc.finish_time() <= t + 1e-9:
            sc.state = "FINISHED"
            sc.end_time = sc.finish_time()
            sc.processed_final = sc.to_examine - sc.skipped if sc.function == "RESILVER" else 0
            sc.base_issued = float(sc.to_examine - sc.skipped)
            p.txg += 40
            zlog.scan_finished(m, p, sc.end_time, sc.function == "SCRUB", sc.errors)
            if sc.function == "RESILVER":
                waiting = frozenset(g for g, _, _ in sc.deferred)
                for old in finish_resilver(p, waiting):
                    zlog.internal(m, p, sc.end_time, "detach", f"vdev={old.path}")
                    zlog.config_sync(m, p, sc.end_time)
                    d = m.disks.get(old.disk or "")
                    for part in d.partitions if d else []:
                        if part.fs_type == "zfs_member":
                            part.fs_type, part.fs_label, part.fs_uuid = None, None, None
                if p.props.get("autoexpand") == "on":
                    for top in p.data_vdevs():
                        top.asize += expand_size(top)
                if sc.deferred:  # the devices that waited: their own resilver now
                    p.scan_history.append(sc)
                    _resilver(m, p, sc.end_time, max(a for _, a, _ in sc.deferred),
                              min(s for _, _, s in sc.deferred), [])
                    zlog.scan_started(m, p, sc.end_time, False)
