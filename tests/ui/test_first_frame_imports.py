"""What the console's first frame loads (issues 11 and 28): the bench's first frame
(`bench/budgets.py`, the showcase's Pools screen drawn in full) in a fresh interpreter, and
the modules it has loaded by then. What only another screen, a key, a wizard, the slow SMART
read or the exporter needs stays out of it: each of these once crept onto the first frame's
path (the operation registry through the mutes' read: 1.60x its floor; SMART through the
session). What is checked is what is imported, never how long it takes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.budgets import FULL_FRAME_WAIT

ROOT = Path(__file__).resolve().parents[2]

# The SMART poll starts on a timer after the refresh that made it due (ui/smart_poll.py):
# held off here, so that what is checked is what the first frame imports, never a race
# between that timer and this machine's load.
FIRST_FRAME = """
import json, sys
from zconsole.hosts.demo import DemoHost
from zconsole.ui import smart_poll
from zconsole.ui.app import ZConsoleApp
smart_poll.FIRST_DELAY_S = 3600.0
app = ZConsoleApp(DemoHost("showcase"), refresh_interval=3600, collector_held=True)

def done():
    print(json.dumps(sorted(sys.modules)), flush=True)
    app.exit()
""" + FULL_FRAME_WAIT + """
app.run(headless=True, size=(120, 40))
"""

# module (or package prefix) -> what needs it, not the first frame
NOT_ON_THE_FIRST_FRAME = {
    "zconsole.services.ops": "the operation registry and the plans: a wizard's key",
    "zconsole.ui.wizards": "the wizards",
    "zconsole.model.advice": "the advisor (screen 8), mutes included",
    "zconsole.services.health.advice": "the advisor",
    "zconsole.parsers.smartctl": "SMART, read at its own cadence after the first frame",
    "zconsole.services.read.smart": "SMART's reads",
    "zconsole.services.health.smart": "SMART's judgement",
    "zconsole.model.smart": "SMART's model: 8 frozen dataclasses, ~10 ms of a 3.10 start",
    "zconsole.services.health.smart_words": "SMART's words, none before its first poll",
    "prometheus_client": "the exporter and check --prometheus",
    "zconsole.services.monitor.metrics": "the exporter's collector",
    "zconsole.ui.screens.disks": "screen 2",
    "zconsole.ui.screens.datasets": "screen 3",
    "zconsole.ui.screens.timeline": "screen 7",
    "zconsole.ui.kit.help": "the ? list",
    "zconsole.ui.palette": "the command palette's entries (ctrl+p)",
    "zconsole.parsers.zpool_status_config": "the text form's config table: the showcase "
                                            "speaks JSON (OpenZFS 2.3); vdev types by name "
                                            "are parsers.vdev_names",
    "zconsole.parsers.zpool_status": "the text form of zpool status (a host before 2.3)",
    "statistics": "a slow disk's median factor, once a disk is slow (slowdisk.py)",
}


def test_the_first_frame_loads_only_what_it_draws() -> None:
    # the demo's state of this run (none yet: nothing muted, no plan in flight); the
    # state, config and cache directories are the test's own (tests/conftest.py)
    env = {k: v for k, v in os.environ.items() if k != "ZCONSOLE_DEMO_STATE"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "zconsole.ui.screens.pools.pool_block" in loaded  # the frame was drawn
    wrong = {m: why for m in loaded for prefix, why in NOT_ON_THE_FIRST_FRAME.items()
             if m == prefix or m.startswith(prefix + ".")}
    assert not wrong, wrong
