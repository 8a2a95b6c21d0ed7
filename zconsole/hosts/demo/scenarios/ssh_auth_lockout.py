"""Keyboard-interactive that a group cannot do without (issue 26, item 9): the main file
keeps Debian's `KbdInteractiveAuthentication no` for everyone, and a `Match Group ops` block
switches it on and requires it after the key (`AuthenticationMethods
publickey,keyboard-interactive`: a one-time password). Alice and bob of ops logged in that
way this week (`Partial publickey`, then `Accepted keyboard-interactive/pam`). The SSH panel
names the Match block's method; its fix (fix-ssh-auth) is blocked, naming the group, the
users and the file:line: `sshd -t` would pass and every member of ops would be locked out."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.system import JournalEntry
from zconsole.hosts.demo.render import system as sysr
from zconsole.hosts.demo.scenarios.healthy import on_clean_host

NAME = "ssh-auth-lockout"
DESCRIPTION = ("healthy pools; a `Match Group ops` block requires keyboard-interactive after "
               "the key (a one-time password): switching it off would lock ops out")
ORDER = 96

CLIENT = sysr.WORKSTATION
MATCH = "Match Group ops"
BLOCK = (f"\n# two factors for the operators\n{MATCH}\n"
         "    AuthenticationMethods publickey,keyboard-interactive\n"
         "    KbdInteractiveAuthentication yes\n")
USERS = (("alice", 1001), ("bob", 1002))


def two_factor_login(at: float, pid: int, session: int, user: str, uid: int,
                     port: int) -> list[JournalEntry]:
    """One login of a member of ops as sshd 9.2 logs it: the key (a partial success, one
    method of the chain), then keyboard-interactive through PAM, then the session."""
    out = [JournalEntry(at, "ssh.service", "sshd", pid,
                        f"Partial publickey for {user} from {CLIENT} port {port} ssh2: "
                        f"{sysr.KEY}")]
    rest = sysr.login(at + 4.2, pid, session, user=user, uid=uid, addr=CLIENT, port=port)
    first = rest[0]
    out.append(JournalEntry(first.at, first.unit, first.ident, first.pid,
                            f"Accepted keyboard-interactive/pam for {user} from {CLIENT} "
                            f"port {port} ssh2"))
    return out + rest[1:]


def build(seed: int, now: float) -> Machine:
    m, s = on_clean_host(seed, now, NAME)
    m.files["/etc/ssh/sshd_config"] += BLOCK
    m.files["/etc/resolv.conf"] = "nameserver 192.168.10.1\n"
    s.journal = []
    for n, (ago, pid, port) in enumerate(((86400 * 2, 2211, 50412), (5400, 2290, 50988),
                                          (420, 2377, 51630))):
        user, uid = USERS[n % 2]
        s.journal += two_factor_login(now - ago, pid, 12 + n, user, uid, port)
    return m
