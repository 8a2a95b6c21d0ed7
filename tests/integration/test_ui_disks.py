"""The Disks screen on real OpenZFS (2.1.11 and 2.3.2 guests): the virtio disks vdb..vdg with
their serials, sizes equal to `lsblk -b` in the guest, a pool member with its pool and vdev, a
clean disk free. Needs ZCONSOLE_VM=1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from console_on_guest import open_screen
from vmguest import SAME_SCREEN_READS

from zconsole.model.reading import DiskState
from zconsole.services.read.disks import build_rows
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.disks.disk_table import DisksTable
from zconsole.ui.screens.disks.screen import DisksScreen, DisksView

if TYPE_CHECKING:
    from tests.integration.conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

GUEST_DISKS = ("vdb", "vdc", "vdd", "vde", "vdf", "vdg")


def guest_lsblk(guest: ZfsGuest) -> dict[str, tuple[int, str]]:
    """name -> (size in bytes, serial) as the guest's own lsblk prints them."""
    out = guest.exec(["lsblk", "-b", "-d", "-n", "-o", "NAME,SIZE,SERIAL"]).stdout
    rows: dict[str, tuple[int, str]] = {}
    for line in out.splitlines():
        cols = line.split()
        if len(cols) == 3:
            rows[cols[0]] = (int(cols[1]), cols[2])
    return rows


@pytest.mark.zfs_flavours("2.1", why=SAME_SCREEN_READS)
async def test_disks_screen_on_guest(clean_guest: ZfsGuest) -> None:
    guest = clean_guest
    guest.exec(["zpool", "create", "tank", "mirror", "vdb", "vdc"])
    lsblk = guest_lsblk(guest)
    app = ZConsoleApp(guest.host(), refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, "2", 1)
        assert isinstance(screen, DisksScreen)
        snap = app.reading
        assert snap is not None and snap.disks.value is not None, snap and snap.disks.error
        rows = {r.name: r for r in build_rows(snap.disks.value, findings=app.findings)}
        view = screen.query_one(DisksView)
        assert {r.name for r in view.rows} == set(rows)

        for name in GUEST_DISKS:
            assert name in rows, (name, sorted(rows))
            size, serial = lsblk[name]
            assert serial == f"zfsvm-{name}"
            assert rows[name].disk.serial == serial
            assert rows[name].disk.size_bytes == size == guest.disks[name]
            assert rows[name].disk.preferred_id == f"virtio-zfsvm-{name}"

        # pool members: their pool and vdev
        for name in ("vdb", "vdc"):
            r = rows[name]
            assert r.state is DiskState.IN_POOL
            assert (r.pool, r.vdev) == ("tank", "mirror-0")
            assert r.role_sentence == "in pool tank, mirror-0"
            assert [p.name for p in r.partitions] == [f"{name}1", f"{name}9"]
        # a clean disk: free
        for name in ("vdd", "vde", "vdf", "vdg"):
            assert rows[name].state is DiskState.FREE, rows[name].reasons
            assert rows[name].role_sentence == "free: no partitions, no signature"

        table = screen.query_one(DisksTable)
        shown = {str(k.value): " ".join(str(c) for c in table.get_row(k)) for k in table.rows}
        assert "in pool tank, mirror-0" in shown["vdb"]
        # the row's ROLE is cut to its room beside HEALTH at 120 columns; the sentence whole
        # is the model's (above) and the detail pane's
        assert "○ free: no partitions" in shown["vdd"]
        # two refreshes on the screen: the second interval has per-disk figures
        sample = app.view_state().sample
        assert sample is not None and "vdb" in sample.disks
        assert f"{sample.disks['vdb'].util_pct:.0f}%" in shown["vdb"]
