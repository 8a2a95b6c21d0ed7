"""SshHost against the real guest: every typed error from a real sshd and real commands.

Needs ZCONSOLE_VM=1 (see tools/testvm/README.md). Both flavours: the errors are the host's,
but `zpool`'s own wording differs between 2.1 and 2.3.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from zconsole.hosts.base import (
    CommandFailed,
    CommandNotFound,
    CommandTimedOut,
    HostUnreachable,
    PathNotFound,
    PermissionDenied,
)
from zconsole.hosts.ssh import SshHost

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = [pytest.mark.zfsvm,
              pytest.mark.zfs_flavours("2.3", why="ssh and dropbear, the same on both guests: no zpool output is read")]

USER = "zcuser"
UID = 1000


@pytest.fixture
def host(zfs_guest: ZfsGuest) -> Iterator[SshHost]:
    h = SshHost(zfs_guest.alias, ssh_config=str(zfs_guest.ssh_config))
    try:
        yield h
    finally:
        h.close()


def test_runs_and_reports_exit_status(host: SshHost, zfs_guest: ZfsGuest) -> None:
    r = host.run(["zfs", "version"])
    assert r.returncode == 0
    assert r.stdout.startswith(f"zfs-{zfs_guest.zfs_version}-")
    assert host.is_root()
    assert host.label == "zfsvm"
    # an argument with spaces and quotes reaches the remote command as one argv element
    assert host.run(["printf", "%s|", "a b", "it's"]).stdout == "a b|it's|"
    # stdin reaches the remote command
    assert host.run(["cat"], stdin="hello\nworld\n").stdout == "hello\nworld\n"
    # the guest clock is the host clock (same machine): within a few seconds
    # guest and this machine share one clock: the offset is only the ssh round trip's error
    assert abs(host.now() - time.time()) < 120


def test_missing_command_is_command_not_found(host: SshHost) -> None:
    with pytest.raises(CommandNotFound) as exc:
        host.run(["zconsole-no-such-command", "--help"])
    assert exc.value.program == "zconsole-no-such-command"
    assert "command not found on zfsvm" in str(exc.value)


def test_failing_command_is_command_failed_with_stderr(host: SshHost) -> None:
    with pytest.raises(CommandFailed) as exc:
        host.run(["zpool", "status", "nosuchpool"])
    err = exc.value
    assert err.returncode == 1
    assert "cannot open 'nosuchpool': no such pool" in err.stderr
    assert err.argv == ("zpool", "status", "nosuchpool")
    assert "nosuchpool" in str(err) and "exit 1" in str(err)
    # without check the same outcome is a Result
    r = host.run(["zpool", "status", "nosuchpool"], check=False)
    assert (r.returncode, r.stdout) == (1, "")


def test_slow_command_is_command_timed_out(host: SshHost, zfs_guest: ZfsGuest) -> None:
    t0 = time.monotonic()
    with pytest.raises(CommandTimedOut) as exc:
        host.run(["sleep", "600"], timeout=1)
    took = time.monotonic() - t0
    assert exc.value.timeout == 1
    assert exc.value.argv == ("sleep", "600")
    # it did not wait for the command (600 s): a behaviour, not a time budget
    assert took < 300, f"timeout of 1 s took {took:.1f} s"
    # the host is still usable afterwards, and a command well under its timeout is not cut
    assert host.run(["echo", "still here"]).stdout == "still here\n"
    assert host.run(["sleep", "1"], timeout=120).returncode == 0


def test_missing_file_is_path_not_found(host: SshHost) -> None:
    with pytest.raises(PathNotFound) as exc:
        host.read_text("/proc/spl/kstat/zfs/no-such-kstat")
    assert exc.value.path == "/proc/spl/kstat/zfs/no-such-kstat"
    with pytest.raises(PathNotFound):
        host.list_dir("/dev/disk/no-such-dir")
    # and the real ones read
    assert "c_max" in host.read_text("/proc/spl/kstat/zfs/arcstats")
    assert "virtio-zfsvm-vdb" in host.list_dir("/dev/disk/by-id")
    assert host.realpath("/dev/disk/by-id/virtio-zfsvm-vdb") == "/dev/vdb"


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again on exit: nothing listens there


def test_dead_port_is_host_unreachable(zfs_guest: ZfsGuest) -> None:
    dead = SshHost(zfs_guest.alias, ssh_config=str(zfs_guest.ssh_config), port=_dead_port(),
                   connect_timeout=5)
    t0 = time.monotonic()
    try:
        with pytest.raises(HostUnreachable) as exc:
            dead.run(["true"])
    finally:
        dead.close()
    assert "zfsvm" in str(exc.value)
    assert time.monotonic() - t0 < 120  # an answer (refused), not a hang: no timing budget


@pytest.fixture
def unprivileged(zfs_guest: ZfsGuest) -> Iterator[SshHost]:
    """A non-root account in the guest (the guest has none: made here, removed after)."""
    g = zfs_guest
    g.exec(
        f"grep -q '^{USER}:' /etc/passwd || "
        f"echo '{USER}:x:{UID}:{UID}::/home/{USER}:/bin/bash' >> /etc/passwd; "
        f"grep -q '^{USER}:' /etc/group 2>/dev/null || echo '{USER}:x:{UID}:' >> /etc/group; "
        f"mkdir -p /home/{USER}/.ssh && cp /root/.ssh/authorized_keys /home/{USER}/.ssh/ && "
        f"chown -R {UID}:{UID} /home/{USER} && chmod 700 /home/{USER}/.ssh && "
        "echo secret > /root/zc-secret && chmod 600 /root/zc-secret && chmod 700 /root"
    )
    h = SshHost(f"{USER}@{g.alias}", ssh_config=str(g.ssh_config))
    try:
        yield h
    finally:
        h.close()
        g.exec(f"rm -rf /home/{USER} /root/zc-secret; sed -i '/^{USER}:/d' /etc/passwd "
               "/etc/group")


def test_permission_denied_as_non_root(unprivileged: SshHost) -> None:
    assert unprivileged.run(["id", "-un"]).stdout.strip() == USER
    assert not unprivileged.is_root()
    with pytest.raises(PermissionDenied) as exc:
        unprivileged.read_text("/root/zc-secret")
    assert "Permission denied" in exc.value.detail
    assert exc.value.argv[0] == "cat"
    # a write zpool refuses to a non-root user is a PermissionDenied as well
    with pytest.raises(PermissionDenied):
        unprivileged.run(["zpool", "create", "zcnope", "vdg"])


@pytest.mark.zfsvm
def test_pipeline_over_ssh_and_its_timeout(host: SshHost) -> None:
    r = host.run_pipeline([["printf", "b\\na\\n$(id)\\n"], ["sort"]], timeout=30)
    assert r.stdout == "$(id)\na\nb\n"
    t0 = time.monotonic()
    with pytest.raises(CommandTimedOut):
        host.run_pipeline([["sleep", "600"], ["cat"]], timeout=1)
    assert time.monotonic() - t0 < 600  # it did not wait for the command (not a time budget)
