"""The first frame in instructions: what the console and its floor execute, counted, not timed.

    python bench/first_frame_ir.py            # needs valgrind (apt install valgrind)

`bench/budgets.py` judges the first full frame by the wall clock, and on a shared 2-core
machine one round's ratio is anywhere from 1.14 to 1.65 (2026-11-30): a change worth 10 ms
cannot be seen in it. The instructions a child executes until its first full frame are
counted by valgrind (cachegrind, no cache simulation) and move by about 1 % from run to run.
Each child is the budget's own (`FIRST_FRAME_ZCONSOLE`, `FIRST_FRAME_FLOOR`), ended with
`os._exit` at a checkpoint so that nothing after it is counted:

- python: the interpreter starting and ending (both children pay it);
- imports: zconsole's child once `DemoHost` and `ZConsoleApp` are imported;
- app made: once `ZConsoleApp(...)` returned;
- first reading: once the app's `on_load` (which waits for the first reading, or for its
  pools when it is read in order) returned;
- first full frame: where the budget's child prints READY (the floor's likewise).

Under valgrind everything runs ~20x slower while the timers do not: the first reading's wait
(`ui.first_reading.WAIT_S`) is lengthened so that the reading still comes before the screen
is made, as it does natively, and so is the wait of the rest of the reading for the first
frame (`DRAWN_WAIT_S`: the pools are read first, the rest once the frame is drawn). Timers
otherwise fire "early" in the program's progress, so a change that moves work onto
Textual's 60 Hz update timer shows here as saved instructions and may save no wall time at
all: confirm a change with `budgets.py --only first_frame`.
Instructions are not the budget; they say where the first frame's work is.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.budgets import ENV, FIRST_FRAME_FLOOR, FIRST_FRAME_ZCONSOLE  # noqa: E402

EXIT = "print('READY 0', flush=True); import os as _ir_os; _ir_os._exit(0)"
# the first reading's wait, long enough for the reading under valgrind; and the rest of the
# reading's wait for the first frame (read in order, the demo's), long enough for the frame
SLOW_WAIT = ("import zconsole.ui.first_reading as _fr; _fr.WAIT_S = 60.0; "
             "_fr.DRAWN_WAIT_S = 600.0\n")
CHECKPOINTS: dict[str, str] = {
    "imports": EXIT + "\n",
    "app made": ("_ir_init = ZConsoleApp.__init__\n"
                 "def _ir_made(self, *a, **k):\n"
                 "    _ir_init(self, *a, **k)\n"
                 f"    {EXIT}\n"
                 "ZConsoleApp.__init__ = _ir_made\n"),
    "first reading": ("_ir_load = ZConsoleApp.on_load\n"
                      "async def _ir_loaded(self):\n"
                      "    await _ir_load(self)\n"
                      f"    {EXIT}\n"
                      "ZConsoleApp.on_load = _ir_loaded\n"),
}


def at_ready(code: str) -> str:
    """`code` ended right after it prints READY (its first full frame)."""
    return code.replace("flush=True)\n", f"flush=True); {EXIT.split('; ', 1)[1]}\n", 1)


def zconsole_child(checkpoint: str | None) -> str:
    patch = SLOW_WAIT + (CHECKPOINTS[checkpoint] if checkpoint else "")
    code = FIRST_FRAME_ZCONSOLE.replace("app = ZConsoleApp(", patch + "app = ZConsoleApp(", 1)
    return code if checkpoint else at_ready(code)


def instructions(python: str, code: str) -> int:
    """Instructions the child executes (valgrind's I refs)."""
    p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",  # noqa: S603
                        "--cachegrind-out-file=/dev/null", python, "-c", code],
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=600)
    got = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    if got is None or not p.stdout.startswith("READY"):
        raise RuntimeError(f"no count: {p.stdout[-300:]} {p.stderr[-1500:]}")
    return int(got.group(1).replace(",", ""))


def measure(python: str) -> dict[str, Any]:
    # once natively, to its end: the bytecode and the CSS the console keeps between runs
    # (ui/kit/css_cache.py) are there, as they are from a user's second start on; a counted
    # child ends at its checkpoint (os._exit) and keeps nothing
    subprocess.run([python, "-c", FIRST_FRAME_ZCONSOLE], check=True,  # noqa: S603
                   capture_output=True, env=ENV, cwd=ROOT, timeout=120)
    z = {"python": instructions(python, "print('READY 0')")}
    for name in CHECKPOINTS:
        z[name] = instructions(python, zconsole_child(name))
    z["first full frame"] = instructions(python, zconsole_child(None))
    floor = instructions(python, at_ready(FIRST_FRAME_FLOOR))
    return {"zconsole": z, "floor": floor, "ratio": round(z["first full frame"] / floor, 3)}


def report(res: dict[str, Any]) -> str:
    z, floor = res["zconsole"], res["floor"]
    lines = [f"{'checkpoint':18} {'instructions':>14} {'step':>10}"]
    before = 0
    for name, n in z.items():
        lines.append(f"{name:18} {n / 1e6:12.0f} M {(n - before) / 1e6:8.0f} M")
        before = n
    lines.append(f"{'floor':18} {floor / 1e6:12.0f} M")
    lines.append(f"first full frame / floor: {res['ratio']:.3f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None, help="also write the counts as JSON")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    res = {"python": sys.version.split()[0], **measure(sys.executable)}
    print(report(res))
    if args.out is not None:
        args.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
