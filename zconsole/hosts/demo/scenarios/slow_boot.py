"""A boot held 2 min by "Wait for Network to be Configured": eno2, a port with no cable,
asks for DHCP, so networkd leaves it `configuring` and systemd-networkd-wait-online waits for
it until its timeout; a backup service wants network-online.target (the shapes of the host
guest's wait-online-hang capture: tests/fixtures/host/wait-online-hang/)."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.system import JournalEntry
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import build as build_healthy

NAME = "slow-boot"
DESCRIPTION = ("healthy pools; the last boot waited 2 min for eno2, a port with no cable "
               "that asks for DHCP (systemd-networkd-wait-online)")
ORDER = 96

WAIT = "systemd-networkd-wait-online.service"
NETPLAN = """network:
  version: 2
  renderer: networkd
  ethernets:
    eno1: {}
    eno2:
      dhcp4: true
  bridges:
    br0:
      addresses:
      - 192.168.10.20/24
      interfaces:
      - eno1
    br100:
      interfaces:
      - br0.100
  vlans:
    br0.100:
      id: 100
      link: br0
"""


def build(seed: int, now: float) -> Machine:
    m = build_healthy(seed, now)
    m.hostname = "zdemo-slow-boot"
    for ln in m.links:
        if ln.name == "eno2":  # up, no cable, not in a bridge: DHCP never gets an answer
            ln.up, ln.carrier, ln.master = True, False, None
    s = sysr.clean_system(m)
    s.links = [(i, n, t, "no-carrier", "configuring") if n == "eno2" else (i, n, t, o, st)
               for i, n, t, o, st in s.links]
    s.startup = ("Startup finished in 3.967s (kernel) + 2min 9.636s (userspace) = 2min "
                 "13.603s \ngraphical.target reached after 2min 9.402s in userspace.\n")
    s.blame = [("2min 359ms", WAIT), *s.blame]
    # as the guest printed it: wait-online is not on network-online.target's chain
    s.chain = ("network-online.target @2min 9.334s\n"
               "└─network.target @8.676s\n"
               "  └─systemd-networkd.service @5.355s +3.221s\n"
               "    └─systemd-udevd.service @2.114s +1.310s\n")
    boot = m.boot_time
    s.journal.append(JournalEntry(boot + 8.98, WAIT, "systemd", 1,
                                  f"Starting {WAIT} - Wait for Network to be Configured..."))
    s.journal.append(JournalEntry(boot + 129.31, WAIT, "systemd-networkd-wait-online", 345,
                                  "Timeout occurred while waiting for network connectivity."))
    s.journal.append(JournalEntry(boot + 129.33, WAIT, "systemd", 1,
                                  f"{WAIT}: Main process exited, code=exited, "
                                  "status=1/FAILURE"))
    s.journal.append(JournalEntry(boot + 129.34, WAIT, "systemd", 1,
                                  f"{WAIT}: Failed with result 'exit-code'."))
    s.journal.append(JournalEntry(boot + 129.35, WAIT, "systemd", 1,
                                  f"Failed to start {WAIT} - Wait for Network to be "
                                  "Configured."))
    s.journal.append(JournalEntry(boot + 129.49, WAIT, "systemd", 1,
                                  f"{WAIT}: Consumed 3.694s CPU time."))
    s.journal.sort(key=lambda e: e.at)
    s.wanted_by = ["offsite-backup.service"]
    s.netplan = NETPLAN
    m.system = s
    return m
