"""Hands at the rack: pull a disk out of its bay, insert a new one (the same-bay replace
rehearsed on the demo).

* `pull(m, serial)`: the disk leaves the machine (no block device, no by-id link any more);
  a pool member that was in use becomes REMOVED (its pool DEGRADED), an OFFLINE one stays
  OFFLINE, as ZFS shows them;
* `insert(m, bay, model, serial, size)`: a new, blank disk appears in `bay` (the by-path name
  of the slot: the same bay gives the same by-path name), with the next free kernel name;
* `swap(m, serial)`: both, the way a rehearsal does it: the disk with `serial` out, a fresh
  disk of the same model and size into its bay;
* the operator's hands in a rehearsal (the console's palette, `DemoHost.hands`): `pullable`
  (the pool members ZFS no longer uses, OFFLINE or FAULTED, still in their bays), `empty_bays`
  (a bay whose disk was taken out) and `fill` (a new disk into one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, stable_int
from zconsole.hosts.demo.machine.disks import Disk, IoProfile
from zconsole.hosts.demo.machine.pools import recompute_states

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


def _by_serial(m: Machine, serial: str) -> Disk:
    for d in m.disks.values():
        if d.present and d.serial == serial:
            return d
    raise CmdError(1, f"no disk with serial {serial} is in the machine")


def pull(m: Machine, serial: str) -> Disk:
    d = _by_serial(m, serial)
    d.present = False
    for pool in m.pools.values():
        touched = False
        for v in pool.all_vdevs():
            if v.is_leaf and v.disk == d.name and v.state not in ("OFFLINE",):
                if any(v is s for s in pool.spares):
                    continue
                v.state, v.aux = "REMOVED", None
                touched = True
        if touched:
            recompute_states(pool)
            m.next_txg()
    m.changed()  # the disk tree changed: derived indexes are made again
    return d


def _next_name(m: Machine) -> str:
    used = {d.name for d in m.disks.values()}
    for i in range(26 * 2):
        name = "sd" + (chr(ord("a") + i) if i < 26 else "a" + chr(ord("a") + i - 26))
        if name not in used:
            return name
    raise CmdError(1, "no free kernel name")


def insert(
    m: Machine,
    bay: str,
    model: str,
    serial: str,
    size: int,
    *,
    logical: int = 512,
    physical: int = 4096,
) -> Disk:
    if any(d.present and d.pci_path == bay for d in m.disks.values()):
        raise CmdError(1, f"bay {bay} is not empty")
    name = _next_name(m)
    index = ord(name[-1]) - ord("a") + (26 if len(name) > 3 else 0)
    d = Disk(
        name=name,
        model=model,
        serial=serial,
        size=size,
        rotational=True,
        transport="sata",
        major=8,
        minor=16 * index,
        logical_sector=logical,
        physical_sector=physical,
        wwn=f"0x5000{stable_int(m.seed, serial) % (1 << 48):012x}",
        pci_path=bay,
        io=IoProfile(),
    )
    m.disks[name] = d
    m.changed()  # the disk tree changed: derived indexes are made again
    return d


def swap(
    m: Machine, serial: str, *, new_serial: str | None = None, size: int | None = None
) -> Disk:
    old = pull(m, serial)
    fresh = new_serial or f"ZNEW{stable_int(m.seed, 'swap', serial) % 10000:04d}"
    return insert(
        m,
        old.pci_path,
        old.model,
        fresh,
        size or old.size,
        logical=old.logical_sector,
        physical=old.physical_sector,
    )


HANDS_DELAY = 20.0  # seconds the rehearsal's hands take to swap a refused disk


def rehearse(m: Machine, serial: str, now: float) -> None:
    """A rehearsal's hands: the disk with `serial` out (if still in), a new one into its
    bay (`fill`)."""
    old = next((d for d in m.disks.values() if d.present and serial and d.serial == serial), None)
    if old is not None:
        pull(m, serial)
    else:
        old = next(
            (d for d in m.disks.values() if not d.present and (d.serial == serial or not serial)),
            None,
        )
    if old is None or any(d.present and d.pci_path == old.pci_path for d in m.disks.values()):
        return
    fill(m, old, now)


def pullable(m: Machine) -> list[tuple[Disk, str, str]]:
    """(disk, pool, state) of every pool member ZFS no longer uses (OFFLINE, FAULTED) that is
    still in its bay: what an operator takes out at the rack."""
    out: list[tuple[Disk, str, str]] = []
    for name, (pool, leaf) in m.leaf_index().items():
        d = m.disks.get(name)
        if d is not None and d.present and leaf.state in ("OFFLINE", "FAULTED"):
            out.append((d, pool.name, leaf.state))
    return out


def empty_bays(m: Machine) -> list[Disk]:
    """The disk last taken out of each empty bay (its model and size are the new disk's)."""
    seen: dict[str, Disk] = {}
    for d in m.disks.values():
        if not d.present and d.pci_path and not any(
                x.present and x.pci_path == d.pci_path for x in m.disks.values()):
            seen[d.pci_path] = d
    return list(seen.values())


def fill(m: Machine, old: Disk, now: float) -> Disk:
    """A new disk into `old`'s empty bay: the first of `m.swap_sizes` (a too-small one, taken
    out again and replaced by a fitting one `HANDS_DELAY` seconds later), else one like the
    old disk."""
    n = sum(1 for d in m.disks.values() if d.serial.startswith("ZNEW"))
    size = m.swap_sizes.pop(0) if m.swap_sizes else old.size
    new = insert(
        m,
        old.pci_path,
        old.model,
        f"ZNEW{n + 1:04d}",
        size,
        logical=old.logical_sector,
        physical=old.physical_sector,
    )
    if size < old.size:
        m.pending_inserts.append((now + HANDS_DELAY, old.pci_path))
        m.swap_sizes.insert(0, old.size)
    return new


def due(m: Machine, now: float) -> None:
    """The hands' pending work at `now`: the refused disk out of its bay, a fitting one in."""
    for when, bay in list(m.pending_inserts):
        if when > now:
            continue
        m.pending_inserts.remove((when, bay))
        inside = next((d for d in m.disks.values() if d.present and d.pci_path == bay), None)
        if inside is None:
            continue
        pull(m, inside.serial)
        fill(m, inside, now)  # this bay, the size the swap asked for (`m.swap_sizes`)
