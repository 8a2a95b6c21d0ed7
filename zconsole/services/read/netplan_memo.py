"""`netplan get`, asked again only when netplan's files changed.

`netplan get` is a Python program that loads every YAML file of /lib, /etc and /run/netplan
and merges them: 2.5-3.8 s of CPU on the emulated Debian host guest at every reading of the
boot panel (2026-11-30, `read_boot` timed per command), for a configuration that changes only
when someone writes those files. What it prints is a function of those files alone, so each
Host object keeps its last answer beside a listing of the files (`find -L`: path, size,
modification and change time, to the nanosecond), and asks netplan again only when the
listing differs. The change time cannot be set back by a writer (`touch` and a restore that
keeps the modification time both move it), so a file written is a listing changed.

When the listing cannot be made (no `find`, a failure), netplan is asked every time, as
before. A plan's proof (`netplan get` as its own step) never comes from here.
"""

from __future__ import annotations

from collections.abc import Callable

from zconsole.hosts.base import Host, HostError
from zconsole.services.read.per_host import PerHost

NETPLAN_DIRS = ("/lib/netplan", "/etc/netplan", "/run/netplan")
NETPLAN_FILES: tuple[str, ...] = ("find", "-L", *NETPLAN_DIRS, "-maxdepth", "1",
                                  "-name", "*.yaml", "-printf", "%p %s %T@ %C@\\n")


class NetplanMemo:
    def __init__(self) -> None:
        self._kept: PerHost[tuple[str, str]] = PerHost()  # (listing, netplan's answer)

    def get(self, host: Host, ask: Callable[[], str]) -> str:
        """netplan's answer (`ask()`), or the last one when the files are as they were."""
        listing = _listing(host)
        kept = self._kept.get(host) if listing is not None else None
        if kept is not None and kept[0] == listing:
            return kept[1]
        text = ask()
        if listing is not None and _listing(host) == listing:  # unchanged while it ran
            self._kept.put(host, (listing, text))
        return text


def _listing(host: Host) -> str | None:
    """The files' listing, with find's status and complaints (a directory that is missing
    is part of the state), or None when it could not be made."""
    try:
        r = host.run(NETPLAN_FILES, check=False)
    except (HostError, OSError):
        return None
    if r.returncode not in (0, 1):
        return None
    return f"{r.returncode}\n{''.join(sorted(r.stdout.splitlines(keepends=True)))}\n{r.stderr}"


MEMO = NetplanMemo()
