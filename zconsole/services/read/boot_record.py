"""What a boot recorded about itself, read once per boot: `systemd-analyze`'s startup line,
`systemd-analyze blame` and the critical chain of network-online.target.

The three ask PID 1 about every unit, and they are most of what reading the boot panel costs:
on the emulated Debian host guest `blame` took 3.5-8 s of CPU and `critical-chain` 3-3.7 s of
a boot reading's 12-19 s (2026-11-30, `read_boot` timed per command). Yet once the boot has
finished starting they describe that boot, which is over: the panel's next reading of the
same boot, the fix-it's plan and its re-check right before it runs, take them from here.

Kept per Host object (a console's session, the plan runner it gives the host to) and per
boot id (/proc/sys/kernel/random/boot_id, read at every reading): a reboot, or another Host
object, reads them anew. Only a record of a finished boot whose three reads all succeeded
whole is kept; a boot still starting ("Bootup is not yet finished") is read every time.

A unit restarted later in the same boot keeps its boot-time figure here, where `blame` would
now show the restart's: the panel judges what held the boot, not a later restart.
"""

from __future__ import annotations

from typing import NamedTuple

from zconsole.hosts.base import Host
from zconsole.model.fixit import BlameEntry, ChainUnit, StartupTimes
from zconsole.model.reading import Part
from zconsole.services.read.per_host import PerHost


class BootRecord(NamedTuple):
    boot_id: str
    startup: Part[StartupTimes]
    blame: Part[tuple[BlameEntry, ...]]
    chain: Part[tuple[ChainUnit, ...]]

    @property
    def whole(self) -> bool:
        return self.startup.ok and self.blame.ok and self.chain.ok


class BootRecords:
    """The last whole record of each Host object's boot."""

    def __init__(self) -> None:
        self._kept: PerHost[BootRecord] = PerHost()

    def get(self, host: Host, boot_id: str) -> BootRecord | None:
        kept = self._kept.get(host)
        return kept if kept is not None and kept.boot_id == boot_id else None

    def keep(self, host: Host, record: BootRecord) -> None:
        if record.whole and record.boot_id:
            self._kept.put(host, record)

    def forget(self, host: Host) -> None:
        self._kept.forget(host)


RECORDS = BootRecords()
