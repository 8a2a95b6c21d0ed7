"""`zfs send` and `zfs receive`. The simulation has no byte streams: the "stream" is one
line naming the snapshot, which `receive` reads from its stdin (a pipeline's previous
stage) and turns into a new dataset with that snapshot; a replication stream (`send -R`)
becomes the whole tree: every descendant, every snapshot up to the named one (by createtxg,
as zfs-send(8) sends them), and the properties. Received snapshots keep their guids, as in
OpenZFS (the receiving side takes drr_toguid); bookmarks and holds do not travel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, stable_int
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


STREAM_MAGIC = "ZCONSOLE-DEMO-ZFS-STREAM"


def send(m: Machine, snap: str, with_props: bool, replicate: bool = False) -> str:
    """`zfs send [-p|-R] SNAP`: the simulation has no byte streams; the "stream" is one line
    naming the snapshot, read back by `receive`."""
    if "@" not in snap:
        raise CmdError(1, f"cannot open '{snap}': operation not applicable to datasets of "
                          "this type")
    if m.find_snapshot(snap) is None:
        raise CmdError(1, f"cannot open '{snap}': dataset does not exist")
    flags = "replicate" if replicate else "props" if with_props else "noprops"
    return f"{STREAM_MAGIC}\t{snap}\t{flags}\n"


def receive(m: Machine, target: str, stream: str | None, *, unmounted: bool,
            overrides: dict[str, str], now: float, excluded: tuple[str, ...] = ()) -> None:
    """`zfs receive [-u] [-o prop=value]... [-x prop]... TARGET` of a full stream from
    `send` (a replication stream: the whole tree, `_receive_tree`)."""
    parts = (stream or "").rstrip("\n").split("\t")
    if len(parts) != 3 or parts[0] != STREAM_MAGIC:
        raise CmdError(1, "cannot receive: invalid stream (bad magic number)")
    _, snap_name, flags = parts
    if "@" in target:
        raise CmdError(1, f"cannot receive new filesystem stream: invalid name '{target}'")
    if target in m.datasets:
        raise CmdError(1, "cannot receive new filesystem stream: destination "
                          f"'{target}' exists\nmust specify -F to overwrite it")
    parent = target.rsplit("/", 1)[0] if "/" in target else None
    if parent is None or parent not in m.datasets:
        raise CmdError(1, f"cannot receive new filesystem stream: parent of '{target}' does "
                          "not exist")
    snap = m.find_snapshot(snap_name)
    src = m.datasets.get(snap_name.split("@", 1)[0])
    if snap is None or src is None:
        raise CmdError(1, "cannot receive: invalid stream (source snapshot vanished)")
    if flags == "replicate":
        _receive_tree(m, src, snap, target, unmounted=unmounted, overrides=overrides,
                      excluded=excluded, now=now)
        return
    props = {k: v for k, v in src.props.items() if k not in excluded} \
        if flags == "props" else {}
    props.update(overrides)
    ds = Dataset(name=target, type=src.type, guid=stable_int(m.seed, target, "recv"),
                 createtxg=m.next_txg(), creation=int(now), used_self=snap.refer,
                 refer=snap.refer, props=props, logicalref=int(snap.refer * 1.31),
                 volsize=src.volsize, mounted=not unmounted)
    if src.type == "volume" and "volblocksize" in src.props:
        ds.props["volblocksize"] = src.props["volblocksize"]
    m.datasets[target] = ds
    short = snap_name.split("@", 1)[1]
    m.snapshots.setdefault(target, []).append(Snapshot(
        name=f"{target}@{short}", guid=snap.guid, createtxg=m.next_txg(), creation=int(now),
        used=0, refer=snap.refer))
    pool = m.pools.get(ds.pool)
    if pool is not None:
        pool.alloc += snap.refer


def _receive_tree(m: Machine, src: Dataset, snap: Snapshot, target: str, *, unmounted: bool,
                  overrides: dict[str, str], excluded: tuple[str, ...], now: float) -> None:
    """A replication stream: `src` and each descendant that has the snapshot, with every
    snapshot up to it; -o and -x on the top make the descendants inherit (zfs-receive(8))."""
    short = snap.short
    tree = [src.name] + sorted(n for n in m.datasets if n.startswith(src.name + "/"))
    for name in tree:
        last = m.find_snapshot(f"{name}@{short}")
        if last is None:
            continue  # zfs send -R skips a descendant without the named snapshot
        one = m.datasets[name]
        new = target + name[len(src.name):]
        if new.rsplit("/", 1)[0] not in m.datasets:
            continue
        props = {k: v for k, v in one.props.items() if k not in excluded and k not in overrides}
        if name == src.name:
            props.update(overrides)
        inside = one.origin is not None and one.origin.startswith((src.name + "/",
                                                                   src.name + "@"))
        ds = Dataset(name=new, type=one.type, guid=stable_int(m.seed, new, "recv"),
                     createtxg=m.next_txg(), creation=int(now), used_self=last.refer,
                     refer=last.refer, props=props, logicalref=int(last.refer * 1.31),
                     volsize=one.volsize, mounted=not unmounted and one.type == "filesystem",
                     snap_used=one.snap_used,  # a clone inside the tree stays a clone
                     origin=target + one.origin[len(src.name):] if inside and one.origin
                     else None)
        m.datasets[new] = ds
        # up to the named snapshot in time (the scenarios' snapshots carry createtxgs above
        # the machine's counter, so a new snapshot's txg alone would not order it)
        copied = [s for s in m.snapshots_of(name)
                  if (s.creation, s.createtxg) <= (last.creation, last.createtxg)]
        m.snapshots[new] = [Snapshot(name=f"{new}@{s.short}", guid=s.guid,
                                     createtxg=m.next_txg(), creation=s.creation, used=s.used,
                                     refer=s.refer) for s in copied]
        pool = m.pools.get(ds.pool)
        if pool is not None:
            pool.alloc += last.refer + one.snap_used
