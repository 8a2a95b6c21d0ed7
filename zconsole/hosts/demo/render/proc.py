"""Files under /proc and /sys/module: arcstats, zil, diskstats, mounts, swaps, mdstat."""

from __future__ import annotations

from zconsole.hosts.demo.machine.arc import Zil
from zconsole.hosts.demo.machine.common import GiB, MiB
from zconsole.hosts.demo.machine.state import Machine

ARC_FIELDS_23 = """hits iohits misses demand_data_hits demand_data_iohits demand_data_misses
demand_metadata_hits demand_metadata_iohits demand_metadata_misses prefetch_data_hits
prefetch_data_iohits prefetch_data_misses prefetch_metadata_hits prefetch_metadata_iohits
prefetch_metadata_misses mru_hits mru_ghost_hits mfu_hits mfu_ghost_hits uncached_hits deleted
mutex_miss access_skip evict_skip evict_not_enough evict_l2_cached evict_l2_eligible
evict_l2_eligible_mfu evict_l2_eligible_mru evict_l2_ineligible evict_l2_skip hash_elements
hash_elements_max hash_collisions hash_chains hash_chain_max meta pd pm c c_min c_max size
compressed_size uncompressed_size overhead_size hdr_size data_size metadata_size dbuf_size
dnode_size bonus_size anon_size anon_data anon_metadata anon_evictable_data
anon_evictable_metadata mru_size mru_data mru_metadata mru_evictable_data
mru_evictable_metadata mru_ghost_size mru_ghost_data mru_ghost_metadata
mru_ghost_evictable_data mru_ghost_evictable_metadata mfu_size mfu_data mfu_metadata
mfu_evictable_data mfu_evictable_metadata mfu_ghost_size mfu_ghost_data mfu_ghost_metadata
mfu_ghost_evictable_data mfu_ghost_evictable_metadata uncached_size uncached_data
uncached_metadata uncached_evictable_data uncached_evictable_metadata l2_hits l2_misses
l2_prefetch_asize l2_mru_asize l2_mfu_asize l2_bufc_data_asize l2_bufc_metadata_asize l2_feeds
l2_rw_clash l2_read_bytes l2_write_bytes l2_writes_sent l2_writes_done l2_writes_error
l2_writes_lock_retry l2_evict_lock_retry l2_evict_reading l2_evict_l1cached l2_free_on_write
l2_abort_lowmem l2_cksum_bad l2_io_error l2_size l2_asize l2_hdr_size l2_log_blk_writes
l2_log_blk_avg_asize l2_log_blk_asize l2_log_blk_count l2_data_to_meta_ratio
l2_rebuild_success l2_rebuild_unsupported l2_rebuild_io_errors l2_rebuild_dh_errors
l2_rebuild_cksum_lb_errors l2_rebuild_lowmem l2_rebuild_size l2_rebuild_asize l2_rebuild_bufs
l2_rebuild_bufs_precached l2_rebuild_log_blks memory_throttle_count memory_direct_count
memory_indirect_count memory_all_bytes memory_free_bytes memory_available_bytes arc_no_grow
arc_tempreserve arc_loaned_bytes arc_prune arc_meta_used arc_dnode_limit async_upgrade_sync
predictive_prefetch demand_hit_predictive_prefetch demand_iohit_predictive_prefetch
prescient_prefetch demand_hit_prescient_prefetch demand_iohit_prescient_prefetch arc_need_free
arc_sys_free arc_raw_size cached_only_in_progress abd_chunk_waste_size""".split()

ARC_FIELDS_21 = """hits misses demand_data_hits demand_data_misses demand_metadata_hits
demand_metadata_misses prefetch_data_hits prefetch_data_misses prefetch_metadata_hits
prefetch_metadata_misses mru_hits mru_ghost_hits mfu_hits mfu_ghost_hits deleted mutex_miss
access_skip evict_skip evict_not_enough evict_l2_cached evict_l2_eligible evict_l2_eligible_mfu
evict_l2_eligible_mru evict_l2_ineligible evict_l2_skip hash_elements hash_elements_max
hash_collisions hash_chains hash_chain_max p c c_min c_max size compressed_size
uncompressed_size overhead_size hdr_size data_size metadata_size dbuf_size dnode_size
bonus_size anon_size anon_evictable_data anon_evictable_metadata mru_size mru_evictable_data
mru_evictable_metadata mru_ghost_size mru_ghost_evictable_data mru_ghost_evictable_metadata
mfu_size mfu_evictable_data mfu_evictable_metadata mfu_ghost_size mfu_ghost_evictable_data
mfu_ghost_evictable_metadata l2_hits l2_misses l2_prefetch_asize l2_mru_asize l2_mfu_asize
l2_bufc_data_asize l2_bufc_metadata_asize l2_feeds l2_rw_clash l2_read_bytes l2_write_bytes
l2_writes_sent l2_writes_done l2_writes_error l2_writes_lock_retry l2_evict_lock_retry
l2_evict_reading l2_evict_l1cached l2_free_on_write l2_abort_lowmem l2_cksum_bad l2_io_error
l2_size l2_asize l2_hdr_size l2_log_blk_writes l2_log_blk_avg_asize l2_log_blk_asize
l2_log_blk_count l2_data_to_meta_ratio l2_rebuild_success l2_rebuild_unsupported
l2_rebuild_io_errors l2_rebuild_dh_errors l2_rebuild_cksum_lb_errors l2_rebuild_lowmem
l2_rebuild_size l2_rebuild_asize l2_rebuild_bufs l2_rebuild_bufs_precached
l2_rebuild_log_blks memory_throttle_count memory_direct_count memory_indirect_count
memory_all_bytes memory_free_bytes memory_available_bytes arc_no_grow arc_tempreserve
arc_loaned_bytes arc_prune arc_meta_used arc_meta_limit arc_dnode_limit arc_meta_max
arc_meta_min async_upgrade_sync demand_hit_predictive_prefetch demand_hit_prescient_prefetch
arc_need_free arc_sys_free arc_raw_size cached_only_in_progress abd_chunk_waste_size""".split()


def arcstats(m: Machine, now: float, v23: bool) -> str:
    a = m.arc
    if a is None:
        raise FileNotFoundError("/proc/spl/kstat/zfs/arcstats")
    k = {n: int(v) for n, v in a.counters.items()}
    size = a.size
    data = int(size * 0.86)
    meta = int(size * 0.11)
    hdr = int(size * 0.004)
    dnode = int(size * 0.012)
    dbuf = int(size * 0.006)
    bonus = int(size * 0.002)
    mru = int((data + meta) * 0.42)
    mfu = data + meta - mru
    vals: dict[str, int] = dict.fromkeys(ARC_FIELDS_23 + ARC_FIELDS_21, 0)
    vals.update(k)
    vals.update({
        "c": a.c, "c_min": a.c_min, "c_max": a.c_max, "size": size,
        "p": a.c // 2, "meta": 1 << 29, "pd": 1 << 31, "pm": 1 << 31,
        "compressed_size": int(data * 0.76), "uncompressed_size": int(data * 1.02),
        "overhead_size": int(data * 0.24), "hdr_size": hdr, "data_size": data,
        "metadata_size": meta, "dbuf_size": dbuf, "dnode_size": dnode, "bonus_size": bonus,
        "anon_size": 2 * MiB, "anon_data": 2 * MiB,
        "mru_size": mru, "mru_data": int(mru * 0.85), "mru_metadata": int(mru * 0.15),
        "mru_evictable_data": int(mru * 0.7), "mru_evictable_metadata": int(mru * 0.05),
        "mru_ghost_size": 4 * GiB, "mru_ghost_data": 3 * GiB, "mru_ghost_metadata": GiB,
        "mfu_size": mfu, "mfu_data": int(mfu * 0.88), "mfu_metadata": int(mfu * 0.12),
        "mfu_evictable_data": int(mfu * 0.8), "mfu_evictable_metadata": int(mfu * 0.04),
        "mfu_ghost_size": 2 * GiB, "mfu_ghost_data": GiB, "mfu_ghost_metadata": GiB,
        "hash_elements": size // 24576, "hash_elements_max": size // 20000,
        "hash_collisions": k.get("misses", 0) // 3, "hash_chains": size // 400000,
        "hash_chain_max": 7,
        "l2_size": a.l2_size, "l2_asize": a.l2_asize, "l2_hdr_size": a.l2_size // 900,
        "l2_feeds": int(now - m.boot_time), "l2_read_bytes": k.get("l2_hits", 0) * 65536,
        "l2_write_bytes": a.l2_asize, "l2_writes_sent": a.l2_asize // (8 * MiB),
        "l2_writes_done": a.l2_asize // (8 * MiB),
        "l2_mru_asize": int(a.l2_asize * 0.6), "l2_mfu_asize": int(a.l2_asize * 0.4),
        "l2_bufc_data_asize": int(a.l2_asize * 0.93),
        "l2_bufc_metadata_asize": int(a.l2_asize * 0.07),
        "memory_throttle_count": a.throttled, "memory_all_bytes": a.memory_all,
        "memory_free_bytes": int(a.memory_all * 0.09),
        "memory_available_bytes": int(a.memory_all * 0.09) - (a.memory_all >> 6),
        "arc_meta_used": meta + hdr + dnode + dbuf + bonus,
        "arc_meta_limit": a.c_max * 3 // 4, "arc_meta_max": meta * 2, "arc_meta_min": 16 * MiB,
        "arc_dnode_limit": a.c_max // 10, "arc_sys_free": a.memory_all >> 6,
        "arc_prune": 0, "async_upgrade_sync": 211, "predictive_prefetch": k.get("hits", 0) // 9,
        "demand_hit_predictive_prefetch": k.get("hits", 0) // 40,
        "abd_chunk_waste_size": 2 * MiB + 123456,
        "evict_l2_eligible": k.get("deleted", 0) * 65536,
        "evict_l2_ineligible": k.get("deleted", 0) * 4096,
    })
    fields = ARC_FIELDS_23 if v23 else ARC_FIELDS_21
    crtime = int((m.boot_time - m.boot_time + 13.4) * 1e9)
    snaptime = int((now - m.boot_time) * 1e9)
    lines = [f"18 1 0x01 {len(fields)} {len(fields) * 272} {crtime} {snaptime}",
             f"{'name':<31} {'type':<4} data"]
    for f in fields:
        t = 3 if f == "memory_available_bytes" else 4
        lines.append(f"{f:<31} {t:<4} {vals[f]}")
    return "\n".join(lines) + "\n"


def diskstats(m: Machine) -> str:
    lines: list[str] = []
    for i in range(8):
        lines.append(f"   7       {i} loop{i} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0")
    for d in sorted(m.disks.values(), key=lambda d: (d.major, d.minor)):
        if not d.present:
            continue
        lines.append(_ds_line(d.major, d.minor, d.name, d.counters))
        for p in d.partitions:
            share = 0.999 if p.number == 1 or len(d.partitions) == 1 else 0.0005
            if p.mountpoint == "/" or p.swap:
                share = 0.9 if p.mountpoint == "/" else 0.001
            c = [x * share for x in d.counters]
            minor = d.minor + p.number if d.major != 259 else d.minor + p.number
            lines.append(_ds_line(d.major, minor, d.part_name(p.number), c))
    return "\n".join(lines) + "\n"


def _ds_line(major: int, minor: int, name: str, c: list[float]) -> str:
    v = [int(x) for x in c]
    for i in (3, 7, 9, 10, 14, 16):  # millisecond fields are 32-bit
        v[i] &= 0xFFFFFFFF
    v[8] = 0
    return f"{major:4d} {minor:7d} {name} " + " ".join(str(x) for x in v)


ZIL_FIELDS_21 = """zil_commit_count zil_commit_writer_count zil_itx_count
zil_itx_indirect_count zil_itx_indirect_bytes zil_itx_copied_count zil_itx_copied_bytes
zil_itx_needcopy_count zil_itx_needcopy_bytes zil_itx_metaslab_normal_count
zil_itx_metaslab_normal_bytes zil_itx_metaslab_slog_count zil_itx_metaslab_slog_bytes""".split()
ZIL_FIELDS_23 = """zil_commit_count zil_commit_writer_count zil_commit_error_count
zil_commit_stall_count zil_commit_suspend_count zil_itx_count zil_itx_indirect_count
zil_itx_indirect_bytes zil_itx_copied_count zil_itx_copied_bytes zil_itx_needcopy_count
zil_itx_needcopy_bytes zil_itx_metaslab_normal_count zil_itx_metaslab_normal_bytes
zil_itx_metaslab_normal_write zil_itx_metaslab_normal_alloc zil_itx_metaslab_slog_count
zil_itx_metaslab_slog_bytes zil_itx_metaslab_slog_write zil_itx_metaslab_slog_alloc""".split()
ZIL_LOADED_AFTER_BOOT_S = 9.4  # the module's load, as on the test guests (~30 s under TCG)


def default_zil(m: Machine) -> Zil:
    has_log = any(v.is_log for p in m.pools.values() for v in p.top)
    return Zil(slog_per_s=14.0 if has_log else 0.0, normal_per_s=0.4)


def zil(m: Machine, now: float, v23: bool) -> str:
    """/proc/spl/kstat/zfs/zil: counts = rate x seconds since the module loaded (the layout
    of tests/fixtures/parsers/zil)."""
    if m.arc is None:  # as arcstats: no ZFS module loaded
        raise FileNotFoundError("/proc/spl/kstat/zfs/zil")
    z = m.zil or default_zil(m)
    age = max(now - m.boot_time - ZIL_LOADED_AFTER_BOOT_S, 0.0)
    slog, normal = int(z.slog_per_s * age), int(z.normal_per_s * age)
    blocks = slog + normal
    commits = int(blocks * z.commits_per_block)
    vals = dict.fromkeys(ZIL_FIELDS_23 if v23 else ZIL_FIELDS_21, 0)
    vals.update({
        "zil_commit_count": commits, "zil_commit_writer_count": commits,
        "zil_itx_count": commits, "zil_itx_needcopy_count": commits,
        "zil_itx_needcopy_bytes": commits * 8192,
        "zil_itx_metaslab_normal_count": normal, "zil_itx_metaslab_normal_bytes": normal * 8540,
        "zil_itx_metaslab_slog_count": slog, "zil_itx_metaslab_slog_bytes": slog * 8540,
    })
    if v23:
        vals.update({"zil_itx_metaslab_normal_write": normal * 12288,
                     "zil_itx_metaslab_normal_alloc": normal * 12288,
                     "zil_itx_metaslab_slog_write": slog * 12288,
                     "zil_itx_metaslab_slog_alloc": slog * 12700})
    crtime = int(ZIL_LOADED_AFTER_BOOT_S * 1e9)
    snaptime = crtime + int(age * 1e9)
    lines = [f"{22 if v23 else 15} 1 0x01 {len(vals)} {len(vals) * 272} {crtime} {snaptime}",
             "name                            type data"]
    lines += [f"{k:<31} 4    {v}" for k, v in vals.items()]
    return "\n".join(lines) + "\n"


def mounts(m: Machine) -> str:
    out = ["sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0",
           "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
           "udev /dev devtmpfs rw,nosuid,relatime,size=32802576k,nr_inodes=8200644,mode=755 0 0"]
    for d in m.disks.values():
        for p in d.partitions:
            if p.mountpoint and p.fs_type:
                opts = "rw,relatime" if p.fs_type != "vfat" else (
                    "rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=ascii,"
                    "shortname=mixed,utf8,errors=remount-ro")
                if p.fs_type == "ext4":
                    opts = "rw,relatime,errors=remount-ro" if p.mountpoint == "/" else "rw,relatime"
                out.append(f"/dev/{d.part_name(p.number)} {p.mountpoint} {p.fs_type} {opts} 0 0")
    out.append("tmpfs /run tmpfs rw,nosuid,nodev,noexec,relatime,size=6566296k,mode=755 0 0")
    for name, ds in sorted(m.datasets.items()):
        if ds.type != "filesystem" or not ds.mounted:
            continue
        mp = ds.props.get("mountpoint", "/" + name)
        if mp in ("none", "legacy"):
            continue
        mp = mp.replace(" ", "\\040")
        out.append(f"{name} {mp} zfs rw,relatime,xattr,posixacl,casesensitive 0 0")
    return "\n".join(out) + "\n"


def swaps(m: Machine) -> str:
    out = ["Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority"]
    for s in m.swaps:
        out.append(f"{s:<40}partition\t16777212\t0\t\t-2")
    return "\n".join(out) + "\n"


def mdstat() -> str:
    return "Personalities : \nunused devices: <none>\n"
