"""Issue 32: a host that cannot be reached is said in one line with ssh's own reason
("Could not resolve hostname bad..host: Name or service not known"), not plumbum's table of
`Return code | None`, `Command line | 'true '` or a bare "[Errno 32] Broken pipe"; its pools
are UNKNOWN with that reason, and the header claims nothing (no NOT ROOT) about a host never
reached. ssh is a fake on PATH here: nothing leaves the machine."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from plumbum import local

from zconsole.hosts.base import CommandNotFound, HostError, HostUnreachable, PathNotFound, Result
from zconsole.hosts.ssh import SshHost, ssh_reason
from zconsole.model.finding import Severity
from zconsole.services.health.boot import diagnose_boot
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.health.pools import judge_pools
from zconsole.services.health.severity import judge_host
from zconsole.services.read.collect import collect
from zconsole.services.read.fixit import read_boot, read_ssh
from zconsole.services.read.identity import InventoryCache, collect_inventory

SAID = "ssh: Could not resolve hostname bad..host: Name or service not known"
WHY = ("cannot reach bad..host over ssh: Could not resolve hostname bad..host: Name or service "
       "not known")


def test_sshs_reason_is_its_last_ssh_line() -> None:
    plumbum_stderr = "Warning: no control master\n" + SAID + "\n"
    assert ssh_reason(plumbum_stderr) == ("Could not resolve hostname bad..host: Name or "
                                         "service not known")
    assert ssh_reason(b"Warning: Permanently added 'x' (ED25519)\r\n"
                      b"root@x: Permission denied (publickey).\r\n") == \
        "root@x: Permission denied (publickey)."
    assert ssh_reason("") is None and ssh_reason(None) is None


def write_fake_ssh(tmp_path: Path) -> str:
    """An `ssh` in `tmp_path`/bin that says what OpenSSH says for a name that does not
    resolve and exits 255 (nothing leaves the machine; the arguments it got are logged in
    `tmp_path`/ssh.log); PATH with it first."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    ssh = bindir / "ssh"
    ssh.write_text("#!/bin/sh\n"
                   f"printf '%s\\n' \"$*\" >> {tmp_path}/ssh.log\n"
                   f"echo '{SAID}' >&2\n"
                   "exit 255\n")
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    return f"{bindir}{os.pathsep}{os.environ['PATH']}"


@pytest.fixture
def fake_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fake `ssh` first on PATH, for plumbum and for the probe."""
    path = write_fake_ssh(tmp_path)
    monkeypatch.setenv("PATH", path)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with local.env(PATH=path):
        yield tmp_path


def test_an_unreachable_host_is_one_line_with_sshs_reason(fake_ssh: Path) -> None:
    host = SshHost("bad..host", login_timeout=20)
    with pytest.raises(HostUnreachable) as caught:
        host.run(["zpool", "status"])
    said = str(caught.value)
    assert said == ("cannot reach bad..host over ssh: Could not resolve hostname bad..host: "
                    "Name or service not known")
    assert "\n" not in said and "Return code" not in said and "Errno" not in said
    assert "bad..host" in (fake_ssh / "ssh.log").read_text()


def test_its_reading_says_why_once_and_claims_nothing_about_root(fake_ssh: Path) -> None:
    reading = collect(SshHost("bad..host", login_timeout=20))
    assert not reading.reached
    # every face judges it UNKNOWN with that reason (was OK: its reads were "skipped")
    verdict = judge_host(reading)
    assert verdict.level is Severity.UNKNOWN, verdict
    findings = judge_pools(reading)
    assert [(f.kind, f.severity) for f in findings] == [("pool-unread", Severity.UNKNOWN)]
    assert findings[0].message == ("pool health unknown: cannot reach bad..host over ssh: "
                                   "Could not resolve hostname bad..host: Name or service "
                                   "not known")


def test_its_disks_are_not_listed_for_that_reason(fake_ssh: Path) -> None:
    """The inventory says the host was not reached, in ssh's words (was: "cannot list block
    devices: /sys/class/block, lsblk and udevadm all failed", a plain HostError)."""
    with pytest.raises(HostUnreachable) as caught:
        collect_inventory(SshHost("bad..host", login_timeout=20))
    assert str(caught.value) == WHY
    with pytest.raises(HostUnreachable) as caught:
        InventoryCache().read(SshHost("bad..host", login_timeout=20), timeout=20)
    assert str(caught.value) == WHY


class NoSources:
    """A host reached, where no source of the inventory is there: no /sys/class/block, no
    lsblk, no udevadm (each raises what a reached host raises for it)."""

    kind = "fake"

    def list_dir(self, path: str) -> list[str]:
        raise PathNotFound(path)

    def run(self, argv: Sequence[str], **_: object) -> Result:
        raise CommandNotFound(argv)

    def udev_properties(self, devname: str) -> None:
        return None


def test_a_host_reached_without_any_source_still_says_so() -> None:
    with pytest.raises(HostError) as caught:
        collect_inventory(NoSources())  # type: ignore[arg-type]
    assert not isinstance(caught.value, HostUnreachable)
    assert str(caught.value) == ("cannot list block devices: /sys/class/block, lsblk and "
                                 "udevadm all failed")


def test_its_fixit_panels_say_why_and_nothing_of_root(fake_ssh: Path) -> None:
    """The Host screen's panels are not judged because the host was not reached (was: "...
    could be read (zconsole is not root)", its `id -u` having failed like every read)."""
    ssh = diagnose_ssh(read_ssh(SshHost("bad..host", login_timeout=20)))
    boot = diagnose_boot(read_boot(SshHost("bad..host", login_timeout=20)))
    for d in (ssh, boot):
        assert (d.verdict.severity, d.verdict.message) == (Severity.UNKNOWN,
                                                           f"Not judged: {WHY}"), d
        said = " ".join((d.verdict.message, *d.unread, *(f.message for f in d.findings)))
        assert "root" not in said, said
