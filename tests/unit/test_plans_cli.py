"""`zconsole plan KIND POOL ... --dry-run` on the demo host: the printed plan (redundancy,
checks as word + symbol, every command exactly), exit statuses, JSON."""

from __future__ import annotations

import json
import re

import pytest

from zconsole.cli.main import main

BYID = "/dev/disk/by-id/"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, re.sub(r"id [0-9a-f]{32}", "id <id>", out), err


def missing(out: str, *texts: str) -> list[str]:
    """The texts the output does not show (an empty list when it shows them all)."""
    return [t for t in texts if t not in out]


def commands(out: str) -> list[str]:
    return [line.strip()[2:].split("    #")[0] for line in out.splitlines()
            if line.strip().startswith("$ ")]


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_attach_dry_run(capsys: pytest.CaptureFixture[str], version: str) -> None:
    rc, out, _ = run(capsys, "--demo", "showcase", "--zfs-version", version, "plan", "attach",
                     "tank", "mirror-1", "sdh", "--dry-run")
    assert rc == 0
    assert out.startswith("Plan: Attach ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE to mirror-1 in tank "
                          "(next to ata-HGST_HUS724040ALE640_PN2334PBJ9M3QT)\n"
                          "  kind attach, host demo: showcase, pool tank, id <id>\n")
    assert commands(out) == [
        "zpool attach tank ata-HGST_HUS724040ALE640_PN2334PBJ9M3QT "
        f"{BYID}ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE"]
    assert not missing(out, "  ! WARN    sector-size: ", "  ✓ ok      size: Large enough:",
                       "     type:   'VK1ABCDE' (")
    assert out.rstrip().endswith("READY after acknowledging 1 warning(s).")


def test_blocked_plan_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--demo", "showcase", "plan", "attach", "tank", "mirror-0", "sdi",
                     "--dry-run")
    assert rc == 3
    assert "  ✗ BLOCK   size: Too small:" in out
    assert out.rstrip().endswith("BLOCKED: 1 blocking check(s) failed (size); nothing may run.")


def test_confirm_and_force(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "plan", "attach", "tank", "mirror-0", "sdl", "--demo", "showcase",
                     "--dry-run")
    assert rc == 0
    assert not missing(out, "  ? CONFIRM foreign-label:", "[needs -f after a second confirmation]",
                       "NEEDS CONFIRMATION: foreign-label must be confirmed a second time")
    assert "-f" not in commands(out)[0].split()
    rc, out, _ = run(capsys, "plan", "attach", "tank", "mirror-0", "sdl", "--demo", "showcase",
                     "--dry-run", "--force")
    assert commands(out)[0].split()[:3] == ["zpool", "attach", "-f"]


def test_replace_grow_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--demo", "grow", "plan", "replace-grow", "tank", "mirror-0",
                     "sdc", "sdd", "--dry-run")
    assert rc == 0
    g = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW0"
    n = "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW0"
    assert commands(out) == [
        f"zpool replace tank {g}1 {BYID}{n}3",
        f"dd if={BYID}{g}1 of=/dev/null bs=1M count=2000 iflag=direct",
        f"zpool replace tank {g}2 {BYID}{n}4",
        f"dd if={BYID}{g}2 of=/dev/null bs=1M count=2000 iflag=direct",
        f"zpool online -e tank {n}3",
        f"zpool online -e tank {n}4",
        "zpool list -v -H -p tank"]
    assert not missing(out, "# read-only, runs only on request (identify)",
                       "operator: Pull the disk with serial WD-WCC4J1GROW01",
                       "proves: tank SIZE is at least 1496529436672 bytes (was 996432412672)")


def test_dedup_off_dry_run_shows_the_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--demo", "dedup", "--zfs-version", "2.1", "plan", "dedup-off",
                     "tank", "--rewrite", "tank/backup", "--dry-run")
    assert rc == 0
    assert not missing(out, "  ✓ ok      rewrite-space: The copy of tank/backup (children and "
                       "snapshots) needs at least 1.0 TiB",
                       "Dedup table (DDT) of tank: 9,413,880 entries")
    assert [c for c in commands(out) if re.fullmatch(
        r"zfs send -R tank/backup@zconsole-rewrite-\d{8} \| zfs receive -u -o dedup=off "
        r"-x readonly tank/backup\.zconsole-dedup-new", c)]
    assert not [c for c in commands(out) if "destroy" in c]


def test_json_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "--demo", "showcase", "plan", "detach", "tank",
                     "ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT", "--dry-run", "--json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["kind"] == "detach" and doc["pool"] == "tank"
    rc, _, err = run(capsys, "--demo", "showcase", "plan", "detach", "tank", "x")
    assert rc == 2 and "pass --dry-run" in err
    rc, _, err = run(capsys, "--demo", "showcase", "plan", "attach", "tank", "x", "--dry-run")
    assert rc == 2 and "needs POOL TARGET DISK" in err


@pytest.mark.parametrize("json_out", [False, True])
def test_plan_of_a_hostile_host_prints_no_control_codes(capsys: pytest.CaptureFixture[str],
                                                         json_out: bool) -> None:
    """Issue 'trust', item 1: the plan names host values (pool, models, serials); they are
    shown with visible escapes, and the JSON stays valid with \\uXXXX escapes."""
    import json
    import re

    from zconsole.cli.main import main

    pool = "tank\x1b]0;owned\x07"
    rc = main(["--demo", "hostile", "plan", "attach", pool, "mirror-0", "sdc", "--dry-run",
               *(["--json"] if json_out else [])])
    out, err = capsys.readouterr()
    assert rc in (0, 3), err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", out + err)
    if json_out:
        assert json.loads(out)["pool"] == pool
    else:
        assert "tank\\x1b]0;owned\\x07" in out


def test_fix_ssh_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    """`zconsole plan fix-ssh --dry-run`: no POOL, the plan the Host screen runs."""
    rc, out, err = run(capsys, "plan", "fix-ssh", "--demo", "slow-ssh", "--dry-run")
    assert rc == 0, err
    dropin = "/etc/ssh/sshd_config.d/50-hardening.conf"
    cmds = commands(out)
    assert cmds[1:] == [f"sed -i -e '3{{/^UseDNS yes$/d;}}' {dropin}", "/usr/sbin/sshd -t",
                        "systemctl reload ssh"]
    assert re.fullmatch(rf"cp -a {dropin} /var/backups/zconsole-[0-9a-f]{{12}}-"
                        r"50-hardening\.conf", cmds[0])
    assert not missing(out, "proves: sshd -T shows usedns no",
                       "proves: a fresh login is answered within 5 s", "READY.")
    rc, out, err = run(capsys, "plan", "fix-ssh", "--demo", "healthy", "--dry-run")
    assert rc == 3 and "nothing to fix" in out
    rc, out, err = run(capsys, "plan", "fix-ssh", "tank", "--demo", "slow-ssh", "--dry-run")
    assert rc == 2 and "takes no POOL" in err
    rc, out, err = run(capsys, "plan", "detach", "--demo", "--dry-run")
    assert rc == 2 and "needs POOL" in err


def test_fix_boot_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    """`zconsole plan fix-boot [--fix FIX] --dry-run`: the plan the Host screen runs, the
    narrowest fix by default, the others on request; effective at the next boot."""
    rc, out, err = run(capsys, "plan", "fix-boot", "--demo", "slow-boot", "--dry-run")
    assert rc == 0, err
    assert commands(out) == [
        "netplan set --origin-hint=90-zconsole ethernets.eno2.optional=true",
        "netplan generate"]
    assert not missing(out, "before: networkctl still shows eno2 configuring",
                       "proves: netplan get ethernets.eno2.optional prints true",
                       "|        dhcp4: true", "| +      optional: true",
                       "It takes effect at the NEXT boot", "READY.")
    dropin = ("/etc/systemd/system/systemd-networkd-wait-online.service.d/"
              "90-zconsole-wait-online.conf")
    rc, out, err = run(capsys, "plan", "fix-boot", "--fix", "wait-online-any", "--demo",
                       "slow-boot", "--dry-run")
    assert rc == 0, err
    assert commands(out)[1:] == [
        "printf '%s\\n' '# zconsole fix-boot: wait for any one link, not for every link' "
        "'[Service]' ExecStart= 'ExecStart=/lib/systemd/systemd-networkd-wait-online --any' "
        f"| tee {dropin}",
        "systemctl daemon-reload",
        "systemd-analyze verify --man=no systemd-networkd-wait-online.service"]
    assert "proves: the one ExecStart left is /lib/systemd/systemd-networkd-wait-online " \
           "--any" in out
    rc, out, err = run(capsys, "plan", "fix-boot", "--fix", "mask", "--demo", "slow-boot",
                       "--dry-run")
    assert rc == 0 and commands(out) == [
        "systemctl mask systemd-networkd-wait-online.service"]
    assert "READY after acknowledging 1 warning(s)." in out
    rc, out, err = run(capsys, "plan", "fix-boot", "--fix", "ifupdown-hotplug", "--demo",
                       "slow-boot", "--dry-run")
    assert rc == 3 and "BLOCKED" in out and "--fix wait-online-any" in out
    rc, out, err = run(capsys, "plan", "fix-boot", "--demo", "healthy", "--dry-run")
    assert rc == 3 and "nothing to fix" in out
    rc, out, err = run(capsys, "plan", "fix-boot", "tank", "--demo", "slow-boot", "--dry-run")
    assert rc == 2 and "takes no POOL" in err
    with pytest.raises(SystemExit) as exited:
        run(capsys, "plan", "fix-boot", "--fix", "reboot", "--demo", "slow-boot", "--dry-run")
    assert exited.value.code == 2
    assert "invalid choice: 'reboot'" in capsys.readouterr().err
