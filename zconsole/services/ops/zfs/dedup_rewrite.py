"""The rewrite part of dedup-off: copy a dataset (with its children and snapshots) without
dedup and put the copy in its place, keeping the old copy.

    zfs set readonly=on DS                      stop writes
    zfs snapshot -r DS@zconsole-rewrite-DATE    the point the copy is made from
    zfs send -R DS@… | zfs receive -u -o dedup=off -x readonly DS.zconsole-dedup-new
                                                a replication stream: every descendant and
                                                every snapshot up to @…, with properties
    zfs set mountpoint=none zconsole:dedup-old-of=DS DS [children]   (volumes: volmode=none)
    zfs rename DS DS.zconsole-dedup-old-DATE    the old copy steps aside, readonly, unmounted
    zfs rename DS.zconsole-dedup-new DS         the copy takes the name
    zfs mount DS [children that were mounted]

The old copy is never destroyed here: `dedup_cleanup.py` (kind dedup-off-cleanup) is the
separate plan for that, once the operator says the copy works.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.model.command import Command
from zconsole.model.dataset import Dataset
from zconsole.model.plan import Check, CheckLevel, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.services import fmt
from zconsole.services.ops.zfs.guards import passed

SNAPSHOT_PREFIX = "zconsole-rewrite-"
NEW_SUFFIX = ".zconsole-dedup-new"
OLD_INFIX = ".zconsole-dedup-old-"
MARKER = "zconsole:dedup-old-of"  # user property on the old copy: the name of its new copy

REWRITE_SPACE = "rewrite-space"
REWRITE_NESTED = "rewrite-nested"
REWRITE_NAMES = "rewrite-names"
REWRITE_CLONES = "rewrite-clones"
REWRITE_SNAPSHOTS = "rewrite-snapshots"
REWRITE_WRITERS = "rewrite-writers"
REWRITE_KEPT = "rewrite-kept"
REWRITE_STATE = "rewrite-state"


def old_copies(reading: HostReading | None, pool: str | None = None) -> list[str]:
    """The old copies earlier rewrites kept (named DS.zconsole-dedup-old-DATE), in `pool`."""
    if reading is None or reading.datasets.value is None:
        return []
    return [d.name for d in reading.datasets.value
            if d.type in ("filesystem", "volume") and OLD_INFIX in d.name.rsplit("/", 1)[-1]
            and (pool is None or d.name.split("/", 1)[0] == pool)]


def stamp(created: float) -> str:
    """The date in the names of the rewrite's snapshot and old copy (UTC, YYYYMMDD)."""
    return time.strftime("%Y%m%d", time.gmtime(created))


def old_name(ds: str, created: float) -> str:
    return f"{ds}{OLD_INFIX}{stamp(created)}"


@dataclass(frozen=True)
class Tree:
    """`ds` and its descendants as the reading lists them, parents first."""

    top: str
    members: tuple[Dataset, ...]

    def of_type(self, kind: str) -> list[str]:
        return [d.name for d in self.members if d.type == kind]

    def inside(self, name: str) -> bool:
        return name == self.top or name.startswith(self.top + "/")


def tree(reading: HostReading | None, ds: str, kind: str | None) -> Tree:
    """`ds`'s tree from the reading; `ds` alone (of `kind`) when the reading lacks it."""
    found = [] if reading is None or reading.datasets.value is None else [
        d for d in reading.datasets.value if d.type in ("filesystem", "volume")
        and (d.name == ds or d.name.startswith(ds + "/"))]
    found.sort(key=lambda d: (d.name.count("/"), d.name))
    if not found or found[0].name != ds:
        found.insert(0, Dataset(ds, kind or "filesystem"))
    return Tree(ds, tuple(found))


@dataclass(frozen=True)
class TreeState:
    """What the plan reads of `ds`'s tree beyond the reading: which filesystems are mounted
    (mounted again after the swap) and which datasets are encrypted."""

    mounted: Mapping[str, bool]
    encrypted: tuple[str, ...]


def read_state(host: Host, ds: str) -> TreeState | None:
    """`zfs get mounted,encryption` of `ds`'s tree (None: could not be read)."""
    argv = ["zfs", "get", "-H", "-p", "-r", "-t", "filesystem,volume", "mounted,encryption",
            ds]
    try:
        rows = parse_get(host.run(argv).stdout)
    except (HostError, ParseError):
        return None
    return TreeState({r.name: r.value == "yes" for r in rows if r.property == "mounted"},
                     tuple(r.name for r in rows if r.property == "encryption"
                           and r.value not in ("off", "-")))


def _set(props: Sequence[str], targets: Sequence[str], why: str) -> Command:
    return Command(("zfs", "set", *props, *targets), why, writes=True)


def _park_steps(t: Tree, i: int) -> list[Step]:
    """Unmount the old copy for good (filesystems: mountpoint=none) and hide its volumes
    (volmode=none), marking its top with the name of the copy that replaces it."""
    ds, steps = t.top, []
    top_is_fs = any(d.type == "filesystem" for d in t.members[:1])
    fss, vols = t.of_type("filesystem"), t.of_type("volume")
    mark = f"{MARKER}={ds}"
    if fss:
        steps.append(Step(
            id=f"rewrite-{i}-unmount-old", title=f"Unmount the old {ds} for good",
            explanation=("mountpoint=none unmounts the old copy's filesystems and keeps them "
                         "from mounting again at boot, where the copy will be (it fails if a "
                         "process still has files open there). The copy already carries the "
                         f"mountpoints. {MARKER} marks {ds} as the old copy."),
            command=_set(("mountpoint=none", mark) if top_is_fs else ("mountpoint=none",),
                         fss, f"unmount the old copy of {ds}"),
            postchecks=(predicate("tree_unmounted", f"no filesystem of {ds} is mounted",
                                     dataset=ds),)))
    if vols:
        steps.append(Step(
            id=f"rewrite-{i}-hide-old", title=f"Hide the volumes of the old {ds}",
            explanation=("volmode=none removes the old copy's /dev/zvol devices, so no VM, "
                         "LVM or udev scan finds two disks with the same content."),
            command=_set(("volmode=none",) if top_is_fs else ("volmode=none", mark), vols,
                         f"hide the old copy's volumes of {ds}"),
            postchecks=tuple(predicate("dataset_property", f"{v} has volmode=none",
                                       dataset=v, property="volmode", value="none")
                             for v in vols[:3])))
    return steps


def rewrite_steps(t: Tree, i: int, created: float, state: TreeState | None) -> list[Step]:
    ds = t.top
    snap = f"{ds}@{SNAPSHOT_PREFIX}{stamp(created)}"
    new, old = ds + NEW_SUFFIX, old_name(ds, created)
    readonly = predicate("dataset_property", f"{ds} is read-only", dataset=ds,
                         property="readonly", value="on")
    steps = [
        Step(id=f"rewrite-{i}-readonly", title=f"Stop writes to {ds}",
             explanation=(f"readonly=on makes every later write to {ds} (and its children) "
                          "fail, so nothing written after the snapshot is lost."),
             command=_set(("readonly=on",), (ds,), f"stop writes to {ds}"),
             # the names the rewrite takes are still free: checked before anything changes
             prechecks=tuple(predicate("dataset_absent", f"{n} does not exist yet", dataset=n)
                             for n in (snap, new, old)),
             postchecks=(readonly,)),
        Step(id=f"rewrite-{i}-snapshot", title=f"Snapshot {ds} and its children",
             explanation="The copy is made from this snapshot (-r: in every child too).",
             command=Command(("zfs", "snapshot", "-r", snap), f"snapshot {ds} for the copy",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{snap} exists", dataset=snap,
                                   property="type", value="snapshot"),)),
        Step(id=f"rewrite-{i}-copy", title=f"Copy {ds} to {new} without dedup",
             explanation=("zfs send -R sends a replication stream: every child and every "
                          "snapshot up to the new one, with their properties; zfs receive "
                          "writes each block again, and with -o dedup=off (inherited by the "
                          "children) none enters the dedup table. -x readonly: the copy "
                          "is writable like the dataset was; -u: not mounted until the swap."),
             command=Command(("zfs", "send", "-R", snap),
                             f"rewrite {ds} into {new} without dedup", writes=True,
                             then=(("zfs", "receive", "-u", "-o", "dedup=off", "-x",
                                    "readonly", new),)),
             prechecks=(readonly,),
             postchecks=(predicate("dataset_property", f"{new} has dedup=off", dataset=new,
                                   property="dedup", value="off"),
                         predicate("snapshots_copied", f"{new} has every snapshot of {ds}",
                                      source=ds, copy=new))),
        *_park_steps(t, i),
        Step(id=f"rewrite-{i}-rename-old", title=f"Rename {ds} to {old}",
             explanation=("The old copy steps aside with its snapshots, read-only and "
                          "unmounted; it is kept."),
             command=Command(("zfs", "rename", ds, old), f"move {ds} aside", writes=True),
             postchecks=(predicate("dataset_property", f"{old} is read-only", dataset=old,
                                   property="readonly", value="on"),
                         predicate("tree_unmounted", f"no filesystem of {old} is mounted",
                                      dataset=old))),
        Step(id=f"rewrite-{i}-rename-new", title=f"Rename {new} to {ds}",
             explanation=f"The rewritten copy takes the name {ds}.",
             command=Command(("zfs", "rename", new, ds), f"put the copy in place of {ds}",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{ds} is the copy without dedup",
                                   dataset=ds, property="dedup", value="off"),
                         predicate("snapshots_copied", f"{ds} has every snapshot of {old}",
                                      source=old, copy=ds))),
    ]
    steps += _mount_steps(t, i, None if state is None else state.mounted)
    return steps


def _mount_steps(t: Tree, i: int, mounted: Mapping[str, bool] | None) -> list[Step]:
    """Mount the copy's filesystems that were mounted before (all but unmountable ones when
    that could not be read)."""
    out = []
    for n, fs in enumerate(t.of_type("filesystem")):
        d = next(m for m in t.members if m.name == fs)
        if (mounted.get(fs, False) if mounted is not None
                else d.mountpoint not in ("none", "legacy", "-", None)):
            out.append(Step(
                id=f"rewrite-{i}-mount-{n}", title=f"Mount {fs}",
                explanation="The copy is mounted where the old dataset was.",
                command=Command(("zfs", "mount", fs), f"mount {fs}", writes=True),
                postchecks=(predicate("dataset_property", f"{fs} is mounted", dataset=fs,
                                      property="mounted", value="yes"),)))
    return out


def rewrite_checks(reading: HostReading | None, t: Tree, kind: str | None, need: int | None,
                   created: float, others: Sequence[str], state: TreeState | None
                   ) -> list[Check]:
    """What must hold to rewrite `t.top`, and what does not travel with the copy."""
    ds = t.top
    checks: list[Check] = []
    if state is None:
        checks.append(Check(REWRITE_STATE, False, CheckLevel.WARN,
                            f"Which filesystems of {ds} are mounted, and whether it is "
                            "encrypted, could not be read: the copy's filesystems are mounted "
                            "where a mountpoint is set."))
    elif state.encrypted:
        checks.append(Check(REWRITE_STATE, False, CheckLevel.BLOCK,
                            f"{', '.join(state.encrypted[:5])} is encrypted: zfs send -R of an "
                            "encrypted dataset needs a raw stream (-w), which keeps the blocks "
                            "as they are; zconsole does not rewrite encrypted datasets."))
    nested = [o for o in others if o != ds and (o.startswith(ds + "/") or ds.startswith(o + "/"))]
    if nested:
        checks.append(Check(REWRITE_NESTED, False, CheckLevel.BLOCK,
                            f"{ds} and {', '.join(nested)} are in one tree: rewrite the top "
                            "one only (zfs send -R carries the children)."))
    names = {d.name for d in reading.datasets.value or ()} if reading is not None else set()
    taken = [n for n in (ds + NEW_SUFFIX, old_name(ds, created)) if n in names]
    if taken:
        checks.append(Check(REWRITE_NAMES, False, CheckLevel.BLOCK,
                            f"{', '.join(taken)} already exists: a rewrite of {ds} ran "
                            "before (clean it up first)."))
    checks += _clone_checks(reading, t)
    checks.append(_space_check(reading, ds, need))
    checks.append(Check(REWRITE_WRITERS, False, CheckLevel.WARN,
                        f"Stop every writer of {ds} first ("
                        + ("VMs using /dev/zvol/" + ds + ": the device is replaced"
                           if kind == "volume" else "applications, shares")
                        + "): from the first rewrite step it is read-only until the swap."))
    checks.append(Check(REWRITE_SNAPSHOTS, False, CheckLevel.WARN,
                        f"zfs send -R carries {ds}"
                        + (f", its {len(t.members) - 1} child dataset(s)" if len(t.members) > 1
                           else "")
                        + " and every snapshot; what does not travel: bookmarks, holds "
                        "(zfs holds), snapshots taken after the copy, and clones of its "
                        "snapshots outside the tree (they stay attached to the old copy). "
                        "The copy's properties show source 'received' where they were set."))
    checks.append(passed(REWRITE_KEPT,
                         f"The old copy is kept as {old_name(ds, created)} (read-only, "
                         "unmounted, every snapshot): the dedup table shrinks only when it is "
                         "destroyed, by a separate plan once the copy works: zconsole plan "
                         f"dedup-off-cleanup {ds.split('/', 1)[0]} {old_name(ds, created)}"))
    return checks


def _clone_checks(reading: HostReading | None, t: Tree) -> list[Check]:
    if reading is None or reading.datasets.value is None:
        return []
    out: list[Check] = []
    outside = [d.name for d in reading.datasets.value if d.origin and not t.inside(d.name)
               and t.inside(d.origin.split("@", 1)[0])]
    if outside:
        out.append(Check(REWRITE_CLONES, False, CheckLevel.WARN,
                         f"Clones of snapshots of {t.top} ({', '.join(outside[:5])}) stay "
                         "clones of the old copy: it cannot be destroyed while they exist."))
    inner = [d.name for d in t.members if d.origin and not t.inside(d.origin.split("@", 1)[0])]
    if inner:
        out.append(Check(REWRITE_CLONES, False, CheckLevel.BLOCK,
                         f"{', '.join(inner[:5])} in {t.top} is a clone of a snapshot outside "
                         "it: zfs send -R cannot keep it a clone. Promote it first (zfs "
                         "promote) or rewrite it alone."))
    return out


def _space_check(reading: HostReading | None, ds: str, need: int | None) -> Check:
    avail = None
    if reading is not None and reading.datasets.value is not None:
        parent = ds.rsplit("/", 1)[0] if "/" in ds else ds
        avail = next((d.avail for d in reading.datasets.value if d.name == parent), None)
    if need is None or avail is None:
        return Check(REWRITE_SPACE, False, CheckLevel.WARN,
                     f"Free space for the copy of {ds} could not be checked.")
    if avail < need:
        return Check(REWRITE_SPACE, False, CheckLevel.BLOCK,
                     f"The copy of {ds} (children and snapshots) needs at least "
                     f"{fmt.size(need)} without dedup; only {fmt.size(avail)} is available.")
    return passed(REWRITE_SPACE,
                  f"The copy of {ds} (children and snapshots) needs at least {fmt.size(need)} "
                  f"(more when blocks were shared by dedup); {fmt.size(avail)} is available, "
                  "and the old copy keeps its space until it is destroyed.")
