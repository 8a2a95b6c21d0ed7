#!/usr/bin/env python3
"""zconsole's speed and memory against the raw zpool/zfs commands, measured in the same run.

    python bench/run.py --guest 2.3          # boot the QEMU test guest (tools/testvm), set up
                                             # a pool with many snapshots, measure, stop it
    python bench/run.py --host root@nas1     # an existing host, read-only measurements only
    python bench/run.py --demo               # the demo host (no real command costs: sanity run)

Every figure is a median over --repeat runs. A ratio compares what zconsole does (the same
command through its host layer, plus parsing into the model) with the raw command alone, so the
cost of the transport (ssh) is in both sides. Targets are checked at the end; the exit status
is 1 when one is missed. Results are also written as JSON (--out).

Targets (why):
- parse overhead: zconsole's read of a command <= 1.25 x the raw command. Parsing must be
  small next to what the command itself costs, or a refresh on a busy host gets slow.
- full refresh (`collect`): <= 1.6 x the sum of the raw commands it runs. Orchestration
  (identity mapping, merging) must not cost more than the commands themselves.
- start-up never lists every snapshot: `collect` on a host with N snapshots costs <= 2 x its
  cost on the same host's filesystems alone (i.e. independent of N).
- memory: parsing a snapshot listing holds <= 2 KiB of Python objects per snapshot (peak
  tracemalloc), so 100 000 snapshots stay under ~200 MiB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zconsole.hosts.base import Host  # noqa: E402
from zconsole.parsers.zfs_list import SNAPSHOT_COLUMNS, parse_zfs_list  # noqa: E402
from zconsole.services.read import catalogue as C  # noqa: E402
from zconsole.services.read.collect import collect, detect_zfs  # noqa: E402

TARGETS = {
    "parse_overhead_max": 1.25,
    "collect_vs_raw_max": 1.6,
    "collect_snapshot_independence_max": 2.0,
    "snapshot_bytes_per_entry_max": 2048,
}


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def parser_for(argv: tuple[str, ...], json_status: bool) -> Callable[[str], object]:
    from zconsole.parsers.blockdev import parse_lsblk_json, parse_udev_export_db
    from zconsole.parsers.version import parse_zfs_version
    from zconsole.parsers.zfs_list import DEFAULT_COLUMNS
    from zconsole.parsers.zpool_list import parse_zpool_list
    from zconsole.parsers.zpool_status import parse_zpool_status
    from zconsole.parsers.zpool_status_json import parse_zpool_status_json

    table: dict[tuple[str, ...], Callable[[str], object]] = {
        C.zfs_version(): parse_zfs_version,
        C.zpool_status(True): parse_zpool_status_json,
        C.zpool_status(False): parse_zpool_status,
        C.zpool_list(): parse_zpool_list,
        C.zfs_list_datasets(): lambda t: parse_zfs_list(t, DEFAULT_COLUMNS),
        C.lsblk_json(): parse_lsblk_json,
        C.udevadm_export_db(): parse_udev_export_db,
    }
    return table[argv]


def bench_commands(host: Host, repeat: int) -> dict[str, Any]:
    zfs = detect_zfs(host)
    argvs = [C.zfs_version(), C.zpool_status(zfs.json_status), C.zpool_list(),
             C.zfs_list_datasets(), C.lsblk_json(), C.udevadm_export_db()]
    rows = []
    for argv in argvs:
        try:
            host.run(argv, timeout=120)
        except Exception as e:  # noqa: BLE001 - a missing tool is reported, not fatal
            rows.append({"command": " ".join(argv), "error": str(e)})
            continue
        parse = parser_for(argv, zfs.json_status)
        raw = median_time(lambda a=argv: host.run(a, timeout=120), repeat)
        text = host.run(argv, timeout=120).stdout
        parse_only = median_time(lambda p=parse, t=text: p(t), repeat)
        full = median_time(lambda a=argv, p=parse: p(host.run(a, timeout=120).stdout), repeat)
        rows.append({"command": " ".join(argv), "bytes": len(text), "raw_s": raw,
                     "parse_s": parse_only, "zconsole_s": full, "ratio": full / raw})
    return {"zfs": zfs.userland, "rows": rows}


def bench_collect(host: Host, repeat: int, raw_rows: list[dict[str, Any]]) -> dict[str, Any]:
    t = median_time(lambda: collect(host, timeout=120), repeat)
    raw_sum = sum(r["raw_s"] for r in raw_rows if "raw_s" in r)
    files = median_time(lambda: [host.read_text(f.path) for f in C.READ_ONLY_FILES
                                 if f.path != C.ZFS_MODULE_VERSION], repeat)
    return {"collect_s": t, "raw_commands_s": raw_sum, "raw_files_s": files,
            "ratio": t / (raw_sum + files) if raw_sum + files > 0 else None}


def bench_snapshot_memory(host: Host, dataset: str | None) -> dict[str, Any]:
    argv = ("zfs", "list", "-H", "-p", "-t", "snapshot", "-o", ",".join(SNAPSHOT_COLUMNS))
    if dataset:
        argv = (*argv, "-r", dataset)
    t0 = time.perf_counter()
    text = host.run(argv, timeout=1800).stdout
    raw = time.perf_counter() - t0
    n = text.count("\n")
    tracemalloc.start()
    t0 = time.perf_counter()
    parsed = parse_zfs_list(text, SNAPSHOT_COLUMNS)
    parse_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(parsed) == n
    return {"snapshots": n, "raw_listing_s": raw, "parse_s": parse_s, "peak_bytes": peak,
            "bytes_per_snapshot": peak / n if n else None,
            "parse_vs_raw": parse_s / raw if raw > 0 else None}


# -- guest set-up --------------------------------------------------------------------------

def guest_setup(exec_: Callable[[str], str], datasets: int, per_dataset: int) -> None:
    exec_("zpool create -f -o ashift=12 bench mirror vdb vdc")
    for d in range(datasets):
        exec_(f"zfs create -p bench/fs{d:02d}")
    # One `zfs snapshot` may take one snapshot per filesystem ("multiple snapshots of same fs
    # not allowed"), so each call snapshots every dataset once, in one transaction group.
    for i in range(per_dataset if datasets else 0):
        exec_("zfs snapshot " + " ".join(f"bench/fs{d:02d}@s{i:04d}" for d in range(datasets)))
    if datasets and per_dataset:
        exec_("zfs clone bench/fs00@s0000 bench/clone0")


def run_guest(flavour: str, repeat: int, datasets: int, per_dataset: int) -> dict[str, Any]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("testvm", ROOT / "tools/testvm/testvm.py")
    assert spec and spec.loader
    testvm = importlib.util.module_from_spec(spec)
    sys.modules["testvm"] = testvm
    spec.loader.exec_module(testvm)
    fl = testvm.FLAVOURS[flavour]
    inst = testvm.Instance(fl, Path(f"/tmp/zconsole-bench-{fl.tag}"))
    bdir = testvm.find_cached_build(fl) or testvm.build(fl)
    boot = inst.start(bdir)
    try:
        from zconsole.hosts.ssh import SshHost

        def exec_(cmd: str) -> str:
            return str(inst.exec(cmd, check=True, timeout=600).stdout)

        t0 = time.perf_counter()
        guest_setup(exec_, 0, 0)
        host = SshHost("zfsvm", ssh_config=str(inst.ssh_config))
        small_cmds = bench_commands(host, repeat)
        small_collect = bench_collect(host, repeat, small_cmds["rows"])
        exec_("zpool destroy bench")
        guest_setup(exec_, datasets, per_dataset)
        setup_s = time.perf_counter() - t0
        big_cmds = bench_commands(host, repeat)
        big_collect = bench_collect(host, repeat, big_cmds["rows"])
        mem = bench_snapshot_memory(host, "bench")
        host.close()
        return {"host": f"QEMU guest {fl.tag} (TCG)", "boot_s": boot, "setup_s": setup_s,
                "snapshots": datasets * per_dataset, "commands": big_cmds,
                "collect": big_collect, "collect_without_snapshots": small_collect,
                "commands_without_snapshots": small_cmds, "memory": mem}
    finally:
        inst.stop()


def run_host(host: Host, repeat: int, with_snapshots: bool) -> dict[str, Any]:
    cmds = bench_commands(host, repeat)
    out: dict[str, Any] = {"host": host.label, "commands": cmds,
                           "collect": bench_collect(host, repeat, cmds["rows"])}
    if with_snapshots:
        out["memory"] = bench_snapshot_memory(host, None)
    return out


def verdicts(res: dict[str, Any]) -> list[tuple[str, bool, str]]:
    out = []
    for r in res["commands"]["rows"]:
        if "ratio" in r:
            ok = r["ratio"] <= TARGETS["parse_overhead_max"]
            out.append((f"read {r['command']}", ok,
                        f"{r['ratio']:.2f}x raw ({r['zconsole_s'] * 1e3:.1f} ms vs "
                        f"{r['raw_s'] * 1e3:.1f} ms; parse {r['parse_s'] * 1e3:.2f} ms, "
                        f"{r['bytes']} bytes)"))
    c = res["collect"]
    if c.get("ratio") is not None:
        out.append(("collect() vs its raw reads", c["ratio"] <= TARGETS["collect_vs_raw_max"],
                    f"{c['ratio']:.2f}x ({c['collect_s']:.3f} s vs "
                    f"{c['raw_commands_s'] + c['raw_files_s']:.3f} s)"))
    if "collect_without_snapshots" in res:
        a = res["collect"]["collect_s"]
        b = res["collect_without_snapshots"]["collect_s"]
        out.append((f"collect() with {res['snapshots']} snapshots vs none",
                    a / b <= TARGETS["collect_snapshot_independence_max"],
                    f"{a / b:.2f}x ({a:.3f} s vs {b:.3f} s)"))
    if "memory" in res and res["memory"]["bytes_per_snapshot"] is not None:
        m = res["memory"]
        out.append((f"memory per parsed snapshot ({m['snapshots']} snapshots)",
                    m["bytes_per_snapshot"] <= TARGETS["snapshot_bytes_per_entry_max"],
                    f"{m['bytes_per_snapshot']:.0f} B (peak {m['peak_bytes'] / 2**20:.1f} MiB;"
                    f" parse {m['parse_s']:.3f} s = {m['parse_vs_raw']:.3f}x the raw listing "
                    f"{m['raw_listing_s']:.2f} s)"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--guest", choices=("2.1", "2.3"))
    where.add_argument("--host")
    where.add_argument("--demo", action="store_true")
    ap.add_argument("--ssh-config")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--datasets", type=int, default=20)
    ap.add_argument("--per-dataset", type=int, default=250)
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()
    if args.guest:
        res = run_guest(args.guest, args.repeat, args.datasets, args.per_dataset)
    elif args.host:
        from zconsole.hosts.ssh import SshHost

        res = run_host(SshHost(args.host, ssh_config=args.ssh_config), args.repeat, True)
    else:
        from zconsole.hosts.demo import DemoHost

        res = run_host(DemoHost("snapshots"), args.repeat, True)
    res["targets"] = TARGETS
    res["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    checks = verdicts(res)
    res["verdicts"] = [{"what": w, "ok": ok, "figure": f} for w, ok, f in checks]
    print(f"zconsole bench on {res['host']}  ({res['measured_at']})")
    for what, ok, fig in checks:
        print(f"  {'PASS' if ok else 'MISS'}  {what}: {fig}")
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    if args.demo:
        print("  (demo host: its commands cost microseconds, so the ratios are not meaningful;"
              " use --guest or --host for real figures)")
        return 0
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
