"""`zconsole capture --host [USER@]HOST DIR`: record a real host's read outputs as a fixture."""

from __future__ import annotations

import argparse
import sys

from zconsole.hosts.base import HostError


def run_capture(destination: str, directory: str, *, ssh_config: str | None = None,
                state: str = "") -> int:
    from zconsole.hosts.ssh import SshHost
    from zconsole.services.read.capture import capture

    try:
        host = SshHost(destination, ssh_config=ssh_config)
    except HostError as e:
        print(f"zconsole capture: {e}", file=sys.stderr)
        return 1
    try:
        report = capture(host, directory, state=state)
    except HostError as e:
        print(f"zconsole capture: {e}", file=sys.stderr)
        return 1
    finally:
        host.close()
    print(f"captured {report.commands} commands and {report.files} files from {destination} "
          f"(OpenZFS {report.zfs_version or 'not found'}) into {directory}")
    for argv in report.failed:
        print(f"  non-zero exit (recorded as is): {argv}")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cp = sub.add_parser("capture", help="record the output of every read command into DIR")
    cp.add_argument("directory", metavar="DIR")
    # Accepted after the subcommand too (`zconsole capture --host H DIR`), as operators type it.
    cp.add_argument("--host", dest="capture_host", metavar="[USER@]HOST", default=None)
    cp.add_argument("--ssh-config", dest="capture_ssh_config", metavar="FILE", default=None)
    cp.add_argument("--state", default="", help="a short description of the pool state")


def run(args: argparse.Namespace) -> int:
    from zconsole.cli.commands._target import one_destination

    try:
        host = args.capture_host or one_destination(args.host, "captures")
    except ValueError as e:
        print(f"zconsole capture: {e}", file=sys.stderr)
        return 2
    if not host:
        print("zconsole capture: --host is required (capture is for real hosts)",
              file=sys.stderr)
        return 2
    return run_capture(host, args.directory,
                       ssh_config=args.capture_ssh_config or args.ssh_config, state=args.state)
