"""dedup-off-cleanup: destroy the old copy a dedup-off rewrite kept, once the operator says the
new copy works. A plan of its own, never part of the rewrite and never a default.

    zconsole plan dedup-off-cleanup POOL DS.zconsole-dedup-old-DATE

It refuses a dataset the rewrite did not mark (`zconsole:dedup-old-of`), and right before
`zfs destroy -r` it checks again that the copy still has dedup=off and every dataset and
snapshot of the old copy (`snapshots_copied`) and that no snapshot of it is held
(`no_holds`: with a hold, `zfs destroy -r` fails partway, after destroying the rest of the
tree, as the OpenZFS 2.3 guest showed); clones of the old copy's snapshots block it
(`zfs destroy -r` would refuse, and `-R` would destroy them: zconsole never does).

Registered as "dedup-off-cleanup" in `services.ops.registry`; the console offers it in the
dedup-off wizard (`ui.wizards.flows.DedupOffFlow`, answer `cleanup`) when old copies exist.
"""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.hosts.base import Host, HostError
from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Step, predicate
from zconsole.model.reading import HostReading
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs.common import Draft, when
from zconsole.services.ops.zfs.dedup_predicates import held_snapshots
from zconsole.services.ops.zfs.dedup_rewrite import MARKER, OLD_INFIX, Tree, tree
from zconsole.services.ops.zfs.guards import passed
from zconsole.services.read.collect import collect

KIND = "dedup-off-cleanup"
NOT_OLD = "not-an-old-copy"
OLD_CLONES = "old-copy-clones"
OLD_HOLDS = "old-copy-holds"
KEEPS = "old-copy-history"


def _marker(host: Host, old: str) -> str | None:
    """The old copy's `zconsole:dedup-old-of` ("" when unset, None when unreadable)."""
    try:
        rows = parse_get(host.run(["zfs", "get", "-H", "-p", MARKER, old]).stdout)
    except (HostError, ParseError):
        return None
    return next((r.value for r in rows if r.name == old), None)


def build_cleanup(reading: HostReading, pool: str, old: str, marker: str | None, *,
                  held: Sequence[str] | None = (), plan_id: str | None = None,
                  now: float | None = None) -> Plan:
    """Destroy `old` (and its children and snapshots), the copy a rewrite kept, whose
    replacement is `marker`; `held`: its snapshots with user holds (None: unread)."""
    draft = Draft(KIND, f"Destroy the old copy {old}", reading.host, pool,
                  created=when(reading, now), plan_id=plan_id)
    names = {d.name for d in reading.datasets.value or ()}
    if old not in names:
        return draft.blocked(f"{old} does not exist on {reading.host}.", name=NOT_OLD)
    new = marker or ""
    if (OLD_INFIX not in old or not new or new == "-" or new not in names
            or not old.startswith(new + OLD_INFIX)):
        return draft.blocked(
            f"{old} is not an old copy kept by a dedup-off rewrite ({MARKER} is "
            f"{'unset' if marker in (None, '', '-') else marker}): zconsole destroys only "
            "those.", name=NOT_OLD)
    t = tree(reading, old, None)
    checks = [*_clone_checks(reading, t), _holds_check(old, held),
              Check(KEEPS, False, CheckLevel.WARN,
                    f"zfs destroy -r {old} deletes it, its {len(t.members) - 1} child "
                    "dataset(s) and their snapshots. Everything it holds is in "
                    f"{new} (checked again right before), except what zfs send -R does not "
                    "carry: bookmarks and snapshots taken on it after the rewrite. Do this "
                    f"only when {new} works.")]
    same = predicate("snapshots_copied", f"{new} still has every snapshot of {old}",
                     source=old, copy=new)
    steps = (
        Step(id="destroy-old", title=f"Destroy {old}",
             explanation=("This frees the old, deduplicated blocks; the dedup table shrinks "
                          "as ZFS processes the frees (in the background, "
                          "`zpool get freeing`)."),
             command=Command(("zfs", "destroy", "-r", old), f"destroy the old copy of {new}",
                             writes=True),
             prechecks=(predicate("dataset_property", f"{old} is the old copy of {new}",
                                  dataset=old, property=MARKER, value=new),
                        predicate("dataset_property", f"{new} has dedup=off", dataset=new,
                                  property="dedup", value="off"),
                        same,
                        predicate("no_holds", f"no snapshot of {old} is held", dataset=old)),
             postchecks=(predicate("dataset_absent", f"{old} is gone", dataset=old),),
             confirmation=Confirmation(f"Destroying {old} deletes the old copy of {new} and "
                                       f"all its snapshots. Type its name ({old}) to go on:",
                                       old)),
        Step(id="show-ddt", title=f"Show the dedup table of {pool} now",
             explanation="Freed blocks leave the table as ZFS processes the frees.",
             command=Command(("zpool", "status", "-D", pool), f"the dedup table of {pool}",
                             writes=False)),
    )
    return draft.plan(checks=checks, steps=steps, params=(("old", old), ("new", new)))


def _holds_check(old: str, held: Sequence[str] | None) -> Check:
    if held is None:
        return Check(OLD_HOLDS, False, CheckLevel.WARN,
                     f"The holds on {old}'s snapshots could not be read; they are checked "
                     "again right before the destroy.")
    if held:
        return Check(OLD_HOLDS, False, CheckLevel.BLOCK,
                     f"Snapshots of {old} are held ({', '.join(held[:5])}): zfs destroy -r "
                     "would destroy the rest of the tree and then fail. A hold is someone's "
                     "reason to keep a snapshot (zfs holds names the tag, often a backup "
                     "tool): release it (zfs release TAG SNAPSHOT) only when that is done.")
    return passed(OLD_HOLDS, f"No snapshot of {old} is held.")


def _clone_checks(reading: HostReading, t: Tree) -> list[Check]:
    clones = [d.name for d in reading.datasets.value or ()
              if d.origin and not t.inside(d.name) and t.inside(d.origin.split("@", 1)[0])]
    if not clones:
        return []
    return [Check(OLD_CLONES, False, CheckLevel.BLOCK,
                  f"Clones depend on snapshots of {t.top} ({', '.join(clones[:5])}): "
                  "zfs destroy -r refuses, and -R would destroy them too. Destroy or "
                  "promote them first (zfs promote moves the old snapshots, and their "
                  "deduplicated blocks, to the clone).")]


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan dedup-off-cleanup POOL OLD`."""
    return plan_for(host, req.pool, req.args[0])


def plan_for(host: Host, pool: str, old: str) -> Plan:
    """Read the host and plan the destruction of `old` (the CLI, and the dedup-off wizard's
    cleanup answer)."""
    try:
        held: list[str] | None = held_snapshots(host, old)
    except (HostError, ParseError):
        held = None
    return build_cleanup(collect(host), pool, old, _marker(host, old), held=held)
