"""The bay plan of a failed disk's replace (`stage=bay`, no free bay): the failed disk comes out
of its bay before the new one goes in.

`zpool offline POOL OLD` (unless ZFS already lost it), show the disk (`ledctl locate=` when
ledmon is installed, else the activity blink on request, else by elimination: the serials
that stay), then watch the disks until the old one is gone and a new one is in that passes
every guard (`bay.py`, wait activity `disk-swap`). What the host knows about finding disks
(`Site`: enclosure slots, ledctl, vdev_id.conf names) is read here too; the replace plan
(`replace_failed_new.py`) uses it for the same-path case. The entry is `replace_failed.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zconsole.hosts.base import Host, HostError
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, Wait, predicate
from zconsole.model.pool import Pool, Vdev
from zconsole.model.reading import HostReading
from zconsole.services.health import replace as health
from zconsole.services.ops.zfs import bay as baymod
from zconsole.services.ops.zfs import guards
from zconsole.services.ops.zfs.common import Draft, disk_index, leaf_disk, still_in
from zconsole.services.ops.zfs.replace import _slot
from zconsole.services.read import enclosure

SAME_BAY = "same-bay"  # check names
LOCATE = "locate"


@dataclass(frozen=True)
class Site:
    """What the host knows about finding disks: enclosure slots by kernel name, ledctl, and
    where the pool's vdev_id.conf names (/dev/disk/by-vdev/NAME) point now (NAME -> kernel
    name)."""

    ledctl: bool = False
    slots: Mapping[str, str] = field(default_factory=dict)
    by_vdev: Mapping[str, str] = field(default_factory=dict)


BY_VDEV = "/dev/disk/by-vdev/"


def link_name(path: str, prefix: str) -> str:
    """The link's name under `prefix`, without a `-partN` suffix."""
    link = path[len(prefix) :]
    base, _, num = link.rpartition("-part")
    return base if base and num.isdigit() else link


def read_site(host: Host, pool: Pool | None = None) -> Site:
    by_vdev: dict[str, str] = {}
    for _, _, v in pool.walk() if pool is not None else ():
        if v.is_leaf and v.path and v.path.startswith(BY_VDEV):
            name = link_name(v.path, BY_VDEV)
            try:
                real = host.realpath(BY_VDEV + name)
            except HostError:
                continue
            if real.startswith("/dev/") and real != BY_VDEV + name:
                by_vdev[name] = real.rsplit("/", 1)[-1]
    return Site(enclosure.has_ledctl(host), enclosure.read_slots(host), by_vdev)


def _where(dev: Disk | None, site: Site) -> str:
    if dev is None:
        return "slot unknown"
    slot = site.slots.get(dev.name)
    return f"{slot}, {_slot(dev)}" if slot else _slot(dev)


def _member_disks(reading: HostReading, status: Pool, old: str) -> list[tuple[str, Disk]]:
    index = disk_index(reading)
    out: list[tuple[str, Disk]] = []
    if index is None:
        return out
    for _, _, v in status.walk():
        if v.is_leaf and v.name != old:
            d = index.leaf_disk(v)
            if d is not None:
                out.append((v.name, d))
    return out


def locate_method(dev: Disk | None, site: Site, gone: bool) -> str:
    """ledctl, blink (steady reads, on request) or elimination."""
    if dev is None or gone:
        return "elimination"
    return "ledctl" if site.ledctl else "blink"


# udev's /dev/disk/by-id names of whole disks, by bus (zpool prints the link's name)
BY_ID_BUSES = ("ata-", "scsi-", "nvme-", "virtio-", "usb-", "mmc-", "ieee1394-")


def old_serial_hint(leaf: Vdev) -> str | None:
    """The serial a lost disk's by-id name carried (`was /dev/disk/by-id/ata-MODEL_SERIAL-
    part1` -> SERIAL; udev names a virtio disk `virtio-SERIAL`): what its label should read.
    None when the name has none. Without a path (OpenZFS 2.1's text status gives none) a leaf
    named like a by-id link (`ata-MODEL_SERIAL`, `virtio-SERIAL`) is read as one."""
    text = (leaf.note or "").removeprefix("was ") or leaf.path or ""
    if not text and leaf.name.startswith(BY_ID_BUSES):
        text = "/dev/disk/by-id/" + leaf.name
    if "/by-id/" not in text:
        return None
    link = text.rsplit("/", 1)[-1]
    base, _, num = link.rpartition("-part")
    link = base if base and num.isdigit() else link
    if link.startswith("virtio-"):
        return link.removeprefix("virtio-") or None
    if link.startswith(("wwn-", "nvme-eui.")) or "_" not in link:
        return None
    return link.rsplit("_", 1)[-1] or None


# ------------------------------------------------------------------------------ checks


def _same_bay_check(status: Pool, old_v: Vdev, gone: bool) -> Check:
    """May the failed disk leave its bay? Not when it holds the last good copy of its vdev."""
    old = old_v.name
    found = guards.top_level(status, old)
    top = found[1] if found is not None else None
    if not gone and guards.good(old_v) and top is not None and health.vdev_margin(top) < 1:
        return Check(
            SAME_BAY,
            False,
            CheckLevel.BLOCK,
            f"{old} holds the last good copy in {top.name}: taking it out "
            "would lose data (ZFS refuses the offline with 'no valid "
            "replicas'). Use a free bay, or replace the failed member first.",
        )
    return Check(
        SAME_BAY,
        True,
        CheckLevel.INFO,
        f"{old} can leave its bay: "
        + ("ZFS lost it already." if gone else "the vdev keeps its data without it."),
    )


def _locate_check(method: str, dev: Disk | None, old: str) -> Check:
    """How the disk is shown to the operator (`locate_method`), said as a check."""
    return Check(
        LOCATE,
        method != "elimination",
        CheckLevel.INFO,
        {
            "ledctl": f"The disk is shown by its locate LED: ledctl locate= (ledmon) on "
            f"{dev.name if dev else old}.",
            "blink": "ledmon's ledctl is not installed: the disk is shown by its activity LED "
            "(i: steady reads from it, read-only), and by its serial.",
            "elimination": "The disk cannot be lit (ZFS no longer reaches it, or it has no "
            "block device): find it by elimination, by the serials that stay.",
        }[method],
    )


# ------------------------------------------------------------------------------- steps


def _offline_step(pool: str, old: str, dev: Disk | None, faulted: bool) -> Step:
    """`zpool offline POOL OLD`, confirmed by the serial of the disk to pull. A FAULTED disk
    stays FAULTED in `zpool status` after the offline (seen on OpenZFS 2.1.11; vdev_open()
    checks the fault before the offline flag), so then either state is the expected result."""
    done = (
        predicate(
            "vdev_state",
            f"{old} is OFFLINE (or still FAULTED: ZFS shows the fault over the offline)",
            pool=pool,
            name=old,
            state="OFFLINE|FAULTED",
        )
        if faulted
        else predicate("vdev_state", f"{old} is OFFLINE", pool=pool, name=old, state="OFFLINE")
    )
    return Step(
        id="offline",
        title=f"Take {old} offline",
        explanation=(
            f"ZFS stops using {old}, so pulling it is an expected absence, not "
            "a failure. It can be brought back with zpool online."
        ),
        command=Command(("zpool", "offline", pool, old), f"offline {old} in {pool}", writes=True),
        prechecks=(still_in(pool, old),),
        postchecks=(done,),
        confirmation=Confirmation(
            f"Taking {old} offline leaves its vdev with less redundancy until the new "
            f"disk is resilvered. Type the serial of the disk you will pull to go on:",
            dev.serial if dev is not None and dev.serial else old,
        ),
    )


def _locate_step(serial: str, dev_path: str, path: str) -> Step:
    """`ledctl locate=DEV`: light the slot's locate LED."""
    return Step(
        id="locate",
        title=f"Light the locate LED of serial {serial}",
        explanation="ledmon's ledctl lights the slot's locate LED (it stays lit until "
        "zconsole puts it out after the swap).",
        command=Command(("ledctl", f"locate={dev_path}"), f"locate LED on {path}", writes=False),
    )


def _what(dev: Disk | None, old_v: Vdev, serial: str, site: Site) -> str:
    """The disk to find, as the operator sees it: serial, model and slot, or what is known
    of a missing disk."""
    if dev is not None:
        return f"the disk with serial {serial} ({dev.model or 'model unknown'}, {_where(dev, site)})"
    was = old_serial_hint(old_v)
    return "the missing disk" + (
        f" (its old name ends in serial {was})" if was else f" ({old_v.note or old_v.name})"
    )


def _find_step(method: str, what: str, stays: str, dev_path: str, path: str) -> Step:
    """The operator finds the disk (lit, blinking on request, or by elimination)."""
    find = {
        "ledctl": "Its locate LED is lit.",
        "blink": "Press i to make its activity LED blink (steady reads, read-only).",
        "elimination": f"Find it by elimination: these serials stay in the machine: {stays}. "
        "The disk to pull is the one whose serial is not in this list.",
    }[method]
    return Step(
        id="find",
        title=f"Find {what}",
        explanation=f"Method: {method}. {find}",
        command=(
            Command(
                ("dd", f"if={dev_path}", "of=/dev/null", "bs=1M", "count=2000", "iflag=direct"),
                f"identify: steady reads from {path}",
                writes=False,
            )
            if method == "blink"
            else None
        ),
        operator_action=(
            f"Find {what}. {find} Check the serial on its label, then press "
            "o and pull it: zconsole watches the disks."
        ),
    )


def _swap_step(pool: str, old: str, base: baymod.Baseline) -> Step:
    """Wait (activity `disk-swap`) until the old disk is out and a fitting new one is in."""
    return Step(
        id="swap",
        title="Pull the old disk, insert the new one in the same bay",
        explanation=(
            "zconsole reads the disks again every few seconds and says what it "
            "sees; a new disk is checked by every guard of the replace before "
            "anything is written. Leaving only stops watching: the plan is saved "
            "and resumes here."
        ),
        wait=Wait(
            pool=pool,
            activity=baymod.ACTIVITY,
            description=f"swap of {old} in {pool}",
            until=(baymod.bay_predicate(base),),
        ),
    )


# ------------------------------------------------------------------------ the bay plan


def bay_plan(
    draft: Draft,
    reading: HostReading,
    status: Pool,
    old_v: Vdev,
    findings: Sequence[Finding] | None,
    site: Site,
    spare: str,
    after: str,
) -> Plan:
    """Step 1 of 2 of the same bay: offline, locate, find, watch the swap."""
    pool = draft.pool
    old = old_v.name
    checks = guards.check_replacement_target(status, old, findings)
    dev = leaf_disk(reading, old_v)
    gone = health.is_gone(old_v) or dev is None
    checks.append(_same_bay_check(status, old_v, gone))
    method = locate_method(dev, site, gone)
    base = baymod.baseline(
        reading, pool, old, None if gone else dev, _member_disks(reading, status, old)
    )
    serial = (dev.serial if dev is not None else None) or "unknown"
    checks.append(_locate_check(method, dev, old))
    steps: list[Step] = []
    path = dev.by_id[0] if dev is not None and dev.by_id else (dev.name if dev else old)
    dev_path = ("/dev/disk/by-id/" + path) if dev is not None and dev.by_id else f"/dev/{path}"
    if not gone and old_v.state != "OFFLINE":
        steps.append(_offline_step(pool, old, dev, old_v.state == "FAULTED"))
    if method == "ledctl":
        steps.append(_locate_step(serial, dev_path, path))
    stays = ", ".join(base.stays) or "none"
    steps.append(_find_step(method, _what(dev, old_v, serial, site), stays, dev_path, path))
    steps.append(_swap_step(pool, old, base))
    now_, *during = guards.redundancy_preview(status, old, "replace" if gone else "offline")
    preview = [now_, *(f"While the bay is empty: {d}" for d in during)]
    title = f"Same bay: swap {old} in {pool} (step 1 of 2: the bay)"
    return draft.plan(
        title=title,
        preview=preview,
        checks=checks,
        steps=steps,
        params=(
            ("stage", "bay"),
            ("old", old),
            ("bay", "same"),
            ("locate", method),
            ("spare", spare),
            ("after", after),
            *sorted(base.params().items()),
        ),
    )
