"""Record what zconsole's network reader reads on this machine into a ReplayHost capture.

    python tools/capture_net.py DIR [--label NAME] [--source TEXT]

Both ways of reading are recorded: `ip -j` (plus `bridge -j vlan show`) and the sysfs
fallback (/sys/class/net/*, /proc/net/vlan/config), so a ReplayHost built from DIR answers
`collect_network(host)` and `collect_network(host, use_ip=False)` exactly as this machine did.
Run it inside a network namespace (`ip netns exec NS python tools/capture_net.py DIR`) to
capture a throw-away topology without touching the machine's own network.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import socket
import sys
import time
from collections.abc import Mapping, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from zconsole.hosts.base import DEFAULT_TIMEOUT, HostError, Result
from zconsole.hosts.local import LocalHost
from zconsole.hosts.replay import CaptureWriter
from zconsole.services.read.network import collect_network


class RecordingHost:
    """LocalHost that hands every answer to a CaptureWriter."""

    kind = "local"

    def __init__(self, inner: LocalHost, writer: CaptureWriter, label: str) -> None:
        self.inner = inner
        self.writer = writer
        self._label = label
        self._seen: set[tuple[str, ...]] = set()

    @property
    def label(self) -> str:
        return self._label

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
            check: bool = True, stdin: str | None = None) -> Result:
        try:
            r = self.inner.run(argv, timeout=timeout, check=False, stdin=stdin)
        except HostError as e:
            self.writer.add_error(argv, e)
            raise
        if tuple(argv) not in self._seen:
            self._seen.add(tuple(argv))
            self.writer.add_result(r)
        return self.inner.run(argv, timeout=timeout, check=check, stdin=stdin) if check \
            and not r.ok else r

    def read_text(self, path: str) -> str:
        text = self.inner.read_text(path)
        self.writer.add_file(path, text)
        return text

    def list_dir(self, path: str) -> list[str]:
        entries = self.inner.list_dir(path)
        self.writer.add_dir(path, entries)
        return entries

    def realpath(self, path: str) -> str:
        real = self.inner.realpath(path)
        if real != path:
            self.writer.add_link(path, real)
        return real

    def now(self) -> float:
        return self.inner.now()

    def is_root(self) -> bool:
        return self.inner.is_root()

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("directory")
    ap.add_argument("--label", default=socket.gethostname())
    ap.add_argument("--source", default="")
    ap.add_argument("--state", default="")
    a = ap.parse_args()
    writer = CaptureWriter(a.directory)
    host = RecordingHost(LocalHost(), writer, a.label)
    collect_network(host)
    collect_network(host, use_ip=False)
    now = time.time()
    writer.finish({
        "host": a.label, "kernel": platform.release(), "zfs_version": None,
        "captured_at": dt.datetime.fromtimestamp(now, dt.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "captured_epoch": round(now), "source": a.source, "state": a.state,
        "root": os.geteuid() == 0,
    })
    print(a.directory)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
