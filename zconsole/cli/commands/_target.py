"""The host a subcommand works on: `--host`, `--demo [SCENARIO]`, `--zfs-version`, given
after the subcommand (`zconsole plan … --demo`) or before it (`zconsole --demo plan …`).

`add_target_options(parser, "plan", "plan on")` adds them under names of the subcommand's own
(`plan_host`, …) so they never clash with the main parser's; `target_host(args, "plan")`
builds the Host: ssh, the demo, or this machine."""

from __future__ import annotations

import argparse

from zconsole.hosts.base import Host


def add_target_options(pp: argparse.ArgumentParser, name: str, verb: str) -> None:
    pp.add_argument("--host", dest=f"{name}_host", metavar="[USER@]HOST",
                    help=f"{verb} a remote host over ssh")
    pp.add_argument("--demo", dest=f"{name}_demo", metavar="SCENARIO", nargs="?",
                    const="showcase", help=f"{verb} the built-in demo host")
    pp.add_argument("--zfs-version", dest=f"{name}_zfs_version", choices=("2.1", "2.3"),
                    default=None, help="OpenZFS version the demo host imitates")


def target_host(args: argparse.Namespace, name: str) -> Host:
    dest = getattr(args, f"{name}_host", None) or args.host
    demo = getattr(args, f"{name}_demo", None) or args.demo
    if dest:
        from zconsole.hosts.ssh import SshHost

        return SshHost(dest, ssh_config=args.ssh_config)
    if demo:
        from zconsole.hosts.demo import DemoHost

        return DemoHost(demo, zfs_version=getattr(args, f"{name}_zfs_version", None)
                        or args.zfs_version)
    from zconsole.hosts.local import LocalHost

    return LocalHost()
