"""`zpool status` in the 2.1 text layout and the 2.3 JSON layout (`-j [--json-int]`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from zconsole.hosts.demo.fmt import ctime, nicebytes, nicenum, secs_to_dhms
from zconsole.hosts.demo.machine.pools import Ddt, Pool, Vdev, expand_size
from zconsole.hosts.demo.machine.scans import Scan, is_deferred
from zconsole.hosts.demo.machine.state import Machine
from zconsole.model.pool import VDEV_AUX_TEXT  # zpool's words for an aux state

MSG_URL = "https://openzfs.github.io/openzfs-docs/msg/"

# (status, action, msgid) per zpool_status_t, as zpool_main.c prints them.
REASONS: dict[str, tuple[str, str, str | None]] = {
    "FAULTED_DEV_R": (
        "One or more devices are faulted in response to persistent errors.\n\tSufficient "
        "replicas exist for the pool to continue functioning in a\n\tdegraded state.\n",
        "Replace the faulted device, or use 'zpool clear' to mark the device\n\trepaired.\n",
        None,
    ),
    "MISSING_DEV_R": (
        "One or more devices could not be opened.  Sufficient replicas exist for\n\tthe pool "
        "to continue functioning in a degraded state.\n",
        "Attach the missing device and online it using 'zpool online'.\n",
        "ZFS-8000-2Q",
    ),
    "FAILING_DEV": (
        "One or more devices has experienced an unrecoverable error.  An\n\tattempt was made "
        "to correct the error.  Applications are unaffected.\n",
        "Determine if the device needs to be replaced, and clear the errors\n\tusing 'zpool "
        "clear' or replace the device with 'zpool replace'.\n",
        "ZFS-8000-9P",
    ),
    "OFFLINE_DEV": (
        "One or more devices has been taken offline by the administrator.\n\tSufficient "
        "replicas exist for the pool to continue functioning in a\n\tdegraded state.\n",
        "Online the device using 'zpool online' or replace the device with\n\t'zpool "
        "replace'.\n",
        None,
    ),
    "REMOVED_DEV": (
        "One or more devices has been removed by the administrator.\n\tSufficient replicas "
        "exist for the pool to continue functioning in a\n\tdegraded state.\n",
        "Online the device using zpool online' or replace the device with\n\t'zpool "
        "replace'.\n",
        None,
    ),
    "RESILVERING": (
        "One or more devices is currently being resilvered.  The pool will\n\tcontinue to "
        "function, possibly in a degraded state.\n",
        "Wait for the resilver to complete.\n",
        None,
    ),
    "NON_NATIVE_ASHIFT": (
        "One or more devices are configured to use a non-native block size.\n\tExpect "
        "reduced performance.\n",
        "Replace affected devices with devices that support the\n\tconfigured block size, "
        "or migrate data to a properly configured\n\tpool.\n",
        None,
    ),
}


@dataclass(frozen=True)
class NameFlags:
    full_path: bool = False  # -P
    follow_links: bool = False  # -L
    guid: bool = False  # -g


def native_ashift(m: Machine, v: Vdev) -> int | None:
    """The disk's physical ashift when it is above the leaf's configured one: what zpool
    status reports (print_status_config's `block size:` note), else None."""
    if not v.is_leaf or v.disk is None:
        return None
    d = m.disks.get(v.disk)
    if d is None:
        return None
    native = max(9, d.physical_sector.bit_length() - 1)
    return native if v.ashift < native else None


def state_name(v: Vdev) -> str:
    """zpool_state_to_name: the word text output prints."""
    if v.state == "CANT_OPEN":
        if v.aux in ("CORRUPT_DATA", "BAD_LOG"):
            return "FAULTED"
        if v.aux == "SPLIT_POOL":
            return "SPLIT"
        return "UNAVAIL"
    if v.state == "CLOSED":
        return "OFFLINE"
    return v.state


def vdev_name(m: Machine, v: Vdev, flags: NameFlags) -> str:
    if flags.guid:
        return str(v.guid)
    if v.is_leaf and v.not_present:
        return str(v.guid)
    if not v.is_leaf:
        return v.name()
    if flags.follow_links and v.disk:
        d = m.disks[v.disk]
        path = f"/dev/{d.part_name(1)}" if v.whole_disk else f"/dev/{d.name}"
        return path if flags.full_path else (d.name if v.whole_disk else path.rsplit("/", 1)[1])
    if flags.full_path:
        return v.path
    return v.name()


def pool_reason(m: Machine, p: Pool) -> str | None:
    """zpool_get_status for the states the demo can be in (check_status order)."""
    leaves = [v for v in p.root.walk() if v.is_leaf]
    if any(v.state == "FAULTED" for v in leaves):
        return "FAULTED_DEV_R"
    if any(v.state == "CANT_OPEN" and v.aux == "OPEN_FAILED" for v in leaves):
        return "MISSING_DEV_R"
    if any(v.read_errors or v.write_errors or v.checksum_errors for v in leaves):
        return "FAILING_DEV"
    if any(v.state == "OFFLINE" for v in leaves):
        return "OFFLINE_DEV"
    if any(v.state == "REMOVED" for v in leaves):
        return "REMOVED_DEV"
    if p.scan is not None and p.scan.state == "SCANNING" and p.scan.function == "RESILVER":
        return "RESILVERING"
    if any(native_ashift(m, v) is not None for v in leaves):
        return "NON_NATIVE_ASHIFT"
    return None


def pool_state(p: Pool) -> str:
    s = p.root.state
    return "UNAVAIL" if s == "CANT_OPEN" else s


# ---------------------------------------------------------------------------------- text


def _scan_lines(sc: Scan | None, now: float) -> list[str]:
    if sc is None:
        return ["  scan: none requested"]
    resilver = sc.function == "RESILVER"
    if sc.state == "FINISHED":
        took = secs_to_dhms(int(sc.end_time) - int(sc.start_time))
        what = "resilvered" if resilver else "scrub repaired"
        return [f"  scan: {what} {nicebytes(sc.processed_final)} in {took} with {sc.errors} "
                f"errors on {ctime(sc.end_time)}"]
    if sc.state == "CANCELED":
        what = "resilver" if resilver else "scrub"
        return [f"  scan: {what} canceled on {ctime(sc.end_time)}"]
    lines: list[str] = []
    if resilver:
        lines.append(f"  scan: resilver in progress since {ctime(sc.start_time)}")
    elif sc.paused_at:
        lines.append(f"  scan: scrub paused since {ctime(sc.paused_at)}")
        lines.append(f"\tscrub started on {ctime(sc.start_time)}")
    else:
        lines.append(f"  scan: scrub in progress since {ctime(sc.start_time)}")
    issued = sc.issued(now)
    scanned = sc.examined(now)
    total_s = sc.to_examine
    total_i = sc.to_examine - sc.skipped
    elapsed = int(now - sc.pass_start - sc.spent_paused) or 1
    scan_rate = int(scanned / elapsed)
    issue_rate = int(issued / elapsed)
    pause = bool(sc.paused_at)
    line = f"\t{nicebytes(scanned)} / {nicebytes(total_s)} scanned"
    if scan_rate > 0 and not pause:
        line += f" at {nicebytes(scan_rate)}/s"
    line += f", {nicebytes(issued)} / {nicebytes(total_i)} issued"
    if issue_rate > 0 and not pause:
        line += f" at {nicebytes(issue_rate)}/s"
    lines.append(line)
    frac = issued / total_i if total_i else 0.0
    processed = sc.processed(now)
    second = (f"\t{nicebytes(processed)} resilvered, {100 * frac:.2f}% done" if resilver
              else f"\t{nicebytes(processed)} repaired, {100 * frac:.2f}% done")
    if not pause:
        if total_i >= issued and issue_rate >= 10 * 1024 * 1024 and (
            (resilver and processed > 0) or (not resilver and issued > 0)
        ):
            second += f", {secs_to_dhms((total_i - issued) // issue_rate)} to go"
        else:
            second += ", no estimated completion time"
    lines.append(second)
    return lines


def _max_width(m: Machine, v: Vdev, depth: int, cur: int, flags: NameFlags) -> int:
    name = vdev_name(m, v, flags)
    cur = max(cur, len(name) + depth)
    for c in v.children:
        cur = _max_width(m, c, depth + 2, cur, flags)
    return cur


def _count(n: int, literal: bool) -> str:
    return str(n) if literal else nicenum(n)


def _row(m: Machine, p: Pool, v: Vdev, depth: int, width: int, literal: bool,
         flags: NameFlags, now: float, *, isspare: bool = False,
         recurse: bool = True) -> Iterator[str]:
    name = p.name if v.type == "root" else vdev_name(m, v, flags)
    state = state_name(v)
    if isspare:
        state = "INUSE" if v.aux == "SPARED" else ("AVAIL" if v.state == "ONLINE" else state)
    line = f"\t{'':{depth}}{name:<{width - depth}}  {state:<8}"
    if not isspare:
        line += (f" {_count(v.read_errors, literal):>5} {_count(v.write_errors, literal):>5}"
                 f" {_count(v.checksum_errors, literal):>5}")
    if v.is_leaf and v.not_present:
        line += f"  was {v.path}"
    elif v.aux is not None and not isspare:
        line += "  " + VDEV_AUX_TEXT.get(v.aux, "corrupted data")
    elif not isspare and (native := native_ashift(m, v)) is not None:
        line += f"  block size: {1 << v.ashift}B configured, {1 << native}B native"
    sc = p.scan
    if (v.is_leaf and v.resilvering and sc is not None and sc.state == "SCANNING"
            and v.state == "ONLINE"):  # zpool_main.c: awaiting when deferred (resilver_defer)
        line += "  (awaiting resilver)" if is_deferred(p, v) else "  (resilvering)"
    yield line
    if recurse:
        for c in v.children:
            yield from _row(m, p, c, depth + 2, width, literal, flags, now)


def _ddt_lines(ddt: Ddt | None, v23: bool) -> list[str]:
    if ddt is None or ddt.entries == 0:
        return ["", " dedup: no DDT entries"]
    if v23:
        dspace, mspace = ddt.entries * ddt.disk_per_entry, ddt.entries * ddt.core_per_entry
    else:
        dspace, mspace = ddt.disk_per_entry, ddt.core_per_entry
    out = ["", f" dedup: DDT entries {ddt.entries}, size {nicebytes(dspace)} on disk, "
               f"{nicebytes(mspace)} in core", ""]
    out.append("bucket              allocated                       referenced          ")
    out.append("______   ______________________________   ______________________________")
    out.append("refcnt   blocks   LSIZE   PSIZE   DSIZE   blocks   LSIZE   PSIZE   DSIZE")
    out.append("------   ------   -----   -----   -----   ------   -----   -----   -----")
    tot = [0] * 8
    for c in ddt.histogram:
        vals = [c.blocks, c.lsize, c.psize, c.dsize, c.blocks * c.refcnt, c.lsize * c.refcnt,
                c.psize * c.refcnt, c.dsize * c.refcnt]
        tot = [a + b for a, b in zip(tot, vals, strict=True)]
        out.append(_ddt_row(nicenum(c.refcnt), vals))
    out.append(_ddt_row("Total", tot))
    out.append("")
    return out


def _ddt_row(label: str, v: list[int]) -> str:
    return (f"{label:>6}   {nicenum(v[0]):>6}   {nicebytes(v[1]):>5}   {nicebytes(v[2]):>5}"
            f"   {nicebytes(v[3]):>5}   {nicenum(v[4]):>6}   {nicebytes(v[5]):>5}"
            f"   {nicebytes(v[6]):>5}   {nicebytes(v[7]):>5}")


def status_text(m: Machine, pools: list[Pool], now: float, *, literal: bool = False,
                flags: NameFlags = NameFlags(), dedup: bool = False, verbose: bool = False,
                explain: bool = False, v23: bool = True, named: bool = False) -> str:
    out: list[str] = []
    first = True
    shown = 0
    for p in pools:
        reason = pool_reason(m, p)
        if explain and reason is None:
            continue
        shown += 1
        if not first:
            out.append("")
        first = False
        out.append(f"  pool: {p.name}")
        out.append(f" state: {pool_state(p)}")
        if reason is not None:
            status, action, msgid = REASONS[reason]
            out.append(("status: " + status).rstrip("\n"))
            out.append(("action: " + action).rstrip("\n"))
            if msgid:
                out.append(f"   see: {MSG_URL}{msgid}")
        out.extend(_scan_lines(p.scan, now))
        out.append("config:")
        out.append("")
        width = _max_width(m, p.root, 0, len(p.name), flags)
        for v in p.cache + p.spares:
            width = _max_width(m, v, 2, width, flags)
        width = max(width, 10)
        out.append(f"\t{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}")
        out.extend(_row(m, p, p.root, 0, width, literal, flags, now, recurse=False))
        for t in p.data_vdevs():
            out.extend(_row(m, p, t, 2, width, literal, flags, now))
        logs = p.log_vdevs()
        if logs:
            out.append("\tlogs\t")
            for t in logs:
                out.extend(_row(m, p, t, 2, width, literal, flags, now))
        if p.cache:
            out.append("\tcache")
            for t in p.cache:
                out.extend(_row(m, p, t, 2, width, literal, flags, now))
        if p.spares:
            out.append("\tspares")
            for t in p.spares:
                out.extend(_row(m, p, t, 2, width, literal, flags, now, isspare=True))
        out.append("")
        if p.data_errors:
            out.append(f"errors: {p.data_errors} data errors, use '-v' for a list")
        else:
            out.append("errors: No known data errors")
        if dedup:
            out.extend(_ddt_lines(p.ddt, v23))
    if explain and shown == 0:
        if named and len(pools) == 1:
            return f"pool '{pools[0].name}' is healthy\n"
        return "all pools are healthy\n"
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- JSON


class _J:
    """Number encoding: --json-int gives integers, -p exact strings, default human strings."""

    def __init__(self, as_int: bool, literal: bool) -> None:
        self.as_int = as_int
        self.literal = literal

    def num(self, n: int) -> int | str:
        return n if self.as_int else str(n)

    def size(self, n: int) -> int | str:
        if self.as_int:
            return n
        return str(n) if self.literal else nicenum(n)

    def time(self, t: float) -> int | str:
        if self.as_int:
            return int(t)
        return str(int(t)) if self.literal else ctime(t)


def _vdev_json(m: Machine, p: Pool, v: Vdev, cls: str, j: _J, flags: NameFlags,
               flat: dict[str, Any] | None, parent: str | None, now: float,
               isspare: bool = False, children: list[Vdev] | None = None,
               ) -> tuple[str, dict[str, Any]]:
    """One vdev object. With `flat`, descendants go into `flat` (post-order) with a
    `parent` key instead of nesting under `vdevs`."""
    name = p.name if v.type == "root" else vdev_name(m, v, flags)
    d: dict[str, Any] = {"name": name, "vdev_type": v.type, "guid": j.num(v.guid)}
    if v.is_leaf:
        d["path"] = v.path
        if v.phys_path:
            d["phys_path"] = v.phys_path
        if v.devid:
            d["devid"] = v.devid
    d["class"] = cls
    state = v.state
    if isspare:
        state = "INUSE" if v.aux == "SPARED" else ("AVAIL" if v.state == "ONLINE" else state)
    d["state"] = state
    if flat is not None and parent is not None:
        d["parent"] = parent
    if v.is_leaf and v.not_present:
        d["not_present"] = j.num(1)
        d["was"] = v.path
    elif v.aux is not None:
        d["aux"] = v.aux
    elif not isspare and (native := native_ashift(m, v)) is not None:
        d["configured_ashift"] = j.num(v.ashift)
        d["physical_ashift"] = j.num(native)
    if v.type == "root":
        d["alloc_space"] = j.size(p.alloc)
        d["total_space"] = j.size(p.size())
        d["def_space"] = j.size(p.size())
    elif p.is_top(v) and not v.is_leaf:
        alloc = p.top_alloc(v)
        d["alloc_space"] = j.size(alloc)
        d["total_space"] = j.size(v.asize)
        d["def_space"] = j.size(v.asize)
        d["rep_dev_size"] = j.size(v.asize)
        esize = expand_size(v)
        if esize:
            d["ex_space"] = j.size(esize)
    elif v.is_leaf and not v.not_present:
        d["rep_dev_size"] = j.size(v.psize)
        d["phys_space"] = j.size(v.psize)
    d["read_errors"] = j.num(v.read_errors)
    d["write_errors"] = j.num(v.write_errors)
    d["checksum_errors"] = j.num(v.checksum_errors)
    if v.is_leaf and not isspare and cls != "l2cache":
        d["slow_ios"] = j.num(v.slow_ios)
        sc = p.scan
        if v.resilvering and sc is not None and sc.state == "SCANNING" \
                and not is_deferred(p, v):
            d["scan_processed"] = j.size(sc.processed(now))
    kids = v.children if children is None else children
    if kids:
        nested: dict[str, Any] = {}
        for c in kids:
            k, cd = _vdev_json(m, p, c, cls, j, flags, flat, name, now)
            if flat is not None:
                flat[k] = cd
            else:
                nested[k] = cd
        if flat is None:
            d["vdevs"] = nested
    return name, d


def _scan_json(sc: Scan, j: _J, now: float) -> dict[str, Any]:
    issued = sc.issued(now)
    return {
        "function": sc.function,
        "state": sc.state,
        "start_time": j.time(sc.start_time),
        "end_time": j.time(sc.end_time) if sc.state != "SCANNING" else j.num(0),
        "to_examine": j.size(sc.to_examine),
        "examined": j.size(sc.examined(now)),
        "skipped": j.size(sc.skipped),
        "processed": j.size(sc.processed(now)),
        "errors": j.num(sc.errors),
        "bytes_per_scan": j.num(0),
        "pass_start": j.time(sc.pass_start),
        "scrub_pause": j.num(int(sc.paused_at)),
        "scrub_spent_paused": j.num(int(sc.spent_paused)),
        "issued_bytes_per_scan": j.size(issued),
        "issued": j.size(issued),
    }


def status_json(m: Machine, pools: list[Pool], now: float, *, as_int: bool, literal: bool,
                flat: bool, flags: NameFlags = NameFlags(), explain: bool = False) -> str:
    j = _J(as_int, literal)
    out: dict[str, Any] = {
        "output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
        "pools": {},
    }
    for p in pools:
        reason = pool_reason(m, p)
        if explain and reason is None:
            continue
        item: dict[str, Any] = {
            "name": p.name,
            "state": pool_state(p),
            "pool_guid": j.num(p.guid),
            "txg": j.num(p.txg),
            "spa_version": j.num(5000),
            "zpl_version": j.num(5),
        }
        if reason is not None:
            status, action, msgid = REASONS[reason]
            item["status"] = status
            item["action"] = action
            if msgid:
                item["msgid"] = msgid
                item["moreinfo"] = MSG_URL + msgid
        if p.scan is not None:
            item["scan_stats"] = _scan_json(p.scan, j, now)

        def section(vdevs: list[Vdev], cls: str, isspare: bool = False,
                    p: Pool = p) -> dict[str, Any]:
            sec: dict[str, Any] = {}
            for v in vdevs:
                k, d = _vdev_json(m, p, v, cls, j, flags, sec if flat else None, None, now,
                                  isspare)
                sec[k] = d
            return sec

        vd: dict[str, Any] = {}
        rk, rd = _vdev_json(m, p, p.root, "normal", j, flags, vd if flat else None, None, now,
                            children=p.data_vdevs())
        vd[rk] = rd
        item["vdevs"] = vd
        if p.log_vdevs():
            item["logs"] = section(p.log_vdevs(), "log")
        if p.cache:
            item["l2cache"] = section(p.cache, "l2cache")
        if p.spares:
            item["spares"] = section(p.spares, "spare", isspare=True)
        item["error_count"] = j.num(p.data_errors)
        out["pools"][p.name] = item
    return json.dumps(out, separators=(",", ":")) + "\n"
