"""Every screen of the console, in key order (1..5). The app builds its modes from this."""

from __future__ import annotations

from zconsole.ui.screens.arc import ArcScreen
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.datasets import DatasetsScreen
from zconsole.ui.screens.disks import DisksScreen
from zconsole.ui.screens.network import NetworkScreen
from zconsole.ui.screens.pools import PoolsScreen

SCREENS: tuple[type[ZScreen], ...] = (
    PoolsScreen, DisksScreen, DatasetsScreen, ArcScreen, NetworkScreen)
