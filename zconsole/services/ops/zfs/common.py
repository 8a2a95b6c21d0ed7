"""What every ZFS plan builder shares: its inputs, its opening, how it names the new disk.

The builders themselves are one module per operation (`attach.py`, `detach.py`, `replace.py`,
`replace_grow.py`, `dedup_off.py`). Each is pure: it takes what was read from the host (a
`HostReading`, the pool's `zpool get` properties, slow-disk findings, a `DedupReport`) and returns
a `model.plan.Plan`: redundancy sentences first (`preview`), plan-time checks from `guards` and
`new_disk`, then steps with the exact argv, runtime pre-checks, post-checks that prove each step
happened, waits (resilvers are Wait steps, never `-w`, so progress shows) and typed
confirmations.

Rules every plan keeps:
* new disks are named `/dev/disk/by-id/<model_serial>` (by-path only without a by-id link;
  never sdX). Predicates name the new disk by the link name, which is what zpool prints;
* `-f` appears in an argv only when the caller passes `force=True`, which the UI does only
  after the operator confirmed every failing CONFIRM check a second time;
* a blocked plan (any failing BLOCK check) still carries its steps so the operator sees what
  would run, but `Plan.blocked` is True and nothing may run it;
* the typed confirmation is the serial of the disk that will be overwritten (attach,
  replace), the pool name (detach), or the dataset name (destroying the old copy of a
  rewritten dataset).

`read_inputs(host, pool)` gathers the inputs in one call for the CLI and the wizards' workers.
A wizard's answers name a vdev as `"pool<TAB>name"` (`ref` / `split_ref`, both here).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Confirmation,
    Plan,
    Predicate,
    Step,
    Wait,
    predicate,
)
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import HostReading
from zconsole.services.ops.zfs import guards, new_disk
from zconsole.services.ops.zfs.new_disk import DiskName
from zconsole.services.read.collect import collect, pool_properties
from zconsole.services.read.identity import DiskIndex


@dataclass(frozen=True)
class PlanInputs:
    """What a plan builder reads: one snapshot, the pool's properties, and the slow-disk
    findings when the console has samples (None: slowness not checked)."""

    reading: HostReading
    props: Mapping[str, str]
    findings: Sequence[Finding] | None = None


def read_inputs(host: Host, pool: str, *, findings: Sequence[Finding] | None = None,
                timeout: float = 30.0) -> PlanInputs:
    """Collect the host and `zpool get all POOL` (blocking: call from a worker)."""
    snap = collect(host, timeout=timeout)
    part = pool_properties(host, pool, timeout=timeout)
    props = {p.property: p.value for p in part.value or ()}
    return PlanInputs(snap, props, findings)


# ------------------------------------------------------------------------ wizard answers


def ref(pool: str, name: str) -> str:
    """A vdev as a wizard's choice carries it: `"tank<TAB>mirror-0"`."""
    return f"{pool}\t{name}"


def split_ref(value: str) -> tuple[str, str]:
    """`"tank<TAB>mirror-0"` -> ("tank", "mirror-0")."""
    pool, _, name = value.partition("\t")
    return pool, name


def lines(value: str) -> list[str]:
    """A wizard's multiple choice (newline-joined) as a list, without empty entries."""
    return [x for x in value.split("\n") if x]


# ---------------------------------------------------------------------- opening a plan


@dataclass
class Draft:
    """The opening every plan shares: its id, kind, title, host, pool and creation time.

    `Draft.on_pool(...)` also finds the pool's tree in the reading; when it is missing,
    `draft.pool_unread()` is the whole (blocked) plan:

        draft = Draft.on_pool("attach", title, reading, pool, plan_id=plan_id, now=now)
        if draft.status is None:
            return draft.pool_unread()
    """

    kind: str
    title: str
    host: str
    pool: str
    created: float
    plan_id: str | None = None
    status: Pool | None = None  # the pool's tree (on_pool), None when it could not be read
    reading: HostReading | None = None

    @classmethod
    def on_pool(cls, kind: str, title: str, reading: HostReading, pool: str, *,
                plan_id: str | None, now: float | None) -> Draft:
        entry = reading.pool(pool)
        return cls(kind, title, reading.host, pool, when(reading, now), plan_id,
                   entry.status if entry is not None else None, reading)

    def plan(self, *, title: str | None = None, preview: Sequence[str] = (),
             checks: Sequence[Check] = (), steps: Sequence[Step] = (),
             params: tuple[tuple[str, str], ...] = ()) -> Plan:
        return Plan(id=self.plan_id or uuid.uuid4().hex, kind=self.kind,
                    title=self.title if title is None else title, host=self.host,
                    pool=self.pool, created_at=self.created, preview=tuple(preview),
                    checks=tuple(checks), steps=tuple(steps), params=params)

    def blocked(self, detail: str, *, name: str = guards.POOL_READ) -> Plan:
        """A plan that cannot run, for one reason, with no steps."""
        return self.plan(checks=(Check(name, False, CheckLevel.BLOCK, detail),))

    def pool_unread(self) -> Plan:
        """Blocked: the pool's state is unknown (not imported, or zpool status failed)."""
        reading = self.reading
        if reading is not None and not reading.pool_status.ok:
            return self.blocked(f"zpool status could not be read ({reading.pool_status.error})"
                                ": nothing is changed without knowing the pool's state.")
        return self.blocked(f"There is no imported pool named {self.pool} on {self.host}.")

    def disk(self, name: str) -> tuple[Pool, Vdev] | Plan:
        """The pool's tree and its disk `name` (a leaf); else the whole (blocked) plan: the
        pool unread, or no such disk in it."""
        status = self.status
        if status is None:
            return self.pool_unread()
        found = status.find(name)
        if found is None or found.children:
            return self.blocked(f"{name} is not a disk of pool {self.pool}.", name=guards.TARGET)
        return status, found


def when(reading: HostReading | None, now: float | None) -> float:
    """The plan's creation time: `now`, else when the reading was taken, else the clock."""
    if now is not None:
        return now
    if reading is not None and reading.taken_at:
        return reading.taken_at
    return time.time()


# ------------------------------------------------------------------------------- disks


def disk_index(reading: HostReading) -> DiskIndex | None:
    inv = reading.disks.value if reading.disks.ok else None
    return DiskIndex(inv.devices) if inv is not None else None


def new_name(reading: HostReading, ref_: str) -> tuple[DiskName, Disk | None]:
    """How the plan names the disk the operator chose, and the disk when it is known."""
    index = disk_index(reading)
    dev = index.find(ref_) if index is not None else None
    if dev is not None:
        return new_disk.disk_name(dev), dev
    # Unknown disk: keep the operator's words; the checks already block the plan.
    path = ref_ if ref_.startswith("/") else new_disk.BY_ID + ref_
    return DiskName(path, path.rsplit("/", 1)[-1], False, "as given"), None


def leaf_disk(reading: HostReading, leaf: Vdev) -> Disk | None:
    index = disk_index(reading)
    return index.leaf_disk(leaf) if index is not None else None


def serial_confirmation(dn: DiskName, dev: Disk | None, action: str) -> Confirmation:
    """Type the serial of the disk about to be overwritten (its name when it has none)."""
    serial = dev.serial if dev is not None and dev.serial else None
    what = new_disk.describe_disk(dev) if dev is not None else dn.path
    if serial:
        return Confirmation(f"{action} overwrites everything on {what}. Type its serial "
                            f"number to go on:", serial)
    return Confirmation(f"{action} overwrites everything on {what}. Type its name "
                        f"({dn.zpool_name}) to go on:", dn.zpool_name)


def force_args(checks: Sequence[Check], force: bool) -> tuple[str, ...]:
    """`-f` when the caller forces and some CONFIRM check needs it; nothing otherwise."""
    return ("-f",) if force and any(c.needs_force for c in checks) else ()


def still_in(pool: str, name: str) -> Predicate:
    """Pre-check: the vdev `name` is still in the pool."""
    return predicate("vdev_present", f"{name} is still in {pool}", pool=pool, name=name)


def in_and_not_yet(pool: str, existing: str, new: str) -> tuple[Predicate, Predicate]:
    """Pre-checks of a step that adds `new` next to `existing`: the one is still in the pool,
    the other not yet."""
    return (still_in(pool, existing),
            predicate("vdev_absent", f"{new} is not in {pool} yet", pool=pool, name=new))


def still_fit(pool: str, target: str, dn: DiskName, dev: Disk | None,
              disk_checks: Sequence[Check], force: bool, *, replacing: bool) -> Predicate:
    """Pre-check of the step that writes to a new disk: the disk guards run again right
    before the command, on a fresh reading, against the disk the operator approved (same
    serial). What the preview showed failing and the operator forced (`-f` for an exported
    pool's label) stays approved; anything else that fails now — a filesystem made on the
    disk since, a mount, another disk at that path — stops the run before ZFS is asked."""
    approved = sorted(c.name for c in disk_checks if c.needs_force) if force else []
    return predicate("new_disk_still_fit",
                     f"{dn.zpool_name} is still the approved disk, clean and fit",
                     pool=pool, target=target, disk=dn.path,
                     serial=(dev.serial or "") if dev is not None else "",
                     approved=",".join(approved), replacing=yes_no(replacing))


def resilver_wait(pool: str, activity: str, text: str, until: tuple[Predicate, ...]) -> Wait:
    return Wait(pool=pool, activity=activity, description=text, until=until)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"
