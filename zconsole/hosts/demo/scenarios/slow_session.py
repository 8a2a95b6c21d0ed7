"""Slow first logins: a drop-in someone left for every user's manager runs a script before
the manager starts (ExecStartPre=), and pam_systemd's CreateSession waits for it (the shapes
of the host guest's slow-user-manager capture: tests/fixtures/host/slow-user-manager/)."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import on_clean_host

NAME = "slow-session"
DESCRIPTION = ("healthy pools; the first SSH login of a user takes ~27 s: a drop-in of "
               "user@.service runs a script before the user's manager starts")
ORDER = 96

DROPIN = "/etc/systemd/system/user@.service.d/50-home-share.conf"
DROPIN_TEXT = ("# wait for the team share before the user's manager starts (ticket 4411)\n"
               "[Service]\nExecStartPre=/usr/local/sbin/wait-for-share --timeout 25\n")


def build(seed: int, now: float) -> Machine:
    m, s = on_clean_host(seed, now, NAME)
    m.files[DROPIN] = DROPIN_TEXT
    s.journal = sysr.login(now - 2400, 2201, 7, port=50210)
    s.journal += sysr.login(now - 900, 2318, 9, user="alice", uid=1000, port=51022,
                            manager=25.7)
    return m
