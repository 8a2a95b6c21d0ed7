"""Every screen of the console, in key order (1..6). The app builds its modes from this."""

from __future__ import annotations

from zconsole.ui.screens.arc.screen import ArcScreen
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.datasets.screen import DatasetsScreen
from zconsole.ui.screens.disks.screen import DisksScreen
from zconsole.ui.screens.host.screen import HostScreen
from zconsole.ui.screens.network.screen import NetworkScreen
from zconsole.ui.screens.pools.screen import PoolsScreen

SCREENS: tuple[type[ZScreen], ...] = (
    PoolsScreen, DisksScreen, DatasetsScreen, ArcScreen, NetworkScreen, HostScreen)
