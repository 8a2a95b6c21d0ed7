"""The Pools screen on real OpenZFS while long work runs: a raidz expansion (2.3 only; on
2.1 `zpool attach` to a raidz is refused) and a top-level vdev removal (both), each held at
a steady figure with the module parameters the capture states use (tests/fixtures/capture/
setup/raidz-expand-in-progress.sh, removal-in-progress.sh), so the console's sentence can be
compared with `zpool status` read in the same moment. Needs ZCONSOLE_VM=1."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

import pytest
from console_on_guest import refreshed

from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock

if TYPE_CHECKING:
    from tests.integration.conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

PARAMS = "/sys/module/zfs/parameters/"


def _pool(g: ZfsGuest):  # type: ignore[no-untyped-def]
    """`zpool status` as the console reads it on this version (JSON on 2.3, text on 2.1)."""
    if g.flavour == "2.3":
        (p,) = parse_zpool_status_json(
            g.exec(["zpool", "status", "-j", "--json-int", "-p", "tank"]).stdout)
    else:
        (p,) = parse_zpool_status(g.exec(["zpool", "status", "-p", "tank"]).stdout)
    return p


def _write(g: ZfsGuest, mib: int) -> None:
    g.exec(f"head -c 16M /dev/urandom > /tmp/r16 && for i in $(seq 1 {mib // 16}); "
           "do cat /tmp/r16; done > /tank/data.bin && sync", timeout=900)


def _wait_for(g: ZfsGuest, what: str, ok, timeout: float = 300.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        p = _pool(g)
        if ok(p):
            return p
        assert time.monotonic() < deadline, f"{what}: not seen in {timeout} s"
        time.sleep(2)


def _held(g: ZfsGuest, figure, what: str):  # type: ignore[no-untyped-def]
    """Wait until the percentage stands still over two readings 5 s apart."""
    last = None
    for _ in range(60):
        p = _pool(g)
        now = figure(p)
        if now is not None and now == last:
            return p
        last = now
        time.sleep(5)
    raise AssertionError(f"{what} never held still")


async def _summary(g: ZfsGuest) -> str:
    app = ZConsoleApp(g.host(), refresh_interval=3600)
    async with app.run_test(size=(160, 50)) as pilot:
        await refreshed(app, pilot, 2)
        return " ".join(str(b.summary.render()) for b in app.screen.query(PoolBlock))


async def test_raidz_expansion_progress_on_the_pools_screen(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    if g.flavour != "2.3":
        g.exec(["zpool", "create", "-f", "tank", "raidz1", "vdb", "vdc", "vdd"])
        refused = g.exec(["zpool", "attach", "tank", "raidz1-0", "vde"], check=False)
        assert refused.returncode != 0  # 2.1 cannot widen a raidz
        pytest.skip("raidz expansion needs OpenZFS 2.3 (2.1 refused it, as asserted)")
    g.exec(["zpool", "create", "-f", "tank", "raidz1", "vdb", "vdc", "vdd"])
    _write(g, 256)
    for d in ("vdb", "vdc", "vdd", "vde"):
        g.monitor(f"block_set_io_throttle drv-{d} 1048576 0 0 0 0 0")
    try:
        g.exec(["zpool", "attach", "tank", "raidz1-0", "vde"])
        _wait_for(g, "expansion under way",
                  lambda p: p.expand is not None and (p.expand.percent_done or 0) > 0)
        g.exec(f"echo 1 > {PARAMS}raidz_expand_max_reflow_bytes")
        cli = _held(g, lambda p: p.expand.percent_done if p.expand else None, "expansion")
        text = await _summary(g)
        assert cli.expand is not None and cli.expand.percent_done is not None
        pct = f"{cli.expand.percent_done:.1f}% done"
        assert f"expansion of raidz1-0 in progress, {pct}" in text, text
        assert "copied" in text
        # the figure stood still between the two refreshes: zconsole says so, zpool still
        # gives its own ETA from the pace since the start
        assert re.search(r"no progress in the last|done in about|own estimate after", text)
    finally:
        g.exec(f"echo 0 > {PARAMS}raidz_expand_max_reflow_bytes", check=False)
        for d in ("vdb", "vdc", "vdd", "vde"):
            g.monitor(f"block_set_io_throttle drv-{d} 0 0 0 0 0 0")


async def test_device_removal_progress_on_the_pools_screen(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "-f", "tank", "mirror", "vdb", "vdc", "mirror", "vdd", "vde"])
    _write(g, 256)
    try:
        g.exec(f"echo 1 > {PARAMS}zfs_removal_suspend_progress")
        g.exec(["zpool", "remove", "tank", "mirror-1"])
        g.exec(f"echo 0 > {PARAMS}zfs_removal_suspend_progress; sleep 1; "
               f"echo 1 > {PARAMS}zfs_removal_suspend_progress")
        _wait_for(g, "removal under way",
                  lambda p: p.removal is not None and p.removal.percent_done is not None)
        cli = _held(g, lambda p: p.removal.percent_done if p.removal else None, "removal")
        text = await _summary(g)
        assert cli.removal is not None and cli.removal.percent_done is not None
        name = cli.removal.vdev
        assert name, cli.removal
        assert f"removal of {name} in progress, {cli.removal.percent_done:.1f}% done" in text, \
            text
    finally:
        g.exec(f"echo 0 > {PARAMS}zfs_removal_suspend_progress", check=False)
        g.exec(["zpool", "wait", "-t", "remove", "tank"], check=False, timeout=600)
