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

from zconsole.hosts.base import Host, HostError

ENCLOSURES = "/sys/class/enclosure"
LEDCTL_PROBE = ("ledctl", "--version")


def read_slots(host: Host) -> Mapping[str, str]:
    """Kernel disk name -> its enclosure slot, for the disks an enclosure reports."""
    out: dict[str, str] = {}
    try:
        enclosures = host.list_dir(ENCLOSURES)
    except HostError:
        return out
    for enc in enclosures:
        try:
            slots = host.list_dir(f"{ENCLOSURES}/{enc}")
        except HostError:
            continue
        for slot in slots:
            try:
                disks = host.list_dir(f"{ENCLOSURES}/{enc}/{slot}/device/block")
            except HostError:
                continue
            for disk in disks:
                out.setdefault(disk, f"enclosure {enc} slot {slot}")
    return out


def has_ledctl(host: Host) -> bool:
    """ledmon's ledctl is installed and answers."""
    try:
        return host.run(LEDCTL_PROBE, timeout=10.0, check=False).returncode == 0
    except HostError:
        return False
