"""Snapshot and clone changes: `zfs snapshot`, `zfs destroy` (with -r/-R and the -n/-v/-p
listings), `zfs clone`, `zfs promote`, and the share of the dedup table a destroyed dataset
frees. Refusals use zfs_main.c's wording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.fmt import nicebytes
from zconsole.hosts.demo.machine.common import CmdError, stable_int
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


def snapshot(m: Machine, names: list[str], recursive: bool, now: float) -> None:
    for full in names:
        if "@" not in full:
            raise CmdError(1, f"cannot create snapshot '{full}': "
                              "empty component or misplaced '@' or '#' delimiter in name")
        ds, _, short = full.partition("@")
        if ds not in m.datasets:
            raise CmdError(1, f"cannot open '{ds}': dataset does not exist")
        targets = [ds]
        if recursive:
            targets += sorted(n for n in m.datasets if n.startswith(ds + "/"))
        for t in targets:
            if m.find_snapshot(f"{t}@{short}") is not None:
                raise CmdError(1, f"cannot create snapshot '{t}@{short}': "
                                  "dataset already exists")
        txg = m.next_txg()
        for t in targets:
            base = m.datasets[t]
            m.snapshots.setdefault(t, []).append(Snapshot(
                name=f"{t}@{short}", guid=stable_int(m.seed, t, short, txg), createtxg=txg,
                creation=int(now), used=0, refer=base.refer))


def _dependents(m: Machine, ds: str) -> list[str]:
    """Everything that would go with `ds` under -R: descendants, snapshots, clones."""
    out: list[str] = []
    for s in m.snapshots_of(ds):
        for c in m.clones_of(s.name):
            out.append(c)
            out.extend(_dependents(m, c))
        out.append(s.name)
    for c in m.children_of(ds):
        out.extend(_dependents(m, c))
        out.append(c)
    return out


def _snap_dependents(m: Machine, snap: str) -> list[str]:
    out: list[str] = []
    for c in m.clones_of(snap):
        out.append(c)
        out.extend(_dependents(m, c))
    return out


def destroy(m: Machine, target: str, *, recursive: bool, rdeps: bool, dry: bool,
            verbose: bool, parsable: bool) -> tuple[str, int]:
    """Returns stdout text (the -v/-p listing). Raises CmdError for refusals."""
    if "@" in target:
        ds, _, short = target.partition("@")
        if ds not in m.datasets:
            raise CmdError(1, f"cannot open '{ds}': dataset does not exist")
        shorts = short.split(",")
        doomed: list[str] = []
        for sh in shorts:
            snaps = [f"{ds}@{sh}"]
            if recursive:
                snaps += [f"{n}@{sh}" for n in sorted(m.datasets) if n.startswith(ds + "/")]
            for sname in snaps:
                if m.find_snapshot(sname) is None:
                    if sname.startswith(ds + "@"):
                        if not recursive:
                            raise CmdError(1, "could not find any snapshots to destroy; "
                                              "check snapshot names.")
                    continue
                deps = _snap_dependents(m, sname)
                if deps and not rdeps:
                    raise CmdError(1, f"cannot destroy '{sname}': snapshot has dependent "
                                      "clones\nuse '-R' to destroy the following datasets:\n"
                                   + "\n".join(deps))
                if deps and rdeps and not dry:
                    doomed.extend(deps)
                doomed.append(sname)
        return _do_destroy(m, doomed, dry, verbose, parsable)
    if target not in m.datasets:
        raise CmdError(1, f"cannot open '{target}': dataset does not exist")
    if "/" not in target and not recursive:
        raise CmdError(1, f"cannot destroy '{target}': operation does not apply to pools\n"
                          f"use 'zfs destroy -r {target}' to destroy all datasets in the pool\n"
                          f"use 'zpool destroy {target}' to destroy the pool itself")
    kind = m.datasets[target].type
    inside = [n for n in m.datasets if n.startswith(target + "/")]
    own_snaps = [s.name for s in m.snapshots_of(target)]
    if (inside or own_snaps) and not recursive and not rdeps:
        listing = []
        for c in m.children_of(target):
            listing.append(c)
        listing += own_snaps
        raise CmdError(1, f"cannot destroy '{target}': {kind} has children\n"
                          "use '-r' to destroy the following datasets:\n" + "\n".join(listing))
    doomed = []
    tree = [target] + sorted(inside)
    clones_outside: list[str] = []
    for n in tree:
        for s in m.snapshots_of(n):
            for c in m.clones_of(s.name):
                if c != target and not c.startswith(target + "/"):
                    clones_outside.append(c)
                    clones_outside.extend(_dependents(m, c))
    if clones_outside and not rdeps:
        raise CmdError(1, f"cannot destroy '{target}': {kind} has dependent clones\n"
                          "use '-R' to destroy the following datasets:\n"
                       + "\n".join(clones_outside))
    if rdeps and not dry:
        doomed.extend(clones_outside)
    for n in sorted(tree, key=lambda x: -x.count("/")):
        doomed.extend(s.name for s in m.snapshots_of(n))
        doomed.append(n)
    return _do_destroy(m, doomed, dry, verbose, parsable)


def _do_destroy(m: Machine, doomed: list[str], dry: bool, verbose: bool,
                parsable: bool) -> tuple[str, int]:
    seen: set[str] = set()
    order = [x for x in doomed if not (x in seen or seen.add(x))]  # type: ignore[func-returns-value]
    reclaim = 0
    lines: list[str] = []
    for name in order:
        if "@" in name:
            s = m.find_snapshot(name)
            reclaim += s.used if s else 0
        if parsable:
            lines.append(f"destroy\t{name}")
        elif verbose:
            lines.append(f"{'would' if dry else 'will'} destroy {name}")
    if any("@" in x for x in order) and (verbose or parsable):
        if parsable:
            lines.append(f"reclaim\t{reclaim}")
        else:
            lines.append(f"{'would' if dry else 'will'} reclaim {nicebytes(reclaim)}")
    if not dry:
        for name in order:
            if "@" in name:
                ds = m.datasets.get(name.split("@", 1)[0])
                s = m.find_snapshot(name)
                if ds is not None and s is not None:
                    ds.snap_used = max(0, ds.snap_used - s.used)
                m.remove_snapshot(name)
            else:
                ds = m.datasets.pop(name, None)
                m.snapshots.pop(name, None)
                m.series.pop(name, None)
                if ds is not None:
                    release_dedup(m, ds)
                    pool = m.pools.get(ds.pool)
                    if pool is not None:
                        pool.alloc = max(0, pool.alloc - ds.used_self)
        m.next_txg()
    return ("\n".join(lines) + "\n") if lines else "", 0


def clone(m: Machine, snap: str, target: str, parents: bool, props: dict[str, str],
          now: float) -> None:
    s = m.find_snapshot(snap) if "@" in snap else None
    if s is None:
        raise CmdError(1, f"cannot open '{snap}': dataset does not exist")
    if target in m.datasets:
        raise CmdError(1, f"cannot create '{target}': dataset already exists")
    if target.split("/", 1)[0] != snap.split("/", 1)[0].split("@", 1)[0]:
        raise CmdError(1, f"cannot create '{target}': source and target pools differ")
    parent = target.rsplit("/", 1)[0] if "/" in target else None
    if parent is not None and parent not in m.datasets:
        if not parents:
            raise CmdError(1, f"cannot create '{target}': parent does not exist")
        cur = ""
        for comp in parent.split("/"):
            cur = f"{cur}/{comp}" if cur else comp
            if cur not in m.datasets:
                m.datasets[cur] = Dataset(name=cur, type="filesystem",
                                          guid=stable_int(m.seed, cur), createtxg=m.next_txg(),
                                          creation=int(now), used_self=96 * 1024,
                                          refer=96 * 1024)
    src = m.datasets[s.dataset]
    m.datasets[target] = Dataset(
        name=target, type=src.type, guid=stable_int(m.seed, target, "clone"),
        createtxg=m.next_txg(), creation=int(now), used_self=8 * 1024, refer=s.refer,
        origin=s.name, props=dict(props), volsize=src.volsize)


def promote(m: Machine, name: str) -> None:
    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if not ds.origin:
        raise CmdError(1, f"cannot promote '{name}': not a cloned filesystem")
    origin = ds.origin
    pname, _, oshort = origin.partition("@")
    parent = m.datasets[pname]
    osnap = m.find_snapshot(origin)
    assert osnap is not None
    moving = [s for s in m.snapshots_of(pname) if s.createtxg <= osnap.createtxg]
    mine = {s.short for s in m.snapshots_of(name)}
    for s in moving:
        if s.short in mine:
            raise CmdError(1, f"cannot promote '{name}': snapshot name '{s.short}' from "
                              f"origin conflicts with '{s.short}' from target")
    # materialise the moving snapshots, remove them from the parent
    moved_used = 0
    for s in moving:
        m.remove_snapshot(s.name)
        moved_used += s.used
        new = Snapshot(name=f"{name}@{s.short}", guid=s.guid, createtxg=s.createtxg,
                       creation=s.creation, used=s.used, refer=s.refer, userrefs=s.userrefs)
        m.snapshots.setdefault(name, []).append(new)
        for other in m.datasets.values():
            if other.origin == s.name:
                other.origin = new.name
    parent.snap_used = max(0, parent.snap_used - moved_used)
    ds.snap_used += moved_used
    ds.origin = parent.origin
    parent.origin = f"{name}@{oshort}"
    m.next_txg()


def release_dedup(m: Machine, ds: Dataset) -> None:
    """A destroyed dataset frees its deduplicated blocks: its share of the DDT goes."""
    pool = m.pools.get(ds.pool)
    if pool is None or pool.ddt is None or ds.dedup_written <= 0:
        return
    total = ds.dedup_written + sum(d.dedup_written for d in m.datasets.values()
                                   if d.pool == ds.pool and d is not ds)
    keep = 1.0 - ds.dedup_written / total
    for c in pool.ddt.histogram:
        c.blocks = int(round(c.blocks * keep))
        c.lsize = int(round(c.lsize * keep))
        c.psize = int(round(c.psize * keep))
        c.dsize = int(round(c.dsize * keep))
    pool.ddt.histogram = [c for c in pool.ddt.histogram if c.blocks > 0]
    pool.ddt.entries = sum(c.blocks for c in pool.ddt.histogram)
    ds.dedup_written = 0
