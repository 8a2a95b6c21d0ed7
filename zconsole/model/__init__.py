"""Pure data: frozen dataclasses and enums, standard library only.

Every other layer speaks in these types. Nothing here performs I/O or reads a clock.
"""

from zconsole.model.arc import ArcStats
from zconsole.model.command import Command
from zconsole.model.dataset import Dataset, PropertyValue
from zconsole.model.disk import Disk, DiskIo, DiskStat
from zconsole.model.finding import Finding, Severity
from zconsole.model.iostat import IostatRow, PoolIostat
from zconsole.model.pool import (
    ClassRow,
    DedupSummary,
    ExpandInfo,
    Pool,
    PoolUsage,
    RemovalInfo,
    ScanFunction,
    ScanInfo,
    ScanState,
    Section,
    Vdev,
    VdevUsage,
)

__all__ = [
    "ArcStats",
    "ClassRow",
    "Command",
    "Dataset",
    "DedupSummary",
    "Disk",
    "DiskIo",
    "DiskStat",
    "ExpandInfo",
    "Finding",
    "IostatRow",
    "Pool",
    "PoolIostat",
    "PoolUsage",
    "PropertyValue",
    "RemovalInfo",
    "ScanFunction",
    "ScanInfo",
    "ScanState",
    "Section",
    "Severity",
    "Vdev",
    "VdevUsage",
]
