"""`zpool events [-vH] [pool]` and `zpool history [-il] [pool ...]` as OpenZFS 2.1 and
2.3 print them (cmd/zpool/zpool_main.c: zpool_do_events_*, print_history_records), from the
machine's `zlog`. The demo host's time zone is UTC (`date +%z` answers +0000)."""

from __future__ import annotations

import datetime as dt

from zconsole.hosts.demo.machine.state import Machine
from zconsole.hosts.demo.machine.zlog import ZEvent

UTC = dt.timezone.utc


def _ctime(at: float) -> str:
    t = dt.datetime.fromtimestamp(int(at), UTC)
    ns = int(round((at - int(at)) * 1e9))
    return f"{t:%b} {t.day:2d} {t.year} {t:%H:%M:%S}.{ns:09d}"


def _event_lines(e: ZEvent) -> list[str]:
    pad = " " * 8
    sec = int(e.at)
    nsec = int(round((e.at - sec) * 1e9))
    lines: list[str] = []
    if e.cls.startswith("sysevent."):
        lines.append("version = 0x0")
    lines.append(f'class = "{e.cls}"')
    if e.cls.startswith("ereport."):
        lines += [f"ena = 0x{(e.eid * 0x9e3779b1) & 0xffffffffffff:x}01",
                  "detector = (embedded nvlist)",
                  '        version = 0x0', '        scheme = "zfs"',
                  f"        pool = 0x{e.pool_guid:x}"]
        guid = next((v for k, v in e.fields if k == "vdev_guid"), None)
        if guid:
            lines.append(f"        vdev = {guid}")
        lines.append("(end detector)")
    lines += [f'pool = "{e.pool}"', f"pool_guid = 0x{e.pool_guid:x}", "pool_state = 0x0",
              "pool_context = 0x0"]
    if e.cls.startswith("ereport."):
        lines.append('pool_failmode = "wait"')
    lines += [f"{k} = {v}" for k, v in e.fields]
    lines += [f"time = 0x{sec:x} 0x{nsec:x} ", f"eid = 0x{e.eid:x}"]
    return [pad + line for line in lines]


def zpool_events(m: Machine, *, verbose: bool, scripted: bool, pool: str | None) -> str:
    out: list[str] = []
    if not scripted:
        out.append(f"{'TIME':<30} CLASS")
    for e in (m.zlog.events if m.zlog is not None else []):
        if pool is not None and e.pool != pool:
            continue
        out.append(f"{_ctime(e.at)}{chr(9) if scripted else ' '}{e.cls}")
        if verbose:
            out.extend(_event_lines(e))
            out.append("")
    return "\n".join(out) + "\n" if out else ""


def zpool_history(m: Machine, pools: list[str], *, internal: bool, long: bool) -> str:
    out: list[str] = []
    for name in pools:
        out.append(f"History for '{name}':")
        records = (m.zlog.history.get(name, []) if m.zlog is not None else [])
        for r in sorted(records, key=lambda r: r.at):
            if r.internal and not internal:
                continue
            when = dt.datetime.fromtimestamp(int(r.at), UTC).strftime("%Y-%m-%d.%H:%M:%S")
            if r.internal:
                ds = f" {r.dataset} ({r.dsid})" if r.dataset else ""
                line = f"{when} [txg:{r.txg}] {r.op}{ds} {r.text}"
            else:
                line = f"{when} {r.text}"
            if long:
                who = f"user {r.uid} (root) " if r.uid == 0 else (
                    f"user {r.uid} " if r.uid is not None else "")
                zone = "" if r.internal else ":linux"
                line += f" [{who}on {m.hostname}{zone}]"
            out.append(line)
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
