"""The login journal read as JSON on the Debian 12 host guest (issue 27, item 4): a user
logged in over ssh writes four lines in the name of sshd and systemd with `logger` (a login
of root and a start of root's user manager; 15 s or more of it made the slow-login panel
propose removing user@.service drop-ins: test_journal_json.py, on the capture of a 16 s
one); the SSH panel's read and judgement do not take them and say they were ignored. The
same journal read as text by the look of its lines (the read before) takes them for a
login of root whose manager started: the forgery did land in the read's selection.

Cheap by design (issue 33): the session's host guest as it is, no fault, no reboot; one
ssh login of the operator account that writes the lines (each logger kept alive 5 s
after its lines, so that journald has read its cgroup even when loaded: a writer gone
before has no `_SYSTEMD_UNIT` and `-u 'session-*.scope'` does not select its line,
tests/fixtures/host/SOURCES.md, forged-login), one read_ssh through SshHost, one text
journal. Measured 51.5 s (`--durations`, call) on the lead's loaded 2-core machine
(load average about 10) under TCG.
Needs ZCONSOLE_VM=1 (or ZCONSOLE_HOSTVM_ATTACH=RUN_DIR of a running guest).
"""

from __future__ import annotations

import subprocess

import pytest
from hostvm.guest import OPERATOR, HostGuest, ensure_operator, guest_now

from zconsole.hosts.ssh import SshHost
from zconsole.parsers.journal import logins_from_journal, parse_journal
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.read.fixit import read_ssh

pytestmark = pytest.mark.hostvm

FORGE = """{ printf '%s\\n' 'Accepted publickey for root from 10.0.2.2 port 40000 ssh2: ED25519 SHA256:forged' 'pam_unix(sshd:session): session opened for user root(uid=0) by (uid=0)'; sleep 5; } | logger -t sshd &
sleep 0.5
{ echo 'Starting user@0.service - User Manager for UID 0...'; sleep 5; } | logger -t systemd &
sleep 0.5
{ echo 'Started user@0.service - User Manager for UID 0.'; sleep 5; } | logger -t systemd &
wait
"""

def test_lines_a_user_forges_are_not_logins(host_guest: HostGuest) -> None:
    g = host_guest
    ensure_operator(g)
    uid = int(g.exec(["id", "-u", OPERATOR]).stdout)
    since = guest_now(g)
    argv = g.ssh_argv(FORGE)
    argv[-2:-2] = ["-l", OPERATOR]
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr

    r = read_ssh(SshHost(f"root@{g.alias}", ssh_config=str(g.ssh_config)), since=since)
    assert r.logins.ok, r.logins
    logins = r.logins.value or ()
    # the operator's real login (and SshHost's own of root, when it had to log in)
    assert OPERATOR in [lg.user for lg in logins], logins
    assert not any("forged" in j.message for lg in logins for j in lg.lines), logins
    assert [(j.ident, j.comm, j.uid) for j in r.journal_ignored] == [
        ("sshd", "logger", uid)] * 2 + [("systemd", "logger", uid)] * 2, r.journal_ignored
    assert r.journal_unreadable == 0
    d = diagnose_ssh(r)
    assert not any("user@0.service" in f.message for f in d.findings), d.findings
    assert d.verdict.kind != "ssh-user-manager", d.verdict
    assert any(e.startswith("4 journal lines written in the name of sshd")
               for e in d.verdict.evidence), d.verdict.evidence

    # the contrast: the same selection as text, read by the look of a line
    text = g.exec(["journalctl", "--no-pager", "-o", "short-iso-precise", "--since", since,
                   "-u", "ssh.service", "-u", "systemd-logind.service", "-u", "user@*.service",
                   "-u", "session-*.scope"]).stdout
    fooled = [lg for lg in logins_from_journal(parse_journal(text))
              if any("SHA256:forged" in j.message for j in lg.lines)]
    assert len(fooled) == 1 and fooled[0].manager_started is not None, text
