"""Logins that wait 2 min: systemd-logind does not answer (its process is stopped), so
pam_systemd's CreateSession times out (systemd 252: 120 s) at every login (the shapes of
the host guest's frozen-logind capture: tests/fixtures/host/frozen-logind/)."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import on_clean_host

NAME = "frozen-logind"
DESCRIPTION = ("healthy pools; every SSH login waits 2 min: systemd-logind does not answer "
               "(stopped), pam_systemd gives up on the session")
ORDER = 97



def build(seed: int, now: float) -> Machine:
    m, s = on_clean_host(seed, now, NAME)
    s.daemons["systemd-logind"] = (428, "Ts")
    s.journal = sysr.login(now - 3000, 2101, 6, port=49810)
    s.journal += sysr.login(now - 600, 2399, 0, port=52116, setup=120.74,
                            failed="Connection timed out")
    return m
