"""Where a disk sits and how to make it show itself: enclosure slots and `ledctl`.

* `read_slots(host)`: kernel disk name -> "enclosure 0:0:8:0 slot 05", from the SES links
  `/sys/class/enclosure/<enclosure>/<slot>/device/block/<disk>` (empty when the host has no
  enclosure services, as most small servers and every VM);
* `has_ledctl(host)`: ledmon's `ledctl` answers (`ledctl --version`); then
  `ledctl locate=/dev/X` lights the slot's locate LED and `ledctl locate_off=/dev/X` puts it out.

Reads only; a host that cannot be read says nothing (no slot, no ledctl), never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from zconsole.hosts.base import Host, HostError, list_or_empty

ENCLOSURES = "/sys/class/enclosure"
LEDCTL_PROBE = ("ledctl", "--version")


def read_slots(host: Host) -> Mapping[str, str]:
    """Kernel disk name -> its enclosure slot, for the disks an enclosure reports."""
    out: dict[str, str] = {}
    for enc in list_or_empty(host, ENCLOSURES):
        for slot in list_or_empty(host, f"{ENCLOSURES}/{enc}"):
            for disk in list_or_empty(host, f"{ENCLOSURES}/{enc}/{slot}/device/block"):
                out.setdefault(disk, f"enclosure {enc} slot {slot}")
    return out


def has_ledctl(host: Host) -> bool:
    """ledmon's ledctl is installed and answers."""
    try:
        return host.run(LEDCTL_PROBE, timeout=10.0, check=False).returncode == 0
    except HostError:
        return False
