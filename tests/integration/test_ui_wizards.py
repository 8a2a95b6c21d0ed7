"""The attach wizard against real OpenZFS in the QEMU guest (both flavours), driven through
the console like an operator: Pools screen, cursor on the single-disk pool's disk, `a`, pick
the clean disk the guards rank first, read the exact command, type the disk's serial, watch
the resilver, read the result. Needs ZCONSOLE_VM=1.

The guest's pool disks are vdb..vde (1 GiB) and vdf, vdg (2 GiB), with by-id names
virtio-zfsvm-<name> and serials zfsvm-<name> (tools/testvm).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.widgets import Static
from vmguest import ONE_FLOW, until

from tests.ui.test_wizards import shown
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.screens.pools.pools_view import PoolsView
from zconsole.ui.wizards.screen import Phase, WizardScreen

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

POOL = "zcwiz"




def _text(screen: WizardScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(Static)
                     if (w.id or "").startswith("wz-") and shown(w))


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
async def test_attach_wizard_on_the_guest(clean_guest: ZfsGuest, tmp_path: Path) -> None:
    g = clean_guest
    g.exec(["zpool", "create", "-f", POOL, "vdb"])
    # some data, so the resilver has something to copy and to show
    g.exec(f"dd if=/dev/urandom of=/{POOL}/blob bs=1M count=64 status=none && sync",
           timeout=300)
    app = ZConsoleApp(g.host(), refresh_interval=3600, state_directory=str(tmp_path))
    app.wizard_poll_interval = 0.5  # type: ignore[attr-defined]
    t0 = time.monotonic()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.reading is not None and app.refresh_started is None,
                     "the first refresh", 120)
        await pilot.pause(0.3)
        view = app.screen.query_one(PoolsView)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == POOL)
        block.table.focus()
        await pilot.press("down")  # the pool row, then vdb (a single-disk top-level vdev)
        key = view.selected_key()
        assert key == f"{POOL}:vdevs:vdb", key
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen)
                     and app.screen.phase is Phase.CHOOSE, "the disk choice", 30)
        screen = app.screen
        assert isinstance(screen, WizardScreen) and screen.stage is not None
        assert screen.stage.key == "disk"
        options = {c.value: c for c in screen.stage.options}
        # vdb is in the pool; vdc..vdg are clean and large enough; 1 GiB ones first
        assert not options["vdb"].enabled
        first = screen.stage.options[0]
        assert first.enabled and first.value in ("vdc", "vdd", "vde"), screen.stage.options
        screen.choose(first.value)
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", 120)
        assert screen.plan is not None and not screen.plan.blocked
        argv = ("zpool", "attach", POOL, "vdb", f"/dev/disk/by-id/virtio-zfsvm-{first.value}")
        assert screen.plan.argv_list() == [argv]
        assert " ".join(argv) in _text(screen)
        await pilot.press("enter")
        assert screen.phase is Phase.CONFIRM
        expected = screen.pending[0].expected
        snap = app.reading
        assert snap is not None and snap.disks.value is not None
        disk = snap.disks.value.device(first.value)
        assert disk is not None and disk.serial and expected == disk.serial  # the serial
        assert "zfsvm" in expected
        await pilot.press(*"wrong", "enter")
        assert screen.phase is Phase.CONFIRM and screen.runner is None
        await pilot.press(*expected, "enter")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", 600)
        text = _text(screen)
        assert "✔ Done." in text, text
        elapsed = time.monotonic() - t0
    status = g.exec(["zpool", "status", POOL]).stdout
    assert "mirror-0" in status and f"virtio-zfsvm-{first.value}" in status
    records = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    cmds = [r for r in records if r["event"] == "command"]
    assert [c["argv"] for c in cmds] == [list(argv)] and cmds[0]["exit_code"] == 0
    assert records[-1]["event"] == "plan-end"
    print(f"attach wizard on OpenZFS {g.flavour}: {elapsed:.1f} s from start to result")
