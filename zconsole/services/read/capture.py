"""Record every read command zconsole runs, with its output, into a capture directory.

The directory is what `ReplayHost` answers from (format in `zconsole.hosts.replay`), so a real
host's state becomes a test fixture: real outputs, never invented ones. Only read-only commands
are run: each argv is checked against the catalogue in `commands.py` plus the short list of
extra reads below before it runs.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from zconsole.hosts.base import Host, HostError, Result
from zconsole.hosts.replay import CaptureWriter
from zconsole.services.read import catalogue as C

# Reads that are not part of a refresh but are worth having in a fixture.
EXTRA_READS: tuple[tuple[str, ...], ...] = (
    ("zpool", "status", "-p"),
    ("zpool", "status", "-p", "-D"),
    ("zpool", "status", "-p", "-s"),
    ("zpool", "status", "-p", "-P"),
    ("zpool", "status", "-j", "--json-int"),
    ("zpool", "status", "-j", "--json-int", "-D"),
    ("zpool", "status", "-j"),
    ("zpool", "list", "-H", "-p"),
    ("zpool", "iostat", "-v", "-H", "-p"),
    ("zpool", "version"),
    C.ZPOOL_EVENTS_SHORT,  # the Timeline screen's reads, in their order
    C.ZPOOL_EVENTS,
    C.ZPOOL_HISTORY_PLAIN,
    C.ZPOOL_HISTORY,
    C.DATE_ZONE,
    ("zfs", "list", "-H", "-p", "-t", "all", "-o",
     "name,type,used,refer,origin,clones,createtxg,creation", "-s", "createtxg"),
    ("ip", "-j", "-d", "link", "show"),
    ("ip", "-j", "addr", "show"),
    ("bridge", "-j", "vlan", "show"),
)

EXTRA_FILES = ("/proc/mounts", "/proc/swaps", "/proc/mdstat", "/proc/sys/kernel/osrelease")
SYSFS_BLOCK_ATTRS = ("size", "queue/rotational", "queue/logical_block_size",
                     "queue/physical_block_size", "partition", "removable")
SKIP_BLOCK = re.compile(r"^(loop|ram|zram|sr|fd)\d*")


@dataclass
class CaptureReport:
    directory: str
    commands: int = 0
    failed: list[str] = field(default_factory=list)
    files: int = 0
    zfs_version: str | None = None


def _is_allowed(argv: Sequence[str]) -> bool:
    return C.is_read_only(argv) or tuple(argv) in EXTRA_READS


class _Recorder:
    """Runs the allowed reads on the host and hands each outcome to the writer."""

    def __init__(self, host: Host, writer: CaptureWriter) -> None:
        self.host = host
        self.writer = writer
        self.texts: dict[str, str] = {}

    def run(self, argv: Sequence[str], timeout: float = 60.0) -> Result | None:
        if not _is_allowed(argv):
            raise ValueError(f"capture refuses a command that is not a known read: {argv!r}")
        try:
            r = self.host.run(list(argv), timeout=timeout, check=False)
        except HostError as e:
            self.writer.add_error(argv, e)
            return None
        self.writer.add_result(r)
        return r

    def file(self, path: str) -> str | None:
        try:
            text = self.host.read_text(path)
        except HostError:
            return None
        self.writer.add_file(path, text)
        self.texts[path] = text
        return text

    def listdir(self, path: str) -> list[str]:
        try:
            entries = self.host.list_dir(path)
        except HostError:
            return []
        self.writer.add_dir(path, entries)
        return entries

    def link(self, path: str) -> None:
        try:
            self.writer.add_link(path, self.host.realpath(path))
        except HostError:
            pass


def capture(host: Host, directory: str, *, state: str = "", source: str = "",
            iostat_interval: int = 1, clock: Callable[[], float] | None = None) -> CaptureReport:
    writer = CaptureWriter(directory)
    rec = _Recorder(host, writer)
    report = CaptureReport(directory)

    ver = rec.run(C.zfs_version())
    version = None
    if ver is not None and ver.returncode == 0:
        m = re.search(r"zfs-(\d+\.\d+\.\d+)", ver.stdout)
        version = m.group(1) if m else None
    report.zfs_version = version
    json_ok = version is not None and tuple(int(x) for x in version.split(".")[:2]) >= (2, 3)

    pools: list[str] = []
    names = rec.run(("zpool", "list", "-H", "-p"))
    if names is not None and names.returncode == 0:
        pools = [line.split("\t")[0] for line in names.stdout.splitlines() if line.strip()]
    datasets: list[str] = []
    for cmd in C.read_only_commands(json_status=json_ok, pools=pools,
                                    iostat_interval=iostat_interval):
        r = rec.run(cmd.argv, timeout=60.0 + iostat_interval)
        if cmd.argv == C.zfs_list_datasets() and r is not None and r.returncode == 0:
            datasets = [line.split("\t")[0] for line in r.stdout.splitlines() if line]
    for ds in datasets:
        rec.run(C.zfs_list_snapshots(ds))
    for argv in EXTRA_READS:
        if argv in {tuple(c["argv"]) for c in writer.commands}:
            continue
        rec.run(argv)
    # A second iostat report, so replayed sampling sees two intervals.
    rec.run(C.zpool_iostat_latency(iostat_interval), timeout=60.0 + iostat_interval)

    for f in C.READ_ONLY_FILES:
        rec.file(f.path)
    for path in EXTRA_FILES:
        rec.file(path)
    for name in rec.listdir(C.SYS_CLASS_BLOCK):
        if SKIP_BLOCK.match(name):
            continue
        base = f"{C.SYS_CLASS_BLOCK}/{name}"
        rec.link(base)
        rec.listdir(f"{base}/holders")
        for attr in SYSFS_BLOCK_ATTRS:
            rec.file(f"{base}/{attr}")
    for d in (C.DISK_BY_ID, C.DISK_BY_PATH):
        for entry in rec.listdir(d):
            rec.link(f"{d}/{entry}")
    for name in rec.listdir("/sys/class/net"):
        rec.link(f"/sys/class/net/{name}")

    now = clock() if clock else host.now()
    kernel = rec.texts.get("/proc/sys/kernel/osrelease", "").strip() or None
    writer.finish({
        "zfs_version": version,
        "kernel": kernel,
        "host": host.label,
        "root": host.is_root(),
        "captured_at": dt.datetime.fromtimestamp(now, dt.timezone.utc).isoformat(),
        "captured_epoch": now,
        "source": source or f"zconsole capture from {host.label}",
        "state": state,
    })
    report.commands = len(writer.commands)
    report.failed = [" ".join(c["argv"]) for c in writer.commands if c.get("returncode") != 0]
    report.files = len(writer.files)
    return report
