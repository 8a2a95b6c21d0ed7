"""Dedup off: `zfs set dedup=off` on the chosen datasets (those inheriting follow), and
optionally rewrite some of them so the dedup table shrinks: stop writes, snapshot, send/receive
into a copy without dedup, swap the names, destroy the old copy. The table is shown at the end.

Registered as "dedup-off" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.DedupOffFlow` (answers: `pool`, `datasets` and `rewrite`, newline-joined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs.common import Draft, lines, when
from zconsole.services.read.collect import collect
from zconsole.services.read.dedup import DedupReport, followers, read_dedup, roots

REWRITE_SNAPSHOT = "zconsole-rewrite"
NEW_SUFFIX = ".nodedup"
OLD_SUFFIX = ".dedup-old"

# Check names added here.
NO_DEDUP = "no-dedup"
DEDUP_EXISTING = "existing-blocks"
REWRITE_SPACE = "rewrite-space"
REWRITE_CHILDREN = "rewrite-children"
REWRITE_CLONES = "rewrite-clones"
REWRITE_SNAPSHOTS = "rewrite-snapshots"
REWRITE_WRITERS = "rewrite-writers"


def _children(reading: HostReading | None, name: str) -> list[str]:
    if reading is None or reading.datasets.value is None:
        return []
    return [d.name for d in reading.datasets.value if d.name.startswith(name + "/")]


def _clones_of(reading: HostReading | None, name: str) -> list[str]:
    if reading is None or reading.datasets.value is None:
        return []
    return [d.name for d in reading.datasets.value
            if d.origin and d.origin.split("@", 1)[0] == name]


def _available(reading: HostReading | None, name: str) -> int | None:
    if reading is None or reading.datasets.value is None:
        return None
    parent = name.rsplit("/", 1)[0] if "/" in name else name
    for d in reading.datasets.value:
        if d.name == parent:
            return d.avail
    return None


def _rewrite_steps(pool: str, ds: str, kind: str | None, i: int) -> list[Step]:
    snap = f"{ds}@{REWRITE_SNAPSHOT}"
    new = ds + NEW_SUFFIX
    old = ds + OLD_SUFFIX
    fs = kind != "volume"
    steps = [
        Step(id=f"rewrite-{i}-readonly", title=f"Stop writes to {ds}",
             explanation=(f"readonly=on makes every later write to {ds} fail, so nothing "
                          "written after the snapshot is lost when the copy takes its place."),
             command=Command(("zfs", "set", "readonly=on", ds), f"stop writes to {ds}",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{ds} is read-only", dataset=ds,
                                   property="readonly", value="on"),)),
        Step(id=f"rewrite-{i}-snapshot", title=f"Snapshot {ds}",
             explanation="The copy is made from this snapshot.",
             command=Command(("zfs", "snapshot", snap), f"snapshot {ds} for the copy",
                             writes=True),
             postchecks=(predicate("dataset_property", f"{snap} exists", dataset=snap,
                                   property="type", value="snapshot"),)),
        Step(id=f"rewrite-{i}-copy", title=f"Copy {ds} to {new} without dedup",
             explanation=("zfs send writes every block again through zfs receive; with "
                          "dedup=off on the receiving side none of them enters the dedup "
                          "table. -p keeps the dataset's own properties; -u leaves the copy "
                          "unmounted until the swap."),
             command=Command(("zfs", "send", "-p", snap),
                             f"rewrite {ds} into {new} without dedup", writes=True,
                             then=(("zfs", "receive", "-u", "-o", "dedup=off", "-o",
                                    "readonly=off", new),)),
             prechecks=(predicate("dataset_property", f"{ds} is read-only", dataset=ds,
                                  property="readonly", value="on"),),
             postchecks=(predicate("dataset_property", f"{new} has dedup=off", dataset=new,
                                   property="dedup", value="off"),)),
        Step(id=f"rewrite-{i}-rename-old", title=f"Rename {ds} to {old}",
             explanation="The old copy steps aside; it is destroyed at the end.",
             command=Command(("zfs", "rename", ds, old), f"move {ds} aside", writes=True),
             postchecks=(predicate("dataset_property", f"{old} exists", dataset=old,
                                   property="readonly", value="on"),)),
    ]
    if fs:
        steps.append(Step(
            id=f"rewrite-{i}-unmount-old", title=f"Unmount {old} for good",
            explanation=("mountpoint=none unmounts the old copy and keeps it from mounting "
                         "again (it fails if a process still has files open there)."),
            command=Command(("zfs", "set", "mountpoint=none", old), f"unmount {old}",
                            writes=True),
            postchecks=(predicate("dataset_property", f"{old} is not mounted", dataset=old,
                                  property="mounted", value="no"),)))
    steps.append(Step(
        id=f"rewrite-{i}-rename-new", title=f"Rename {new} to {ds}",
        explanation=f"The rewritten copy takes the name {ds}.",
        command=Command(("zfs", "rename", new, ds), f"put the copy in place of {ds}",
                        writes=True),
        postchecks=(predicate("dataset_property", f"{ds} is the copy without dedup",
                              dataset=ds, property="dedup", value="off"),)))
    if fs:
        steps.append(Step(
            id=f"rewrite-{i}-mount", title=f"Mount {ds}",
            explanation="The copy is mounted where the old dataset was.",
            command=Command(("zfs", "mount", ds), f"mount {ds}", writes=True),
            postchecks=(predicate("dataset_property", f"{ds} is mounted", dataset=ds,
                                  property="mounted", value="yes"),)))
    steps.append(Step(
        id=f"rewrite-{i}-destroy-old", title=f"Destroy {old} and its snapshots",
        explanation=("This frees the old, deduplicated blocks; the dedup table shrinks as "
                     "ZFS processes the frees (in the background, `zpool get freeing`). "
                     "The old snapshots go with it: that history is gone."),
        command=Command(("zfs", "destroy", "-r", old), f"destroy the old copy of {ds}",
                        writes=True),
        prechecks=(predicate("dataset_property", f"{ds} is the copy without dedup",
                             dataset=ds, property="dedup", value="off"),),
        confirmation=Confirmation(f"Destroying {old} deletes the old copy of {ds} and all its "
                                  f"snapshots. Type the dataset name ({ds}) to go on:", ds)))
    return steps


def build_dedup_off(report: DedupReport, datasets: Sequence[str] | None = None, *,
                    rewrite: Sequence[str] = (), reading: HostReading | None = None,
                    host: str | None = None, plan_id: str | None = None,
                    now: float | None = None) -> Plan:
    """Turn dedup off for `datasets` (default: every dataset where it is set), optionally
    rewriting some of them (send/receive into a copy, swap, destroy the old) so the table
    shrinks, and show the table at the end."""
    pool = report.pool
    draft = Draft("dedup-off", f"Turn dedup off on {pool}",
                  host or (reading.host if reading is not None else ""), pool,
                  created=when(reading, now), plan_id=plan_id)
    try:
        chosen = roots(report, datasets)
    except ValueError as e:
        return draft.blocked(str(e), name=NO_DEDUP)
    if not chosen:
        return draft.plan(preview=report.lines(),
                          checks=(Check(NO_DEDUP, False, CheckLevel.BLOCK,
                                        f"No dataset of {pool} has dedup on: nothing to turn "
                                        "off."),))
    checks: list[Check] = [Check(DEDUP_EXISTING, False, CheckLevel.WARN,
                                 "dedup=off affects NEW writes only: every block already "
                                 "written deduplicated keeps its table entry until it is freed "
                                 "or rewritten, and snapshots keep those blocks alive. The "
                                 "table (and its RAM) shrinks only by rewriting the data.")]
    steps: list[Step] = []
    for d in chosen:
        steps.append(_dedup_off_step(report, d.name, len(steps) + 1))
    for i, name in enumerate(rewrite, 1):
        rd = report.dataset(name)
        if rd is None:
            checks.append(Check(NO_DEDUP, False, CheckLevel.BLOCK,
                                f"{name} does not have dedup on: nothing to rewrite."))
            continue
        checks += _rewrite_checks(reading, name, rd.kind, rd.referenced)
        steps.extend(_rewrite_steps(pool, name, rd.kind, i))
    steps.append(_show_ddt_step(report))
    params = (("datasets", ",".join(d.name for d in chosen)), ("rewrite", ",".join(rewrite)),
              ("ddt_entries_before", "" if report.entries is None else str(report.entries)),
              ("ddt_core_bytes_before", "" if report.ram_bytes is None
               else str(report.ram_bytes)))
    return draft.plan(preview=report.lines(), checks=checks, steps=steps, params=params)


def _dedup_off_step(report: DedupReport, name: str, n: int) -> Step:
    follow = followers(report, name)
    also = (f" {len(follow)} dataset(s) inheriting from it follow: "
            + ", ".join(f.name for f in follow) + ".") if follow else ""
    post = [predicate("dataset_property", f"{name} has dedup=off", dataset=name,
                      property="dedup", value="off")]
    post += [predicate("dataset_property", f"{f.name} has dedup=off (inherited)",
                       dataset=f.name, property="dedup", value="off") for f in follow]
    return Step(
        id=f"dedup-off-{n}",
        title=f"dedup=off on {name}",
        explanation=f"New writes to {name} are no longer deduplicated.{also}",
        command=Command(("zfs", "set", "dedup=off", name), f"dedup off for {name}",
                        writes=True),
        postchecks=tuple(post),
    )


def _rewrite_checks(reading: HostReading | None, name: str, kind: str | None,
                    need: int | None) -> list[Check]:
    """What must hold to rewrite `name`: no children or clones, room for the copy, no
    writers; and what is lost (its snapshots)."""
    checks: list[Check] = []
    kids = _children(reading, name)
    if kids:
        checks.append(Check(REWRITE_CHILDREN, False, CheckLevel.BLOCK,
                            f"{name} has child datasets ({', '.join(kids[:5])}"
                            f"{', ...' if len(kids) > 5 else ''}): renaming it would move "
                            "them too. Rewrite each child instead."))
    clones = _clones_of(reading, name)
    if clones:
        checks.append(Check(REWRITE_CLONES, False, CheckLevel.BLOCK,
                            f"Clones depend on snapshots of {name} ({', '.join(clones)}):"
                            " the old copy could not be destroyed without them."))
    avail = _available(reading, name)
    if need is None or avail is None:
        checks.append(Check(REWRITE_SPACE, False, CheckLevel.WARN,
                            f"Free space for the copy of {name} could not be checked."))
    elif avail < need:
        checks.append(Check(REWRITE_SPACE, False, CheckLevel.BLOCK,
                            f"The copy of {name} needs about {fmt.size(need)} without "
                            f"dedup; only {fmt.size(avail)} is available."))
    else:
        checks.append(Check(REWRITE_SPACE, True, CheckLevel.INFO,
                            f"The copy of {name} needs about {fmt.size(need)}; "
                            f"{fmt.size(avail)} is available."))
    checks.append(Check(REWRITE_WRITERS, False, CheckLevel.WARN,
                        f"Stop every writer of {name} first ("
                        + ("VMs using /dev/zvol/" + name + ": the device is replaced"
                           if kind == "volume" else "applications, shares")
                        + "): from the first rewrite step it is read-only until the swap."))
    checks.append(Check(REWRITE_SNAPSHOTS, False, CheckLevel.WARN,
                        f"The snapshots of {name} stay with the old copy and are destroyed "
                        f"with it; the copy starts with one snapshot, @{REWRITE_SNAPSHOT}."))
    return checks


def _show_ddt_step(report: DedupReport) -> Step:
    pool = report.pool
    return Step(
        id="show-ddt",
        title=f"Show the dedup table of {pool} now",
        explanation=(f"Before: {report.entries:,} entries" if report.entries is not None
                     else "Before: unknown") + (
            f", {fmt.size(report.ram_bytes)} in core" if report.ram_bytes is not None
            else "") + ". Freed blocks leave the table as ZFS processes the frees.",
        command=Command(("zpool", "status", "-D", pool), f"the dedup table of {pool}",
                        writes=False),
    )


def _read(host: Host, pool: str) -> tuple[HostReading, DedupReport]:
    reading = collect(host)
    return reading, read_dedup(host, pool, zfs=reading.zfs)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan dedup-off POOL [DATASET...] [--rewrite DATASET]...`."""
    reading, report = _read(host, req.pool)
    return build_dedup_off(report, list(req.args) or None, rewrite=req.texts("rewrite"),
                           reading=reading)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    reading, report = _read(host, answers["pool"])
    datasets = lines(answers.get("datasets", ""))
    return build_dedup_off(report, datasets or None, rewrite=lines(answers.get("rewrite", "")),
                           reading=reading)
