"""The host a subcommand works on: `--host`, `--demo [SCENARIO]`, `--zfs-version`, given
after the subcommand (`zconsole plan … --demo`) or before it (`zconsole --demo plan …`).

`add_target_options(parser, "plan", "plan on")` adds them under names of the subcommand's own
(`plan_host`, …) so they never clash with the main parser's; `target_host(args, "plan")`
builds the Host (hosts/factory.py): ssh, the demo, or this machine."""

from __future__ import annotations

import argparse

from zconsole.hosts.base import Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.hosts.factory import Target
    from zconsole.hosts.fleet import HostEntry


def add_target_options(pp: argparse.ArgumentParser, name: str, verb: str) -> None:
    pp.add_argument("--host", dest=f"{name}_host", metavar="[USER@]HOST",
                    help=f"{verb} a remote host over ssh")
    pp.add_argument("--demo", dest=f"{name}_demo", metavar="SCENARIO", nargs="?",
                    const="showcase", help=f"{verb} the built-in demo host")
    pp.add_argument("--zfs-version", dest=f"{name}_zfs_version", choices=("2.1", "2.3"),
                    default=None, help="OpenZFS version the demo host imitates")


def one_destination(value: str | list[str] | None, verb: str = "works on") -> str | None:
    """The main parser's `--host` (given once or more) as one destination; ValueError when
    several were given to something that works on one host."""
    if value is None or isinstance(value, str):
        return value
    if len(value) > 1:
        raise ValueError(f"several --host given: this {verb} one host")
    return value[0] if value else None


def target_of_args(args: argparse.Namespace, name: str) -> Target:
    """What the operator named for subcommand `name`: its own `--host/--demo/--zfs-version`,
    else the main parser's; this machine when neither names a host."""
    from zconsole.hosts.factory import Target

    dest = getattr(args, f"{name}_host", None) or one_destination(args.host)
    demo = getattr(args, f"{name}_demo", None) or args.demo
    if dest:
        return Target.ssh(dest, ssh_config=args.ssh_config)
    if demo:
        return Target.demo(demo, zfs_version=getattr(args, f"{name}_zfs_version", None)
                           or args.zfs_version)
    return Target.local()


def target_host(args: argparse.Namespace, name: str) -> Host:
    """The Host of `target_of_args` (hosts/factory.py, the one factory)."""
    from zconsole.hosts.factory import make_host

    return make_host(target_of_args(args, name))


def add_fleet_options(pp: argparse.ArgumentParser, name: str, verb: str) -> None:
    pp.add_argument("--hosts", dest=f"{name}_hosts", metavar="FILE", nargs="?", const="",
                    help=f"{verb} every host of a hosts file (default "
                         "$XDG_CONFIG_HOME/zconsole/hosts.toml)")
    pp.add_argument("--tag", dest=f"{name}_tag", metavar="TAG", action="append",
                    help="only the hosts that carry this tag in the hosts file (again: "
                         "every tag given)")


def fleet_entries(args: argparse.Namespace, name: str) -> tuple[HostEntry, ...] | None:
    """The hosts the command works on when it is several: `--hosts [FILE]` (the
    subcommand's or the main parser's), `--demo-fleet`, or `--host` given more than once;
    None for one host. `--tag` (again: every tag given) keeps the hosts that carry the tags.
    HostsFileError when the hosts file cannot be used, or no host has the tags."""
    from zconsole.hosts import fleet

    path = getattr(args, f"{name}_hosts", None)
    if path is None:
        path = getattr(args, "hosts", None)
    tags = tuple(getattr(args, f"{name}_tag", None) or getattr(args, "tag", None) or ())
    entries: tuple[HostEntry, ...] | None = None
    if path is not None:
        entries = fleet.load_hosts(path or None)
        where = f"the hosts file {path or fleet.default_hosts_path()}"
    elif getattr(args, "demo_fleet", False):
        entries, where = fleet.demo_fleet(), "the demo fleet"
    else:
        hosts = args.host
        if isinstance(hosts, list) and len(hosts) > 1:
            entries = fleet.from_destinations(hosts, getattr(args, "ssh_config", None))
            where = "the --host list"
    if tags:
        if entries is None:
            raise fleet.HostsFileError("--tag chooses among several hosts: give --hosts "
                                       "[FILE] (tags come from the hosts file)")
        chosen = fleet.with_tags(entries, tags)
        if not chosen:
            raise fleet.HostsFileError(
                f"no host of {where} has every tag of: {', '.join(tags)} (tags there: "
                f"{', '.join(sorted({t for e in entries for t in e.tags})) or 'none'})")
        entries = chosen
    return entries
