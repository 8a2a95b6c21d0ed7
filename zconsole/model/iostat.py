"""`zpool iostat -v -l -H -p` rows, mapped back onto the vdev tree."""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.model.pool import Section


@dataclass(frozen=True)
class IostatRow:
    """One row. Capacity in bytes, ops/s and bytes/s as zpool reports them, waits in ns.

    Latency columns are None where zpool prints `-` (no I/O of that kind in the interval).
    `rebuild_wait` exists only from OpenZFS 2.3 (11 latency columns; 2.1 has 10).
    `vdev_path` names the row's position in the tree: (top-level, ..., this row's name).
    `-q` adds the queue columns (`*_pend`, `*_activ`; `rebuildq_write` from 2.2).
    """

    name: str
    section: Section
    vdev_path: tuple[str, ...]
    alloc: int | None
    free: int | None
    read_ops: int
    write_ops: int
    read_bytes: int
    write_bytes: int
    total_wait_read: int | None = None
    total_wait_write: int | None = None
    disk_wait_read: int | None = None
    disk_wait_write: int | None = None
    syncq_wait_read: int | None = None
    syncq_wait_write: int | None = None
    asyncq_wait_read: int | None = None
    asyncq_wait_write: int | None = None
    scrub_wait: int | None = None
    trim_wait: int | None = None
    rebuild_wait: int | None = None
    # `-q`: requests pending in / active on each queue (None where not asked for)
    syncq_read_pend: int | None = None
    syncq_read_activ: int | None = None
    syncq_write_pend: int | None = None
    syncq_write_activ: int | None = None
    asyncq_read_pend: int | None = None
    asyncq_read_activ: int | None = None
    asyncq_write_pend: int | None = None
    asyncq_write_activ: int | None = None
    scrubq_read_pend: int | None = None
    scrubq_read_activ: int | None = None
    trimq_write_pend: int | None = None
    trimq_write_activ: int | None = None
    rebuildq_write_pend: int | None = None
    rebuildq_write_activ: int | None = None
    # False when a figure was printed in human units (`148M`, `95ms`) and may be rounded.
    exact: bool = True
    # `-c SCRIPT` columns (human form): (column title, value or None where not printed).
    extra: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True)
class PoolIostat:
    """One report for one pool: the pool row and its vdev rows in zpool's order.

    `report` numbers the reports of one output from 0. `since_boot` says whether this report
    covers the time since the pool was imported (zpool's first report without `-y`) rather
    than one interval: True/False when the caller said whether `-y` was given, None when it
    did not (unknown).
    """

    pool: str
    pool_row: IostatRow
    rows: tuple[IostatRow, ...]
    report: int = 0
    since_boot: bool | None = None

    def row(self, name: str) -> IostatRow | None:
        for r in self.rows:
            if r.name == name:
                return r
        return None
