"""Plain-language explanations of ZFS's refusals.

The screen always shows ZFS's stderr verbatim; `explain(stderr)` adds what it means and what
to do, for the refusals listed in shared/reference/zfs-linux-facts.md ("Disk operations") and
the ones the demo host reproduces (libzfs / zpool / zfs wording of 2.1.11 and 2.3.2). None
means "no explanation known": the verbatim text stands alone, nothing is guessed.

Registered with the engine (`engine/refusals.py`), which asks it about every refused command.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from zconsole.services.ops.engine.refusals import register_explainer


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    explain: Callable[[re.Match[str]], str]
    generic: bool = False  # only used when no specific rule matched


def _r(regex: str, text: str | Callable[[re.Match[str]], str], *, generic: bool = False
       ) -> _Rule:
    if callable(text):
        fn = text
    else:
        def fn(_m: re.Match[str], t: str = text) -> str:
            return t
    return _Rule(re.compile(regex, re.IGNORECASE | re.MULTILINE), fn, generic)


RULES: tuple[_Rule, ...] = (
    # --- attach / replace -------------------------------------------------------------------
    _r(r"device is too small",
       "The new disk is smaller than the smallest member of this vdev, counted the way ZFS "
       "counts it: a whole disk loses 1 MiB before partition 1 and an 8 MiB partition 9, so a "
       "\"same size\" disk of another model can be a little too small. Use a larger disk. "
       "Nothing was changed."),
    _r(r"can only attach to mirrors and top-level disks",
       "zpool attach adds a copy to a single-disk vdev or to a mirror. This target is neither "
       "(a raidz member, a spare, a log or a container row such as mirror-0). To replace a "
       "raidz member use replace; on OpenZFS 2.3 raidz expansion attaches to the raidz vdev "
       "itself (raidzP-N). Nothing was changed."),
    _r(r"new device has a different optimal sector size",
       "The new disk's physical sector is larger than the pool's ashift (its sector size, "
       "fixed when the vdev was created). ZFS refuses because writes smaller than the disk's "
       "sector are slow. `-o ashift=N` forces the old sector size at a performance cost; a "
       "disk with matching sectors is the better fix. Nothing was changed."),
    _r(r"already in replacing/spare config",
       "This disk is already being replaced (a replacing-N or spare-N vdev holds it). Wait for "
       "the resilver to end (zpool status shows it), or cancel the replacement by detaching "
       "the new half with zpool detach. Nothing was changed."),
    _r(r"device is reserved as a hot spare",
       "The named disk is one of the pool's hot spares. A spare is put to work with "
       "`zpool replace POOL FAILED SPARE`, and taken out of the spares list with "
       "`zpool remove POOL SPARE`. Nothing was changed."),
    _r(r"device is in use as a cache",
       "The named disk is an L2ARC cache device; cache devices are removed with "
       "`zpool remove`, not attached to or detached. Nothing was changed."),
    _r(r"is busy, or device removal is in progress|^cannot (?:attach|replace) .*: \S+ is busy$",
       "Something holds the new disk open: it is mounted, used as swap, part of an md/dm "
       "device or opened by a program, or a device removal is running in this pool. Find "
       "the user (lsblk, /proc/mounts, /proc/swaps, /sys/class/block/DISK/holders) before "
       "trying again. Nothing was changed."),
    _r(r"is in use and contains a (\w+) filesystem",
       "The new disk is in use: one of its partitions is mounted or used as swap. ZFS refuses "
       "even with -f. Unmount it (or swapoff) only if you are sure it is the wrong disk's "
       "data, or pick another disk. Nothing was changed."),
    _r(r"is part of exported pool '([^']*)'",
       lambda m: (f"The disk carries the label of the exported pool '{m.group(1)}'. ZFS "
                  "protects it in case that pool is still wanted (it could be imported "
                  "again). Overriding with -f destroys that pool's data on this disk: "
                  "zconsole asks for a second, explicit confirmation before adding -f. "
                  "Nothing was changed.")),
    _r(r"is part of potentially active pool '([^']*)'",
       lambda m: (f"The disk carries the label of pool '{m.group(1)}', which another system "
                  "may still be using (it was not exported cleanly). If that pool is really "
                  "gone, -f overrides this: zconsole asks for a second, explicit "
                  "confirmation first. Nothing was changed.")),
    _r(r"is part of active pool '([^']*)'",
       lambda m: (f"The disk belongs to the imported pool '{m.group(1)}'. Not even -f "
                  "overrides this: it would destroy a live pool. Pick another disk. "
                  "Nothing was changed.")),
    _r(r"is reserved as a hot spare for pool '?([^'\s]+)'?",
       lambda m: (f"The disk is a hot spare of pool {m.group(1)}; remove it from that pool's "
                  "spares first (`zpool remove`). Nothing was changed.")),
    _r(r"contains a filesystem of type '([^']*)'",
       lambda m: (f"The disk holds a {m.group(1)} filesystem. Overriding with -f destroys it: "
                  "zconsole asks for a second, explicit confirmation before adding -f. "
                  "Nothing was changed.")),
    _r(r"the following errors must be manually repaired",
       "Even with -f these problems cannot be overridden; they are listed above. Nothing was "
       "changed.", generic=True),
    _r(r"use '-f' to override the following errors",
       "ZFS found something on the new disk that -f can override (listed above). zconsole "
       "adds -f only after a second, explicit confirmation. Nothing was changed.",
       generic=True),
    _r(r"no such device in /dev|must be a full path or shorthand device name",
       "The new disk's path does not exist on this host: it may have been pulled or renamed, "
       "or udev has not created its /dev/disk/by-id link yet (wait a few seconds after "
       "inserting a disk and look again). Nothing was changed."),
    _r(r"no such device in pool",
       "ZFS does not know this device in this pool: it may already have been replaced or "
       "detached (look at zpool status), or it is spelled differently there (use the name or "
       "guid zpool status prints). Nothing was changed."),
    # --- detach / offline / online ---------------------------------------------------------
    _r(r"no valid replicas",
       "Doing this would leave the vdev without a complete copy of its data, so ZFS refuses. "
       "Detach or offline a disk only while another member of the same mirror is ONLINE and "
       "fully resilvered. Nothing was changed."),
    _r(r"only applicable to mirror and replacing vdevs",
       "detach removes one side of a mirror (or of a replacing/spare vdev). This disk is a "
       "vdev on its own or a raidz member: removing it would remove data. Nothing was "
       "changed."),
    _r(r"onlined, but remains in faulted state",
       "ZFS brought the device online but it is still faulted (the disk is missing or "
       "unreadable). Replace it with `zpool replace`. Nothing else was changed."),
    # --- scrub / resilver -----------------------------------------------------------------
    _r(r"currently resilvering",
       "A resilver is running in this pool; a scrub cannot start or be cancelled until it "
       "ends. Nothing was changed."),
    _r(r"currently scrubbing",
       "A scrub is already running. Nothing was changed."),
    _r(r"there is no active scrub",
       "No scrub is running, so there is nothing to cancel or pause. Nothing was changed."),
    # --- pools and datasets ---------------------------------------------------------------
    _r(r"cannot open '([^']*)': no such pool",
       lambda m: (f"No pool named {m.group(1)} is imported on this host (exported, destroyed "
                  "or never created here). Nothing was changed.")),
    _r(r"cannot open '([^']*)': dataset does not exist",
       lambda m: (f"The dataset {m.group(1)} does not exist (renamed or destroyed since the "
                  "plan was made?). Nothing was changed.")),
    _r(r"dataset already exists|destination '?[^']*'? exists",
       "A dataset with the target name already exists; ZFS never overwrites it silently. "
       "Choose another name, or rename/destroy the existing one first. Nothing was changed."),
    _r(r"must specify -F to overwrite",
       "The receiving dataset exists and has changed; zconsole does not force-overwrite it. "
       "Nothing was changed."),
    _r(r"'([^']*)' is readonly",
       lambda m: f"The property {m.group(1)} is read-only: ZFS computes it. Nothing was "
                 "changed."),
    _r(r"invalid property '([^']*)'",
       lambda m: (f"This ZFS version does not know the property {m.group(1)} (it may be "
                  "newer than the installed OpenZFS). Nothing was changed.")),
    _r(r"invalid property value '([^']*)' for '([^']*)'",
       lambda m: f"{m.group(1)} is not an accepted value of {m.group(2)}. Nothing was "
                 "changed."),
    _r(r"snapshot has dependent clones|has dependent clones",
       "Clones depend on it; destroying it would destroy them (-R). Nothing was changed."),
    _r(r"dataset is busy|pool or dataset is busy",
       "The dataset is in use (a mounted filesystem with open files, a running send, or a "
       "held snapshot). Nothing was changed."),
    _r(r"pool I/O is currently suspended",
       "The pool has stopped all I/O after a failure (failmode=wait): fix the disks or "
       "cabling, then `zpool clear` it. Nothing could be changed."),
    _r(r"labelclear operation failed.*\n?.*member \(ACTIVE\)",
       "The disk belongs to an imported pool; its label cannot be cleared while the pool "
       "uses it. Nothing was changed."),
    _r(r"is a member of exported pool \"?([^\"\n]*)\"?",
       lambda m: (f"The disk carries the label of the exported pool {m.group(1)}; clearing it "
                  "needs -f, after a second, explicit confirmation. Nothing was changed.")),
    # --- tools and permissions -------------------------------------------------------------
    _r(r"permission denied|must be (run as )?(superuser|root)|operation not permitted|"
       r"insufficient privileges",
       "zconsole is not allowed to do this: run it as root (or with the ZFS delegation "
       "this command needs). Nothing was changed."),
    _r(r"^unrecognized command|^invalid option|^missing .* argument|^usage:",
       "The command was not accepted as written (an option this OpenZFS version does not "
       "know, or a missing argument): a zconsole plan bug or an older OpenZFS. Nothing was "
       "changed.", generic=True),
)


@register_explainer
def explain(stderr: str) -> str | None:
    """What ZFS's refusal means and what to do; None when zconsole has no explanation."""
    if not stderr or not stderr.strip():
        return None
    specific: list[str] = []
    generic: list[str] = []
    for rule in RULES:
        m = rule.pattern.search(stderr)
        if m is None:
            continue
        text = rule.explain(m)
        bucket = generic if rule.generic else specific
        if text not in bucket:
            bucket.append(text)
    chosen = specific or generic
    if not chosen:
        return None
    return " ".join(chosen)
