"""What the demo's ZFS remembers of its past: the kernel's event ring buffer (`zpool events`)
and each pool's history (`zpool history -il`).

Commands that change a pool log themselves here (tools/zpool.py), a scan that completes
logs its end (scans.complete_scans), and `backfill` gives a freshly built scenario the past
its state implies: the pool's creation and import, the finished scrub, the I/O errors and
state change of a FAULTED disk (47 minutes ago), the open failure of a missing one (at
import), a running resilver's start. Events are kept only from the boot on (the ring
buffer is lost at reboot) and at most `RING` of them; the history keeps everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.pools import Pool, Vdev
    from zconsole.hosts.demo.machine.state import Machine

RING = 512  # zfs_zevent_len_max's default is larger; the demo keeps fewer
FAULT_AGO = 47 * 60  # a scenario's FAULTED disk went bad this long before the demo starts

# vdev_state_t and the names zpool events prints for them (zpool_state_to_name)
STATE_CODES = {"OFFLINE": (2, "OFFLINE"), "REMOVED": (3, "REMOVED"),
               "CANT_OPEN": (4, "UNAVAIL"), "UNAVAIL": (4, "UNAVAIL"),
               "FAULTED": (5, "FAULTED"), "DEGRADED": (6, "DEGRADED"),
               "ONLINE": (7, "ONLINE")}


@dataclass
class ZEvent:
    """One event: its time, class, pool and its other fields as `zpool events -v` prints
    them (`("vdev_state", '"FAULTED" (0x5)')`)."""

    at: float
    cls: str
    pool: str
    pool_guid: int
    fields: list[tuple[str, str]] = field(default_factory=list)
    eid: int = 0


@dataclass
class HistRec:
    """One `zpool history` record: a command as typed (`internal` False) or an internal
    record (`[txg:N] op [dataset (id)] text`)."""

    at: float
    text: str
    internal: bool = False
    txg: int = 0
    op: str = ""
    dataset: str = ""
    dsid: int = 0
    uid: int | None = 0


@dataclass
class ZLog:
    events: list[ZEvent] = field(default_factory=list)
    history: dict[str, list[HistRec]] = field(default_factory=dict)
    eid: int = 0


def _log(m: Machine) -> ZLog:
    if m.zlog is None:
        m.zlog = ZLog()
    return m.zlog


def _q(s: str) -> str:
    return f'"{s}"'


def vdev_fields(v: Vdev) -> list[tuple[str, str]]:
    out = [("vdev_guid", f"0x{v.guid:x}"), ("vdev_type", _q(v.type))]
    if v.path:
        out.append(("vdev_path", _q(v.path)))
    if v.devid:
        out.append(("vdev_devid", _q(v.devid)))
    return out


def event(m: Machine, at: float, cls: str, pool: Pool, fields: list[tuple[str, str]] | None
          = None) -> None:
    """Add an event (kept only when after the boot; the ring keeps the newest RING)."""
    if at < m.boot_time:
        return
    log = _log(m)
    log.eid += 1
    log.events.append(ZEvent(at, cls, pool.name, pool.guid, list(fields or ()), log.eid))
    log.events.sort(key=lambda e: (e.at, e.eid))
    del log.events[:-RING]


def statechange(m: Machine, at: float, pool: Pool, v: Vdev, state: str, last: str) -> None:
    code, _ = STATE_CODES.get(state, (0, state))
    lcode, _ = STATE_CODES.get(last, (0, last))
    name, lname = STATE_CODES.get(state, (0, state))[1], STATE_CODES.get(last, (0, last))[1]
    event(m, at, "resource.fs.zfs.statechange", pool, [
        *vdev_fields(v), ("vdev_state", f'"{name}" (0x{code:x})'),
        ("vdev_laststate", f'"{lname}" (0x{lcode:x})')])


def io_error(m: Machine, at: float, pool: Pool, v: Vdev, write: bool, offset: int) -> None:
    event(m, at, "ereport.fs.zfs.io", pool, [
        *vdev_fields(v), ("vdev_delays", "0x0"), ("zio_err", "0x5"),
        ("zio_flags", "0x380880"), ("zio_stage", "0x1000000"), ("zio_pipeline", "0x1080000"),
        ("zio_delay", "0x0"), ("zio_timestamp", "0x0"), ("zio_delta", "0x0"),
        ("zio_priority", "0x3" if write else "0x0"), ("zio_offset", f"0x{offset:x}"),
        ("zio_size", "0x20000"), ("zio_type", "0x2" if write else "0x1")])


def command(m: Machine, pool: Pool, at: float, argv: list[str], uid: int | None = 0) -> None:
    """A command as typed, in the pool's history."""
    _log(m).history.setdefault(pool.name, []).append(HistRec(at, " ".join(argv), uid=uid))


def internal(m: Machine, pool: Pool, at: float, op: str, text: str, *, dataset: str = "",
             dsid: int = 0, txg: int | None = None) -> None:
    """An internal record at `txg` (the pool's current one by default)."""
    _log(m).history.setdefault(pool.name, []).append(
        HistRec(at, text, internal=True, txg=pool.txg if txg is None else txg, op=op,
                dataset=dataset, dsid=dsid, uid=None))


def config_sync(m: Machine, pool: Pool, at: float) -> None:
    event(m, at, "sysevent.fs.zfs.config_sync", pool)


def scan_started(m: Machine, pool: Pool, at: float, scrub: bool, txg: int | None = None
                 ) -> None:
    func = 1 if scrub else 2
    t = pool.txg if txg is None else txg
    internal(m, pool, at, "scan setup", f"func={func} mintxg=0 maxtxg={t}", txg=t)
    event(m, at, f"sysevent.fs.zfs.{'scrub' if scrub else 'resilver'}_start", pool,
          [] if scrub else [("resilver_type", _q("healing"))])


def scan_finished(m: Machine, pool: Pool, at: float, scrub: bool, errors: int = 0,
                  txg: int | None = None) -> None:
    internal(m, pool, at, "scan done", f"errors={errors}", txg=txg)
    event(m, at, f"sysevent.fs.zfs.{'scrub' if scrub else 'resilver'}_finish", pool,
          [] if scrub else [("resilver_type", _q("healing"))])


SOFTWARE = {"2.1": "zfs-2.1.11-0-ge25f9131d-dist", "2.3": "92f430b-dist"}  # as the guests print


def backfill(m: Machine, now: float, zfs_version: str = "2.3") -> None:
    """The past a freshly built scenario's state implies (see the module's docstring)."""
    boot = m.boot_time
    sw = SOFTWARE.get(zfs_version, SOFTWARE["2.3"])
    for pool in m.pools.values():
        created = boot - 200 * 86400 - 3 * 3600
        leaves = [v for v in pool.root.walk() if v.is_leaf]
        command(m, pool, created, ["zpool", "create", "-o", "ashift=12", pool.name,
                                   *_layout(pool)])
        banner = f"pool version 5000; software version {sw}; uts {m.hostname} {m.kernel}"
        internal(m, pool, created, "create", banner + " #1 SMP PREEMPT_DYNAMIC Debian x86_64",
                 txg=4)
        internal(m, pool, boot + 41, "open", banner, txg=pool.txg - 9000)
        internal(m, pool, boot + 41, "import", banner, txg=pool.txg - 8998)
        event(m, boot + 41, "sysevent.fs.zfs.pool_import", pool)
        config_sync(m, pool, boot + 42)
        for v in leaves:
            if v.not_present or v.state in ("CANT_OPEN", "UNAVAIL"):
                event(m, boot + 40, "ereport.fs.zfs.vdev.open_failed", pool,
                      [*vdev_fields(v), ("prev_state", "0x1")])
                statechange(m, boot + 40, pool, v, "CANT_OPEN", "ONLINE")
            elif v.state == "REMOVED":
                statechange(m, now - FAULT_AGO, pool, v, "REMOVED", "ONLINE")
        sc = pool.scan
        scans = [*pool.scan_history, *([sc] if sc is not None else [])]
        for s in scans:
            scrub = s.function == "SCRUB"
            before = s.start_time < boot
            scan_started(m, pool, s.start_time, scrub, pool.txg - 12000 if before else None)
            if s.state == "FINISHED":
                scan_finished(m, pool, s.end_time, scrub, s.errors,
                              pool.txg - 11000 if s.end_time < boot else None)
        for v in leaves:
            if v.state == "FAULTED":
                at = now - FAULT_AGO
                n = min(v.write_errors + v.read_errors, 6)
                for i in range(n):
                    io_error(m, at - (n - i) * 2.5, pool, v, i < min(n, v.write_errors),
                             0x40000 * (i + 7))
                statechange(m, at, pool, v, "FAULTED", "ONLINE")
            elif v.state == "OFFLINE":
                command(m, pool, now - 2 * 3600, ["zpool", "offline", pool.name, v.name()])
                statechange(m, now - 2 * 3600, pool, v, "OFFLINE", "ONLINE")
        if sc is not None and sc.function == "RESILVER" and sc.state == "SCANNING":
            for top in pool.root.walk():
                if top.type == "replacing" and len(top.children) >= 2:
                    old, new = top.children[0], top.children[-1]
                    command(m, pool, sc.start_time - 1,
                            ["zpool", "replace", pool.name, old.name(), new.name()])
                    internal(m, pool, sc.start_time, "vdev attach",
                             f"replace vdev={new.path} for vdev={old.path}", txg=pool.txg - 3)
                    event(m, sc.start_time, "sysevent.fs.zfs.vdev_attach", pool,
                          vdev_fields(new))
    m.changed()


def _layout(pool: Pool) -> list[str]:
    out: list[str] = []
    for top in pool.root.children:
        if top.type in ("mirror", "raidz", "draid"):
            out.append(top.type if top.type != "raidz" else f"raidz{top.nparity}")
            out.extend(c.name() for c in top.leaves())
        else:
            out.extend(c.name() for c in top.leaves())
    if pool.spares:
        out.append("spare")
        out.extend(s.name() for s in pool.spares)
    return out
