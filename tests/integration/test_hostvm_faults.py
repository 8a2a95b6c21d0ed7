"""Host faults on the Debian 12 storage host: each recipe (tests/integration/hostvm/faults.py)
shows its symptom with the fault, and not after its undo.

What is asserted is the cause as the host shows it (`sshd -T`, unit drop-ins, process state,
`systemd-analyze blame`, the journal), never a number of seconds: the seconds measured (logins
with `ssh true`, boot figures) go to the report (`host_figures`: record_property and the
terminal summary). The minutes-long recipes (reboots into a 2-minute wait, a 2-minute frozen
logind: test_hostvm_fixit*.py) carry the `hostvm_slow` marker as well; .ci/run runs them too.
Needs ZCONSOLE_VM=1.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import test_hostvm_fixit_screen as ts
from hostvm import faults
from hostvm.guest import OPERATOR, HostGuest, ensure_operator, guest_now

from zconsole.model.finding import Severity

pytestmark = pytest.mark.hostvm

# logind stops a user's manager (user@UID.service) this long after the user's last session
# ends (UserStopDelaySec=10 s); a wait a little longer than that, before a login that must
# start the manager anew
USER_STOP_WAIT = 14.0


def login_as(g: HostGuest, user: str, timeout: float = 300.0) -> float:
    argv = g.ssh_argv("true")
    argv[-2:-2] = ["-l", user]
    t0 = time.monotonic()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return round(time.monotonic() - t0, 2)


def test_slow_reverse_dns(host_guest: HostGuest, slow_reverse_dns: faults.Fault,
                          host_figures: Any) -> None:
    g, fault = host_guest, slow_reverse_dns
    before = g.login_seconds(1)
    assert fault.cause()["sshd UseDNS"] == "no"  # Debian's default
    try:
        fault.apply()
        since = guest_now(g)
        cause = fault.cause()
        assert cause["sshd UseDNS"] == "yes", cause
        assert cause["nameservers"] == "127.0.0.2", cause
        assert cause["resolver"] == "active", cause
        slow = g.login_seconds(2)
        # sshd asked the resolver for the client's name, then checked the name forward
        log = g.journal("-u", "ssh", "--since", since)
        assert "reverse mapping checking getaddrinfo for slow-client.example [10.0.2.2]" in log, log
        queries = g.journal("-u", "zc-slowdns", "--since", since)
        assert "query 2.2.0.10.in-addr.arpa type 12" in queries, queries
    finally:
        fault.undo()
    since = guest_now(g)
    after = g.login_seconds(1)
    cause = fault.cause()
    assert cause["sshd UseDNS"] == "no", cause
    assert cause["nameservers"] == "127.0.0.1", cause
    assert "slow-client.example" not in g.journal("-u", "ssh", "--since", since)
    host_figures("login s before", before[0])
    host_figures("login s with PTR answered after 3 s (each)", slow)
    host_figures("login s after undo", after[0])


def test_slow_user_manager(host_guest: HostGuest, slow_user_manager: faults.Fault,
                           host_figures: Any) -> None:
    g, fault = host_guest, slow_user_manager
    ensure_operator(g)
    time.sleep(USER_STOP_WAIT)
    before = login_as(g, OPERATOR)
    try:
        fault.apply()
        cause = fault.cause()
        assert "50-zc-slow.conf" in cause["user@0 drop-ins"], cause
        assert "/bin/sleep" in cause["user@0 ExecStartPre"], cause
        since = guest_now(g)
        time.sleep(USER_STOP_WAIT)
        slow = login_as(g, OPERATOR)
        # the login waited for the user's manager: its start, held by the drop-in's sleep
        log = g.journal("--since", since, "_SYSTEMD_UNIT=init.scope")
        uid = g.exec(f"id -u {OPERATOR}").stdout.strip()
        assert f"Starting user@{uid}.service" in log and f"Started user@{uid}.service" in log, log
    finally:
        fault.undo()
    cause = fault.cause()
    assert "50-zc-slow.conf" not in cause["user@0 drop-ins"], cause
    time.sleep(USER_STOP_WAIT)
    after = login_as(g, OPERATOR)
    host_figures("operator login s before", before)
    host_figures("operator login s with user@.service ExecStartPre=sleep 25", slow)
    host_figures("operator login s after undo", after)


# frozen-logind: on the host-b guest (conftest HOST_B_MODULES) with the other faults: a
# 2-minute login, then its fix through the Host screen (as test_hostvm_fixit_screen.py)
@pytest.mark.hostvm_slow
async def test_frozen_logind(
        host_guest: HostGuest, frozen_logind: faults.Fault, host_figures: Any,
        tmp_path: Path) -> None:
    """Minutes: frozen-logind (SIGSTOP, service watchdogs off). A login waits 2 min for
    pam_systemd, which gives up ("Failed to create session"); the SSH panel says logins wait
    for systemd-logind and shows it stopped; `f`, 'restart logind' typed: systemd restarts it
    (SIGTERM with SIGCONT) and `loginctl list-sessions` proves it answers; the next login is
    quick and the panel no longer warns. A restart has no undo. Then the recipe's own undo:
    frozen again, let go (SIGCONT), a login is quick."""
    g, fault = host_guest, frozen_logind
    since = guest_now(g)
    before = g.login_seconds(1)
    # the console's ssh master opened before logind stops: its reads are channels of an
    # open connection, not logins (an operator's console runs in a session opened before)
    host = ts.ssh_host(g)
    assert host.run(["true"]).returncode == 0
    fault.apply()
    cause = fault.cause()
    assert cause["systemd-logind process state"].startswith("T"), cause  # stopped
    assert cause["service watchdogs"] == "no", cause
    frozen = g.login_seconds(1, timeout=400)
    assert host.run(["true"]).returncode == 0  # the master kept (ControlPersist: idle 300 s)
    log = g.journal("-u", "ssh", "--since", since)
    assert "pam_systemd(sshd:session): Failed to create session" in log, log
    app = ts.console(g, tmp_path, since)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ts.open_host(app, pilot)
        d = screen.diagnoses["ssh"]
        assert d.verdict.kind == "ssh-logind" and d.verdict.severity is Severity.WARNING, \
            d.verdict
        verdict = ts.panel_text(screen, "ssh", "verdict")
        assert "for systemd-logind, which did not answer" in verdict, verdict
        evidence = "\n".join(d.verdict.evidence)
        assert "ps: systemd-logind pid" in evidence and "(stopped: SIGSTOP" in evidence, \
            evidence
        assert ts.panel_text(screen, "ssh", "fixes").startswith("1. Restart systemd-logind")
        wz, preview = await ts.wizard(app, pilot, "f")
        assert "systemctl restart systemd-logind.service" in preview, preview
        result = await ts.confirm(wz, pilot, "restart logind")
        assert "✔ Done." in result, result
        cause = fault.cause()
        assert not cause["systemd-logind process state"].startswith("T"), cause
        fast = g.login_seconds(1)
        await ts.back_to_host(app, pilot, screen)
        d = screen.diagnoses["ssh"]
        assert d.verdict.kind != "ssh-logind" or d.verdict.severity is Severity.INFO, \
            d.verdict
        assert screen.fix_kind("ssh") is None  # nothing more to apply
    restarts = [r for r in ts.audit(tmp_path) if r.get("event") == "command"
                and r.get("argv") == ["systemctl", "restart", "systemd-logind.service"]]
    assert restarts and restarts[-1]["exit_code"] == 0, restarts
    # the recipe's undo: frozen again, let go
    fault.apply()
    assert fault.cause()["systemd-logind process state"].startswith("T")
    fault.undo()
    cause = fault.cause()
    assert not cause["systemd-logind process state"].startswith("T"), cause
    assert cause["service watchdogs"] == "yes", cause
    after = g.login_seconds(1)
    host_figures("frozen-logind: login s before", before[0])
    host_figures("frozen-logind: login s with systemd-logind stopped", frozen[0])
    host_figures("frozen-logind: login s after the restart through the screen", fast[0])
    host_figures("frozen-logind: login s after the recipe's undo (SIGCONT)", after[0])


def test_sshd_auth_methods(host_guest: HostGuest, sshd_auth_methods: faults.Fault,
                           host_figures: Any) -> None:
    g = host_guest
    fault = sshd_auth_methods
    assert isinstance(fault, faults.SshdAuthMethods)
    offered_before = fault.offered_methods()
    assert "gssapi-with-mic" not in offered_before and "hostbased" not in offered_before
    gss_client = g.ssh_argv("true")
    gss_client[-2:-2] = ["-o", "GSSAPIAuthentication=yes"]  # Debian's client default
    try:
        fault.apply()
        cause = fault.cause()
        for key in ("gssapiauthentication", "kbdinteractiveauthentication",
                    "hostbasedauthentication", "kerberosauthentication"):
            assert cause[f"{key} (client 10.0.2.2)"] == "yes", cause
        # the Match block holds Hostbased, and Kerberos written after it: not for everyone
        assert cause["hostbasedauthentication (global)"] == "no", cause
        assert cause["kerberosauthentication (global)"] == "no", cause
        assert cause["gssapiauthentication (global)"] == "yes", cause
        offered = fault.offered_methods()
        for method in ("gssapi-with-mic", "keyboard-interactive", "hostbased"):
            assert method in offered.split(","), offered
        t0 = time.monotonic()
        subprocess.run(gss_client, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                       check=True)
        gss_login = round(time.monotonic() - t0, 2)
        plain = g.login_seconds(1)
    finally:
        fault.undo()
    cause = fault.cause()
    for key in ("gssapiauthentication", "hostbasedauthentication", "kerberosauthentication",
                "kbdinteractiveauthentication"):
        assert cause[f"{key} (client 10.0.2.2)"] == "no", cause
    assert fault.offered_methods() == offered_before
    after = g.login_seconds(1)
    host_figures("methods offered before", offered_before)
    host_figures("methods offered with the fault", offered)
    host_figures("login s with the fault, client GSSAPI on", gss_login)
    host_figures("login s with the fault, client GSSAPI off", plain)
    host_figures("login s after undo", after[0])


# The two boot recipes (wait-online hang, ifupdown DHCP hang) are proven in
# test_hostvm_fixit.py::test_boot_fixes_*_across_reboots: their first boot shows both causes
# (wait-online over 60 s with its timeout in the journal, lan1 still configuring, the unit
# that wants network-online.target, networking.service waiting on dhclient) and its last boot,
# after both undos, neither. Each on its own here cost four more reboots, two of them into the
# 2-minute wait (1 367 s of the guest in CI run 9).
