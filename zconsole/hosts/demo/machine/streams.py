"""`zfs send` and `zfs receive`. The simulation has no byte streams: the "stream" is one
line naming the snapshot, which `receive` reads from its stdin (a pipeline's previous
stage) and turns into a new dataset with that snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, stable_int
from zconsole.hosts.demo.machine.datasets import Dataset, Snapshot

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


STREAM_MAGIC = "ZCONSOLE-DEMO-ZFS-STREAM"


def send(m: Machine, snap: str, with_props: bool) -> str:
    """`zfs send [-p] SNAP`: the simulation has no byte streams; the "stream" is one line
    naming the snapshot, read back by `receive`."""
    if "@" not in snap:
        raise CmdError(1, f"cannot open '{snap}': operation not applicable to datasets of "
                          "this type")
    if m.find_snapshot(snap) is None:
        raise CmdError(1, f"cannot open '{snap}': dataset does not exist")
    return f"{STREAM_MAGIC}\t{snap}\t{'props' if with_props else 'noprops'}\n"


def receive(m: Machine, target: str, stream: str | None, *, unmounted: bool,
            overrides: dict[str, str], now: float) -> None:
    """`zfs receive [-u] [-o prop=value]... TARGET` of a full stream from `send`."""
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
    props = dict(src.props) if flags == "props" else {}
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
