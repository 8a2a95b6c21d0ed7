"""The fix-its' file edits and their undo (issue 26, items 6, 10, 11):

* an undo reverses only the fix's own change: it refuses, showing the diff of the file now
  against what the fix left, when the file is no longer byte for byte that (its sha256 in the
  fix's params, re-checked right before the write), and two fixes of one file are undone
  newest first;
* lines are counted on `\\n` only (a form feed or U+2028 in a comment is part of a line, for
  sed and sshd), and the sed edit names the text it removes (address and pattern);
* a configuration file that is a symbolic link is refused, at plan time and at run time.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixit_rig import FixitRig
from zconsole.model.plan import Plan
from zconsole.services.ops.fixit import common, ssh_auth
from zconsole.services.ops.fixit import session as fix_session
from zconsole.services.ops.fixit import ssh as fix

DROPIN = "/etc/ssh/sshd_config.d/50-hardening.conf"
HARDENING = "PermitRootLogin no\nPasswordAuthentication no\n"


class Rig(FixitRig):
    def __init__(self, tmp_path: Path, scenario: str = "slow-ssh") -> None:
        super().__init__(tmp_path, scenario)

    @property
    def files(self) -> dict[str, str]:
        return self.host.machine.files

    def apply(self, plan: Plan) -> None:
        run = self.run(plan)
        assert run.applied and run.rollback is None, run.result.message
        self.clock.t += 60


def sshd_t(rig: Rig) -> dict[str, str]:
    out = rig.host.run(["/usr/sbin/sshd", "-T"]).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


# ------------------------------------------------------------------- item 6: the undo


def test_undo_refuses_after_a_hand_edit_and_keeps_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    rig.apply(plan)
    left = rig.files[DROPIN]
    assert "UseDNS" not in left
    # the fix records what it left (text and sha256) in its params, which the audit log's
    # intent record and the applied plan both hold
    p = dict(plan.params)
    assert p["left"] == left and p["left_sha256"] == common.sha256(left)
    # the admin hardens the same drop-in by hand
    rig.files[DROPIN] = left + HARDENING
    assert sshd_t(rig)["permitrootlogin"] == "no"
    undo = fix.undo_plan(plan)
    # the preview's diff is the reverse of the fix's own change, nothing else
    restore = undo.steps[0]
    assert restore.command is not None
    assert restore.command.diff == common.unified_diff(DROPIN, left, p["before"])
    assert "+UseDNS yes\n" in restore.command.diff and "Permit" not in restore.command.diff
    result = rig.runner(undo).run(lambda _e: None)
    assert not result.done and result.status == "failed"
    assert rig.files[DROPIN] == left + HARDENING  # untouched: the hardening stays
    assert sshd_t(rig)["permitrootlogin"] == "no"
    assert sshd_t(rig)["passwordauthentication"] == "no"
    # the refusal shows what changed: the diff of the file now against what the fix left
    assert "changed" in result.message and "+PermitRootLogin no" in result.message
    assert "+PasswordAuthentication no" in result.message
    # read at plan time too (the Host screen's undo gives the host): a blocked plan
    blocked = fix.undo_plan(plan, host=rig.host)
    assert blocked.blocked
    why = " ".join(c.detail for c in blocked.checks)
    assert "+PermitRootLogin no" in why and "undo the newest first" in why


def test_undo_of_an_untouched_fix_still_runs_byte_for_byte(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    before = rig.files[DROPIN]
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    rig.apply(plan)
    undo = fix.undo_plan(plan, host=rig.host)
    assert not undo.blocked
    assert [p.kind for p in undo.steps[0].prechecks] == [
        "sshd_valid", "not_symlink", "file_sha256", "file_sha256"]
    assert rig.runner(undo).run(lambda _e: None).done
    assert rig.files[DROPIN] == before


def test_a_tampered_backup_is_not_restored(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    rig.apply(plan)
    left = rig.files[DROPIN]
    backup = dict(plan.params)["backup"]
    rig.files[backup] = "UseDNS yes\nPermitRootLogin yes\n"
    result = rig.runner(fix.undo_plan(plan)).run(lambda _e: None)
    assert not result.done and rig.files[DROPIN] == left
    assert "the copy saved before the fix" in result.message


def test_two_fixes_of_one_file_undo_newest_first(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    first = fix.plan_for(rig.host, plan_id="a" * 32)
    rig.apply(first)
    # UseDNS yes comes back by hand, with a line of hardening: fixed again
    rig.files[DROPIN] += "UseDNS yes\nPermitRootLogin no\n"
    between = rig.files[DROPIN]
    second = fix.plan_for(rig.host, plan_id="b" * 32)
    assert dict(second.params)["line"] == "3"
    rig.apply(second)
    after = rig.files[DROPIN]
    assert after != dict(first.params)["left"]
    # the older first: refused, the file is not what it left
    result = rig.runner(fix.undo_plan(first)).run(lambda _e: None)
    assert not result.done and rig.files[DROPIN] == after
    # newest first: done, the file as the second found it
    assert rig.runner(fix.undo_plan(second)).run(lambda _e: None).done
    assert rig.files[DROPIN] == between
    assert [x.id for x in fix.applied_fixes(rig.store, rig.host.label)] == [first.id]


def test_a_drop_in_zconsole_wrote_is_not_removed_once_edited(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    # UseDNS yes in the main file: the fix writes its own drop-in
    rig.files["/etc/ssh/sshd_config"] += "UseDNS yes\n"
    del rig.files[DROPIN]
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    assert dict(plan.params)["mode"] == "drop-in", plan.checks
    rig.apply(plan)
    rig.files[fix.DROPIN] += "PermitRootLogin no\n"
    undo = fix.undo_plan(plan)
    assert undo.steps[0].command is not None
    assert undo.steps[0].command.argv == ("rm", "-f", fix.DROPIN)
    assert "-UseDNS no\n" in undo.steps[0].command.diff
    result = rig.runner(undo).run(lambda _e: None)
    assert not result.done and "+PermitRootLogin no" in result.message
    assert rig.files[fix.DROPIN].endswith("PermitRootLogin no\n")


def test_a_fix_without_a_record_is_not_undone(tmp_path: Path) -> None:
    """A fix applied by a zconsole that did not record what it left: the undo cannot tell a
    hand edit, so it refuses and says where the copy is."""
    rig = Rig(tmp_path)
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    old = Plan(**{**plan.__dict__, "params": tuple(
        (k, v) for k, v in plan.params if k not in ("left", "left_sha256", "before"))})
    undo = fix.undo_plan(old)
    assert undo.blocked and not undo.steps
    assert dict(plan.params)["backup"] in undo.checks[0].detail


def test_ssh_auth_undo_refuses_an_edited_drop_in(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "ssh-auth")
    plan = ssh_auth.plan_for(rig.host, "gssapiauthentication", plan_id="a" * 32)
    assert not plan.blocked, plan.checks
    run = fix.run_fix(plan, rig.runner, lambda _e: None)
    assert run.applied, run.result.message
    file = dict(plan.params)["file"]
    rig.files[file] += "PermitRootLogin no\n"
    assert ssh_auth.undo_plan(plan, host=rig.host).blocked
    result = rig.runner(ssh_auth.undo_plan(plan)).run(lambda _e: None)
    assert not result.done and rig.files[file].endswith("PermitRootLogin no\n")


def test_session_undo_refuses_when_a_file_stands_there_again(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "slow-session")
    plan = fix_session.plan_for(rig.host, plan_id="a" * 32)
    assert not plan.blocked, plan.checks
    path = dict(plan.params)["file"]
    before = rig.files[path]
    assert dict(plan.params)["before"] == before
    run = fix.run_fix(plan, rig.runner, lambda _e: None)
    assert run.applied, run.result.message
    undo = fix_session.undo_plan(plan)
    assert undo.steps[0].command is not None
    assert undo.steps[0].command.diff == common.unified_diff(path, None, before)
    rig.files[path] = "[Service]\nTimeoutStartSec=5\n"  # the admin's own drop-in
    assert fix_session.undo_plan(plan, host=rig.host).blocked
    result = rig.runner(undo).run(lambda _e: None)
    assert not result.done and rig.files[path] == "[Service]\nTimeoutStartSec=5\n"
    del rig.files[path]
    assert rig.runner(fix_session.undo_plan(plan)).run(lambda _e: None).done
    assert rig.files[path] == before


# ------------------------------------------------------------ item 10: lines on \n only


ODD = ("# sshd hardening baseline\f(page 2)\n# pasted from a wiki:\u2028see there\n"
       "PermitRootLogin no\nMaxAuthTries 3\nUseDNS yes\n")


def test_a_form_feed_and_u2028_do_not_move_the_line(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.files[DROPIN] = ODD
    assert ODD.splitlines()[4] == "PermitRootLogin no"  # what splitlines would have named
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    assert dict(plan.params)["line"] == "5", plan.checks
    write = plan.steps[1]
    assert write.command is not None
    assert write.command.argv == ("sed", "-i", "-e", "5{/^UseDNS yes$/d;}", DROPIN)
    rig.apply(plan)
    assert rig.files[DROPIN] == ODD.replace("UseDNS yes\n", "")
    assert sshd_t(rig)["permitrootlogin"] == "no"
    assert rig.runner(fix.undo_plan(plan)).run(lambda _e: None).done
    assert rig.files[DROPIN] == ODD


def test_a_wrong_number_deletes_nothing(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.files[DROPIN] = ODD
    rig.host.run(["sed", "-i", "-e", common.sed_delete(3, "UseDNS yes"), DROPIN])
    assert rig.files[DROPIN] == ODD  # line 3 reads PermitRootLogin no: kept


def test_lines_and_the_sed_script() -> None:
    assert common.split_lines("a\fb\x1cc\x85d\u2028e\u2029f\rg\nh") == [
        "a\fb\x1cc\x85d\u2028e\u2029f\rg\n", "h"]
    assert common.text_lines("x\r\ny\n") == ["x\r", "y"]
    assert common.delete_line(ODD, 5) == ODD.replace("UseDNS yes\n", "")
    assert common.sed_delete(12, "a.b*[c]^$/\\") == "12{/^a\\.b\\*\\[c\\]\\^\\$\\/\\\\$/d;}"
    assert not common.plain_line("UseDNS yes\r") and common.plain_line("UseDNS\tyes")


@pytest.mark.parametrize("sed", [["sed"], ["busybox", "sed"]])
def test_the_sed_script_on_real_sed(tmp_path: Path, sed: list[str]) -> None:
    """GNU sed and busybox sed (on a file in tmp_path) read the script as the demo does:
    the line is deleted only at its number and only if it still reads the text."""
    if shutil.which(sed[0]) is None:
        pytest.skip(f"no {sed[0]} here")
    f = tmp_path / "x.conf"
    odd = ODD + "Banner /etc/a.b*[c]^$/\\\n"
    for n, text, want in [(5, "UseDNS yes", ODD.replace("UseDNS yes\n", "") +
                           "Banner /etc/a.b*[c]^$/\\\n"),
                          (3, "UseDNS yes", odd),
                          (6, "Banner /etc/a.b*[c]^$/\\", ODD),
                          (6, "Banner /etc/aXb*[c]^$/\\", odd)]:
        f.write_bytes(odd.encode())
        subprocess.run([*sed, "-i", "-e", common.sed_delete(n, text), str(f)], check=True,
                       env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
        assert f.read_bytes().decode() == want, (sed, n, text)


# ------------------------------------------------------------- item 11: symbolic links


SHARED = "/etc/ssh/shared/hardening.conf"


def test_a_symlinked_drop_in_is_refused_at_plan_time(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.files[SHARED] = rig.files.pop(DROPIN)
    rig.host.machine.symlinks[DROPIN] = SHARED
    assert fix.read_usedns(rig.host) == "yes"  # sshd reads through the link
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    assert plan.blocked
    why = " ".join(c.detail for c in plan.checks if not c.passed)
    assert f"{DROPIN} is a symbolic link to {SHARED}" in why


def test_a_link_made_after_the_preview_is_refused_at_run_time(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    plan = fix.plan_for(rig.host, plan_id="a" * 32)
    assert not plan.blocked
    text = rig.files.pop(DROPIN)
    rig.files[SHARED] = text
    rig.host.machine.symlinks[DROPIN] = SHARED
    run = fix.run_fix(plan, rig.runner, lambda _e: None)
    assert not run.applied and run.rollback is None
    assert f"{DROPIN} is a symbolic link to {SHARED}" in run.result.message
    assert rig.host.machine.symlinks[DROPIN] == SHARED and rig.files[SHARED] == text
    assert not any(k.startswith("/var/backups/") for k in rig.files)


def test_the_demo_sed_replaces_a_link_as_gnu_sed_does(tmp_path: Path) -> None:
    """`sed -i` on a link writes a regular file in its place; the target stays (GNU sed
    without --follow-symlinks): why zconsole refuses to edit one."""
    rig = Rig(tmp_path)
    rig.files[SHARED] = "UseDNS yes\n"
    rig.host.machine.symlinks[DROPIN] = SHARED
    del rig.files[DROPIN]
    rig.host.run(["sed", "-i", "-e", "1d", DROPIN])
    assert DROPIN not in rig.host.machine.symlinks and rig.files[DROPIN] == ""
    assert rig.files[SHARED] == "UseDNS yes\n"
    real = tmp_path / "shared.conf"
    real.write_text("UseDNS yes\n")
    link = tmp_path / "link.conf"
    link.symlink_to(real)
    subprocess.run(["sed", "-i", "-e", "1d", str(link)], check=True)
    assert not link.is_symlink() and real.read_text() == "UseDNS yes\n"


def test_other_files_count_lines_as_sed_does() -> None:
    """The session fix's drop-in (`systemctl cat`) and ifupdown's files: the line number a
    plan names is the one sed and file_line count."""
    from zconsole.parsers.systemd import parse_unit_cat
    from zconsole.services.ops.fixit.boot_facts import BootFacts, ifupdown_lines

    cat = ("# /etc/systemd/system/user@.service.d/50-x.conf\n[Service]\n# a\fb\u2028c\n"
           "ExecStartPre=/bin/sleep 25\n")
    (unit,) = parse_unit_cat(cat)
    assert unit.lines.index("ExecStartPre=/bin/sleep 25") + 1 == 3
    text = "# lab ports\u2028(see wiki)\fpage 2\nauto lo\niface lo inet loopback\nauto eno2\n"
    facts = BootFacts(reading=None, diagnosis=None,  # type: ignore[arg-type]
                      ifupdown={"/etc/network/interfaces": text})
    assert ifupdown_lines(facts, "eno2") == [("/etc/network/interfaces", 4)]
    assert text.splitlines()[5] == "auto eno2"  # splitlines would have said line 6


def test_the_netplan_undo_refuses_lines_netplan_did_not_write(tmp_path: Path) -> None:
    """netplan writes 90-zconsole.yaml itself (no byte-for-byte record): the undo removes it
    only while it holds nothing but what `netplan set` wrote for zconsole."""
    from zconsole.services.ops.fixit import boot as fix_boot

    rig = Rig(tmp_path, "slow-boot")
    plan = fix_boot.plan_for(rig.host, plan_id="a" * 32)
    assert dict(plan.params)["fix"] == "netplan-optional", plan.checks
    run = common.run_fix(plan, rig.runner, lambda _e: None)
    assert run.applied, run.result.message
    yaml = "/etc/netplan/90-zconsole.yaml"
    written = rig.files[yaml]
    rig.files[yaml] = written + "    eno3:\n      dhcp4: false\n"  # the admin's, by hand
    blocked = fix_boot.undo_plan(plan, host=rig.host)
    assert blocked.blocked and "'dhcp4: false'" in blocked.checks[0].detail
    result = rig.runner(fix_boot.undo_plan(plan)).run(lambda _e: None)
    assert not result.done and "'dhcp4: false'" in result.message
    assert rig.files[yaml].endswith("dhcp4: false\n")
    rig.files[yaml] = written
    assert not fix_boot.undo_plan(plan, host=rig.host).blocked
    assert rig.runner(fix_boot.undo_plan(plan)).run(lambda _e: None).done
    assert yaml not in rig.files
