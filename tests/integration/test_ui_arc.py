"""The ARC screen on real OpenZFS (2.1.11 and 2.3.2 guests): size, c and c_max shown equal
/proc/spl/kstat/zfs/arcstats read in the guest right after the refresh. Needs ZCONSOLE_VM=1.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from console_on_guest import open_screen
from textual.widgets import DataTable, Static

from zconsole.parsers.arcstats import parse_arcstats
from zconsole.services import fmt
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.arc.screen import ArcScreen

if TYPE_CHECKING:
    from tests.integration.conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
# size and c move while the ARC works; a few MiB between the two reads is the same moment
# for an ARC pinned to 512 MiB (test_guest_smoke.test_arc_pinned).
DRIFT = 16 << 20


def shown_bytes(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+) (B|KiB|MiB|GiB|TiB)", text)
    assert m, text
    return float(m.group(1)) * UNITS[m.group(2)]


async def test_arc_screen_matches_guest_arcstats(zfs_guest: ZfsGuest) -> None:
    app = ZConsoleApp(zfs_guest.host(), refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, "4", 2)
        guest = parse_arcstats(zfs_guest.exec(["cat", "/proc/spl/kstat/zfs/arcstats"]).stdout)

        assert isinstance(screen, ArcScreen)
        report = screen.report
        assert report is not None and report.readable and not report.stale
        table: DataTable[Any] = screen.query_one("#arc-figures", DataTable)
        rows = {str(table.get_row(k)[0]): [str(c) for c in table.get_row(k)]
                for k in table.rows}

        assert guest.c_max is not None and guest.size is not None and guest.target is not None
        assert report.c_max == guest.c_max == 536870912  # pinned, does not move
        assert rows["c_max"][1] == fmt.size(guest.c_max) == "512.0 MiB"
        for label, value, shown in (("size", guest.size, report.size),
                                    ("target (c)", guest.target, report.target)):
            assert shown is not None and abs(shown - value) <= DRIFT, (label, shown, value)
            assert rows[label][1] == fmt.size(shown)
            # what the operator reads (one decimal) is within rounding of the guest's figure
            assert abs(shown_bytes(rows[label][1]) - value) <= DRIFT + (1 << 20), label
        size_text = str(screen.query_one("#arc-size").render())
        assert f"ARC holds {fmt.size(report.size)} of a {fmt.size(report.target)} target" \
            in size_text

        caption = str(screen.query_one("#arc-figures-caption", Static).render())
        if zfs_guest.flavour == "2.1":
            assert report.family == "2.1" and "field set 2.1" in caption
            assert rows["MRU target (p)"][2] == "2.1 only" and "iohits" not in rows
        else:
            assert report.family == "2.2+" and "field set 2.2+" in caption
            assert rows["iohits"][2] == "2.2+ only" and "MRU target (p)" not in rows
        # two refreshes on the screen: the interval figures are measured, not promised
        assert report.hit_interval_s is not None and report.detail.seconds is not None
        assert "after the second refresh" not in str(screen.query_one("#arc-hits").render())
