"""Slow SSH logins: a hardening drop-in set `UseDNS yes`, and the resolver answers the
reverse lookup of the operator's workstation late (the shapes of the host guest's
slow-reverse-dns capture: tests/fixtures/host/slow-reverse-dns/)."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.system import Lookup
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import on_clean_host

NAME = "slow-ssh"
DESCRIPTION = ("healthy pools; SSH logins take ~12 s: `UseDNS yes` in a hardening drop-in and "
               "a resolver that answers the workstation's reverse lookup late")
ORDER = 95

CLIENT = sysr.WORKSTATION
CLIENT_NAME = "ws-31.office.example"
DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"


def build(seed: int, now: float) -> Machine:
    m, s = on_clean_host(seed, now, NAME)
    m.files[DROPIN] = "# sshd hardening baseline\nMaxAuthTries 3\nUseDNS yes\n"
    m.files["/etc/resolv.conf"] = "nameserver 192.168.10.1\n"
    s.sshd["usedns"] = ["yes"]
    s.sshd["maxauthtries"] = ["3"]
    s.lookups = {f"hosts {CLIENT}": Lookup(f"{CLIENT}     {CLIENT_NAME}\n", 0, 6.02),
                 f"ahosts {CLIENT_NAME}": Lookup("", 2, 5.01)}
    s.dns_delay = 6.02 + 5.01  # the PTR lookup, then the forward check of the name it gave
    s.journal = sysr.recent_logins(now, reverse=CLIENT_NAME, auth=0.9)
    return m
