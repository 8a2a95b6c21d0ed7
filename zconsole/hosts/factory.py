"""The one place a Host is made from what the operator named.

    Target.demo("degraded", zfs_version="2.1")   the built-in demo host
    Target.demo("degraded", rehearse=True)       …keeping to the wall clock (the console's)
    Target.ssh("root@nas1", ssh_config=FILE)     a remote host over ssh
    Target.local()                               this machine
    Target.replay(DIR)                           a capture (`zconsole capture`) read back
    Target.silent("no-answer")                   a demo host that never answers
    target_of(entry)                             a hosts file's entry (hosts/fleet.py)

`make_host(target)` builds the Host; nothing is connected yet (ssh connects at the first
read). The console (`cli/main.py`), a subcommand's `--host/--demo` (`cli/commands/_target.py`)
and every fleet (`--hosts`, `--host a --host b`, `--demo-fleet`) come through here, so the same
words give the same Host wherever they are typed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from zconsole.hosts.base import Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.hosts.fleet import HostEntry

KINDS = ("demo", "ssh", "local", "replay", "silent")
DEFAULT_ZFS_VERSION = "2.3"


@dataclass(frozen=True)
class Target:
    """What the operator named: one of `KINDS`, and what that kind needs (`where`: the demo
    scenario, the ssh destination, the capture directory or the silent host's name)."""

    kind: str
    where: str = ""
    ssh_config: str | None = None
    zfs_version: str = DEFAULT_ZFS_VERSION
    rehearse: bool = False  # demo: a rehearsal's pace and real waits (hosts/demo/host.py)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown host kind {self.kind!r} (one of {', '.join(KINDS)})")

    @classmethod
    def demo(cls, scenario: str = "showcase", *, zfs_version: str | None = None,
             rehearse: bool = False) -> Target:
        """`rehearse`: an operator practises at the console (scans at a watchable pace, waits
        in real time, the wall clock); else the instant machine of tests and subcommands."""
        return cls("demo", scenario, zfs_version=zfs_version or DEFAULT_ZFS_VERSION,
                   rehearse=rehearse)

    @classmethod
    def ssh(cls, destination: str, *, ssh_config: str | None = None) -> Target:
        return cls("ssh", destination, ssh_config=ssh_config)

    @classmethod
    def local(cls) -> Target:
        return cls("local")

    @classmethod
    def replay(cls, directory: str) -> Target:
        return cls("replay", directory)

    @classmethod
    def silent(cls, name: str) -> Target:
        return cls("silent", name)


def target_of(entry: HostEntry, *, zfs_version: str | None = None) -> Target:
    """A hosts file's entry (or a `--host` of several, or a demo fleet's) as a Target: its
    `ssh_config` with `~` expanded (a file names it as the shell would)."""
    from zconsole.hosts.fleet import SILENT

    if entry.demo == SILENT:
        return Target.silent(SILENT)
    if entry.demo is not None:
        return Target.demo(entry.demo, zfs_version=zfs_version)
    if entry.ssh is None:
        raise ValueError(f"host {entry.name!r} has neither ssh nor demo")
    config = os.path.expanduser(entry.ssh_config) if entry.ssh_config else None
    return Target.ssh(entry.ssh, ssh_config=config)


def make_host(target: Target | HostEntry, *, zfs_version: str | None = None,
              clock: Callable[[], float] | None = None) -> Host:
    """The Host of `target` (a Target, or a fleet's HostEntry: `target_of`). `clock`: the
    demo and silent hosts' clock (tests freeze it); `zfs_version` applies to an entry."""
    if not isinstance(target, Target):
        target = target_of(target, zfs_version=zfs_version)
    if target.kind == "demo":
        from zconsole.hosts.demo import DemoHost
        from zconsole.hosts.demo.host import REHEARSAL_PACE
        from zconsole.hosts.journal import demo_machine_log

        if not target.rehearse:
            return DemoHost(target.where, zfs_version=target.zfs_version, clock=clock)
        # a rehearsal keeps its machine beside its plans when `--demo-state DIR` names them
        return DemoHost(target.where, zfs_version=target.zfs_version, clock=clock,
                        pace=REHEARSAL_PACE,
                        log=demo_machine_log(target.where, target.zfs_version))
    if target.kind == "silent":
        from zconsole.hosts.silent import SilentHost

        return SilentHost(target.where, clock=clock)
    if target.kind == "ssh":
        from zconsole.hosts.ssh import SshHost

        return SshHost(target.where, ssh_config=target.ssh_config)
    if target.kind == "replay":
        from zconsole.hosts.replay import ReplayHost

        return ReplayHost(target.where)
    from zconsole.hosts.local import LocalHost

    return LocalHost()
