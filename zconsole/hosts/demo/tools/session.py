"""The session setup's programs a fix-it reads and runs, over `machine.system` (the shapes of
the host guest's captures: systemd 252, tests/fixtures/host/):

| program | forms answered |
|---|---|
| `systemctl` | `cat user@UID.service` (the packages' unit and drop-ins, then the machine's files under /etc/systemd/system/user@.service.d/ and user@UID.service.d/), `restart systemd-logind.service` |
| `loginctl` | `[--no-pager] [--no-legend] list-sessions`: 25 s and "Connection timed out" while logind is stopped (90 s while dbus-daemon is) |
| `ps` | `-o pid=,stat=,comm= -C NAME[,NAME]` of the session daemons |

`systemctl` itself is `tools/system.py`'s; it hands these verbs here.
"""

from __future__ import annotations

from zconsole.hosts.demo.machine import CmdError
from zconsole.hosts.demo.machine.system import JournalEntry, System
from zconsole.hosts.demo.render import system as render
from zconsole.hosts.demo.tools._common import Context, Handler, Out

ETC = "/etc/systemd/system"
LOGIND = "systemd-logind.service"
# systemd 252's user@.service and its drop-ins as `systemctl cat` prints them on the host
# guest (captured 2026-11-26, Debian 12, systemd 252.39-1~deb12u2)
LICENCE = ("#  SPDX-License-Identifier: LGPL-2.1-or-later\n#\n#  This file is part of systemd.\n"
           "#\n#  systemd is free software; you can redistribute it and/or modify it\n"
           "#  under the terms of the GNU Lesser General Public License as published by\n"
           "#  the Free Software Foundation; either version 2.1 of the License, or\n"
           "#  (at your option) any later version.\n")
USER_UNIT = ("# /lib/systemd/system/user@.service\n" + LICENCE + "\n[Unit]\n"
             "Description=User Manager for UID %i\nDocumentation=man:user@.service(5)\n"
             "After=user-runtime-dir@%i.service dbus.service systemd-oomd.service\n"
             "Requires=user-runtime-dir@%i.service\nIgnoreOnIsolate=yes\n\n[Service]\n"
             "User=%i\nPAMName=systemd-user\nType=notify\nExecStart=/lib/systemd/systemd --user\n"
             "Slice=user-%i.slice\nKillMode=mixed\nDelegate=pids memory cpu\nTasksMax=infinity\n"
             "TimeoutStopSec=120s\nKeyringMode=inherit\nOOMScoreAdjust=100\n")
BARRIER = ("\n# /usr/lib/systemd/system/user@.service.d/10-login-barrier.conf\n" + LICENCE +
           "\n[Unit]\n# Make sure user instances are started after logins are allowed. "
           "However this\n# is not desirable for user@0.service since root should be able to "
           "log in\n# earlier during the boot process especially if something goes wrong.\n"
           "After=systemd-user-sessions.service\n")
BARRIER_ROOT = ("\n# /usr/lib/systemd/system/user@0.service.d/10-login-barrier.conf\n" +
                LICENCE + "\n# Empty file to mask its counterpart for unprivileged users and "
                "thus cancels\n# \"After=systemd-user-session.service\" ordering constraint so "
                "that root can log\n# in even if the boot process is not yet finished.\n")


def _system(ctx: Context) -> System:
    m = ctx.machine
    if m.system is None:
        m.system = render.clean_system(m)
    return m.system


def user_unit_cat(ctx: Context, unit: str) -> str:
    """`systemctl cat user@UID.service`: the packages' files, then the machine's drop-ins
    (user@.service.d before user@UID.service.d, each directory in name order)."""
    out = USER_UNIT + (BARRIER_ROOT if unit == "user@0.service" else BARRIER)
    for d in (f"{ETC}/user@.service.d/", f"{ETC}/{unit}.d/"):
        for path in sorted(p for p in ctx.machine.files
                           if p.startswith(d) and p.endswith(".conf")):
            out += f"\n# {path}\n{ctx.machine.files[path]}"
    return out


def systemctl_session(ctx: Context, verb: str, units: list[str]) -> Out | None:
    """The systemctl verbs of the session fixes (None: not one of them)."""
    s = _system(ctx)
    if verb == "cat" and len(units) == 1 and units[0].startswith("user@") \
            and units[0].endswith(".service") and units[0] != "user@.service":
        return 0, user_unit_cat(ctx, units[0]), ""
    if verb == "restart" and units in ([LOGIND], ["systemd-logind"]):
        if not ctx.root:
            raise CmdError(1, f"Failed to restart {LOGIND}: Access denied\n")
        pid = 900 + s.logind_restarts
        s.logind_restarts += 1
        s.daemons["systemd-logind"] = (pid, "Ss")
        s.journal += [
            JournalEntry(ctx.now, LOGIND, "systemd", 1,
                         f"Stopping {LOGIND} - User Login Management..."),
            JournalEntry(ctx.now + 0.3, LOGIND, "systemd", 1,
                         f"Stopped {LOGIND} - User Login Management."),
            JournalEntry(ctx.now + 0.4, LOGIND, "systemd", 1,
                         f"Starting {LOGIND} - User Login Management..."),
            JournalEntry(ctx.now + 0.9, LOGIND, "systemd", 1,
                         f"Started {LOGIND} - User Login Management.")]
        ctx.took = 0.9
        return 0, "", ""
    return None


def loginctl(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    args = [a for a in argv if a not in ("--no-pager", "--no-legend")]
    if args != ["list-sessions"]:
        raise CmdError(1, "loginctl: demo host answers only list-sessions\n")
    if "T" in s.daemons.get("dbus-daemon", (0, ""))[1]:
        ctx.took = 90.0  # sd-bus's authentication timeout: the bus never says hello
        return 1, "", "Failed to connect to bus: Connection timed out\n"
    if "T" in s.daemons.get("systemd-logind", (0, ""))[1]:
        ctx.took = 25.0  # sd-bus's default method call timeout
        return 1, "", "Failed to list sessions: Connection timed out\n"
    ctx.took = 0.05
    return 0, "      5    0 root             pts/0\n", ""


def ps(ctx: Context, argv: list[str]) -> Out:
    s = _system(ctx)
    if len(argv) != 4 or argv[:3] != ["-o", "pid=,stat=,comm=", "-C"]:
        raise CmdError(1, "ps: demo host answers only -o pid=,stat=,comm= -C NAME[,NAME]\n")
    rows = [(pid, stat, comm) for comm, (pid, stat) in s.daemons.items()
            if comm in argv[3].split(",")]
    if not rows:
        return 1, "", ""
    return 0, "".join(f"{pid:>7} {stat:<4} {comm}\n" for pid, stat, comm in sorted(rows)), ""


HANDLERS: dict[str, Handler] = {"loginctl": loginctl, "ps": ps}
