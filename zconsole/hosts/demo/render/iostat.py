"""`zpool iostat [-v] [-l] [-H] [-p] [-y] [POOL...] [interval [count]]`.

The first report (unless -y) covers the time since import, from the disks' cumulative
counters. Interval reports are computed from the simulated rates of the interval that starts
now: the demo never sleeps, so `zpool iostat -y 1 3` answers at once with three samples that
describe [now, now+1), [now+1, now+2), [now+2, now+3) (the host clock is not moved).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.hosts.demo.fmt import nicebytes, nicenum, nicetime_ns
from zconsole.hosts.demo.machine.common import jitter
from zconsole.hosts.demo.machine.pools import Pool, Vdev
from zconsole.hosts.demo.machine.state import Leaves, Machine
from zconsole.hosts.demo.render.status import NameFlags, vdev_name

LATENCIES = ("total", "disk", "syncq", "asyncq")  # the -l wait columns, in zpool's order


@dataclass
class Side:
    """One direction (read or write) of a vdev: operations and bytes per second, and its
    waits in ns by the names of LATENCIES (weighted by operations while children are added
    up; a wait not there is 0: no I/O waited there)."""

    ops: float = 0.0
    bw: float = 0.0
    wait: dict[str, float] = field(default_factory=dict)

    def add(self, o: Side) -> None:
        for k, ns in o.wait.items():
            self.wait[k] = self.wait.get(k, 0.0) + ns * o.ops
        self.ops += o.ops
        self.bw += o.bw

    def finish(self) -> None:
        if self.ops:
            self.wait = {k: ns / self.ops for k, ns in self.wait.items()}


@dataclass
class Stat:
    r: Side = field(default_factory=Side)
    w: Side = field(default_factory=Side)
    scrub: float = 0.0  # ns, weighted by scrub_ops while added up
    scrub_ops: float = 0.0

    def add(self, o: Stat) -> None:
        self.r.add(o.r)
        self.w.add(o.w)
        self.scrub += o.scrub * o.scrub_ops
        self.scrub_ops += o.scrub_ops

    def finish(self) -> None:
        self.r.finish()
        self.w.finish()
        if self.scrub_ops:
            self.scrub /= self.scrub_ops


def _leaf_stat(m: Machine, p: Pool, v: Vdev, at: float | None, leaves: Leaves) -> Stat:
    """Since boot when `at` is None, else the one-second rates of the bucket at `at`."""
    if v.disk is None or v.not_present or v.state not in ("ONLINE", "DEGRADED"):
        return Stat()
    d = m.disks[v.disk]
    if at is None:
        up = max(1.0, m.last - m.boot_time)
        c = d.counters
        r_ops, w_ops = c[0] / up, c[4] / up
        r_bw, w_bw = c[2] * 512 / up, c[6] * 512 / up
        r_ms = c[3] / c[0] if c[0] else d.io.r_ms
        w_ms = c[7] / c[4] if c[4] else d.io.w_ms
    else:
        r_ops, w_ops, r_bw, w_bw, r_ms, w_ms = m.disk_rates(d, at, leaves)
    key = int(at) if at is not None else 0
    q = jitter(m.seed, d.name + ":q", key, 0.3)
    r_syncq, w_asyncq = 9_000 * q, w_ms * 1e6 * 0.35 * q
    s = Stat(Side(r_ops, r_bw, {"total": r_ms * 1e6 + r_syncq, "disk": r_ms * 1e6,
                                "syncq": r_syncq}),
             Side(w_ops, w_bw, {"total": w_ms * 1e6 + w_asyncq, "disk": w_ms * 1e6,
                                "asyncq": w_asyncq}))
    sc = p.scan
    if sc is not None and sc.state == "SCANNING":
        s.scrub = r_ms * 1e6 * 1.6
        s.scrub_ops = r_ops * 0.5
    return s


def _collect(m: Machine, p: Pool, v: Vdev, at: float | None, out: dict[int, Stat],
             leaves: Leaves) -> Stat:
    if v.is_leaf:
        st = _leaf_stat(m, p, v, at, leaves)
        out[id(v)] = st
        return st
    agg = Stat()
    for c in v.children:
        agg.add(_collect(m, p, c, at, out, leaves))
    agg.finish()
    out[id(v)] = agg
    return agg


def _fmt_row(name: str, alloc: int | None, free: int | None, s: Stat, *, latency: bool,
             literal: bool, v23: bool, leaf: bool) -> list[str]:
    def num(x: float) -> str:
        n = int(round(x))
        return str(n) if literal else nicenum(n)

    def bw(x: float) -> str:
        n = int(round(x))
        return str(n) if literal else nicebytes(n)

    def lat(x: float, ops: float) -> str:
        if ops <= 0 or x <= 0:
            return "-"
        n = int(round(x))
        return str(n) if literal else nicetime_ns(n)

    if leaf:
        a = "0" if literal else "-"
        f = a
    else:
        a = str(alloc or 0) if literal else nicenum(alloc or 0)
        f = str(free or 0) if literal else nicenum(free or 0)
    cells = [name, a, f, num(s.r.ops), num(s.w.ops), bw(s.r.bw), bw(s.w.bw)]
    if latency:
        for k in LATENCIES:
            cells += [lat(s.r.wait.get(k, 0.0), s.r.ops), lat(s.w.wait.get(k, 0.0), s.w.ops)]
        cells += [lat(s.scrub, s.scrub_ops), "-"]
        if v23:
            cells.append("-")
    return cells


def _report(m: Machine, pools: list[Pool], at: float | None, *, verbose: bool, latency: bool,
            scripted: bool, literal: bool, v23: bool, flags: NameFlags,
            width: int) -> list[list[str] | str]:
    """Rows (lists of cells) and section markers ('' blank line, 'logs'/'cache' headers)."""
    rows: list[list[str] | str] = []
    leaves = m.leaf_index()
    for p in pools:
        stats: dict[int, Stat] = {}
        root = Stat()
        for t in p.top:
            root.add(_collect(m, p, t, at, stats, leaves))
        root.finish()
        rows.append(_fmt_row(p.name, p.alloc, p.free(), root, latency=latency,
                             literal=literal, v23=v23, leaf=False))
        if not verbose:
            continue

        def walk(v: Vdev, depth: int, p: Pool = p, stats: dict[int, Stat] = stats) -> None:
            name = vdev_name(m, v, flags)
            shown = name if scripted else " " * depth + name
            top = p.is_top(v)
            alloc = p.top_alloc(v) if top else None
            free = v.asize - (alloc or 0) if top else None
            rows.append(_fmt_row(shown, alloc, free, stats.get(id(v), Stat()),
                                 latency=latency, literal=literal, v23=v23,
                                 leaf=not top and v.is_leaf or (not top and not v.is_leaf)))
            for c in v.children:
                walk(c, depth + 2)

        for t in p.data_vdevs():
            walk(t, 2)
        logs = p.log_vdevs()
        if logs:
            rows.append("logs")
            for t in logs:
                walk(t, 2)
        if p.cache:
            rows.append("cache")
            for cdev in p.cache:
                stats[id(cdev)] = _leaf_stat(m, p, cdev, at, leaves)
                walk(cdev, 2)
        if not scripted:
            rows.append("-")
    return rows


def zpool_iostat(m: Machine, pools: list[Pool], now: float, *, verbose: bool, latency: bool,
                 scripted: bool, literal: bool, omit_first: bool, interval: float | None,
                 count: int | None, v23: bool, flags: NameFlags) -> str:
    width = 10
    for p in pools:
        width = max(width, len(p.name))
        if verbose:
            for t in p.top + p.cache:
                for v, depth in _depth_walk(t, 2):
                    width = max(width, len(vdev_name(m, v, flags)) + depth)
    reports: list[float | None] = []
    if interval is None:
        reports.append(None)
    else:
        n = count if count is not None else 1
        if not omit_first:
            reports.append(None)
            n -= 1
        for k in range(max(0, n)):
            reports.append(now + k * interval)
    out: list[str] = []
    ncols = 7 + ((11 if v23 else 10) if latency else 0)
    for i, at in enumerate(reports):
        rows = _report(m, pools, at, verbose=verbose, latency=latency, scripted=scripted,
                       literal=literal, v23=v23, flags=flags, width=width)
        if not scripted and (i == 0 or verbose):
            out.extend(_header(width, latency, v23))
        for r in rows:
            if isinstance(r, str):
                if scripted:
                    if r in ("logs", "cache"):
                        out.append("")
                    continue
                if r == "-":
                    out.append(_dashes(width, ncols))
                else:
                    out.append(r.ljust(width) + "      -" * (ncols - 1))
                continue
            if scripted:
                out.append("\t".join(r))
            else:
                out.append(r[0].ljust(width) + "".join("  " + c.rjust(5) for c in r[1:]))
        if not scripted and verbose:
            out.append("")
    return "\n".join(out) + "\n"


def _depth_walk(v: Vdev, depth: int) -> list[tuple[Vdev, int]]:
    out = [(v, depth)]
    for c in v.children:
        out.extend(_depth_walk(c, depth + 2))
    return out


def _dashes(width: int, ncols: int) -> str:
    return "-" * width + "".join("  -----" for _ in range(ncols - 1))


def _header(width: int, latency: bool, v23: bool) -> list[str]:
    groups = [("capacity", 2), ("operations", 2), ("bandwidth", 2)]
    names = ["alloc", "free", "read", "write", "read", "write"]
    if latency:
        groups += [("total_wait", 2), ("disk_wait", 2), ("syncq_wait", 2), ("asyncq_wait", 2),
                   ("scrub", 1), ("trim", 1)]
        names += ["read", "write"] * 4 + ["wait", "wait"]
        if v23:
            groups.append(("rebuild", 1))
            names.append("wait")
    top = " " * width
    for title, n in groups:
        span = 7 * n
        top += title.center(span) if n == 2 else "  " + title.rjust(5)
    second = "pool".ljust(width) + "".join("  " + n.rjust(5) for n in names)
    return [top.rstrip(), second, _dashes(width, len(names) + 1)]
