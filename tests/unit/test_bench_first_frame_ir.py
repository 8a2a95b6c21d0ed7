"""bench/first_frame_ir.py's children: each checkpoint ends the budget's own child where it
says, natively here (valgrind only counts them: the bench's, never a test's)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench import first_frame_ir as ir


def run(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=ir.ENV, cwd=ir.ROOT, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


@pytest.mark.parametrize("checkpoint", list(ir.CHECKPOINTS))
def test_a_checkpoint_ends_the_child_before_its_first_frame(checkpoint: str) -> None:
    assert run(ir.zconsole_child(checkpoint)).splitlines() == ["READY 0"]


def test_the_full_child_ends_at_its_first_full_frame() -> None:
    out = run(ir.zconsole_child(None)).split()
    assert out[0] == "READY" and float(out[1]) > 0 and len(out) == 2
    out = run(ir.at_ready(ir.FIRST_FRAME_FLOOR)).split()
    assert out[0] == "READY" and float(out[1]) > 0


def test_the_checkpoints_stop_the_console_where_they_say() -> None:
    """`app made` never reaches `on_load`; `first reading` never composes a screen."""
    probe = ("import zconsole.ui.screens.base as _b\n"
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

    def probed(checkpoint: str | None) -> list[str]:
        code = ir.zconsole_child(checkpoint).replace("app = ZConsoleApp(",
                                                      probe + "app = ZConsoleApp(", 1)
        return [line for line in run(code).splitlines() if not line.startswith("READY")]

    assert probed("app made") == []
    assert probed("first reading") == ["LOADING"]
    assert probed(None) == ["LOADING", "COMPOSED"]


def test_the_report_gives_each_step_and_the_ratio() -> None:
    text = ir.report({"zconsole": {"python": 40_000_000, "imports": 1_240_000_000,
                                   "first full frame": 1_800_000_000},
                      "floor": 1_200_000_000, "ratio": 1.5})
    rows = [line.split() for line in text.splitlines()]
    assert ["imports", "1240", "M", "1200", "M"] in rows
    assert ["first", "full", "frame", "1800", "M", "560", "M"] in rows
    assert text.endswith("first full frame / floor: 1.500x")
