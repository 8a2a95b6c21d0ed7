"""The SSH fix rehearsed on the demo host through the Host screen (key 6): `f` opens the
plan's preview, the typed confirmation runs it (sshd -t, sshd -T, reload, a fresh login),
the panel's verdict clears; `u` opens the undo, which brings the file back byte for byte.
`--read-only` offers neither."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.ui.test_host_screen import open_host
from tests.ui.test_wizards import audit, body_text, confirm_all, until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.model.finding import Severity
from zconsole.model.fixit import Diagnosis
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.host.screen import HostScreen
from zconsole.ui.wizards.phases.base import Phase
from zconsole.ui.wizards.screen import WizardScreen

DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"


def panel_text(screen: HostScreen, panel: str, part: str) -> str:
    """A line of a fix-it panel (`ssh`, `boot`; its `offer`, `verdict`) as shown, spaces
    folded; "" while it is hidden."""
    w = screen.query_one(f"#fix-{panel} .fix-{part}", Static)
    return " ".join(str(w.render()).split()) if w.display else ""


def shows_verdict(screen: HostScreen, panel: str, kind: str, ending: str) -> Diagnosis:
    """The panel's diagnosis is of `kind`, and its verdict line, as shown, ends with
    `ending`; the diagnosis, for more."""
    d = screen.diagnoses[panel]
    assert d.verdict.kind == kind, d.verdict
    verdict = panel_text(screen, panel, "verdict")
    assert verdict.endswith(ending), verdict
    return d


def offer(screen: HostScreen) -> str:
    return panel_text(screen, "ssh", "offer")


async def back_to_host(app: ZConsoleApp, pilot: Any, screen: HostScreen) -> dict[str, int]:
    """Close the wizard's result; wait for the fixed panel read again. The panels read
    since, with their counts (the clock is frozen: the minute's read of both never comes)."""
    before = dict(screen.reads_of)
    reads = screen.reads
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is screen, "the Host screen")
    await until(pilot, lambda: screen.reads > reads and screen.settled(),
                "the panel read again", tries=1000)
    await pilot.pause()
    return {k: n - before.get(k, 0) for k, n in screen.reads_of.items()
            if n != before.get(k, 0)}


async def run_wizard(app: ZConsoleApp, pilot: Any, key: str, pick: str | None = None
                     ) -> tuple[WizardScreen, str, list[str]]:
    """`key` opens the wizard; a list of fixes (the boot's) is answered with Enter on the
    one selected first (the diagnosis' choice), or `pick`; then the preview, the typed
    confirmations, the run."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
    wz = app.screen
    assert isinstance(wz, WizardScreen)
    await until(pilot, lambda: wz.phase in (Phase.CHOOSE, Phase.PREVIEW) and (
        wz.phase is Phase.PREVIEW or wz.stage is not None), "the choice or the preview",
        tries=1500)
    if wz.phase is Phase.CHOOSE:
        if pick is None:
            await pilot.press("enter")
        else:
            wz.choose(pick)
    await until(pilot, lambda: wz.phase is Phase.PREVIEW, "the preview", tries=1500)
    preview = body_text(wz)
    typed = await confirm_all(wz, pilot)
    await until(pilot, lambda: wz.phase is Phase.RESULT, "the result", tries=1500)
    return wz, preview, typed


def slow_ssh_app(tmp_path: Path) -> tuple[ZConsoleApp, DemoHost, str]:
    """The console on the demo's slow-ssh host, its host, and the drop-in's text before."""
    app = wizard_app(tmp_path, "slow-ssh")
    host = app.host
    assert isinstance(host, DemoHost)
    return app, host, host.machine.files[DROPIN]


async def test_fix_and_undo_rehearsed_on_the_demo(tmp_path: Path) -> None:
    app, host, before = slow_ssh_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert offer(screen).startswith("▶ f: apply the first fix as a plan")
        assert "u: undo" not in offer(screen)

        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert f"sed -i -e '3{{/^UseDNS yes$/d;}}' {DROPIN}" in preview and "systemctl reload ssh" in preview
        assert typed == ["UseDNS no"]
        text = body_text(wz)
        assert "✔ Done." in text, text
        assert "sshd -T shows `usedns no`" in text
        assert "a fresh login from 192.168.10.20: logged in in 0.3 s" in text
        assert "UseDNS" not in host.machine.files[DROPIN]
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert argvs[1:] == [["sed", "-i", "-e", "3{/^UseDNS yes$/d;}", DROPIN], ["/usr/sbin/sshd", "-t"],
                             ["systemctl", "reload", "ssh"]]

        # the SSH panel read again, the boot panel's reading stands (its fixes are its own)
        assert await back_to_host(app, pilot, screen) == {"ssh": 1}
        d = screen.diagnoses["ssh"]
        assert not (d.verdict.kind == "ssh-usedns" and d.verdict.severity is Severity.WARNING)
        assert offer(screen).startswith(f"▶ u: undo: restore {DROPIN} as it was on ")

        wz, preview, typed = await run_wizard(app, pilot, "u")
        assert "cp -a /var/backups/zconsole-" in preview
        assert typed == ["undo"]
        assert "✔ Done." in body_text(wz)
        assert host.machine.files[DROPIN] == before  # byte for byte

        assert await back_to_host(app, pilot, screen) == {"ssh": 1}
        assert screen.diagnoses["ssh"].verdict.kind == "ssh-usedns"
        assert offer(screen).startswith("▶ f: apply")
        assert "u: undo" not in offer(screen)


async def test_a_fix_that_does_not_verify_is_rolled_back_on_screen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reload does not take (the running sshd keeps UseDNS yes): the fresh login is slow,
    the wizard says the change was rolled back, the file is as it was, no undo is offered."""
    from zconsole.hosts.demo.tools import system as demo_system

    real = demo_system._reload_ssh

    def stuck(ctx: Any, s: Any) -> Any:
        out = real(ctx, s)
        s.running_usedns = "yes"
        return out

    monkeypatch.setattr(demo_system, "_reload_ssh", stuck)
    app, host, before = slow_ssh_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        wz, _, typed = await run_wizard(app, pilot, "f")
        assert typed == ["UseDNS no"]
        text = " ".join(body_text(wz).split())
        assert "✖ Stopped." in text
        assert "logged in in 11.3 s (more than 5 s, and one from localhost, which needs no " \
            "name lookup, took 0.3 s)" in text
        assert f"rolled back: {DROPIN} is its backup again, byte for byte" in text
        assert host.machine.files[DROPIN] == before
        await back_to_host(app, pilot, screen)
        assert "u: undo" not in offer(screen)
        assert offer(screen).startswith("▶ f: apply")


def boot_offer(screen: HostScreen) -> str:
    return panel_text(screen, "boot", "offer")


async def demo_reboot(app: ZConsoleApp, pilot: Any, screen: HostScreen) -> None:
    """The palette's "Demo: reboot the host": the demo host boots again and the Host screen
    reads its panels again."""
    reads = screen.reads
    commands = {c.title: c for c in app.get_system_commands(app.screen)}
    commands["Demo: reboot the host"].callback()
    await until(pilot, lambda: screen.reads >= reads + 2 and screen.settled(),
                "the panels read again", tries=1000)
    await pilot.pause()


async def test_boot_fix_and_undo_rehearsed_on_the_demo(tmp_path: Path) -> None:
    """slow-boot: `f` previews the netplan fix, 'optional' typed runs it (netplan set,
    netplan generate, netplan get proves it); the panel says it takes effect at the next
    boot; after the demo's reboot it says fixed with both figures; `u` undoes it, and the
    panel says at once that the next boot will wait (with `f` offered); after the next reboot
    the wait is back."""
    app = wizard_app(tmp_path, "slow-boot")
    host = app.host
    assert isinstance(host, DemoHost)
    hint = "/etc/netplan/90-zconsole.yaml"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert screen.diagnoses["boot"].verdict.kind == "boot-wait-online"
        assert boot_offer(screen).startswith("▶ f: choose a fix, narrowest first")
        assert offer(screen) == ""  # the SSH panel has nothing to fix here

        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert ("netplan set --origin-hint=90-zconsole ethernets.eno2.optional=true"
                in preview)
        assert "+      optional: true" in preview  # the change, as a diff
        assert typed == ["optional"]
        text = body_text(wz)
        assert "✔ Done." in text, text
        assert "netplan get ethernets.eno2.optional prints 'true'" in text
        assert "optional: true" in host.machine.files[hint]
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert argvs == [["netplan", "set", "--origin-hint=90-zconsole",
                          "ethernets.eno2.optional=true"], ["netplan", "generate"]]

        assert await back_to_host(app, pilot, screen) == {"boot": 1}  # not the SSH panel
        d = screen.diagnoses["boot"]
        assert d.verdict.kind == "boot-fix-pending", d.verdict
        assert "takes effect at the next boot" in d.verdict.message
        assert not boot_offer(screen).startswith("▶ f")  # nothing more to apply now
        assert "u: undo: optional: true for eno2 in /etc/netplan/90-zconsole.yaml, as " \
               "applied on " in boot_offer(screen)

        await demo_reboot(app, pilot, screen)
        d = shows_verdict(screen, "boot", "boot-fix-proven",
                          "✔ wait-online took 120.4 s before the fix, 0.4 s this boot: fixed")
        assert d.verdict.message == ("wait-online took 120.4 s before the fix, 0.4 s this "
                                     "boot: fixed")

        wz, preview, typed = await run_wizard(app, pilot, "u")
        assert f"rm -f {hint}" in preview and "netplan generate" in preview
        assert typed == ["undo"]
        assert "✔ Done." in body_text(wz)
        assert hint not in host.machine.files

        assert await back_to_host(app, pilot, screen) == {"boot": 1}
        # undone in a boot that did not wait: the panel says the next one will, and offers
        # the fix at once instead of after a 2-minute boot
        shows_verdict(screen, "boot", "boot-will-wait", "The next boot will wait up to 2 min "
                      "for eno2, a port with no cable that asks for DHCP")
        assert boot_offer(screen).startswith("▶ f: choose a fix, narrowest first")
        await demo_reboot(app, pilot, screen)
        assert screen.diagnoses["boot"].verdict.kind == "boot-wait-online"
        assert boot_offer(screen).startswith("▶ f: choose")
        assert "u: undo" not in boot_offer(screen)


@pytest.mark.parametrize(("scenario", "panel", "verdict"), [
    ("slow-ssh", "ssh", "ssh-usedns"), ("slow-boot", "boot", "boot-wait-online")])
async def test_read_only_offers_no_fix(tmp_path: Path, scenario: str, panel: str,
                                       verdict: str) -> None:
    app = wizard_app(tmp_path, scenario, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert screen.diagnoses[panel].verdict.kind == verdict
        assert (offer(screen) if panel == "ssh" else boot_offer(screen)) == ""
        await pilot.press("f")
        await pilot.pause()
        assert app.screen is screen and audit(tmp_path) == []


async def test_f_and_u_act_on_the_panel_chosen_in_the_palette(tmp_path: Path) -> None:
    """Both panels offer a fix (slow-boot with UseDNS yes and a slow resolver): `f` fixes the
    SSH panel first; after the palette's 'Fix slow boot' it fixes the boot."""
    app = wizard_app(tmp_path, "slow-boot")
    host = app.host
    assert isinstance(host, DemoHost)
    slow = DemoHost("slow-ssh", clock=host._clock, seed=0).machine
    assert slow.system is not None and host.machine.system is not None
    host.machine.files[DROPIN] = slow.files[DROPIN]
    host.machine.system.lookups.update(slow.system.lookups)
    host.machine.system.journal += [e for e in slow.system.journal
                                    if e.unit == "ssh.service"]
    host.machine.system.running_usedns = "yes"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert screen.fix_offered("ssh") and screen.fix_offered("boot")
        assert screen.fix_target() == "ssh"
        assert offer(screen).startswith("▶ f: apply")
        assert boot_offer(screen).startswith("▶ f, after the palette's 'Fix slow boot': ")
        app.open_fixit("boot")
        await pilot.pause()
        await pilot.pause()
        assert screen.fix_target() == "boot"
        assert boot_offer(screen).startswith("▶ f: choose")
        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert typed == ["optional"] and "netplan set" in preview


async def test_session_fixes_rehearsed_on_the_demo(tmp_path: Path) -> None:
    """slow-session: the SSH panel names the drop-in of user@.service; `f` removes it (the
    backup, rm, daemon-reload, systemctl cat proves it gone), 'remove the drop-in' typed;
    nothing more to apply, `u` puts it back byte for byte."""
    from zconsole.hosts.demo.scenarios.slow_session import DROPIN as USER_DROPIN

    app = wizard_app(tmp_path, "slow-session")
    host = app.host
    assert isinstance(host, DemoHost)
    before = host.machine.files[USER_DROPIN]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert screen.diagnoses["ssh"].verdict.kind == "ssh-user-manager"
        assert offer(screen).startswith("▶ f: apply the first fix as a plan: every command "
                                        "shown first, typed confirmation, proven (logind")
        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert f"rm -f {USER_DROPIN}" in preview and "systemctl daemon-reload" in preview
        assert "Not done from here: dropping pam_systemd" in " ".join(preview.split())
        assert typed == ["remove the drop-in"]
        assert "✔ Done." in body_text(wz)
        assert USER_DROPIN not in host.machine.files
        await back_to_host(app, pilot, screen)
        assert not offer(screen).startswith("▶ f")  # nothing more to apply
        assert offer(screen).startswith(f"▶ u: undo: restore {USER_DROPIN} as it was on ")
        wz, preview, typed = await run_wizard(app, pilot, "u")
        assert typed == ["undo"] and "✔ Done." in body_text(wz)
        assert host.machine.files[USER_DROPIN] == before
        await back_to_host(app, pilot, screen)
        assert offer(screen).startswith("▶ f: apply")


async def test_logind_restart_rehearsed_on_the_demo(tmp_path: Path) -> None:
    """frozen-logind: `f` restarts systemd-logind ('restart logind' typed), loginctl proves
    it answers, the panel's verdict turns OK; a restart has no undo."""
    app = wizard_app(tmp_path, "frozen-logind")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        assert screen.diagnoses["ssh"].verdict.kind == "ssh-logind"
        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert "systemctl restart systemd-logind.service" in preview
        assert typed == ["restart logind"]
        text = body_text(wz)
        assert "✔ Done." in text, text
        await back_to_host(app, pilot, screen)
        assert screen.diagnoses["ssh"].verdict.severity is Severity.OK
        assert offer(screen) == ""


async def test_auth_method_fix_and_undo_rehearsed_on_the_demo(tmp_path: Path) -> None:
    """No cause of a slow login, but GSSAPI switched on in a drop-in (the host guest's
    sshd-auth-methods recipe): `f` switches it off (the drop-in previewed, 'GSSAPIAuthentication
    no' typed, sshd -T proving it, a fresh login answered), the panel no longer names it;
    `u` removes the drop-in and the panel names it again."""
    app, host, before = slow_ssh_app(tmp_path)
    host.machine.files[DROPIN] = "".join(
        f"{x}\n" for x in before.splitlines() if not x.startswith("UseDNS"))
    recipe = "/etc/ssh/sshd_config.d/40-zc-auth.conf"
    host.machine.files[recipe] = "GSSAPIAuthentication yes\n"
    ours = "/etc/ssh/sshd_config.d/00-zconsole-gssapiauthentication.conf"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        d = screen.diagnoses["ssh"]
        assert d.verdict.kind == "ssh-ok", d.verdict
        assert any(f.message.startswith("GSSAPIAuthentication yes") for f in d.findings)
        assert offer(screen).startswith("▶ f: switch the first authentication method listed "
                                        "off, as a plan")

        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert f"| tee {ours}" in " ".join(preview.split()), preview
        assert "Kerberos single sign-on (GSSAPI) logins to this host stop working" in \
            " ".join(preview.split())
        assert typed == ["GSSAPIAuthentication no"]
        text = " ".join(body_text(wz).split())
        assert "✔ Done." in text, text
        assert "sshd -T shows `gssapiauthentication no`" in text
        assert "a fresh login from localhost: logged in" in text
        assert host.machine.files[ours].splitlines()[1] == "GSSAPIAuthentication no"
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert argvs[-2:] == [["/usr/sbin/sshd", "-t"], ["systemctl", "reload", "ssh"]]

        await back_to_host(app, pilot, screen)
        d = screen.diagnoses["ssh"]
        assert not any(f.kind == "ssh-auth-method" for f in d.findings), d.findings
        assert offer(screen).startswith(f"▶ u: undo: restore {ours} as it was on ")

        wz, preview, typed = await run_wizard(app, pilot, "u")
        assert f"rm -f {ours}" in preview
        assert typed == ["undo"]
        assert "✔ Done." in body_text(wz)
        assert ours not in host.machine.files
        await back_to_host(app, pilot, screen)
        assert any(f.message.startswith("GSSAPIAuthentication yes")
                   for f in screen.diagnoses["ssh"].findings)
        assert offer(screen).startswith("▶ f: switch")


async def test_ifupdown_after_the_netplan_fix_rehearsed_on_the_demo(tmp_path: Path) -> None:
    """slow-boot with an old interfaces file that also brings eno2 up (`auto eno2`, DHCP):
    after netplan's fix and a reboot the panel's verdict is networking.service's minute
    (wait-online's "fixed" beside it), `f` previews ifupdown's allow-hotplug, 'allow-hotplug'
    typed runs it, and after the next reboot the panel says fixed with networking.service's
    figures."""
    app = wizard_app(tmp_path, "slow-boot")
    host = app.host
    assert isinstance(host, DemoHost)
    interfaces = "/etc/network/interfaces"
    host.machine.files[interfaces] = ("source /etc/network/interfaces.d/*\n\nauto lo\n"
                                      "iface lo inet loopback\n\nauto eno2\n"
                                      "iface eno2 inet dhcp\n")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert typed == ["optional"] and "✔ Done." in body_text(wz)
        await back_to_host(app, pilot, screen)
        await demo_reboot(app, pilot, screen)
        d = shows_verdict(screen, "boot", "boot-ifupdown", "Boot waits 67 s for "
                          "networking.service: ifupdown's `ifup -a` asks DHCP for eno2 and "
                          "gets no answer")
        assert d.findings[1].message == ("wait-online took 120.4 s before the fix, 0.4 s this "
                                         "boot: fixed")
        assert boot_offer(screen).startswith("▶ f: choose a fix, narrowest first")

        wz, preview, typed = await run_wizard(app, pilot, "f")
        flat = " ".join(preview.split())
        assert "sed -i -e '6s/^auto eno2$/allow-hotplug eno2/' /etc/network/interfaces" in flat, \
            preview
        assert "The boot waited 66.7 s for networking.service" in flat
        assert "✔ Done." in body_text(wz), body_text(wz)
        assert "allow-hotplug eno2" in host.machine.files[interfaces]
        await back_to_host(app, pilot, screen)
        assert screen.diagnoses["boot"].verdict.kind == "boot-fix-pending"
        await demo_reboot(app, pilot, screen)
        d = screen.diagnoses["boot"]
        assert d.verdict.kind == "boot-fix-proven", d.verdict
        assert d.verdict.message == ("networking.service took 66.7 s before the fix, 1.0 s "
                                     "this boot: fixed")


async def open_boot_choice(app: ZConsoleApp, pilot: Any) -> tuple[HostScreen, WizardScreen]:
    screen = await open_host(app, pilot)
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
    wz = app.screen
    assert isinstance(wz, WizardScreen)
    await until(pilot, lambda: wz.phase is Phase.CHOOSE and wz.stage is not None,
                "the list of fixes")
    return screen, wz


def highlighted(wz: WizardScreen) -> str:
    from zconsole.ui.wizards.phases import ChoosePhase

    i = wz.query_one(ChoosePhase).options.highlighted
    assert wz.stage is not None and i is not None
    return wz.stage.options[i].value


@pytest.mark.parametrize(("pick", "exec_"), [
    ("wait-online-interface",
     "/lib/systemd/systemd-networkd-wait-online --interface=br0 --interface=br100"),
    ("wait-online-any", "/lib/systemd/systemd-networkd-wait-online --any")])
async def test_any_boot_fix_can_be_chosen_and_its_plan_runs(tmp_path: Path, pick: str,
                                                            exec_: str) -> None:
    """Issue 26, item 7 (slow-boot, `6`, `f`): the fixes are listed narrowest first, each
    with its cost, the diagnosis' choice (netplan) selected first, ifupdown's disabled with
    its reason; the 2nd or 3rd chosen, its own plan is what is previewed and runs (its
    drop-in written, its typed word asked), not the first fix."""
    from zconsole.services.ops.fixit.boot_facts import CONFIRM, DROPIN, FIXES

    app = wizard_app(tmp_path, "slow-boot")
    host = app.host
    assert isinstance(host, DemoHost)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, wz = await open_boot_choice(app, pilot)
        assert wz.stage is not None
        options = wz.stage.options
        assert [o.value for o in options] == list(FIXES)
        assert highlighted(wz) == "netplan-optional"
        assert options[0].label == "Mark eno2 optional in netplan (the diagnosis' choice)"
        assert all(o.detail.startswith("costs: ") for o in options)
        assert "the boot waits for br0, br100 only" in options[1].detail
        ifupdown = options[3]
        assert not ifupdown.enabled
        assert ifupdown.detail.endswith("· not possible here: /etc/network/interfaces could "
                                        "not be read (is ifupdown installed?)")
        assert options[2].detail.startswith("costs: network-online.target is reached as "
                                            "soon as any one link is online")
        wz.choose(pick)
        await until(pilot, lambda: wz.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert wz.plan is not None and dict(wz.plan.params)["fix"] == pick
        assert f"ExecStart={exec_}" in " ".join(body_text(wz).split())
        typed = await confirm_all(wz, pilot)
        assert typed == [CONFIRM[pick]]
        await until(pilot, lambda: wz.phase is Phase.RESULT, "the result", tries=1500)
        assert "✔ Done." in body_text(wz), body_text(wz)
        # each command run (a pipeline's first part: printf | tee) is the chosen plan's
        argvs = [tuple(a[0] if isinstance(a[0], list) else a) for a in
                 (r["argv"] for r in audit(tmp_path) if r["event"] == "command")]
        assert argvs == wz.plan.argv_list()
        assert argvs[-2:] == [("systemctl", "daemon-reload"),
                              ("systemd-analyze", "verify", "--man=no",
                               "systemd-networkd-wait-online.service")]
        assert host.machine.files[DROPIN].splitlines()[-1] == f"ExecStart={exec_}"
        assert "/etc/netplan/90-zconsole.yaml" not in host.machine.files  # not the first fix
        await back_to_host(app, pilot, screen)
        assert screen.diagnoses["boot"].verdict.kind == "boot-fix-pending"


async def test_the_diagnosis_choice_is_selected_when_narrower_ones_are_blocked(
        tmp_path: Path) -> None:
    """netplan 0.105 (its --origin-hint loses the change): netplan's fix is listed but not
    selectable, with its reason; the diagnosis' choice (wait-online --any) is selected
    first, not the first selectable line (--interface=)."""
    app = wizard_app(tmp_path, "slow-boot")
    host = app.host
    assert isinstance(host, DemoHost) and host.machine.system is not None
    host.machine.system.netplan_version = "0.105-0ubuntu2~22.04.3"
    async with app.run_test(size=(120, 40)) as pilot:
        _, wz = await open_boot_choice(app, pilot)
        assert wz.stage is not None
        netplan = wz.stage.options[0]
        assert not netplan.enabled and "LP: #1997467" in netplan.detail
        assert highlighted(wz) == "wait-online-any"
        assert wz.stage.options[2].label.endswith("(the diagnosis' choice)")
        await pilot.press("enter")
        await until(pilot, lambda: wz.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert wz.plan is not None and dict(wz.plan.params)["fix"] == "wait-online-any"
        await pilot.press("escape")  # back to the list: nothing ran
        await until(pilot, lambda: wz.phase is Phase.CHOOSE, "the list again")
        assert audit(tmp_path) == []


async def test_a_method_a_group_needs_is_refused_on_screen(tmp_path: Path) -> None:
    """Issue 26, item 9 (ssh-auth-lockout): the SSH panel names keyboard-interactive on
    for `Match Group ops`; `f` opens a plan that is blocked, naming the group, the
    AuthenticationMethods line and the users the journal shows logging in with it; nothing
    runs."""
    app = wizard_app(tmp_path, "ssh-auth-lockout")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_host(app, pilot)
        d = screen.diagnoses["ssh"]
        assert any(f.message.startswith("KbdInteractiveAuthentication yes for the clients "
                                        "`Match Group ops` matches") for f in d.findings)
        assert offer(screen).startswith("▶ f: switch the first authentication method")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
        wz = app.screen
        assert isinstance(wz, WizardScreen)
        await until(pilot, lambda: wz.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert wz.plan is not None and wz.plan.blocked
        text = " ".join(body_text(wz).split())
        assert "would lock out members of group ops: /etc/ssh/sshd_config:126: " \
               "`AuthenticationMethods publickey,keyboard-interactive` inside `Match Group " \
               "ops`" in text, text
        assert "would lock out alice, bob" in text
        await pilot.press("enter")  # a blocked plan does not go on
        await pilot.pause()
        assert wz.phase is Phase.PREVIEW and audit(tmp_path) == []
