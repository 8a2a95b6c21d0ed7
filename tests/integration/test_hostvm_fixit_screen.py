"""The fix-it panels driven through the Host screen on the Debian 12 host guest, as an
operator drives them: the console (Pilot) on zconsole's own SshHost into the guest, key 6,
read the verdict, `f`, read the preview, type the confirmation, watch the result, back to
the panel; `u` for the undo. Nothing is called behind the screen's back: the plans are the
ones the screen builds and the wizard runs (FixRunner, the audit log in tmp_path).

Seconds (logins before / after / after the undo) go to the report (`host_figures`), never
into an assertion: the assertions are the causes (sshd -T, the files byte for byte, the
panel's verdict). Needs ZCONSOLE_VM=1 (or ZCONSOLE_HOSTVM_ATTACH=RUN_DIR of a running guest).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hostvm import faults
from hostvm.guest import OPERATOR, HostGuest, ensure_operator, guest_now
from vmguest import until

from tests.ui.test_host_fixit import panel_text, shows_verdict
from tests.ui.test_wizards import body_text
from zconsole.hosts.ssh import SshHost
from zconsole.model.finding import Severity
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.host.screen import HostScreen
from zconsole.ui.wizards.phases.base import Phase
from zconsole.ui.wizards.screen import WizardScreen

pytestmark = pytest.mark.hostvm

# failure bounds: the panels' reads and a plan's run under TCG, loaded
READS = float(os.environ.get("ZCONSOLE_VM_READ_WAIT", "600"))
RUN = 900.0


def ssh_host(g: HostGuest) -> SshHost:
    """The boot's console host (`HostGuest.console_host`): one for the session's tests, as
    an operator's console keeps one; the boot's record is read once a boot."""
    return g.console_host()


def file_state(g: HostGuest, path: str) -> str:
    """The file byte for byte (base64) with its mode, owner and group."""
    return g.exec(f"stat -c '%a %U %G %s' {path} && base64 -w0 {path}").stdout


def audit(tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "audit.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def console(g: HostGuest, tmp: Path, since: str) -> ZConsoleApp:
    """The console on SshHost into the guest; its SSH panel judges the logins since `since`
    (the test's start: the session's guest keeps earlier tests' faults in its journal)."""
    app = ZConsoleApp(ssh_host(g), refresh_interval=3600, state_directory=str(tmp))
    app.wizard_poll_interval = 0.5  # type: ignore[attr-defined]
    app.fixit_since = since  # type: ignore[attr-defined]
    return app


async def undo_restores(app: ZConsoleApp, pilot: Any, screen: HostScreen, g: HostGuest,
                        path: str, before: str) -> None:
    """`u` on the SSH panel that offers to restore `path`: the preview copies the backup
    back, `undo` typed, done; the file is `before` again, byte for byte, mode and owner."""
    assert panel_text(screen, "ssh", "offer").startswith(
        f"▶ u: undo: restore {path} as it was on ")
    wz, preview = await wizard(app, pilot, "u")
    assert "cp -a /var/backups/zconsole-" in preview, preview
    result = await confirm(wz, pilot, "undo")
    assert "✔ Done." in result, result
    assert file_state(g, path) == before


async def open_host(app: ZConsoleApp, pilot: Any) -> HostScreen:
    await until(pilot, lambda: app.reading is not None and app.refresh_started is None,
                "the first refresh", READS)
    await pilot.press("6")
    screen = app.screen
    assert isinstance(screen, HostScreen)
    await until(pilot, lambda: screen.reads >= 2 and screen.settled(), "the panels", READS)
    await pilot.pause()
    return screen


async def wizard(app: ZConsoleApp, pilot: Any, key: str) -> tuple[WizardScreen, str]:
    """Press `key` on the Host screen; a list of fixes (the boot's) is answered with Enter on
    the one selected first (the diagnosis' choice); the wizard's preview, read."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard", 60)
    wz = app.screen
    assert isinstance(wz, WizardScreen)
    await until(pilot, lambda: wz.phase in (Phase.PREVIEW, Phase.RESULT) or (
        wz.phase is Phase.CHOOSE and wz.stage is not None), "the choice or the preview",
        READS)
    if wz.phase is Phase.CHOOSE:
        await pilot.press("enter")
        await until(pilot, lambda: wz.phase in (Phase.PREVIEW, Phase.RESULT), "the preview",
                    READS)
    return wz, body_text(wz)


async def confirm(wz: WizardScreen, pilot: Any, expected: str) -> str:
    """Enter on the preview, a wrong word first (refused), then `expected`; the result."""
    await pilot.press("enter")
    assert wz.phase is Phase.CONFIRM, wz.phase
    assert wz.pending[0].expected == expected
    await pilot.press(*"nope", "enter")
    assert wz.phase is Phase.CONFIRM and wz.runner is None  # a wrong word runs nothing
    await pilot.press(*expected, "enter")
    await until(pilot, lambda: wz.phase is Phase.RESULT, "the result", RUN)
    return body_text(wz)


async def back_to_host(app: ZConsoleApp, pilot: Any, screen: HostScreen) -> None:
    reads = screen.reads
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is screen, "the Host screen", 60)
    # the fixed panel read again (both, when the screen's minute came meanwhile)
    await until(pilot, lambda: screen.reads > reads and screen.settled(),
                "the panel read again", READS)
    await pilot.pause()


def open_session(g: HostGuest) -> subprocess.Popen[str]:
    """An operator's SSH session (a fresh login, no master), proven open."""
    session = subprocess.Popen(g.ssh_argv("cat"), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert session.stdin is not None and session.stdout is not None
    session.stdin.write("logged in\n")
    session.stdin.flush()
    assert session.stdout.readline() == "logged in\n"
    return session


async def test_fix_ssh_through_the_host_screen(host_guest: HostGuest,
                                               slow_reverse_dns: faults.Fault,
                                               host_figures: Any, tmp_path: Path) -> None:
    """slow-reverse-dns, end to end through the screen: the verdict names the cause and
    file:line; `f`, the preview shows the sed and its diff; typed 'UseDNS no'; the fix
    applies, sshd -T proves usedns no, the fresh login passes; the operator's session opened
    before the reload is alive after it; the verdict turns OK; `u`, typed 'undo': the drop-in
    is back byte for byte (content, mode, owner) and the verdict names the cause again."""
    g, fault = host_guest, slow_reverse_dns
    since = guest_now(g)
    fault.apply()
    dropin = faults.SlowReverseDns.DROPIN
    before = file_state(g, dropin)
    slow = g.login_seconds(1)  # also the login from 10.0.2.2 the panel judges
    app = console(g, tmp_path, since)
    session = None
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_host(app, pilot)
            verdict = panel_text(screen, "ssh", "verdict")
            assert verdict.startswith("▲ Logins wait ") and verdict.endswith(
                "for a reverse DNS lookup of the client address"), verdict
            evidence = panel_text(screen, "ssh", "evidence")
            assert f"set at {dropin}:2" in evidence, evidence
            assert "reverse mapping checking getaddrinfo for slow-client.example " \
                   "[10.0.2.2] failed." in evidence, evidence
            assert panel_text(screen, "ssh", "fixes").startswith(
                f"1. Remove `UseDNS yes` at {dropin}:2")
            assert panel_text(screen, "ssh", "offer").startswith("▶ f: apply the first fix")

            session = open_session(g)
            wz, preview = await wizard(app, pilot, "f")
            assert wz.phase is Phase.PREVIEW, preview
            assert f"sed -i -e '2{{/^UseDNS yes$/d;}}' {dropin}" in preview, preview
            assert "-UseDNS yes" in preview  # the change, as a diff
            assert "/usr/sbin/sshd -t" in preview and "systemctl reload ssh" in preview
            result = await confirm(wz, pilot, "UseDNS no")
            assert "✔ Done." in result, result
            assert "sshd -T shows `usedns no`" in result, result
            assert "a fresh login" in result, result
            assert g.sshd_effective()["usedns"] == "no"
            out, err = session.communicate("still here\n", timeout=120)
            assert out == "still here\n", err  # the operator's session survived the reload
            fast = g.login_seconds(1)

            await back_to_host(app, pilot, screen)
            d = screen.diagnoses["ssh"]
            assert d.verdict.severity is Severity.OK, d.verdict
            assert panel_text(screen, "ssh", "verdict").startswith("✔ No cause of slow "
                                                                   "logins found")
            await undo_restores(app, pilot, screen, g, dropin, before)
            assert g.sshd_effective()["usedns"] == "yes"
            again = g.login_seconds(1)

            await back_to_host(app, pilot, screen)
            assert screen.diagnoses["ssh"].verdict.kind == "ssh-usedns"
            assert panel_text(screen, "ssh", "offer").startswith("▶ f: apply")
        commands = [(r["step_id"], r["argv"]) for r in audit(tmp_path)
                    if r["event"] == "command"]
        assert ("write", ["sed", "-i", "-e", "2{/^UseDNS yes$/d;}", dropin]) in commands, commands
        assert ("reload", ["systemctl", "reload", "ssh"]) in commands, commands
        host_figures("screen fix-ssh: login s with the fault", slow)
        host_figures("screen fix-ssh: login s after the fix", fast[0])
        host_figures("screen fix-ssh: login s after the undo", again)
    finally:
        if session is not None and session.poll() is None:
            session.kill()
        g.exec("rm -f /var/backups/zconsole-*", check=False)


def first_login(g: HostGuest, user: str = OPERATOR) -> float:
    """`ssh -l USER hostvm true` after the user's manager stopped (no session of the user
    left, logind's UserStopDelaySec over): a first login, which starts the manager."""
    uid = g.exec(["id", "-u", user]).stdout.strip()
    g.exec(f"loginctl terminate-user {user} 2>/dev/null; for i in $(seq 1 120); do "
           f"systemctl is-active -q user@{uid}.service || exit 0; sleep 1; done; exit 1",
           timeout=300)
    argv = g.ssh_argv("true")
    argv[-2:-2] = ["-l", user]
    t0 = time.monotonic()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return round(time.monotonic() - t0, 2)


async def test_slow_user_manager_fixed_through_the_host_screen(
        host_guest: HostGuest, slow_user_manager: faults.Fault, host_figures: Any,
        tmp_path: Path) -> None:
    """slow-user-manager (user@.service.d/50-zc-slow.conf: ExecStartPre=/bin/sleep 25): the
    SSH panel names the service at fault and the drop-in, file:line; `f` removes it as a
    plan ('remove the drop-in' typed: backup, rm, daemon-reload, systemctl cat proves it
    gone); the operator's next first login no longer runs it and the panel no longer names
    it; `u` puts it back byte for byte and the next first login waits for it again."""
    g, fault = host_guest, slow_user_manager
    ensure_operator(g)
    uid = g.exec(["id", "-u", OPERATOR]).stdout.strip()
    unit = f"user@{uid}.service"
    dropin = faults.SlowUserManager.DROPIN
    since = guest_now(g)
    fault.apply()
    before = file_state(g, dropin)
    slow = first_login(g)
    app = console(g, tmp_path, since)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_host(app, pilot)
            shows_verdict(screen, "ssh", "ssh-user-manager",
                          f"for {unit} (the user's systemd manager): the drop-in {dropin}:3 "
                          "runs `ExecStartPre=/bin/sleep 25`")
            assert panel_text(screen, "ssh", "verdict").startswith(
                f"▲ The first login of {OPERATOR} waits ")
            assert panel_text(screen, "ssh", "fixes").startswith(
                f"1. Remove the drop-in {dropin}")
            assert "Drop pam_systemd from the SSH session (explained, not done)" in \
                panel_text(screen, "ssh", "fixes")

            wz, preview = await wizard(app, pilot, "f")
            assert wz.phase is Phase.PREVIEW, preview
            assert f"rm -f {dropin}" in preview and "systemctl daemon-reload" in preview
            result = await confirm(wz, pilot, "remove the drop-in")
            assert "✔ Done." in result, result
            assert f"systemctl cat {unit} no longer lists {dropin}" in " ".join(result.split())
            assert g.exec(f"test -e {dropin}", check=False).returncode == 1
            assert dropin not in fault.cause()["user@0 drop-ins"]
            fast = first_login(g)

            await back_to_host(app, pilot, screen)
            d = screen.diagnoses["ssh"]
            assert dropin not in d.verdict.message, d.verdict  # the cause is gone
            assert screen.fix_kind("ssh") is None  # nothing more to apply
            await undo_restores(app, pilot, screen, g, dropin, before)
            assert dropin in fault.cause()["user@0 drop-ins"]
            again = first_login(g)

            await back_to_host(app, pilot, screen)
            d = screen.diagnoses["ssh"]
            assert d.verdict.kind == "ssh-user-manager" and dropin in d.verdict.message, \
                d.verdict
        host_figures("screen fix-session: operator's first login s with the drop-in", slow)
        host_figures("screen fix-session: first login s after the fix", fast)
        host_figures("screen fix-session: first login s after the undo", again)
    finally:
        g.exec("rm -f /var/backups/zconsole-*", check=False)



def sshd_files(g: HostGuest) -> str:
    """Every file of sshd's configuration: name, mode, owner and checksum."""
    return g.exec("find /etc/ssh/sshd_config /etc/ssh/sshd_config.d -type f "
                  "-printf '%p %m %u ' -exec md5sum {} \\; | sort").stdout


def gss_login(g: HostGuest) -> float:
    """A login by a client with Debian's default `GSSAPIAuthentication yes`, in seconds."""
    argv = g.ssh_argv("true")
    argv[-2:-2] = ["-o", "GSSAPIAuthentication=yes"]
    t0 = time.monotonic()
    subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                   check=True)
    return round(time.monotonic() - t0, 2)


OUTSIDER = "user=root,addr=192.0.2.9,host=192.0.2.9"  # a client no Match block covers


async def test_auth_methods_switched_off_through_the_host_screen(
        host_guest: HostGuest, sshd_auth_methods: faults.Fault, host_figures: Any,
        tmp_path: Path) -> None:
    """sshd-auth-methods through the screen: no cause of a slow login, each method named with
    its file:line (Kerberos and host-based inside the Match block); `f` switches the first
    (GSSAPI) off: the drop-in previewed, 'GSSAPIAuthentication no' typed, sshd -T proving it,
    a fresh login that succeeds (root has a key for itself for this test); sshd no longer offers gssapi-with-mic and the operator's session
    survived the reload. Then the Match block's host-based method by the same plan kind
    (`--method hostbasedauthentication`, the engine): its drop-in repeats the Match line, and
    sshd -T -C proves `no` for the guest's client 10.0.2.2, while the lines read after the
    drop-in still apply to every client (OpenSSH ends a Match block with its included file).
    Both undone (`u` for the screen's): sshd's files byte for byte as the recipe left them,
    and the same methods offered."""
    from zconsole.hosts.journal import AuditLog, PlanStore
    from zconsole.services.ops.engine.runner import PlanRunner
    from zconsole.services.ops.fixit import common, ssh_auth

    g, fault = host_guest, sshd_auth_methods
    assert isinstance(fault, faults.SshdAuthMethods)
    # root's session from before the judged window on: root's user manager runs through the
    # test, so no login judged here waits for it to start (under a loaded CI run that start
    # took over the panel's limit and the SSH panel rightly named it the cause: a rerun in
    # CI, 2026-11-27). The same session proves the reload leaves it open.
    session = open_session(g)
    # the fix's proof is a fresh login from localhost that succeeds (after an authentication
    # change a refusal proves nothing, issue 26 item 9): root gets a key for itself here
    g.exec("test -e /root/.ssh/id_ed25519 || ssh-keygen -q -t ed25519 -N '' -f "
           "/root/.ssh/id_ed25519; cp -a /root/.ssh/authorized_keys /root/.ssh/zc-test-keys; "
           "cat /root/.ssh/id_ed25519.pub >> /root/.ssh/authorized_keys")
    since = guest_now(g)
    fault.apply()
    g.login_seconds(1)  # the login from 10.0.2.2 the panel judges
    files = sshd_files(g)
    offered = fault.offered_methods()
    for method in ("gssapi-with-mic", "keyboard-interactive", "hostbased"):
        assert method in offered.split(","), offered
    gss_before = gss_login(g)
    ours = ssh_auth.dropin("gssapiauthentication")
    match_file = ssh_auth.dropin("hostbasedauthentication")
    app = console(g, tmp_path, since)
    engine = (AuditLog(tmp_path / "engine" / "audit.jsonl"),
              PlanStore(tmp_path / "engine" / "plans"))

    def runner(plan: Any) -> PlanRunner:
        return PlanRunner(ssh_host(g), plan, audit=engine[0], store=engine[1],
                          operator="hostvm-test")

    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_host(app, pilot)
            d = screen.diagnoses["ssh"]
            assert d.verdict.kind == "ssh-ok", d.verdict
            evidence = panel_text(screen, "ssh", "evidence")
            assert f"{faults.AUTH_DROPIN}:2: GSSAPIAuthentication yes" in evidence, evidence
            assert "KerberosAuthentication yes, inside `Match Address 10.0.2.0/24`" in \
                evidence, evidence
            assert panel_text(screen, "ssh", "fixes").startswith(
                "1. Switch GSSAPIAuthentication off")
            assert panel_text(screen, "ssh", "offer").startswith(
                "▶ f: switch the first authentication method listed off")

            wz, preview = await wizard(app, pilot, "f")
            assert wz.phase is Phase.PREVIEW, preview
            flat = " ".join(preview.split())
            assert f"'GSSAPIAuthentication no' | tee {ours}" in flat, preview
            assert "+GSSAPIAuthentication no" in preview  # the change, as a diff
            result = await confirm(wz, pilot, "GSSAPIAuthentication no")
            assert "✔ Done." in result, result
            assert "sshd -T shows `gssapiauthentication no`" in result, result
            assert "a fresh login from localhost" in result, result
            assert g.sshd_effective()["gssapiauthentication"] == "no"
            now_offered = fault.offered_methods().split(",")
            assert "gssapi-with-mic" not in now_offered and "hostbased" in now_offered
            assert session.stdin is not None and session.stdout is not None
            session.stdin.write("still here\n")
            session.stdin.flush()
            # the operator's session survived the reload (kept open to the end: see above)
            assert session.stdout.readline() == "still here\n"
            gss_after = gss_login(g)

            await back_to_host(app, pilot, screen)
            d = screen.diagnoses["ssh"]
            said = [f.message for f in d.findings if f.kind == "ssh-auth-method"]
            assert not any(m.startswith("GSSAPIAuthentication") for m in said), said
            assert f"u: undo: restore {ours} as it was on " in panel_text(screen, "ssh",
                                                                          "offer")

            # the Match block's method: the drop-in repeats the Match line
            plan = ssh_auth.plan_for(ssh_host(g), "hostbasedauthentication")
            assert not plan.blocked, plan.checks
            assert plan.argv_list()[0][-2:] == ("Match Address 10.0.2.0/24",
                                                "    HostbasedAuthentication no")
            run = common.run_fix(plan, runner, lambda _e: None)
            assert run.applied, run.result.message
            assert g.sshd_effective()["hostbasedauthentication"] == "no"  # for 10.0.2.2
            assert g.sshd_effective()["kerberosauthentication"] == "yes"  # not this fix's
            # the drop-in's Match block ended with its file: the main file's global line,
            # read after it, still applies to a client no Match block covers
            outsider = g.sshd_effective(OUTSIDER)
            assert outsider["kbdinteractiveauthentication"] == "yes", outsider
            assert "hostbased" not in fault.offered_methods().split(",")
            undo = ssh_auth.undo_plan(plan)
            assert runner(undo).run(lambda _e: None).done
            assert g.exec(f"test -e {match_file}", check=False).returncode == 1
            assert g.sshd_effective()["hostbasedauthentication"] == "yes"

            wz, preview = await wizard(app, pilot, "u")
            assert f"rm -f {ours}" in preview, preview
            result = await confirm(wz, pilot, "undo")
            assert "✔ Done." in result, result
            assert sshd_files(g) == files  # byte for byte, mode and owner
            assert fault.offered_methods() == offered

            await back_to_host(app, pilot, screen)
            said = [f.message for f in screen.diagnoses["ssh"].findings
                    if f.kind == "ssh-auth-method"]
            assert any(m.startswith("GSSAPIAuthentication yes") for m in said), said
        commands = [(r["step_id"], r["argv"]) for r in audit(tmp_path)
                    if r["event"] == "command"]
        assert ("reload", ["systemctl", "reload", "ssh"]) in commands, commands
        assert ("restore", ["rm", "-f", ours]) in commands, commands
        host_figures("screen fix-ssh-auth: login s, client GSSAPI on, with the method on",
                     gss_before)
        host_figures("screen fix-ssh-auth: login s, client GSSAPI on, GSSAPI off", gss_after)
        host_figures("screen fix-ssh-auth: methods offered with the recipe", offered)
    finally:
        if session.poll() is None:
            session.kill()
        g.exec(f"rm -f {ours} {match_file}", check=False)
        g.exec("mv /root/.ssh/zc-test-keys /root/.ssh/authorized_keys", check=False)
