"""Files zconsole writes are never written through a planted link (issue 27 item 2): the
metrics file of `check --prometheus`, muted advice, the audit log."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zconsole.hosts.journal import AuditLog, UnsafeDirectory, write_atomically


def test_planted_links_for_every_next_pid_are_never_followed(tmp_path: Path) -> None:
    """The old temporary name was predictable (`.NAME.PID.tmp`): a link planted for the next
    PIDs made root's run overwrite the file it pointed to."""
    victim = tmp_path / "victim"
    victim.write_text("root's own file\n")
    textfile = tmp_path / "textfile"
    textfile.mkdir()
    for pid in range(os.getpid() - 50, os.getpid() + 50):
        (textfile / f".zconsole.prom.{pid}.tmp").symlink_to(victim)
    write_atomically(textfile / "zconsole.prom", "zconsole_up 1\n")
    assert victim.read_text() == "root's own file\n"
    out = textfile / "zconsole.prom"
    assert not out.is_symlink() and out.read_text() == "zconsole_up 1\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert out.stat().st_uid == os.geteuid()
    # no temporary file left beside it, and the planted links untouched
    assert sorted(p.name for p in textfile.iterdir() if not p.is_symlink()) == ["zconsole.prom"]


def test_a_link_planted_at_the_target_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "d").mkdir()
    target = tmp_path / "d" / "zconsole.prom"
    target.symlink_to(victim)
    write_atomically(target, "new\n", mode=0o600)
    assert victim.read_text() == "keep\n"
    assert not target.is_symlink() and target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_a_directory_others_can_write_to_is_refused(tmp_path: Path, mode: int) -> None:
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, mode)
    if mode == 0o775:  # group-writable by a group that is not ours
        os.chown(d, -1, os.getegid() + 1) if os.geteuid() == 0 else pytest.skip("needs root")
    with pytest.raises(UnsafeDirectory, match="refusing to write in .*shared"):
        write_atomically(d / "zconsole.prom", "zconsole_up 1\n")
    assert list(d.iterdir()) == []  # nothing written


def test_a_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory of another user")
    d = tmp_path / "theirs"
    d.mkdir(mode=0o755)
    os.chown(d, 65534, 65534)  # nobody
    with pytest.raises(UnsafeDirectory, match="owned by another user"):
        write_atomically(d / "zconsole.prom", "x\n")


def test_the_audit_log_is_never_written_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "state").mkdir(mode=0o700)
    (tmp_path / "state" / "audit.jsonl").symlink_to(victim)
    with pytest.raises(OSError):
        AuditLog(tmp_path / "state" / "audit.jsonl").append({"event": "x"})
    assert victim.read_text() == "keep\n"


def test_a_state_directory_others_can_write_is_refused_with_the_fix(tmp_path: Path) -> None:
    """Issue 27 item 7: a state directory found 0777 was used as it is (another user could
    forge the audit log or the plans a resume trusts)."""
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, 0o777)
    with pytest.raises(UnsafeDirectory, match=r"writable by others \(mode 0777\).*chmod 700"):
        AuditLog(state / "audit.jsonl").append({"event": "x"})
    assert list(state.iterdir()) == []


def test_an_audit_file_others_can_write_is_tightened_and_says_so(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    log = AuditLog(state / "audit.jsonl")
    log.append({"event": "first"})
    os.chmod(state / "audit.jsonl", 0o666)
    log.append({"event": "second"})
    assert stat.S_IMODE((state / "audit.jsonl").stat().st_mode) == 0o600
    got = list(log.records())
    assert [r["event"] for r in got] == ["first", "audit-tightened", "second"]
    assert got[1]["was"] == "0666" and got[1]["now"] == "0600"


def test_a_state_directory_of_our_own_group_is_kept(tmp_path: Path) -> None:
    """A user private group (Ubuntu's umask 002) makes directories 0775 of the user's own
    group: nobody else writes there, so it is used."""
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, 0o775)
    AuditLog(state / "audit.jsonl").append({"event": "x"})
    assert [r["event"] for r in AuditLog(state / "audit.jsonl").records()] == ["x"]
