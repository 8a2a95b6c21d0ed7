"""What SMART costs (issue 30: "bench shows that a refresh costs no more with SMART than
without"), as figures beside their floors, measured in the same run:

* a refresh's CPU at 1 000 disks once the first SMART poll has ended, against the same
  console whose SMART poll never starts (`ui/smart_poll.FIRST_DELAY_S` held): a refresh never
  reads SMART, and judging with SMART findings must not make it dearer;
* the SMART poll itself, zconsole's side (the demo's simulation of smartctl excluded), against
  its floor: `json.loads` of the very outputs it read, the least a reader of `smartctl --json`
  can do. A poll runs once per disk every 30 min, in a worker thread, never on a refresh.

Both are paired in time with their floors (alternating windows; rounds): on this 2-core
machine one window's CPU moves by 30 % from one minute to the next.

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


def poll_cpu(rounds: int) -> dict[str, Any]:
    """`rounds` first polls of every disk of big1000, each with a state directory of its own
    (no SMART history from an earlier round), each paired with json.loads of what it read;
    the median of the rounds' ratios."""
    import statistics

    own, floor = [], []
    p: dict[str, Any] = {}
    for _ in range(rounds):
        p = _first_poll_in_own_state()
        own.append(p["own_cpu_s"])
        floor.append(p["floor_cpu_s"])
    # each round's ratio, then their median: the machine's speed can change between rounds
    # (a run of 2026-11-30 went from 46 to 77 ms for the same json.loads), not within one
    ratios = [o / f for o, f in zip(own, floor, strict=True) if f]
    return {**p, "own_cpu_s": statistics.median(own), "floor_cpu_s": statistics.median(floor),
            "ratio": statistics.median(ratios) if ratios else None,
            "rounds": rounds, "own_runs": own, "floor_runs": floor}


def _first_poll_in_own_state() -> dict[str, Any]:
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
    import gc

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
    # Each side's garbage collections walk what that side made: what was there before it
    # (the demo machine of 1 000 disks, earlier steps, the poll's readings for the floor)
    # is frozen first, as the console freezes what its start-up made (ui/app.py).
    gc.collect()
    gc.freeze()
    try:
        demo0, cpu0 = meter.cpu, time.process_time()
        read = follow.poll(inventory)
        own = time.process_time() - cpu0 - (meter.cpu - demo0)
        gc.freeze()
        t0 = time.process_time()
        for out in outputs:
            json.loads(out)
        floor = time.process_time() - t0
    finally:
        gc.unfreeze()
    return {"disks": len(read), "own_cpu_s": own, "floor_cpu_s": floor,
            "ratio": own / floor if floor else None, "findings": len(follow.findings)}


def bench_smart(seconds: float, rounds: int = 4, polls: int = 5) -> dict[str, Any]:
    """The refresh figure in alternating windows (with, without, with, ...: the machine's
    speed drifts over a minute by more than the budget's 10 %), summed per side;
    the poll figure as the median of `polls` paired rounds."""
    sides: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
    for _ in range(rounds):
        sides["with"].append(asyncio.run(refresh_cpu(seconds, smart=True)))
        sides["without"].append(asyncio.run(refresh_cpu(seconds, smart=False)))
    out: dict[str, Any] = {}
    for side, runs in sides.items():
        n, own = sum(r["refreshes"] for r in runs), sum(r["own_cpu_s"] for r in runs)
        out[side] = {"refreshes": n, "own_cpu_s": own,
                     "cpu_per_refresh_s": own / n if n else None, "runs": runs}
    a, b = out["with"]["cpu_per_refresh_s"], out["without"]["cpu_per_refresh_s"]
    return {**out, "ratio": a / b if a is not None and b else None, "poll": poll_cpu(polls)}


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
