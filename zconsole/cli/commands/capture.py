"""`zconsole capture --host [USER@]HOST DIR`: record a real host's read outputs as a fixture."""

from __future__ import annotations

import sys

from zconsole.hosts.base import HostError


def run_capture(destination: str, directory: str, *, ssh_config: str | None = None,
                state: str = "") -> int:
    from zconsole.hosts.ssh import SshHost
    from zconsole.services.read.capture import capture

    host = SshHost(destination, ssh_config=ssh_config)
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
