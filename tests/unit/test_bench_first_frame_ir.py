"""bench/first_frame_ir.py's children: each checkpoint ends the budget's own child where it
says, natively here (valgrind only counts them: the bench's, never a test's)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bench import first_frame_ir as ir

PYCACHE: list[str] = []  # one bytecode cache for this module's children, in a temporary place


@pytest.fixture(autouse=True, scope="module")
def _pycache(tmp_path_factory: pytest.TempPathFactory) -> None:
    PYCACHE[:] = [str(tmp_path_factory.mktemp("pycache"))]


def run(code: str) -> str:
    """`code` run as the bench runs it, in this test's own directories (the bench's ENV was
    made from the environment before the test's were set), the module's children sharing a
    temporary bytecode cache (each would compile Textual and zconsole again without one)."""
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "PYTHONPATH": str(ir.ROOT), "PYTHONPYCACHEPREFIX": PYCACHE[0]}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, cwd=ir.ROOT, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


# Python's own exit (atexit, the app's shutdown) would be counted after the checkpoint: the
# children end with os._exit, which runs no atexit handler.
AFTER = "import atexit as _ae\n_ae.register(print, 'AFTER')\n"
PROBE = (AFTER + "import zconsole.ui.screens.base as _b\n"
         "_c = _b.ZScreen.compose\n"
         "def _compose(self):\n"
         "    print('COMPOSED', flush=True)\n"
         "    yield from _c(self)\n"
         "_b.ZScreen.compose = _compose\n"
         "_l = ZConsoleApp.on_load\n"
         "async def _load(self):\n"
         "    print('LOADING', flush=True)\n"
         "    await _l(self)\n"
         "ZConsoleApp.on_load = _load\n")


@pytest.mark.parametrize(("checkpoint", "reached"), [
    ("imports", []), ("app made", []), ("first reading", ["LOADING"]),
    (None, ["LOADING", "COMPOSED"])])
def test_each_child_ends_where_its_checkpoint_says(checkpoint: str | None,
                                                   reached: list[str]) -> None:
    """A checkpoint ends the child (READY 0) before what comes after it: `app made` never
    reaches `on_load`, `first reading` never composes a screen; without one, the child ends
    at its first full frame (READY and its seconds); none runs Python's exit after it."""
    code = ir.zconsole_child(checkpoint).replace("app = ZConsoleApp(",
                                                  PROBE + "app = ZConsoleApp(", 1)
    lines = run(code).splitlines()
    assert lines[:-1] == reached
    ready = lines[-1].split()
    assert ready[0] == "READY" and len(ready) == 2
    assert (ready[1] == "0") == (checkpoint is not None) and float(ready[1]) >= 0


def test_the_floor_ends_at_its_first_frame() -> None:
    floor = ir.at_ready(ir.FIRST_FRAME_FLOOR)
    out = run(floor.replace("import time\n", "import time\n" + AFTER, 1)).split()
    assert out[0] == "READY" and float(out[1]) > 0 and len(out) == 2


def test_the_report_gives_each_step_and_the_ratio() -> None:
    text = ir.report({"zconsole": {"python": 40_000_000, "imports": 1_240_000_000,
                                   "first full frame": 1_800_000_000},
                      "floor": 1_200_000_000, "ratio": 1.5})
    rows = [line.split() for line in text.splitlines()]
    assert ["imports", "1240", "M", "1200", "M"] in rows
    assert ["first", "full", "frame", "1800", "M", "560", "M"] in rows
    assert text.endswith("first full frame / floor: 1.500x")
