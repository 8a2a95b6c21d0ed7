"""Dedup off: `zfs set dedup=off` on the chosen datasets (those inheriting follow), and
optionally rewrite some of them (`dedup_rewrite.py`): stop writes, snapshot, send -R/receive
into a copy without dedup that carries every snapshot, swap the names, keep the old copy
read-only and unmounted. The table is shown at the end. Destroying the old copy is a
separate plan, `dedup_cleanup.py` (kind dedup-off-cleanup), never part of this one.

Registered as "dedup-off" in `services.ops.registry`; the wizard's flow is
`ui.wizards.flows.DedupOffFlow` (answers: `pool`, `datasets` and `rewrite`, newline-joined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Plan, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import dedup_cleanup
from zconsole.services.ops.zfs import dedup_rewrite as rw
from zconsole.services.ops.zfs.common import Draft, lines, when
from zconsole.services.read.collect import collect
from zconsole.services.read.dedup import DedupReport, followers, read_dedup, roots

# Check names added here (the rewrite's are in dedup_rewrite).
NO_DEDUP = "no-dedup"
DEDUP_EXISTING = "existing-blocks"


def build_dedup_off(report: DedupReport, datasets: Sequence[str] | None = None, *,
                    rewrite: Sequence[str] = (), reading: HostReading | None = None,
                    host: str | None = None, plan_id: str | None = None,
                    now: float | None = None,
                    state: Mapping[str, rw.TreeState | None] | None = None) -> Plan:
    """Turn dedup off for `datasets` (default: every dataset where it is set), optionally
    rewriting some of them (send -R/receive into a copy with every snapshot, swap the names,
    keep the old copy read-only and unmounted), and show the table at the end. `state`: per
    rewritten dataset, which filesystems of its tree are mounted (mounted again after the
    swap) and which are encrypted (refused); None when it was not read."""
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
        t = rw.tree(reading, name, rd.kind)
        seen = (state or {}).get(name)
        checks += rw.rewrite_checks(reading, t, rd.kind, rd.used, draft.created, rewrite, seen)
        steps.extend(rw.rewrite_steps(t, i, draft.created, seen))
    steps.append(_show_ddt_step(report, bool(rewrite)))
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


def _show_ddt_step(report: DedupReport, rewritten: bool) -> Step:
    pool = report.pool
    after = (" The table keeps the old copies' entries until dedup-off-cleanup destroys "
             "them." if rewritten else " Nothing is freed: the table does not shrink yet.")
    return Step(
        id="show-ddt",
        title=f"Show the dedup table of {pool} now",
        explanation=(f"Before: {report.entries:,} entries" if report.entries is not None
                     else "Before: unknown") + (
            f", {fmt.size(report.ram_bytes)} in core" if report.ram_bytes is not None
            else "") + "." + after,
        command=Command(("zpool", "status", "-D", pool), f"the dedup table of {pool}",
                        writes=False),
    )


def _read(host: Host, pool: str) -> tuple[HostReading, DedupReport]:
    reading = collect(host)
    return reading, read_dedup(host, pool, zfs=reading.zfs)


def _plan(host: Host, pool: str, datasets: Sequence[str], rewrite: Sequence[str]) -> Plan:
    reading, report = _read(host, pool)
    state = {name: rw.read_state(host, name) for name in rewrite}
    return build_dedup_off(report, list(datasets) or None, rewrite=rewrite, reading=reading,
                           state=state)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan dedup-off POOL [DATASET...] [--rewrite DATASET]...`."""
    return _plan(host, req.pool, req.args, req.texts("rewrite"))


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    """The wizard's plan; when it chose to destroy an old copy (`cleanup`), that plan
    (kind dedup-off-cleanup) and nothing else."""
    if answers.get("cleanup"):
        return dedup_cleanup.plan_for(host, answers["pool"], answers["cleanup"])
    return _plan(host, answers["pool"], lines(answers.get("datasets", "")),
                 lines(answers.get("rewrite", "")))
