"""Changes to a pool's vdev tree, made as zpool makes them: attach, replace (an attach that
builds replacing-N or spare-N), detach, online, offline. Also how a new device is resolved,
refused when in use (is_device_in_use) and labelled. Refusals use libzfs's wording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError, MiB, stable_int
from zconsole.hosts.demo.machine.disks import Disk, Partition
from zconsole.hosts.demo.machine.pools import (
    WHOLE_DISK_OVERHEAD,
    Pool,
    Vdev,
    find_vdev,
    leaf_asize,
    recompute_states,
    top_space,
)
from zconsole.hosts.demo.machine.scans import start_resilver

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.state import Machine


def resolve_new(m: Machine, name: str) -> tuple[Disk, int | None, str]:
    """A new device as zpool's make_root_vdev resolves it: (disk, partition, printed path)."""
    hit = m.disk_by_any(name)
    if hit is None:
        raise CmdError(1, f"cannot open '{name}': no such device in /dev\n"
                          "must be a full path or shorthand device name")
    d, part = hit
    if name.startswith("/"):
        path = name
    elif name == d.name or (part is not None and name == d.part_name(part)):
        path = "/dev/" + name
    elif name == d.by_path or name.startswith(d.by_path + "-part"):
        path = "/dev/disk/by-path/" + name
    else:
        path = "/dev/disk/by-id/" + name
    return d, part, path


def _part_path(path: str, d: Disk, n: int) -> str:
    if path.startswith("/dev/disk/"):
        return f"{path}-part{n}"
    return f"/dev/{d.part_name(n)}"


def check_in_use(m: Machine, d: Disk, part: int | None, path: str, force: bool,
                 pool: Pool, replacing_spare: bool = False) -> None:
    """is_device_in_use: runs even with -f; some errors -f can override, some not."""
    if part is None:
        if d.in_use_mount or any(p.swap for p in d.partitions):
            raise CmdError(1, f"{path} is in use and contains a unknown filesystem.")
        parts = [(p, _part_path(path, d, p.number)) for p in d.partitions]
    else:
        parts = [(p, path) for p in d.partitions if p.number == part]
    errors: list[str] = []
    fatal = False
    for p, ppath in parts:
        if p.fs_type is None:
            continue
        if p.fs_type == "zfs_member":
            owner = m.leaf_of_disk(d.name)
            if owner is not None:
                opool, leaf = owner
                if leaf in opool.spares:
                    if replacing_spare and opool is pool:
                        continue
                    errors.append(f"{ppath} is reserved as a hot spare for pool {opool.name}")
                    fatal = True
                else:
                    errors.append(f"{ppath} is part of active pool '{opool.name}'")
                    fatal = True
            elif p.fs_label and not force:
                errors.append(f"{ppath} is part of exported pool '{p.fs_label}'")
        elif not force:
            errors.append(f"{ppath} contains a filesystem of type '{p.fs_type}'")
    if errors:
        head = ("invalid vdev specification\nthe following errors must be manually repaired:"
                if force else
                "invalid vdev specification\nuse '-f' to override the following errors:")
        raise CmdError(1, head + "\n" + "\n".join(errors))
    del fatal


def _top_of(p: Pool, v: Vdev) -> Vdev:
    for t in p.top:
        if v is t or any(x is v for x in t.walk()):
            return t
    raise KeyError(v.guid)


def _parent_in(p: Pool, v: Vdev) -> Vdev | None:
    for x in p.root.walk():
        if any(c is v for c in x.children):
            return x
    return None


def _label(m: Machine, d: Disk, pool: Pool, force_part: int | None) -> Vdev:
    """zpool labels a whole disk (GPT + partition 9) and returns the new leaf."""
    psize = d.size - WHOLE_DISK_OVERHEAD
    if force_part is None:
        d.partitions = [
            Partition(1, psize, fs_type="zfs_member", fs_label=pool.name,
                      fs_uuid=str(pool.guid),
                      part_label="zfs-" + f"{stable_int(d.serial, 'label') % (1 << 64):016x}"),
            Partition(9, 8 * MiB),
        ]
        path = f"/dev/disk/by-id/{d.by_id[0]}-part1"
        whole = True
    else:
        for p in d.partitions:
            if p.number == force_part:
                psize = p.size
                p.fs_type, p.fs_label = "zfs_member", pool.name
        path = f"/dev/disk/by-id/{d.by_id[0]}-part{force_part}"
        whole = False
    m.changed()  # new partition names
    return Vdev(type="disk", guid=stable_int(m.seed, d.serial, pool.name, m.txg_counter),
                disk=d.name, path=path, devid=path.rsplit("/", 1)[1],
                phys_path=f"{d.pci_path}-part1", whole_disk=whole, psize=psize)


def _clear_label(m: Machine, v: Vdev) -> None:
    if v.disk is None:
        return
    d = m.disks[v.disk]
    for p in d.partitions:
        if p.fs_type == "zfs_member":
            p.fs_type, p.fs_label, p.fs_uuid = None, None, None


def _data_vdev(p: Pool, dev: str, errbuf: str) -> tuple[Vdev, Vdev | None]:
    """The vdev `dev` names in the pool's data tree and its parent; refused (`errbuf: ...`)
    when the pool has no such device or it is a hot spare or a cache device."""
    hit = find_vdev(p, dev)
    if hit is None:
        raise CmdError(1, f"{errbuf}: no such device in pool")
    v, parent, where = hit
    if where == "spare":
        raise CmdError(1, f"{errbuf}: device is reserved as a hot spare")
    if where == "cache":
        raise CmdError(1, f"{errbuf}: device is in use as a cache")
    return v, parent


def attach(m: Machine, p: Pool, old: str, new: str, *, force: bool, replacing: bool,
           ashift: int | None, now: float) -> None:
    errbuf = (f"cannot replace {old} with {new}" if replacing
              else f"cannot attach {new} to {old}")
    ov, parent = _data_vdev(p, old, errbuf)
    d, part, path = resolve_new(m, new)
    new_is_spare = any(s.disk == d.name for s in p.spares)
    check_in_use(m, d, part, path, force, p, replacing_spare=replacing and new_is_spare)
    if part is not None and force:
        for pp in d.partitions:
            if pp.number == part and pp.mountpoint:
                raise CmdError(1, f"{errbuf}: {new} is busy, or device removal is in progress")
    # kernel checks (spa_vdev_attach)
    if not ov.is_leaf:
        raise CmdError(1, f"{errbuf}: can only attach to mirrors and top-level disks")
    if replacing:
        # spa_vdev_attach: a replace inside spare-N is allowed for the original disk
        # (not the spare standing in, and not with a spare as the new disk)
        ov_is_spare = any(s.disk == ov.disk for s in p.spares)
        inside_spare_ok = (parent is not None and parent.type == "spare"
                           and not ov_is_spare and not new_is_spare)
        if parent is not None and parent.type in ("replacing", "spare") \
                and not inside_spare_ok:
            raise CmdError(1, f"{errbuf}: already in replacing/spare config; wait for "
                              "completion or use 'zpool detach'")
    elif parent is not None and parent.type not in ("mirror", "root"):
        raise CmdError(1, f"{errbuf}: can only attach to mirrors and top-level disks")
    top = _top_of(p, ov)
    new_psize = (d.size - WHOLE_DISK_OVERHEAD) if part is None else next(
        x.size for x in d.partitions if x.number == part)
    min_asize = top.asize
    if leaf_asize(new_psize) < min_asize:
        raise CmdError(1, f"{errbuf}: device is too small")
    new_ashift = max(d.logical_sector.bit_length() - 1, ashift or 0)
    if new_ashift > top.ashift:
        raise CmdError(1, f"{errbuf}: new device has a different optimal sector size; use the "
                          "option '-o ashift=N' to override the optimal size")
    # do it
    leaf = _label(m, d, p, part)
    leaf.ashift = top.ashift
    leaf.resilvering = True
    source = m.disks[ov.disk] if ov.disk and not ov.not_present else None
    if p.scan is not None and p.scan.state == "SCANNING" and p.scan.function == "SCRUB":
        p.scan.state = "CANCELED"
        p.scan.end_time = now
    if replacing:
        kind = "spare" if new_is_spare else "replacing"
        if new_is_spare:
            for s in p.spares:
                if s.disk == d.name:
                    s.aux = "SPARED"
                    leaf = Vdev(**{**s.__dict__, "children": [], "aux": None,
                                   "resilvering": True})
        holder = parent if parent is not None else p.root
        idx = next(i for i, c in enumerate(holder.children) if c is ov)
        cont = Vdev(type=kind, guid=stable_int(m.seed, "repl", ov.guid, m.txg_counter),
                    children=[ov, leaf], ashift=top.ashift,
                    id=idx if holder.type != "root" else ov.id)
        if holder.type == "root":
            cont.asize, cont.ms_shift, cont.is_log = ov.asize, ov.ms_shift, ov.is_log
        holder.children[idx] = cont
        top = cont if holder.type == "root" else top
    else:
        if parent is not None and parent.type == "mirror":
            parent.children.append(leaf)
        else:
            idx = next(i for i, c in enumerate(p.root.children) if c is ov)
            mirror = Vdev(type="mirror", guid=stable_int(m.seed, "mirror", ov.guid),
                          children=[ov, leaf], ashift=ov.ashift, id=ov.id, asize=ov.asize,
                          ms_shift=ov.ms_shift, is_log=ov.is_log)
            p.root.children[idx] = mirror
            top = mirror
    m.next_txg()
    recompute_states(p)
    start_resilver(m, p, top, now, source, d)


def add_spare(m: Machine, p: Pool, new: str, *, force: bool) -> None:
    """`zpool add POOL spare NEW`: a hot spare (AVAIL)."""
    d, part, path = resolve_new(m, new)
    check_in_use(m, d, part, path, force, p)
    leaf = _label(m, d, p, part)
    p.spares.append(leaf)
    m.next_txg()


def remove(m: Machine, p: Pool, dev: str) -> None:
    """`zpool remove POOL DEV` of a cache device, a hot spare or a log disk (the demo does
    not evacuate data vdevs)."""
    errbuf = f"cannot remove {dev}"
    hit = find_vdev(p, dev)
    if hit is None:
        raise CmdError(1, f"{errbuf}: no such device in pool")
    v, parent, where = hit
    if where == "cache":
        p.cache.remove(v)
    elif where == "spare":
        if v.aux is not None:
            raise CmdError(1, f"{errbuf}: Pool busy; removal may already be in progress")
        p.spares.remove(v)
    elif parent is not None and parent.type == "root" and v.is_log and v.is_leaf:
        parent.children.remove(v)
    else:
        raise CmdError(1, "zconsole demo: zpool remove only removes cache, log and spare "
                          "devices\n")
    _clear_label(m, v)
    m.next_txg()


def detach(m: Machine, p: Pool, dev: str, now: float) -> None:
    errbuf = f"cannot detach {dev}"
    v, parent = _data_vdev(p, dev, errbuf)
    if not v.is_leaf or parent is None or parent.type not in ("mirror", "replacing", "spare"):
        raise CmdError(1, f"{errbuf}: only applicable to mirror and replacing vdevs")
    others = [c for c in parent.children if c is not v]
    healthy = [c for c in others if c.state == "ONLINE" and not c.resilvering
               and not c.not_present]
    if not healthy and not (v.resilvering or v.state != "ONLINE"):
        raise CmdError(1, f"{errbuf}: no valid replicas")
    parent.children.remove(v)
    _clear_label(m, v)
    if parent.type == "spare":
        for s in p.spares:
            if s.disk == v.disk:
                s.aux = None
    if len(parent.children) == 1:
        only = parent.children[0]
        holder = _parent_in(p, parent)
        assert holder is not None
        idx = next(i for i, c in enumerate(holder.children) if c is parent)
        if holder.type == "root":
            only.id, only.asize, only.ms_shift, only.is_log = (parent.id, parent.asize,
                                                               parent.ms_shift, parent.is_log)
        holder.children[idx] = only
        if parent.type == "spare" and only.disk is not None:
            for s in p.spares:
                if s.disk == only.disk:
                    p.spares.remove(s)
                    break
    else:
        for i, c in enumerate(parent.children):
            if c.type in ("replacing", "spare"):
                c.id = i
    if not any(x.resilvering for x in p.root.walk()) and p.scan is not None and \
            p.scan.state == "SCANNING" and p.scan.function == "RESILVER":
        p.scan.state = "CANCELED"
        p.scan.end_time = now
    m.next_txg()
    recompute_states(p)


def online(m: Machine, p: Pool, dev: str, expand: bool, now: float) -> str:
    hit = find_vdev(p, dev)
    if hit is None:
        raise CmdError(1, f"cannot online {dev}: no such device in pool")
    v, _, _ = hit
    warning = ""
    if v.not_present:
        return (f"warning: device '{dev}' onlined, but remains in faulted state\n"
                "use 'zpool replace' to replace devices that are no longer present\n")
    if v.state in ("OFFLINE", "FAULTED", "REMOVED"):
        v.state, v.aux = "ONLINE", None
    if expand:
        top = _top_of(p, v)
        leaves = list(top.leaves())
        grown = top_space(min(x.psize for x in leaves), top.ms_shift, top.width)
        if grown > top.asize:
            top.asize = grown
    m.next_txg()
    recompute_states(p)
    return warning


def offline(m: Machine, p: Pool, dev: str) -> None:
    hit = find_vdev(p, dev)
    if hit is None:
        raise CmdError(1, f"cannot offline {dev}: no such device in pool")
    v, parent, _ = hit
    if parent is None or parent.type == "root":
        raise CmdError(1, f"cannot offline {dev}: no valid replicas")
    others = [c for c in parent.children if c is not v and c.state == "ONLINE"
              and not c.resilvering]
    if not others:
        raise CmdError(1, f"cannot offline {dev}: no valid replicas")
    if v.state == "FAULTED":
        # as real OpenZFS (seen on 2.1.11 and 2.3.2): the offline is accepted (exit 0) but
        # zpool status keeps showing FAULTED, the fault outranks the offline flag
        m.next_txg()
        return
    v.state, v.aux = "OFFLINE", None
    m.next_txg()
    recompute_states(p)
