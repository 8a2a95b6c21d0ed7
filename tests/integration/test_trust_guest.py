"""Issue 'trust', items 5-8, against real OpenZFS in the QEMU guest (each test on one flavour: none
reads what the versions print differently), over the guest's OpenSSH as a console on an
operator's machine would reach it.

5. a new disk used after the preview (a pool created on it meanwhile) is refused right before
   the write, nothing written;
6. the intent record of a write is in the audit log before the command runs, with its argv;
7. the ssh control socket lives in this user's private directory (0700, not a link);
8. two consoles detaching the two halves of one mirror: the second is told who holds the
   pool's lock (read from /run on the guest) and runs nothing; afterwards zconsole's own
   pre-check, not ZFS, refuses the last copy. A console killed while holding the lock frees it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from vmguest import ONE_FLOW, SAME_LOCK

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

REPO = Path(__file__).resolve().parents[2]


def _runner(host: Any, plan: Any, state: Path, operator: str) -> Any:
    from zconsole.hosts.journal import AuditLog, PlanStore
    from zconsole.services.ops.engine.runner import PlanRunner

    return PlanRunner(host, plan, audit=AuditLog(state / "audit.jsonl"),
                      store=PlanStore(state / "plans"), operator=operator,
                      poll_interval=1.0, postcheck_delay=1.0)


def _events(state: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]


def _status(g: ZfsGuest) -> str:
    return str(g.exec(["zpool", "status", "-P", "tank"]).stdout)


@pytest.mark.zfs_flavours("2.1", why=SAME_LOCK)
def test_two_consoles_one_mirror_the_second_is_told_who_holds_the_pool(
        clean_guest: ZfsGuest, tmp_path: Path) -> None:
    from zconsole.hosts.base import Result
    from zconsole.services.ops.engine.pool_lock import lock_paths
    from zconsole.services.ops.zfs.detach import build_detach
    from zconsole.services.read.collect import collect

    g = clean_guest
    g.exec(["zpool", "create", "-f", "tank", "mirror", "vdb", "vdc"])
    alice_host, bob_host = g.host(), g.host()
    reading = collect(alice_host)
    first, second = build_detach(reading, "tank", "vdb"), build_detach(reading, "tank", "vdc")
    assert not first.blocked and not second.blocked
    a_state, b_state = tmp_path / "alice", tmp_path / "bob"
    seen: dict[str, Any] = {}

    class BobArrives:
        """Alice's host; while her `zpool detach` is about to run, Bob's console runs."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def run(self, argv: Sequence[str], **kw: Any) -> Result:
            if tuple(argv[:2]) == ("zpool", "detach") and "bob" not in seen:
                seen["owner_file"] = g.exec(["cat", lock_paths("tank")[1]]).stdout
                seen["bob"] = _runner(bob_host, second, b_state, "bob").run(lambda _e: None)
            return self.inner.run(argv, **kw)

    res = _runner(BobArrives(alice_host), first, a_state, "alice").run(lambda _e: None)
    assert res.status == "done", res.message
    owner = json.loads(seen["owner_file"])
    assert owner["operator"] == "alice" and owner["plan"] == first.title
    bob = seen["bob"]
    assert bob.status == "failed"
    assert "another zconsole is changing pool tank" in bob.message
    assert "alice on" in bob.message and first.title in bob.message
    assert not [e for e in _events(b_state) if e["event"] in ("command-intent", "command")]
    st = _status(g)
    assert "vdc" in st and "vdb" not in st  # only alice's detach ran
    # the lock is free again: flock gets it at once
    free = g.exec(["flock", "-n", "-E", "75", lock_paths("tank")[0], "true"], check=False)
    assert free.returncode == 0
    again = _runner(bob_host, second, b_state, "bob").run(lambda _e: None)
    assert again.status == "failed" and "another zconsole" not in again.message
    assert "vdc" in _status(g)  # zconsole's own guard kept the last copy
    a_events = [e["event"] for e in _events(a_state)]
    assert a_events.index("pool-lock") < a_events.index("command-intent") \
        < a_events.index("command") < a_events.index("pool-lock-released")


HOLDER = r"""
import sys, time
from zconsole.hosts.ssh import SshHost
from zconsole.services.ops.engine.pool_lock import take_pool_lock
lock = take_pool_lock(SshHost("zfsvm", ssh_config=sys.argv[1]), "tank", operator="gone",
                      plan="p", step="s", now=time.time())
print("held" if lock.held is not None else lock.note, flush=True)
time.sleep(600)
"""


@pytest.mark.zfs_flavours("2.3", why=SAME_LOCK)
def test_a_killed_console_frees_the_pool(clean_guest: ZfsGuest) -> None:
    from zconsole.services.ops.engine.pool_lock import lock_paths

    g = clean_guest
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(g.ssh_config)], cwd=REPO,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "held"
        lock = lock_paths("tank")[0]
        assert g.exec(["flock", "-n", "-E", "75", lock, "true"], check=False).returncode == 75
    finally:
        child.kill()
        child.wait(30)
    # the ssh channel closed: tee ends on the guest, flock lets go (give sshd a few seconds)
    waited = g.exec(["flock", "-w", "60", "-E", "75", lock, "true"], check=False, timeout=90)
    assert waited.returncode == 0


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
def test_a_disk_used_after_the_preview_is_refused_before_any_write(
        clean_guest: ZfsGuest, tmp_path: Path) -> None:
    from zconsole.services.ops.zfs.replace import build_replace
    from zconsole.services.read.collect import collect

    g = clean_guest
    g.exec(["zpool", "create", "-f", "tank", "mirror", "vdb", "vdc"])
    host = g.host()
    plan = build_replace(collect(host), "tank", "vdb", "vdf")
    assert not plan.blocked, [c.detail for c in plan.checks if c.blocking]
    g.exec(["zpool", "create", "-f", "other", "vdf"])  # someone else takes the disk meanwhile
    try:
        res = _runner(host, plan, tmp_path, "alice").run(lambda _e: None)
        assert res.status == "failed"
        assert "nothing is written" in res.message or "changed since the preview" in res.message
        assert not [e for e in _events(tmp_path) if e["event"] in ("command-intent", "command")]
        assert "vdf" not in _status(g)
    finally:
        g.exec(["zpool", "destroy", "other"], check=False)


@pytest.mark.zfs_flavours("2.3", why=SAME_LOCK)
def test_the_intent_record_precedes_the_write(clean_guest: ZfsGuest, tmp_path: Path) -> None:
    from zconsole.services.ops.zfs.attach import build_attach
    from zconsole.services.read.collect import collect

    g = clean_guest
    g.exec(["zpool", "create", "-f", "tank", "vdb"])
    host = g.host()
    plan = build_attach(collect(host), "tank", "vdb", "vdc")
    res = _runner(host, plan, tmp_path, "alice").run(lambda _e: None)
    assert res.status == "done", res.message
    events = _events(tmp_path)
    kinds = [e["event"] for e in events]
    i, c = kinds.index("command-intent"), kinds.index("command")
    assert i < c and events[i]["argv"] == events[c]["argv"]
    assert events[i]["argv"][:2] == ["zpool", "attach"] and "exit_code" not in events[i]
    assert events[c]["exit_code"] == 0


@pytest.mark.zfs_flavours("2.1", why=SAME_LOCK)
def test_the_ssh_control_socket_is_in_a_private_directory(clean_guest: ZfsGuest) -> None:
    from zconsole.hosts.ssh import control_dir

    host = clean_guest.host()
    assert host.run(["true"]).returncode == 0
    d = control_dir()
    st = os.lstat(d)
    assert stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
    assert stat.S_IMODE(st.st_mode) == 0o700
    sockets = [e for e in os.listdir(d) if stat.S_ISSOCK(os.lstat(os.path.join(d, e)).st_mode)]
    assert sockets, f"no control socket in {d}"
