"""The same-bay swap: watch the disks while the operator pulls the old disk and inserts the new
one, and say what is seen.

The plan records, when it is built, which disks are in the machine (`Baseline`: the old disk's
serial, the serials that stay, the serials of the pool's other members). Between two looks the
disks are read again (the inventory: udev, sysfs and lsblk through `collect`) and compared
(`look_at_bay`, pure):

* the old disk is gone: "sdb with serial ZGY8C3D4 is gone";
* a healthy member disappeared instead: said loudly, with the way back (put it back, then
  `zpool online POOL MEMBER`);
* a new disk appeared (a serial not in the baseline): "a new disk appeared: sdm, 4.00 TB,
  serial …" and every guard of the replace is run on it (`new_disk.check_new_disk`): a disk
  that fails a BLOCK check is refused with the reason, and the watch keeps waiting for a
  disk that fits.

Registered with the engine as the wait activity `disk-swap` (`BaySwapWatch`; on the demo
host `hurry` asks the simulation to swap the disks) and the predicate kind `bay_swapped`
(the wait's end condition, and what resume looks at).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import HostError
from zconsole.model.disk import Disk
from zconsole.model.plan import CheckLevel, Predicate, Wait, predicate
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, predicate_kind
from zconsole.services.ops.engine.watch import Look, watch_activity
from zconsole.services.ops.zfs.new_disk import check_new_disk
from zconsole.services.read.collect import collect, pool_properties

ACTIVITY = "disk-swap"


@dataclass(frozen=True)
class Baseline:
    """What was in the machine when the plan was built (serials: stable across renames)."""

    pool: str
    old: str  # the leaf as zpool names it
    old_serial: str  # "" when unknown (the disk was already gone)
    old_disk: str  # its kernel name then ("" when gone), for the sentences
    stays: tuple[str, ...]  # every other whole disk's serial
    members: tuple[tuple[str, str], ...]  # (serial, leaf name) of the pool's other members

    def params(self) -> dict[str, str]:
        return {
            "pool": self.pool,
            "old": self.old,
            "old_serial": self.old_serial,
            "old_disk": self.old_disk,
            "stays": ",".join(self.stays),
            "members": ",".join(f"{s}={n}" for s, n in self.members),
        }

    @staticmethod
    def from_params(p: Mapping[str, str]) -> Baseline:
        members = tuple(
            (m.partition("=")[0], m.partition("=")[2])
            for m in p.get("members", "").split(",")
            if "=" in m
        )
        return Baseline(
            p["pool"],
            p["old"],
            p.get("old_serial", ""),
            p.get("old_disk", ""),
            tuple(s for s in p.get("stays", "").split(",") if s),
            members,
        )


def baseline(
    reading: HostReading,
    pool: str,
    old: str,
    old_dev: Disk | None,
    member_disks: Sequence[tuple[str, Disk]],
) -> Baseline:
    inv = reading.disks.value if reading.disks.ok else None
    old_serial = (old_dev.serial or "") if old_dev is not None else ""
    stays = tuple(
        sorted(
            {
                d.serial
                for d in (inv.whole_disks() if inv is not None else ())
                if d.serial and d.serial != old_serial
            }
        )
    )
    # a set: a hot spare in use is a leaf twice (in its spare-N vdev and in the spares)
    members = tuple(
        sorted({(d.serial, name) for name, d in member_disks if d.serial and d.serial != old_serial})
    )
    return Baseline(
        pool, old, old_serial, old_dev.name if old_dev is not None else "", stays, members
    )


@dataclass(frozen=True)
class BaySight:
    """One look at the bay."""

    old_gone: bool
    wrong: tuple[str, ...]  # "ZGY8A1B2 (ata-…, a member of tank)" pulled instead
    new: Disk | None  # the disk that appeared (the first fitting one, else the first)
    refusal: str  # why `new` cannot be used ("" when it fits)
    lines: tuple[str, ...]  # what to say, in order

    @property
    def done(self) -> bool:
        return self.old_gone and self.new is not None and not self.refusal and not self.wrong


def describe_new(d: Disk) -> str:
    bits = [d.name, fmt.size_as_sold(d.size_bytes) if d.size_bytes else "size unknown"]
    bits.append(f"serial {d.serial}" if d.serial else "no serial")
    if d.model:
        bits.append(d.model)
    return ", ".join(bits)


def look_at_bay(
    reading: HostReading, base: Baseline, props: Mapping[str, str] | None = None
) -> BaySight:
    """Compare the disks now with the baseline (pure)."""
    inv = reading.disks.value if reading.disks.ok else None
    if inv is None:
        raise ReadFailed(f"disk identities could not be read ({reading.disks.error})")
    now = {d.serial: d for d in inv.whole_disks() if d.serial}
    lines: list[str] = []
    old_gone = not base.old_serial or base.old_serial not in now
    who = f"{base.old_disk} with serial {base.old_serial}" if base.old_serial else base.old
    if base.old_serial:
        lines.append(f"{who} is gone." if old_gone else f"Waiting for {who} to be pulled.")
    wrong = tuple(f"serial {s} ({name})" for s, name in base.members if s not in now)
    if wrong:
        back = "; ".join(
            f"zpool online {base.pool} {name}" for s, name in base.members if s not in now
        )
        lines.insert(
            0,
            f"⚠ WRONG DISK: {', '.join(wrong)} disappeared — a member of {base.pool} that "
            f"stays, not the disk to replace. Put it back in its bay now, then: {back}. "
            "Nothing else is done until it is back.",
        )
    known = set(base.stays) | {base.old_serial}
    fresh = [d for s, d in sorted(now.items()) if s not in known]
    new: Disk | None = None
    refusal = ""
    for d in fresh:
        checks = check_new_disk(reading, base.pool, base.old, d.name, props=props, replacing=True)
        blocking = [c for c in checks if c.blocking]
        if not blocking:
            new, refusal = d, ""
            force = [c for c in checks if not c.passed and c.level is CheckLevel.CONFIRM]
            state = (
                "clean"
                if not force
                else "needs a second confirmation: " + force[0].detail.split(". ")[0]
            )
            lines.append(f"A new disk appeared: {describe_new(d)}, {state}.")
            break
        if new is None and not refusal:
            new, refusal = d, "; ".join(c.detail for c in blocking)
    if refusal and new is not None:
        lines.append(
            f"A new disk appeared: {describe_new(new)} — ✖ REFUSED: {refusal} "
            "Take it out and insert one that fits; nothing was written to it."
        )
    if new is None and old_gone and not wrong:
        lines.append("Insert the new disk in the same bay.")
    return BaySight(old_gone, wrong, new, refusal, tuple(lines))


def bay_predicate(base: Baseline) -> Predicate:
    return predicate(
        "bay_swapped", f"{base.old} was pulled and a fitting new disk is in", **base.params()
    )


def _look(ev: Evaluator, p: Predicate) -> BaySight:
    base = Baseline.from_params(dict(p.params))
    reading = ev.reading("collect", lambda: collect(ev.host, timeout=ev.timeout))
    props_part = ev.reading(
        f"props:{base.pool}", lambda: pool_properties(ev.host, base.pool, timeout=ev.timeout)
    )
    props = {v.property: v.value for v in props_part.value or ()}
    return look_at_bay(reading, base, props)


@predicate_kind("bay_swapped")
def bay_swapped(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    sight = _look(ev, p)
    return sight.done, " ".join(sight.lines)


@watch_activity(ACTIVITY)
class BaySwapWatch:
    """Looks at the disks until the old one is gone and a fitting new one is in."""

    def __init__(self, ev: Evaluator, wait: Wait, clock: Callable[[], float] | None = None) -> None:
        self.ev = ev
        self.wait = wait
        self.pred = next((u for u in wait.until if u.kind == "bay_swapped"), None)

    def look(self) -> Look:
        if self.pred is None:
            raise ReadFailed("the wait names no bay to watch")
        sight = _look(self.ev, self.pred)
        text = " ".join(sight.lines)
        return Look(not sight.done, text, text.rstrip("."), function=ACTIVITY)

    def hurry(self, timeout: float) -> bool:
        """The demo host swaps the disks by itself (a rehearsal); real hosts wait for hands."""
        swap = getattr(self.ev.host, "simulate_swap", None)
        if self.pred is None or not callable(swap):
            return False
        try:
            swap(self.pred.param("old_serial"))
        except HostError:
            return False
        return True
