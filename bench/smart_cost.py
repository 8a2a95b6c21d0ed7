"""What SMART costs (issue 30: "bench shows that a refresh costs no more with SMART than
without"), as figures beside their floors, measured in the same run:

* a refresh's CPU at 1 000 disks once the first SMART poll has ended, against the same
  console whose SMART poll never starts (`ui/smart_poll.FIRST_DELAY_S` held): a refresh never
  reads SMART, and judging with SMART findings must not make it dearer;
* the SMART poll itself, zconsole's side (the demo's simulation of smartctl excluded), against
  its floor: `json.loads` of the very outputs it read, the least a reader of `smartctl --json`
  can do. A poll runs once per disk every 30 min, in a worker thread, never on a refresh.

    python bench/budgets.py --only smart
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

DISKS_SCENARIO = "big1000"


async def refresh_cpu(seconds: float, smart: bool) -> dict[str, Any]:
    """`budgets._cpu_run` over big1000, with the SMART poll run to its end first, or held."""
    from bench.budgets import _cpu_run
    from zconsole.ui import smart_poll

    held = smart_poll.FIRST_DELAY_S
    if not smart:
        smart_poll.FIRST_DELAY_S = 1e9  # the timer that starts the first poll never fires
    try:
        return await _cpu_run(DISKS_SCENARIO, seconds, 1.0, smart=smart)
    finally:
        smart_poll.FIRST_DELAY_S = held


def poll_cpu() -> dict[str, Any]:
    """One first poll of every disk of big1000, and json.loads of what it read, with a state
    directory of its own (no SMART history from an earlier run: a first poll)."""
    import os
    import tempfile

    from zconsole.hosts import journal

    with tempfile.TemporaryDirectory() as state:
        held = {k: os.environ.get(k) for k in (journal.DEMO_STATE_ENV, "XDG_STATE_HOME")}
        os.environ[journal.DEMO_STATE_ENV] = state
        os.environ["XDG_STATE_HOME"] = state
        try:
            return _first_poll()
        finally:
            for k, v in held.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def _first_poll() -> dict[str, Any]:
    from bench.budgets import DemoMeter
    from zconsole.hosts.demo import DemoHost
    from zconsole.services.read.inventory import read_inventory
    from zconsole.services.smart_follow import SmartFollow

    host = DemoHost(DISKS_SCENARIO)
    outputs: list[str] = []
    real_exec = host._exec

    def keep(args: tuple[str, ...], *a: Any, **k: Any) -> Any:
        r = real_exec(args, *a, **k)
        if args and args[0].endswith("smartctl"):
            outputs.append(r.stdout)
        return r

    host._exec = keep  # type: ignore[method-assign]
    meter = DemoMeter(host)
    inventory = read_inventory(host)
    follow = SmartFollow(host, time.time)
    # what the poll imports the first time: the figure is the poll's, not the imports'
    import zconsole.services.health.smart
    import zconsole.services.smart_history
    import zconsole.services.smart_timeline  # noqa: F401
    demo0, cpu0 = meter.cpu, time.process_time()
    read = follow.poll(inventory)
    own = time.process_time() - cpu0 - (meter.cpu - demo0)
    t0 = time.process_time()
    for out in outputs:
        json.loads(out)
    floor = time.process_time() - t0
    return {"disks": len(read), "own_cpu_s": own, "floor_cpu_s": floor,
            "ratio": own / floor if floor else None, "findings": len(follow.findings)}


def bench_smart(seconds: float) -> dict[str, Any]:
    with_smart = asyncio.run(refresh_cpu(seconds, smart=True))
    without = asyncio.run(refresh_cpu(seconds, smart=False))
    a, b = with_smart["cpu_per_refresh_s"], without["cpu_per_refresh_s"]
    return {"with": with_smart, "without": without,
            "ratio": a / b if a is not None and b else None, "poll": poll_cpu()}


Row = tuple[str, str, str, str, bool]


def smart_verdicts(s: dict[str, Any]) -> list[Row]:
    a, b, ratio = s["with"]["cpu_per_refresh_s"], s["without"]["cpu_per_refresh_s"], s["ratio"]
    rows: list[Row] = [(
        "CPU per refresh, 1 000 disks, SMART polled vs never", "<= 1.10 x",
        "no refresh finished" if ratio is None else
        f"{a * 1e3:.0f} ms vs {b * 1e3:.0f} ms "
        f"({s['with']['refreshes']} and {s['without']['refreshes']} refreshes)",
        "-" if ratio is None else f"{ratio:.2f} x", ratio is not None and ratio <= 1.10)]
    p = s["poll"]
    rows.append((
        f"SMART poll of {p['disks']} disks (demo excluded) vs json.loads of its outputs",
        "<= 6.00 x",
        f"{p['own_cpu_s'] * 1e3:.0f} ms vs {p['floor_cpu_s'] * 1e3:.0f} ms "
        f"({p['own_cpu_s'] / max(1, p['disks']) * 1e3:.2f} ms a disk)",
        "-" if p["ratio"] is None else f"{p['ratio']:.2f} x",
        p["ratio"] is not None and p["ratio"] <= 6.0))
    return rows
