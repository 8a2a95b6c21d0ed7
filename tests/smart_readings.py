"""SMART readings built from the model for tests: a disk of each protocol whose check passes,
with what a case changes (attributes given as (id, raw) pairs, NVMe and SCSI health fields,
any other SmartReading field by keyword)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from zconsole.model.smart import (
    NvmeHealth,
    Protocol,
    ScsiHealth,
    SmartAttr,
    SmartReading,
    Temperature,
)


def ata(*attrs: tuple[int, int], device: str = "/dev/sda", thresh: int = 0,
        prefail: Collection[int] | None = None, **kw: object) -> SmartReading:
    """A 7200 rpm ATA disk; each attribute at normalized 100 (worst 100) over `thresh`,
    a prefailure attribute when its id is in `prefail` (None: the drive does not say)."""
    rows = tuple(SmartAttr(id=i, name=f"attr{i}", raw=raw, value=100, worst=100, thresh=thresh,
                           prefailure=None if prefail is None else i in prefail)
                 for i, raw in attrs)
    base = SmartReading(device=device, protocol=Protocol.ATA, passed=True,
                        rotation_rate=7200, attributes=rows)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def nvme(**health: object) -> SmartReading:
    """An NVMe drive at 40 °C (or its health's temperature): spare 100 % over a 10 %
    threshold, 1 % used, no media errors, unless `health` says otherwise."""
    h = NvmeHealth(**{"available_spare": 100, "available_spare_threshold": 10,
                      "percentage_used": 1, "media_errors": 0, **health})  # type: ignore[arg-type]
    return SmartReading(device="/dev/nvme0", protocol=Protocol.NVME,
                        passed=h.critical_warning == 0, rotation_rate=0, nvme=h,
                        temperature=Temperature(current=h.temperature or 40))


def scsi(**health: object) -> SmartReading:
    """A SCSI disk whose health check passes, with these `ScsiHealth` fields."""
    return SmartReading(device="/dev/sdb", protocol=Protocol.SCSI, passed=True,
                        scsi=ScsiHealth(**health))  # type: ignore[arg-type]
