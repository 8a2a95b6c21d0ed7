"""Authentication methods switched on: the host guest's sshd-auth-methods recipe
(tests/integration/hostvm/faults.py) on the demo: GSSAPI in a drop-in, keyboard-interactive
in the main file, host-based and Kerberos inside a `Match Address` block that covers the
operator's workstation. No cause of a slow login; the SSH panel names each method and
offers to switch the first one off (fix-ssh-auth)."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import on_clean_host

NAME = "ssh-auth"
DESCRIPTION = ("healthy pools; sshd offers GSSAPI (a drop-in), keyboard-interactive (the main "
               "file), host-based and Kerberos (a Match block) to the workstation")
ORDER = 95

DROPIN = "/etc/ssh/sshd_config.d/40-auth.conf"
MATCH = "Match Address 192.168.10.0/24"


def build(seed: int, now: float) -> Machine:
    m, s = on_clean_host(seed, now, NAME)
    m.files[DROPIN] = "# single sign-on for the office\nGSSAPIAuthentication yes\n"
    main = m.files["/etc/ssh/sshd_config"]
    main = main.replace("KbdInteractiveAuthentication no", "KbdInteractiveAuthentication yes")
    m.files["/etc/ssh/sshd_config"] = (
        main + f"\n# the office network\n{MATCH}\n    HostbasedAuthentication yes\n"
        "KerberosAuthentication yes\n")
    m.files["/etc/resolv.conf"] = "nameserver 192.168.10.1\n"
    s.journal = sysr.recent_logins(now, auth=0.4)
    return m
