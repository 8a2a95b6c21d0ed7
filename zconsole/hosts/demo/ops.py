"""Write operations: they change the machine the way ZFS would, or refuse with ZFS's own
messages (libzfs_pool.c / zpool_vdev_os.c / zfs_main.c wording) and exit codes."""

from __future__ import annotations

from zconsole.hosts.demo.fmt import nicebytes
from zconsole.hosts.demo.state import (
    WHOLE_DISK_OVERHEAD,
    Dataset,
    Disk,
    Machine,
    MiB,
    Pool,
    Scan,
    Snapshot,
    Vdev,
    leaf_asize,
    recompute_states,
    stable_int,
    top_space,
)


class CmdError(Exception):
    """A refusal: exit code and stderr exactly as the real tool prints them."""

    def __init__(self, rc: int, stderr: str) -> None:
        super().__init__(stderr)
        self.rc = rc
        self.stderr = stderr if stderr.endswith("\n") else stderr + "\n"


# ----------------------------------------------------------------------------- lookups


def find_vdev(p: Pool, key: str) -> tuple[Vdev, Vdev | None, str] | None:
    """(vdev, parent, where) for a name, path or guid; where is data, cache or spare."""
    def matches(v: Vdev) -> bool:
        if key == str(v.guid):
            return True
        if not v.is_leaf:
            return key == v.name()
        names = {v.name(), v.path}
        if v.path.endswith("-part1"):
            names.add(v.path[: -len("-part1")])
        if v.path.startswith("/dev/disk/by-id/"):
            names.add(v.path[len("/dev/disk/by-id/"):])
        return key in names

    def search(v: Vdev, parent: Vdev | None) -> tuple[Vdev, Vdev | None] | None:
        if v.type != "root" and matches(v):
            return v, parent
        for c in v.children:
            hit = search(c, v)
            if hit:
                return hit
        return None

    hit = search(p.root, None)
    if hit:
        return hit[0], hit[1], "data"
    for c in p.cache:
        if matches(c):
            return c, None, "cache"
    for s in p.spares:
        if matches(s):
            return s, None, "spare"
    return None


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


def _disk_speed(d: Disk) -> float:
    if d.transport == "nvme":
        return 900 * MiB
    if not d.rotational:
        return 380 * MiB
    return 165 * MiB


def _label(m: Machine, d: Disk, pool: Pool, force_part: int | None) -> Vdev:
    """zpool labels a whole disk (GPT + partition 9) and returns the new leaf."""
    from zconsole.hosts.demo.state import Partition

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


def start_resilver(m: Machine, p: Pool, top: Vdev, now: float, source: Disk | None,
                   target: Disk) -> None:
    speed = min(_disk_speed(target), _disk_speed(source) if source else _disk_speed(target))
    alloc = p.top_alloc(top)
    sc = p.scan
    if sc is not None and sc.state == "SCANNING" and sc.function == "RESILVER":
        # a running resilver restarts and now covers the new device as well
        alloc = max(alloc, sc.to_examine)
    p.scan = Scan(function="RESILVER", state="SCANNING", start_time=now, to_examine=alloc,
                  rate=float(speed), base_time=now, base_issued=0.0, pass_start=now)
    p.txg += 3


# ------------------------------------------------------------------------ zpool writes


def attach(m: Machine, p: Pool, old: str, new: str, *, force: bool, replacing: bool,
           ashift: int | None, now: float) -> None:
    errbuf = (f"cannot replace {old} with {new}" if replacing
              else f"cannot attach {new} to {old}")
    hit = find_vdev(p, old)
    if hit is None:
        raise CmdError(1, f"{errbuf}: no such device in pool")
    ov, parent, where = hit
    if where == "spare":
        raise CmdError(1, f"{errbuf}: device is reserved as a hot spare")
    if where == "cache":
        raise CmdError(1, f"{errbuf}: device is in use as a cache")
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
        if parent is not None and parent.type in ("replacing", "spare"):
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


def detach(m: Machine, p: Pool, dev: str, now: float) -> None:
    errbuf = f"cannot detach {dev}"
    hit = find_vdev(p, dev)
    if hit is None:
        raise CmdError(1, f"{errbuf}: no such device in pool")
    v, parent, where = hit
    if where == "spare":
        raise CmdError(1, f"{errbuf}: device is reserved as a hot spare")
    if where == "cache":
        raise CmdError(1, f"{errbuf}: device is in use as a cache")
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
        grown = top_space(min(x.psize for x in leaves), top.ms_shift)
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
    v.state, v.aux = "OFFLINE", None
    m.next_txg()
    recompute_states(p)


def clear(m: Machine, p: Pool, dev: str | None) -> None:
    targets: list[Vdev]
    if dev is not None:
        hit = find_vdev(p, dev)
        if hit is None:
            raise CmdError(1, f"cannot clear errors for {dev}: no such device in pool")
        targets = list(hit[0].walk())
    else:
        targets = list(p.all_vdevs())
    for v in targets:
        v.read_errors = v.write_errors = v.checksum_errors = 0
        if v.is_leaf and v.state == "FAULTED" and not v.not_present:
            v.state, v.aux = "ONLINE", None
    p.data_errors = 0
    recompute_states(p)


def scrub(m: Machine, p: Pool, stop: bool, pause: bool, now: float) -> None:
    sc = p.scan
    running = sc is not None and sc.state == "SCANNING"
    if stop:
        if not running or sc is None or sc.function != "SCRUB":
            if running and sc is not None and sc.function == "RESILVER":
                raise CmdError(1, f"cannot cancel scrubbing {p.name}: currently resilvering")
            raise CmdError(1, f"cannot cancel scrubbing {p.name}: there is no active scrub")
        sc.base_issued = float(sc.issued(now))
        sc.state, sc.end_time = "CANCELED", now
        return
    if pause:
        if not running or sc is None or sc.function != "SCRUB":
            raise CmdError(1, f"cannot pause scrubbing {p.name}: there is no active scrub")
        if not sc.paused_at:
            sc.base_issued = float(sc.issued(now))
            sc.paused_at = now
        return
    if running and sc is not None:
        if sc.function == "RESILVER":
            raise CmdError(1, f"cannot scrub {p.name}: currently resilvering")
        if sc.paused_at:
            sc.spent_paused += now - sc.paused_at
            sc.paused_at = 0.0
            sc.base_time = now
            return
        raise CmdError(1, f"cannot scrub {p.name}: currently scrubbing; use 'zpool scrub -s' "
                          "to cancel current scrub")
    disks = [m.disks[v.disk] for v in p.root.walk() if v.is_leaf and v.disk]
    rate = sum(_disk_speed(d) for d in disks) / 2.2 if disks else 100 * MiB
    if sc is not None:
        p.scan_history.append(sc)
    p.scan = Scan(function="SCRUB", state="SCANNING", start_time=now, to_examine=p.alloc,
                  rate=rate, base_time=now, pass_start=now)
    p.txg += 2


def labelclear(m: Machine, dev: str, force: bool) -> None:
    hit = m.disk_by_any(dev)
    if hit is None:
        raise CmdError(1, f"failed to open {dev}: No such file or directory")
    d, part = hit
    n = part or 1
    for p in d.partitions:
        if p.number != n or p.fs_type != "zfs_member":
            continue
        owner = m.leaf_of_disk(d.name)
        if owner is not None:
            pool, _ = owner
            raise CmdError(1, "labelclear operation failed.\n"
                              f"\tVdev {dev} is a member (ACTIVE), of pool \"{pool.name}\".\n"
                              "\tTo remove label information from this device, export or "
                              "destroy\n\tthe pool, or remove "
                              f"{dev} from the configuration of this pool\n"
                              "\tand retry the labelclear operation.")
        if not force:
            raise CmdError(1, "use '-f' to override the following error:\n"
                              f"{dev} is a member of exported pool \"{p.fs_label}\"")
        p.fs_type, p.fs_label, p.fs_uuid = None, None, None


BOOL_POOL_PROPS = {"autoexpand", "autoreplace", "autotrim", "listsnapshots", "delegation",
                   "multihost", "readonly"}
RO_POOL_PROPS = {"size", "capacity", "health", "guid", "free", "allocated", "expandsize",
                 "freeing", "fragmentation", "leaked", "dedupratio", "checkpoint", "load_guid",
                 "bcloneused", "bclonesaved", "bcloneratio", "dedup_table_size",
                 "dedupcached", "last_scrubbed_txg", "name"}


def zpool_set(m: Machine, p: Pool, prop: str, val: str) -> None:
    err = f"cannot set property for '{p.name}'"
    if prop in RO_POOL_PROPS:
        raise CmdError(1, f"{err}: '{prop}' is readonly")
    if prop in BOOL_POOL_PROPS:
        if val not in ("on", "off"):
            raise CmdError(1, f"{err}: '{prop}' must be one of 'on | off'")
    elif prop == "failmode":
        if val not in ("wait", "continue", "panic"):
            raise CmdError(1, f"{err}: 'failmode' must be one of 'wait | continue | panic'")
    elif prop not in ("comment", "cachefile", "bootfs", "compatibility", "ashift",
                      "dedup_table_quota", "altroot") and not prop.startswith("feature@") \
            and ":" not in prop:
        raise CmdError(1, f"{err}: invalid property '{prop}'")
    p.props[prop] = val


# -------------------------------------------------------------------------- zfs writes


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


BOOL_ZFS = {"atime", "relatime", "readonly", "devices", "exec", "setuid", "overlay",
            "canmount"}
RO_ZFS = {"used", "available", "referenced", "compressratio", "refcompressratio", "type",
          "creation", "createtxg", "guid", "origin", "clones", "usedbysnapshots",
          "usedbydataset", "usedbychildren", "usedbyrefreservation", "written", "logicalused",
          "logicalreferenced", "mounted", "objsetid", "snapshot_count", "filesystem_count",
          "version", "utf8only", "normalization", "casesensitivity", "encryption",
          "keystatus", "volblocksize"}
CHOICES_ZFS = {
    "dedup": {"on", "off", "verify", "sha256", "sha256,verify", "sha512", "skein",
              "blake3", "edonr,verify"},
    "compression": {"on", "off", "lz4", "lzjb", "gzip", "zle", "zstd", "zstd-fast"}
    | {f"gzip-{i}" for i in range(1, 10)} | {f"zstd-{i}" for i in range(1, 20)},
    "sync": {"standard", "always", "disabled"},
    "logbias": {"latency", "throughput"},
    "primarycache": {"all", "none", "metadata"},
    "secondarycache": {"all", "none", "metadata"},
    "snapdir": {"hidden", "visible"},
    "xattr": {"on", "off", "sa", "dir"},
    "acltype": {"off", "noacl", "nfsv4", "posix", "posixacl"},
    "checksum": {"on", "off", "fletcher2", "fletcher4", "sha256", "sha512", "skein",
                 "edonr", "blake3", "noparity"},
    "copies": {"1", "2", "3"},
    "redundant_metadata": {"all", "most", "some", "none"},
}
SIZES_ZFS = {"quota", "refquota", "reservation", "refreservation", "volsize",
             "special_small_blocks", "recordsize"}


def zfs_set(m: Machine, name: str, prop: str, val: str) -> None:
    from zconsole.hosts.demo.render_zfs import ALIASES, INHERITABLE_DEFAULTS, NOT_INHERITED

    prop = ALIASES.get(prop, prop)
    err = f"cannot set property for '{name}'"
    if "@" in name:
        snap = m.find_snapshot(name)
        if snap is None:
            raise CmdError(1, f"cannot open '{name}': dataset does not exist")
        if ":" not in prop:
            raise CmdError(1, f"{err}: this property can not be modified for snapshots")
        return
    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if prop in RO_ZFS:
        raise CmdError(1, f"{err}: '{prop}' is readonly")
    if ":" in prop:
        ds.props[prop] = val
        return
    if prop in BOOL_ZFS:
        ok = {"on", "off", "noauto"} if prop == "canmount" else {"on", "off"}
        if val not in ok:
            raise CmdError(1, f"{err}: '{prop}' must be one of '{' | '.join(sorted(ok))}'")
    elif prop in CHOICES_ZFS:
        if val not in CHOICES_ZFS[prop]:
            raise CmdError(1, f"{err}: invalid property value '{val}' for '{prop}'")
    elif prop in SIZES_ZFS:
        if val != "none" and not _is_size(val):
            raise CmdError(1, f"bad numeric value '{val}'")
    elif prop == "mountpoint":
        if not (val.startswith("/") or val in ("none", "legacy")):
            raise CmdError(1, f"{err}: 'mountpoint' must be an absolute path, 'none', or "
                              "'legacy'")
    elif prop not in INHERITABLE_DEFAULTS and prop not in NOT_INHERITED:
        raise CmdError(2, f"cannot set property for '{name}': invalid property '{prop}'")
    if prop == "volsize" and ds.type == "volume":
        ds.volsize = _size(val)
        return
    ds.props[prop] = val
    if ds.type == "filesystem" and prop == "mountpoint":
        ds.mounted = val not in ("none", "legacy")  # zfs unmounts / remounts at once
    if ds.type == "filesystem" and prop == "canmount" and val == "off":
        ds.mounted = False


def _is_size(v: str) -> bool:
    try:
        _size(v)
    except ValueError:
        return False
    return True


def _size(v: str) -> int:
    units = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
             "P": 1 << 50}
    s = v.upper().rstrip("B") if len(v) > 1 and v.upper().endswith("B") else v.upper()
    num = s.rstrip("KMGTP")
    unit = s[len(num):]
    if not num or unit not in units:
        raise ValueError(v)
    return int(float(num) * units[unit])


# ------------------------------------------------------------ send / receive / rename / mount

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


def rename(m: Machine, src: str, dst: str) -> None:
    if "@" in src:
        raise CmdError(1, "cannot rename snapshots here (the demo renames datasets only)")
    if src not in m.datasets:
        raise CmdError(1, f"cannot open '{src}': dataset does not exist")
    if dst.split("/", 1)[0] != src.split("/", 1)[0]:
        raise CmdError(1, f"cannot rename to '{dst}': datasets must be within same pool")
    if dst in m.datasets:
        raise CmdError(1, f"cannot rename to '{dst}': dataset already exists")
    parent = dst.rsplit("/", 1)[0] if "/" in dst else None
    if parent is None or parent not in m.datasets:
        raise CmdError(1, f"cannot rename to '{dst}': parent does not exist")
    if dst.startswith(src + "/"):
        raise CmdError(1, f"cannot rename to '{dst}': New dataset name cannot be a "
                          "descendant of current dataset name")
    moving = [n for n in m.datasets if n == src or n.startswith(src + "/")]
    for old in sorted(moving):
        new = dst + old[len(src):]
        ds = m.datasets.pop(old)
        ds.name = new
        m.datasets[new] = ds
        for key in (old,):
            snaps = m.snapshots.pop(key, None)
            if snaps is not None:
                for s in snaps:
                    s.name = new + "@" + s.short
                m.snapshots[new] = snaps
            series = m.series.pop(key, None)
            if series is not None:
                for ser in series:
                    ser.dataset = new
                m.series[new] = series
    for other in m.datasets.values():
        if other.origin and (other.origin.split("@", 1)[0] == src
                             or other.origin.startswith(src + "/")):
            other.origin = dst + other.origin[len(src):]
    m.next_txg()


def mount(m: Machine, name: str) -> None:
    from zconsole.hosts.demo.render_zfs import Row, value

    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if ds.type != "filesystem":
        raise CmdError(1, f"cannot mount '{name}': operation not applicable to datasets of "
                          "this type")
    mp = value(m, Row(name=name, type=ds.type, ds=ds), "mountpoint", True)[0]
    if mp in ("none", "legacy"):
        raise CmdError(1, f"cannot mount '{name}': no mountpoint set")
    if ds.mounted:
        raise CmdError(1, f"cannot mount '{name}': filesystem already mounted")
    ds.mounted = True


def unmount(m: Machine, name: str) -> None:
    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if ds.type != "filesystem":
        raise CmdError(1, f"cannot unmount '{name}': operation not applicable to datasets "
                          "of this type")
    if not ds.mounted or ds.props.get("mountpoint") in ("none", "legacy"):
        raise CmdError(1, f"cannot unmount '{name}': not currently mounted")
    ds.mounted = False


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
