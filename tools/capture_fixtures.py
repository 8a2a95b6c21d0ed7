#!/usr/bin/env python3
"""Capture real pool states from the QEMU test guest into tests/fixtures/capture/.

For one OpenZFS flavour (2.1 or 2.3) this boots (or reuses) the guest of tools/testvm, puts it
into each pool state by running ZFS commands INSIDE the guest, records everything zconsole
reads with `zconsole.services.read.capture.capture` (the code behind `zconsole capture`) into
`tests/fixtures/capture/zfs-<ver>/<state>/`, and resets the guest between states.

    python3 tools/capture_fixtures.py --flavour 2.3            # every state
    python3 tools/capture_fixtures.py --flavour 2.1 --state removed --state dedup
    python3 tools/capture_fixtures.py --flavour 2.3 --keep-running   # leave the guest up

Each state gets `setup/STATE.sh`: the exact guest commands (and QEMU monitor commands, as
comments) that produced the state, in order, one script for every version captured (a line only
one version ran is marked `#[VER]`); each state directory's `setup.sh` links to it.
`SOURCES.md` is regenerated from all state directories of both flavours.

ZFS only ever runs inside the guest: nothing here touches the host's disks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from zconsole.hosts.ssh import SshHost  # noqa: E402
from zconsole.services.read.capture import capture  # noqa: E402

TESTVM_PY = REPO / "tools" / "testvm" / "testvm.py"
OUT = REPO / "tests" / "fixtures" / "capture"
PARAMS = "/sys/module/zfs/parameters"
# Tunables a state may change; restored to the values read at boot before every state.
TUNABLES = (
    "zfs_scan_suspend_progress",
    "zfs_resilver_min_time_ms",
    "zfs_scan_vdev_limit",
    "zfs_vdev_scrub_max_active",
    "zfs_removal_suspend_progress",
    "raidz_expand_max_reflow_bytes",
    "zfs_rebuild_vdev_limit",
    "zfs_rebuild_max_segment",
)
MANY_SNAPSHOTS = {"tank/projects": 400, "tank/home": 250, "tank/projects/web": 100}
SNAP_BATCH = 50
DEFAULTS_FILE = "/tmp/zcap-tunable-defaults"
THROTTLE_BPS = 8 * 1024 * 1024  # QEMU I/O limit on the disk being resilvered onto
SLOW_BPS = 1024 * 1024  # QEMU I/O limit on every pool disk while an expansion/removal runs
PARSERS_OUT = REPO / "tests" / "fixtures" / "parsers"
GUEST_BEGIN = "<!-- guest captures (tools/capture_fixtures.py): begin -->"
GUEST_END = "<!-- guest captures (tools/capture_fixtures.py): end -->"
# Human forms of the reads zconsole itself makes scripted (-H -p): what operators paste.
HUMAN_LIST = ("zpool list", "zpool list -v", "zpool list -vp", "zpool list -p")
HUMAN_IOSTAT = ("zpool iostat -v", "zpool iostat -vl", "zpool iostat -vly 1 3",
                "zpool iostat -l", "zpool iostat -q", "zpool iostat -vq")


def load_testvm() -> ModuleType:
    """tools/testvm/testvm.py, imported from its directory."""
    sys.path.insert(0, str(TESTVM_PY.parent))
    import testvm

    return testvm


@dataclass
class Guest:
    """The guest instance plus the log of what was done to it for the current state."""

    inst: Any
    flavour: str
    steps: list[str] = field(default_factory=list)
    defaults: dict[str, str] = field(default_factory=dict)
    after_capture: list[str] = field(default_factory=list)
    throttled: list[str] = field(default_factory=list)  # disks QEMU is throttling
    version: str = ""  # "2.3.2", as `zfs version` says
    state: str = ""  # the state being set up
    # parser fixtures written for this state: (kind folder, file name, command)
    outputs: list[tuple[str, str, str]] = field(default_factory=list)

    def sh(self, cmd: str, *, log: bool = True, check: bool = True, timeout: float = 600
           ) -> str:
        if log:
            self.steps.append(cmd)
        proc = self.inst.exec(cmd, check=check, timeout=timeout)
        return str(proc.stdout)

    def quiet(self, cmd: str, timeout: float = 120) -> str:
        """A read/poll command that is not part of the recipe."""
        return self.sh(cmd, log=False, check=False, timeout=timeout)

    def monitor(self, cmd: str) -> str:
        self.steps.append(f"# QEMU monitor (host side): {cmd}")
        return str(self.inst.monitor(cmd))

    def note(self, text: str) -> None:
        self.steps.append(f"# {text}")

    def throttle(self, disks: list[str], bps: int) -> None:
        for d in disks:
            self.monitor(f"block_set_io_throttle drv-{d} {bps} 0 0 0 0 0")
            self.throttled.append(d)

    def unthrottle(self) -> None:
        while self.throttled:
            self.monitor(f"block_set_io_throttle drv-{self.throttled.pop()} 0 0 0 0 0 0")

    def has_param(self, name: str) -> bool:
        return name in self.defaults

    def set_param(self, name: str, value: int) -> None:
        if self.has_param(name):
            self.sh(f"echo {value} > {PARAMS}/{name}")
        else:
            self.note(f"{PARAMS}/{name} does not exist in OpenZFS {self.flavour}: not set")

    def hold_param(self, name: str, value: int = 1) -> None:
        """Set a tunable that holds an operation part-way for the capture; set back to 0
        after it."""
        self.set_param(name, value)
        self.after_capture.append(f"echo 0 > {PARAMS}/{name}")

    def restore_params(self) -> None:
        for name, value in self.defaults.items():
            self.quiet(f"echo {value} > {PARAMS}/{name}")


# -- states ----------------------------------------------------------------------------------

def random_file(g: Guest, path: str, mib: int) -> None:
    # Random data: compression (lz4 by default) makes zero-filled files cost no I/O.
    g.sh(f"head -c {mib}M /dev/urandom > {path}")


def pool_with_data(g: Guest, layout: str, mib: int,
                   fill: Callable[[Guest, str, int], None] = random_file, *,
                   force: bool = False) -> None:
    """`zpool create [-f] tank LAYOUT`, then `mib` MiB of random data in /tank/data.bin
    (written by `fill`), synced."""
    g.sh(f"zpool create {'-f ' if force else ''}tank {layout}")
    fill(g, "/tank/data.bin", mib)
    g.sh("sync")


def pool_percent(g: Guest) -> float | None:
    out = g.quiet("zpool status -p tank")
    m = re.search(r"([\d.]+)% done", out)
    return float(m.group(1)) if m else None


def freeze_resilver(g: Guest, start: str, new_disk: str, *, at_least: float = 30.0) -> None:
    """Run `start` (an attach/replace onto `new_disk`), then stop the resilver part-way.

    The scan is slowed first: fewer bytes in flight, one scrub I/O per vdev, 1 ms per txg,
    and - because those tunables alone left OpenZFS 2.1 resilvering at ~60 MB/s, done before
    the freeze took hold - the new disk itself is throttled by QEMU to THROTTLE_BPS. Once
    zpool reports `at_least` percent the scan is frozen with zfs_scan_suspend_progress; when
    the figure holds, the QEMU throttle is lifted, so the whole capture sees one steady
    mid-resilver state (unfrozen after the capture).
    """
    g.set_param("zfs_scan_vdev_limit", 65536)
    g.set_param("zfs_vdev_scrub_max_active", 1)
    g.set_param("zfs_resilver_min_time_ms", 1)
    g.monitor(f"block_set_io_throttle drv-{new_disk} {THROTTLE_BPS} 0 0 0 0 0")
    g.throttled.append(new_disk)
    g.sh(start)
    suspend = g.has_param("zfs_scan_suspend_progress")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        pct = pool_percent(g)
        if pct is not None and pct >= at_least:
            break
        time.sleep(0.3)
    else:
        raise RuntimeError("resilver never reached the wanted percentage")
    if suspend:
        g.note(f"polled `zpool status -p tank` until at least {at_least:g}% done")
        g.hold_param("zfs_scan_suspend_progress")
    # I/O already issued still completes after the suspend: wait until the figure holds.
    last, pct = None, pool_percent(g)
    while pct != last:
        time.sleep(3)
        last, pct = pct, pool_percent(g)
    if pct is None or pct >= 100 or "resilver in progress" not in g.quiet("zpool status tank"):
        raise RuntimeError(f"resilver not caught mid-way ({pct}%)")
    g.note(f"waited until the figure held: frozen at {pct:g}% done")
    g.unthrottle()


def st_healthy(g: Guest) -> str:
    g.sh("zpool create tank mirror vdb vdc")
    g.sh("zfs create -o quota=1G tank/home")
    g.sh("zfs create -o refquota=40M tank/home/alice")
    g.sh("zfs create -o compression=zstd -o recordsize=1M tank/media")
    g.sh("zfs create -V 64M tank/vol1")
    random_file(g, "/tank/home/alice/notes.bin", 16)
    random_file(g, "/tank/media/clip.bin", 48)
    g.sh("zfs snapshot -r tank@nightly-1")
    random_file(g, "/tank/home/alice/more.bin", 8)
    g.sh("zfs snapshot tank/home/alice@before-upgrade")
    g.sh("zfs clone tank/home/alice@nightly-1 tank/alice-restore")
    g.sh("sync")
    # Something for the one-second iostat reports to see (killed after the capture).
    g.sh("nohup sh -c 'while :; do head -c 32M /dev/urandom > /tank/media/load.bin; sync; "
         "done' >/dev/null 2>&1 & echo $! > /tmp/load.pid")
    g.after_capture.append("kill $(cat /tmp/load.pid)")
    return ("healthy: mirror-0 (vdb, vdc) ONLINE; datasets tank/home (quota 1G), "
            "tank/home/alice (refquota 40M), "
            "tank/media (zstd, 1M records), zvol tank/vol1; snapshots @nightly-1 (recursive) and "
            "tank/home/alice@before-upgrade; clone tank/alice-restore of "
            "tank/home/alice@nightly-1; a writer loop on tank/media during the capture")


def st_degraded_offline(g: Guest) -> str:
    pool_with_data(g, "mirror vdb vdc", 32)
    g.sh("zpool offline tank vdc")
    random_file(g, "/tank/after-offline.bin", 8)
    g.sh("sync")
    return "degraded-offline: mirror-0 DEGRADED, vdc OFFLINE (zpool offline), vdb ONLINE"


def unplugged(g: Guest, disk: str) -> None:
    """`device_del DISK`, waited for until the guest let it go and ZFS marked it REMOVED."""
    g.monitor(f"device_del {disk}")
    deadline = time.monotonic() + 60
    while g.quiet(f"test -e /dev/disk/by-id/virtio-zfsvm-{disk} && echo present").strip():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{disk} still present 60 s after device_del")
        time.sleep(0.5)
    g.note(f"waited until /dev/disk/by-id/virtio-zfsvm-{disk} was gone")
    # ZFS (no zed in the guest) notices the missing disk on the next I/O.
    deadline = time.monotonic() + 60
    while "REMOVED" not in g.quiet("zpool status tank"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{disk} never became REMOVED")
        random_file(g, "/tank/after-unplug.bin", 4)
        g.sh("sync")
        time.sleep(1)
    g.note(f"the guest reset re-plugs {disk} afterwards (same image, serial and id)")


def st_removed(g: Guest) -> str:
    pool_with_data(g, "mirror vdb vdc", 32)
    unplugged(g, "vdc")
    return ("removed: vdc hot-unplugged with QEMU device_del; mirror-0 DEGRADED, vdc REMOVED; "
            "vdc is gone from /dev, sysfs and the udev database")


BY_ID = "/dev/disk/by-id/virtio-zfsvm-"


def st_faulted_member(g: Guest) -> str:
    """Issue 12's failed disk, in a pool named by-id as on a real host."""
    pool_with_data(g, "mirror " + " ".join(BY_ID + d for d in ("vdb", "vdc", "vdd")), 32)
    g.sh("zpool export tank")
    # vdc's data area overwritten, its labels kept (the first 4 MiB, the last MiB)
    g.sh("dd if=/dev/zero of=/dev/vdc1 bs=1M seek=4 count=1000 oflag=direct status=none")
    g.sh("zpool import -d /dev/disk/by-id tank")
    g.sh("zpool scrub -w tank")
    # what zed's diagnosis does after too many errors (no zed in the guest)
    g.sh("zpool offline -f tank virtio-zfsvm-vdc")
    return ("faulted-member: a 3-way mirror of by-id names; vdc's data area overwritten while "
            "exported, repaired by a scrub from the other copies (CKSUM errors on vdc), then "
            "`zpool offline -f` as zed does after too many errors: vdc FAULTED (external "
            "device fault)")


def st_raidz2_spare_removed(g: Guest) -> str:
    """Issue 12's hot spare in use, in a pool named by-id as on a real host."""
    disks = " ".join(BY_ID + d for d in ("vdb", "vdc", "vdd", "vde"))
    pool_with_data(g, f"raidz2 {disks} spare {BY_ID}vdf", 24)
    unplugged(g, "vdd")
    g.sh(f"zpool replace tank virtio-zfsvm-vdd {BY_ID}vdf")
    g.sh("zpool wait -t resilver tank")
    return ("raidz2-spare-removed: raidz2 of by-id names with hot spare vdf; vdd hot-unplugged "
            "(device_del: REMOVED), then `zpool replace tank virtio-zfsvm-vdd vdf`: raidz2-0 > "
            "spare-2 (vdd REMOVED, vdf ONLINE); spares: vdf INUSE; resilver finished")


# The states caught mid-resilver: pool layout (320 MiB of data), the command that starts the
# resilver, the disk it resilvers onto, and what the state is.
FROZEN_RESILVERS = {
    "resilver-in-progress": (
        "vdb", "zpool attach tank vdb vdc", "vdc",
        "resilver-in-progress: `zpool attach tank vdb vdc` turned vdb into mirror-0 (vdb, vdc "
        "resilvering); 320 MiB of random data; resilver frozen part-way"),
    "replacing-mid-resilver": (
        "mirror vdb vdc", "zpool replace tank vdc vdf", "vdf",
        "replacing-mid-resilver: `zpool replace tank vdc vdf` (1 GiB -> 2 GiB disk); mirror-0 > "
        "replacing-1 (vdc, vdf resilvering); resilver frozen part-way"),
}


def st_frozen_resilver(g: Guest) -> str:
    layout, start, new_disk, description = FROZEN_RESILVERS[g.state]
    pool_with_data(g, layout, 320)
    freeze_resilver(g, start, new_disk)
    return description


def st_spare(g: Guest) -> str:
    pool_with_data(g, "mirror vdb vdc spare vdd", 32)
    g.sh("zpool offline tank vdc")
    g.sh("zpool replace tank vdc vdd")
    g.sh("zpool wait -t resilver tank")
    return ("spare-in-use: vdc offlined and replaced by hot spare vdd; mirror-0 > spare-1 "
            "(vdc OFFLINE, vdd ONLINE); spares: vdd INUSE; resilver finished")


def class_partitions(g: Guest) -> None:
    """vdd and vde as three GPT partitions each: log (200M), special (400M), dedup (the rest)."""
    for d in ("vdd", "vde"):
        g.sh(f"sgdisk -n1:0:+200M -c1:log -n2:0:+400M -c2:special -n3:0:0 -c3:dedup /dev/{d}")
    g.sh("udevadm settle")


def st_classes(g: Guest) -> str:
    class_partitions(g)
    g.sh("zpool create tank mirror vdb vdc log mirror vdd1 vde1 special mirror vdd2 vde2 "
         "dedup mirror vdd3 vde3 cache vdf")
    g.sh("zfs create -o sync=always tank/db")
    g.sh("zfs create -o special_small_blocks=64K -o recordsize=128K tank/small")
    g.sh("zfs create -o dedup=on tank/dd")
    random_file(g, "/tank/db/wal.bin", 16)
    g.sh("for i in $(seq 1 200); do head -c 8K /dev/urandom > /tank/small/f$i; done")
    random_file(g, "/tank/dd/a.bin", 8)
    g.sh("cp /tank/dd/a.bin /tank/dd/b.bin")
    g.sh("sync")
    g.sh("cat /tank/db/wal.bin /tank/dd/a.bin > /dev/null")
    return ("logs-cache-special: data mirror-0 (vdb, vdc); log mirror (vdd1, vde1); special "
            "mirror (vdd2, vde2); dedup mirror (vdd3, vde3); cache vdf; GPT partitions by "
            "sgdisk; sync=always dataset, small blocks on special, a dedup=on dataset")


def st_dedup(g: Guest) -> str:
    g.sh("zpool create tank mirror vdb vdc")
    g.sh("zfs create -o dedup=on -o compression=off tank/dd")
    random_file(g, "/tank/dd/base.bin", 24)
    for i in range(1, 5):
        g.sh(f"cp /tank/dd/base.bin /tank/dd/copy{i}.bin")
    random_file(g, "/tank/dd/unique.bin", 8)
    g.sh("sync")
    return ("dedup: tank/dd with dedup=on, compression=off; a 24 MiB random file and 4 copies "
            "plus 8 MiB unique data (DDT entries, dedup ratio > 1; `zpool status -D`)")


def st_many_snapshots(g: Guest) -> str:
    g.sh("zpool create tank mirror vdb vdc")
    for ds in MANY_SNAPSHOTS:
        g.sh(f"zfs create {ds}")
    # One `zfs snapshot` per round, naming one snapshot of EACH dataset still short of its
    # count (atomic, one txg). Several snapshots of the SAME dataset in one call (or in one
    # channel program) are refused: "multiple snapshots of same fs not allowed" / EAGAIN.
    # Every SNAP_BATCH rounds each dataset gets 256 KiB of new random data, so the
    # snapshots differ in `used`.
    most = max(MANY_SNAPSHOTS.values())
    script = [f"for i in $(seq 1 {most}); do", "  n=$(printf %04d $i); set --"]
    for ds, count in MANY_SNAPSHOTS.items():
        script.append(f"  [ $i -le {count} ] && set -- \"$@\" {ds}@auto-$n")
    script.append('  zfs snapshot "$@" || exit 1')
    script.append(f"  if [ $((i % {SNAP_BATCH})) -eq 0 ]; then")
    for ds in MANY_SNAPSHOTS:
        script.append(f"    head -c 256K /dev/urandom > /{ds}/batch-$i.bin")
    script += ["  fi", "done"]
    g.sh("\n".join(script), timeout=1800)
    g.sh("zfs clone tank/projects@auto-0100 tank/projects-old")
    g.sh("head -c 256K /dev/urandom > /tank/projects-old/changed.bin")
    g.sh("zfs snapshot tank/projects-old@fork")
    g.sh("zfs clone tank/projects-old@fork tank/projects-older")
    g.sh("zfs clone tank/home@auto-0250 tank/home-restore")
    total = sum(MANY_SNAPSHOTS.values()) + 1
    return (f"many-snapshots: {total} snapshots ("
            + ", ".join(f"{ds} {n}" for ds, n in MANY_SNAPSHOTS.items())
            + f", tank/projects-old 1), {most} `zfs snapshot` calls of one snapshot per "
            "dataset each; clones tank/projects-old (of tank/projects@auto-0100), "
            "tank/projects-older (a clone of that clone) and tank/home-restore")


def save_output(g: Guest, kind: str, slug: str, cmd: str, *, timeout: float = 300) -> str:
    """Run a read-only command in the guest and keep its stdout, verbatim, as a parser
    fixture `tests/fixtures/parsers/KIND/guest-zfs-VER-STATE-SLUG.txt`."""
    out = g.quiet(cmd, timeout=timeout)
    if not out.strip():
        raise RuntimeError(f"`{cmd}` printed nothing")
    name = f"guest-zfs-{g.version}-{g.state}-{slug}.txt"
    (PARSERS_OUT / kind / name).write_text(out)
    g.outputs.append((kind, name, cmd))
    g.note(f"recorded `{cmd}` -> tests/fixtures/parsers/{kind}/{name}")
    return out


def human_forms(g: Guest) -> None:
    """The human `zpool list` / `zpool iostat` forms of this state (see HUMAN_*)."""
    def slug(cmd: str) -> str:
        return "_".join(cmd.split()[2:]).replace("-", "") or "plain"

    for cmd in HUMAN_LIST:
        save_output(g, "zpool-list", slug(cmd), cmd)
    for cmd in HUMAN_IOSTAT:
        save_output(g, "zpool-iostat", slug(cmd), cmd)


def status_series(g: Guest, count: int, every: float) -> None:
    """`date +%s; zpool status tank` every `every` seconds, `count` times, in one guest shell
    loop: real readings over time, for zconsole's own pace and ETA."""
    save_output(g, "zpool-status", "series",
                f"for i in $(seq 1 {count}); do date +%s; zpool status tank; "
                f"sleep {every:g}; done", timeout=count * (every + 60))


def poll_status(g: Guest, pattern: str, until: str, timeout: float = 900) -> re.Match[str]:
    """Poll `zpool status tank` until `pattern` matches (noted in the recipe as `until`, what
    it waited for); the match."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, g.quiet("zpool status tank"), re.M)
        if m:
            g.note(f"polled `zpool status tank` until {until}")
            return m
        time.sleep(1)
    raise RuntimeError(f"`{pattern}` never showed in zpool status (waited until {until})")


def hold_figure(g: Guest, pattern: str, how: str) -> str:
    """After a freeze, I/O already issued still completes: wait until `pattern`'s figure in
    `zpool status tank` holds over 3 s, noted as `how` it was held ("suspended"); the
    figure."""
    def figure() -> str | None:
        m = re.search(pattern, g.quiet("zpool status tank"), re.M)
        return m.group(1) if m else None
    last, cur = None, figure()
    while cur != last:
        time.sleep(3)
        last, cur = cur, figure()
    if cur is None:
        raise RuntimeError(f"`{pattern}` gone from zpool status after the freeze")
    g.note(f"waited until the figure held: {how} at {cur}% done")
    return cur


def random_data(g: Guest, path: str, mib: int) -> None:
    # /dev/urandom is slow under TCG: 16 MiB of it, repeated (no dedup: written in full).
    g.sh("head -c 16M /dev/urandom > /tmp/r16")
    g.sh(f"for i in $(seq 1 {max(mib // 16, 1)}); do cat /tmp/r16; done > {path}")


def st_all_classes(g: Guest) -> str:
    class_partitions(g)
    g.sh("zpool create tank mirror vdb vdc log mirror vdd1 vde1 special mirror vdd2 vde2 "
         "dedup mirror vdd3 vde3 cache vdf spare vdg")
    g.sh("zfs create -o sync=always tank/db")
    g.sh("zfs create -o special_small_blocks=64K -o dedup=on tank/small")
    random_data(g, "/tank/db/wal.bin", 32)
    g.sh("for i in $(seq 1 100); do head -c 8K /dev/urandom > /tank/small/f$i; done")
    g.sh("sync")
    # A writer during the capture that stops by itself (after its current write) once
    # /tmp/load.run is gone: killing it mid-write left the dataset busy for the next reset.
    g.sh("touch /tmp/load.run")
    g.sh("nohup sh -c 'while [ -e /tmp/load.run ]; do cat /tmp/r16 > /tank/db/load.bin; sync; "
         "done' >/dev/null 2>&1 & echo $! > /tmp/load.pid")
    g.after_capture.append("rm -f /tmp/load.run; "
                           "while kill -0 $(cat /tmp/load.pid) 2>/dev/null; do sleep 0.5; done")
    human_forms(g)
    return ("all-classes: data mirror-0 (vdb, vdc); log mirror (vdd1, vde1); special mirror "
            "(vdd2, vde2); dedup mirror (vdd3, vde3); cache vdf; spare vdg; a sync writer loop "
            "during the capture; the human `zpool list` and `zpool iostat` forms recorded as "
            "parser fixtures")


def st_expand_in_progress(g: Guest) -> str:
    pool_with_data(g, "raidz1 vdb vdc vdd", 256, random_data)
    g.throttle(["vdb", "vdc", "vdd", "vde"], SLOW_BPS)
    g.sh("zpool attach tank raidz1-0 vde")
    poll_status(g, r"copied at .*, [1-9][0-9.]*% done",
                "the expansion showed a percentage above 0")
    status_series(g, 6, 5)
    g.hold_param("raidz_expand_max_reflow_bytes")
    hold_figure(g, r"copied at \S+, ([0-9.]+)% done", "paused")
    g.unthrottle()
    save_output(g, "zpool-list", "v", "zpool list -v")
    return ("raidz-expand-in-progress: raidz1-0 (vdb, vdc, vdd) with 256 MiB, `zpool attach "
            "tank raidz1-0 vde` (raidz expansion); QEMU throttles every pool disk to 1 MiB/s; "
            "a series of `zpool status` readings, then the expansion held part-way by "
            "raidz_expand_max_reflow_bytes=1 for the capture")


def st_expand_finished(g: Guest) -> str:
    pool_with_data(g, "raidz1 vdb vdc vdd", 64, random_data)
    g.sh("zpool attach -w tank raidz1-0 vde")
    g.sh("zpool wait -t scrub tank")
    save_output(g, "zpool-list", "v", "zpool list -v")
    return ("raidz-expand-finished: raidz1-0 (vdb, vdc, vdd) with 64 MiB, `zpool attach -w "
            "tank raidz1-0 vde` (waits for the expansion), then the scrub that follows it")


def st_removal_in_progress(g: Guest) -> str:
    # Two removals. The first runs throttled for a series of readings (the copied figure moves
    # in steps of up to 64 MiB, zfs_remove_max_copy_bytes) and is let finish. Holding one
    # part-way needs zfs_removal_suspend_progress=1 set while the copies are NOT throttled
    # (under the throttle everything was already issued and it ran to the end once lifted):
    # the second removal starts suspended, runs for a second, and is suspended again.
    pool_with_data(g, "mirror vdb vdc mirror vdd vde", 512, random_data)
    g.throttle(["vdb", "vdc", "vdd", "vde"], 4 * SLOW_BPS)
    g.sh("zpool remove tank mirror-1")
    poll_status(g, r"copied out of .*, [1-9][0-9.]*% done",
                "the evacuation showed a percentage above 0")
    status_series(g, 12, 5)  # long enough to see the figure move at least once
    g.unthrottle()
    g.sh("zpool wait -t remove tank")
    g.sh("zpool add tank mirror vdf vdg")
    g.sh(f"echo 1 > {PARAMS}/zfs_removal_suspend_progress")
    g.sh("zpool remove tank mirror-0")
    # let it run until it has copied something, then suspend it again, in one guest command:
    # a fixed second copied nothing under TCG (0.00% on both guests, 2026-11-29), and a poll
    # over ssh once a second let every copy be issued before the suspension, so that it ran
    # to its end ("gone from zpool status")
    g.sh(f"echo 0 > {PARAMS}/zfs_removal_suspend_progress; i=0; "
         "until zpool status tank | grep -Eq 'copied out of .*, [1-9][0-9.]*% done' "
         "|| [ $i -ge 600 ]; do sleep 0.1; i=$((i+1)); done; "
         f"echo 1 > {PARAMS}/zfs_removal_suspend_progress")
    pct = hold_figure(g, r"copied out of \S+ at \S+, ([0-9.]+)% done", "suspended")
    if not 0 < float(pct) < 100:
        raise RuntimeError(f"removal not held part-way ({pct}%)")
    g.after_capture.append(f"echo 0 > {PARAMS}/zfs_removal_suspend_progress")
    save_output(g, "zpool-list", "v", "zpool list -v")
    save_output(g, "zpool-iostat", "vl_1_3", "zpool iostat -vl 1 3")
    return ("removal-in-progress: mirror-0 (vdb, vdc) and mirror-1 (vdd, vde) with 512 MiB; "
            "`zpool remove tank mirror-1` with QEMU throttling every pool disk to 4 MiB/s "
            "(a series of `zpool status` readings), let finish; then `zpool add tank mirror "
            "vdf vdg` and `zpool remove tank mirror-0`, let run until it showed a "
            "percentage, then held part-way by zfs_removal_suspend_progress=1 for the capture (indirect-1 "
            "from the first)")


def st_removal_finished(g: Guest) -> str:
    pool_with_data(g, "mirror vdb vdc mirror vdd vde", 64, random_data)
    g.sh("zpool remove -w tank mirror-1")
    save_output(g, "zpool-list", "v", "zpool list -v")
    save_output(g, "zpool-list", "vp", "zpool list -vp")
    return ("removal-finished: mirror-0 (vdb, vdc) and mirror-1 (vdd, vde) with 64 MiB, "
            "`zpool remove -w tank mirror-1` (waits for the evacuation): indirect-1 left behind")


def st_draid_rebuild(g: Guest) -> str:
    pool_with_data(g, "draid1:1d:3c:1s vdb vdc vdd draid1:1d:3c:1s vde vdf vdg", 256,
                   random_data, force=True)
    # Smaller rebuild I/O, so the scanned figure follows the copy instead of racing ahead
    # (2.1; on 2.3 the scanned figure still reaches its total within seconds).
    g.set_param("zfs_rebuild_vdev_limit", 1048576)
    g.set_param("zfs_rebuild_max_segment", 131072)
    g.sh("zpool offline tank vdc")
    g.sh("zpool offline tank vdf")
    g.throttle(["vdb", "vdc", "vdd", "vde", "vdf", "vdg"], SLOW_BPS // 2)
    g.sh("zpool replace -s tank vdc draid1-0-0")
    g.sh("zpool replace -s tank vdf draid1-1-0")
    poll_status(g, r"resilver \(draid1:1d:3c:1s-1\) in progress(?:.*\n){2}.*?[1-9][0-9.]*% done",
                "the rebuild of draid1:1d:3c:1s-1 showed a percentage above 0")
    save_output(g, "zpool-iostat", "vl_1_3", "zpool iostat -vl 1 3")
    status_series(g, 4, 3)
    g.hold_param("zfs_scan_suspend_progress")
    hold_figure(g, r"\(draid1:1d:3c:1s-1\) in progress(?:.*\n){2}.*?([0-9.]+)% done",
                "suspended")
    g.unthrottle()
    return ("draid-rebuild: two dRAID vdevs draid1:1d:3c:1s (vdb vdc vdd, vde vdf vdg) with "
            "256 MiB; vdc and vdf offlined and replaced by their distributed spares with "
            "`zpool replace -s` (sequential rebuilds, one per dRAID vdev); QEMU throttles every "
            "pool disk to 512 KiB/s; `zpool iostat -vl 1 3` and a series of `zpool status` "
            "readings during the rebuild, then held by zfs_scan_suspend_progress=1 for the "
            "capture")


STATES: dict[str, Callable[[Guest], str]] = {
    "healthy": st_healthy,
    "degraded-offline": st_degraded_offline,
    "removed": st_removed,
    "resilver-in-progress": st_frozen_resilver,
    "replacing-mid-resilver": st_frozen_resilver,
    "spare-in-use": st_spare,
    "logs-cache-special": st_classes,
    "dedup": st_dedup,
    "many-snapshots": st_many_snapshots,
    "all-classes": st_all_classes,
    "raidz-expand-in-progress": st_expand_in_progress,
    "raidz-expand-finished": st_expand_finished,
    "removal-in-progress": st_removal_in_progress,
    "removal-finished": st_removal_finished,
    "draid-rebuild": st_draid_rebuild,
    "faulted-member": st_faulted_member,
    "raidz2-spare-removed": st_raidz2_spare_removed,
}
# States that need a newer OpenZFS than 2.1 (raidz expansion came with 2.3).
MIN_VERSION = {"raidz-expand-in-progress": (2, 3), "raidz-expand-finished": (2, 3)}


# -- driver ----------------------------------------------------------------------------------

def capture_state(g: Guest, name: str, out: Path) -> dict[str, Any]:
    g.steps = []
    g.after_capture = []
    g.outputs = []
    g.state = name
    t0 = time.monotonic()
    g.inst.reset()
    g.restore_params()
    try:
        description = STATES[name](g)
    finally:
        g.unthrottle()
    t_setup = time.monotonic() - t0
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    host = SshHost("zfsvm", ssh_config=str(g.inst.ssh_config))
    t1 = time.monotonic()
    try:
        report = capture(host, str(target), state=description,
                         source=f"tools/capture_fixtures.py, QEMU guest (tools/testvm), "
                                f"flavour {g.flavour}, state {name}")
    finally:
        host.close()
        for cmd in g.after_capture:
            g.quiet(cmd)
    t_capture = time.monotonic() - t1
    write_setup(out.parent, name, g.version,
                "\n".join(g.steps + [f"# after the capture: {c}" for c in g.after_capture]))
    size = dir_size(target)
    if g.outputs:
        when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
        write_parser_sources(g, when)
    print(f"  {name}: {report.commands} commands, {report.files} files, {size // 1024} KiB, "
          f"setup {t_setup:.0f}s, capture {t_capture:.0f}s"
          + (f"; non-zero exits: {report.failed}" if report.failed else ""), flush=True)
    return {"state": name, "commands": report.commands, "bytes": size,
            "setup_s": round(t_setup, 1), "capture_s": round(t_capture, 1)}


# -- setup scripts: one per state, shared by the versions ------------------------------------

SETUP_HEADER = (
    "# Guest commands that produced this state (tools/capture_fixtures.py), in order, on a\n"
    "# freshly reset guest (no pools, blank disks), for every OpenZFS version captured: each\n"
    "# tests/fixtures/capture/zfs-VER/STATE/setup.sh links here. Not executable as is: lines\n"
    "# starting with '#' were done from the host side or are notes; a line `#[VER] LINE` is\n"
    "# LINE in that version's run only, and ${ZFS_VERSION} stands for the version.\n")
VERSION_MARK = "${ZFS_VERSION}"
_ONLY = re.compile(r"^#\[(?P<versions>[0-9. ]+)\] (?P<line>.*)$")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split(".") if x.isdigit())


def setup_for(script: str, version: str) -> str:
    """The commands one version ran, from the shared script (without its header)."""
    lines = []
    for line in script.removeprefix(SETUP_HEADER).rstrip("\n").split("\n"):
        m = _ONLY.match(line)
        if m is not None:
            if version not in m.group("versions").split():
                continue
            line = m.group("line")
        lines.append(line.replace(VERSION_MARK, version))
    return "\n".join(lines)


def merge_setups(runs: dict[str, str]) -> str:
    """One shared script from the commands each version ran (version -> commands): lines all
    of them ran as they are, the others marked `#[VER]`, in each version's order."""
    merged: list[tuple[set[str], str]] = []
    for version in sorted(runs, key=_version_key):
        lines = runs[version].replace(f"guest-zfs-{version}-",
                                      f"guest-zfs-{VERSION_MARK}-").split("\n")
        matcher = difflib.SequenceMatcher(None, [line for _, line in merged], lines,
                                          autojunk=False)
        out: list[tuple[set[str], str]] = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                out += [(versions | {version}, line) for versions, line in merged[i1:i2]]
            else:
                out += merged[i1:i2] + [({version}, line) for line in lines[j1:j2]]
        merged = out
    every = set(runs)
    return SETUP_HEADER + "".join(
        f"{line}\n" if versions == every
        else f"#[{' '.join(sorted(versions, key=_version_key))}] {line}\n"
        for versions, line in merged)


def write_setup(root: Path, state: str, version: str, commands: str) -> None:
    """Fold one version's commands for `state` into root/setup/STATE.sh (keeping what the other
    versions ran) and link root/zfs-VERSION/STATE/setup.sh to it."""
    shared = root / "setup" / f"{state}.sh"
    runs = {}
    for vdir in root.glob("zfs-*"):
        other = vdir.name.removeprefix("zfs-")
        if other != version and (vdir / state / "setup.sh").exists():
            runs[other] = setup_for((vdir / state / "setup.sh").read_text(), other)
    runs[version] = commands
    shared.parent.mkdir(exist_ok=True)
    shared.write_text(merge_setups(runs))
    link = root / f"zfs-{version}" / state / "setup.sh"
    link.unlink(missing_ok=True)
    link.symlink_to(os.path.relpath(shared, link.parent))


def dir_size(directory: Path) -> int:
    """Bytes a capture recorded: the files of its state directory, not the setup.sh link (the
    shared script also holds the other versions' lines)."""
    return sum(p.stat().st_size for p in directory.rglob("*")
               if p.is_file() and not p.is_symlink())


def write_parser_sources(g: Guest, when: str) -> None:
    """Keep one line per guest-captured parser fixture in its folder's SOURCES.md, between
    the GUEST_BEGIN/GUEST_END markers (lines of other files and flavours are kept)."""
    for kind in sorted({k for k, _, _ in g.outputs}):
        path = PARSERS_OUT / kind / "SOURCES.md"
        text = path.read_text() if path.exists() else f"# {kind} fixtures\n"
        rows: dict[str, str] = {}
        if GUEST_BEGIN in text:
            head, rest = text.split(GUEST_BEGIN, 1)
            block, tail = rest.split(GUEST_END, 1)
            for line in block.splitlines():
                if line.startswith("| `guest-zfs-"):
                    rows[line.split("`")[1]] = line
        else:
            head, tail = text.rstrip("\n") + "\n\n", "\n"
        for k, name, cmd in g.outputs:
            if k == kind:
                rows[name] = (f"| `{name}` | {g.version} | `{g.state}` | `{cmd}` | {when} |")
        block = "\n".join([
            "## Captured on the QEMU test guest",
            "",
            "Real output of the OpenZFS guest of `tools/testvm` (Debian 12, kernel 6.1, QEMU "
            "TCG), recorded verbatim by `tools/capture_fixtures.py` while it set up the named "
            "state (its guest commands are in `tests/fixtures/capture/zfs-VER/STATE/setup.sh` "
            "and `tests/fixtures/capture/SOURCES.md`). Regenerated with the state.",
            "",
            "| file | OpenZFS | state | command (in the guest) | captured (UTC) |",
            "|---|---|---|---|---|",
            *[rows[k] for k in sorted(rows)],
        ])
        path.write_text(f"{head}{GUEST_BEGIN}\n{block}\n{GUEST_END}{tail}")


def _package(m: dict[str, Any], sdir: Path) -> str:
    """`zfs-2.3.2-2~bpo12+2` as `zfs version` printed it in that capture."""
    for c in m.get("commands", []):
        if c["argv"] == ["zfs", "version"] and c.get("stdout"):
            first = (sdir / c["stdout"]).read_text().split()
            return first[0] if first else ""
    return str(m.get("zfs_version"))


def write_sources(root: Path) -> None:
    lines = [
        "# Real captures from the QEMU test guest",
        "",
        "Every directory `zfs-<version>/<state>/` is a `ReplayHost` capture (format in",
        "`zconsole/hosts/replay.py`) written by `tools/capture_fixtures.py`, which puts the",
        "guest of `tools/testvm` (Debian 12 userland, kernel 6.1, OpenZFS from Debian packages)",
        "into each state with real ZFS commands run inside the guest and then records",
        "everything zconsole reads with `zconsole.services.read.capture.capture` (the code behind",
        "`zconsole capture`; read-only commands only). Nothing in these files is invented or",
        "edited by hand. Regenerate with `python3 tools/capture_fixtures.py --flavour 2.1`",
        "(and `--flavour 2.3`); the guest is reset (pools destroyed, disks wiped, unplugged",
        "disks re-plugged, ZFS tunables restored) before every state.",
        "",
        "Guest disks: vdb vdc vdd vde 1 GiB, vdf vdg 2 GiB (virtio, serial `zfsvm-<name>`).",
        "The exact guest commands of each state are in `setup/<state>.sh`, one script for both",
        "versions (a line only one version ran is marked `#[VER]`; each `zfs-<version>/<state>/",
        "setup.sh` links to it), and repeated below as each version ran them.",
        "",
        "Notes:",
        "- On 2.1 the three `zpool status -j ...` reads are recorded with the refusal 2.1 gives",
        "  (exit 2, `invalid option 'j'` and the usage on stderr): no JSON status before 2.3.",
        "- Resilvers are caught part-way: the scan tunables are lowered, QEMU throttles the",
        "  disk being resilvered onto (`block_set_io_throttle`, 8 MiB/s), and past the wanted",
        "  percentage `zfs_scan_suspend_progress=1` freezes the scan; the capture starts once",
        "  the figure holds (the ETA then reads `no estimated completion time`).",
        "- `removed`: QEMU `device_del vdc`; ZFS marks vdc REMOVED on the next write (the",
        "  guest runs no zed). vdc is absent from /dev, /sys and the udev database.",
        "- `many-snapshots`: `zfs snapshot a@x a@y` is refused (\"multiple snapshots of same",
        "  fs not allowed\"), as is a channel program taking two snapshots of one dataset",
        "  (EAGAIN): each `zfs snapshot` call names one snapshot per dataset.",
        "- Long operations are caught part-way the same way: QEMU throttles every pool disk",
        "  (0.5-4 MiB/s, see setup.sh), a series of `zpool status` readings is kept as a",
        "  parser fixture (`tests/fixtures/parsers/zpool-status/guest-zfs-*-series.txt`), then",
        "  the operation is held for the capture: raidz expansion by",
        "  `raidz_expand_max_reflow_bytes=1`, sequential rebuilds by",
        "  `zfs_scan_suspend_progress=1`, device removal by `zfs_removal_suspend_progress=1`",
        "  set while the copies are not throttled (under the throttle every copy was already",
        "  issued and the removal ran to its end): `removal-in-progress` lets a first,",
        "  throttled removal finish (its series) and holds a second one. All released after",
        "  the capture.",
        "- `raidz-expand-*` exist only for 2.3 (raidz expansion came with OpenZFS 2.3).",
        "- The human `zpool list` / `zpool iostat` forms recorded in some states are parser",
        "  fixtures (`tests/fixtures/parsers/zpool-list|zpool-iostat/guest-zfs-*`), listed in",
        "  those folders' SOURCES.md.",
        "- Dates are the capture machine's clock.",
        "",
    ]
    entries: list[tuple[str, str, dict[str, Any], Path]] = []
    for vdir in sorted(root.glob("zfs-*")):
        for name in STATES:
            sdir = vdir / name
            if (sdir / "manifest.json").exists():
                m = json.loads((sdir / "manifest.json").read_text())
                entries.append((vdir.name, name, m, sdir))
    lines += ["| directory | OpenZFS (Debian package) | captured (UTC) | commands | size |",
              "|---|---|---|---|---|"]
    for vname, name, m, sdir in entries:
        size = dir_size(sdir)
        lines.append(f"| `{vname}/{name}` | {_package(m, sdir)} | "
                     f"{str(m.get('captured_at', ''))[:16].replace('T', ' ')} | "
                     f"{len(m.get('commands', []))} | {size // 1024} KiB |")
    lines.append("")
    for vname, name, m, sdir in entries:
        lines += [
            f"## {vname}/{name}",
            "",
            f"- OpenZFS {m.get('zfs_version')}, kernel {m.get('kernel')}, captured "
            f"{m.get('captured_at')}",
            f"- {m.get('state')}",
            "",
            "```sh",
            setup_for((sdir / "setup.sh").read_text(), vname.removeprefix("zfs-")).rstrip(),
            "```",
            "",
        ]
    (root / "SOURCES.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flavour", choices=("2.1", "2.3"), required=True)
    ap.add_argument("--state", action="append", choices=sorted(STATES),
                    help="capture only these states (repeatable; default all)")
    ap.add_argument("--run-dir", type=Path, default=None,
                    help="guest run directory (a running guest there is reused)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--keep-running", action="store_true",
                    help="leave the guest running (it is stopped only if this tool started it)")
    args = ap.parse_args(argv)

    tv = load_testvm()
    fl = tv.FLAVOURS[args.flavour]
    run_dir = args.run_dir or Path(f"/tmp/zcap{fl.tag[3:]}")
    inst = tv.Instance(fl, run_dir)
    started = False
    t0 = time.monotonic()
    if inst.running():
        print(f"reusing the running {fl.tag} guest in {inst.run_dir}", flush=True)
    else:
        ready = inst.start(tv.build(fl, quiet=True))
        started = True
        print(f"booted {fl.tag} in {inst.run_dir}: ssh after {ready:.1f}s", flush=True)
    g = Guest(inst, args.flavour)
    try:
        # The values at boot, kept in the guest's /tmp (gone at the next boot) so a reused
        # guest restores the boot values, not what an interrupted run left behind.
        saved = inst.exec(f"cat {DEFAULTS_FILE}", check=False).stdout
        if not saved.strip():
            for name in TUNABLES:
                r = inst.exec(f"cat {PARAMS}/{name}", check=False)
                if r.returncode == 0:
                    saved += f"{name}={r.stdout.strip()}\n"
            inst.exec(f"cat > {DEFAULTS_FILE}", input=saved)
        g.defaults = dict(line.split("=", 1) for line in saved.split())
        print(f"tunables present: {g.defaults}", flush=True)
        version = inst.exec("zfs version").stdout.split()[0].removeprefix("zfs-")
        g.version = version.split("-")[0]
        out = args.out / f"zfs-{g.version}"
        out.mkdir(parents=True, exist_ok=True)
        have = tuple(int(x) for x in g.version.split(".")[:2])
        wanted = args.state or [s for s in STATES if have >= MIN_VERSION.get(s, (0, 0))]
        for s in wanted:
            if have < MIN_VERSION.get(s, (0, 0)):
                raise SystemExit(f"state {s} needs OpenZFS {MIN_VERSION[s]}, guest has {g.version}")
        results = []
        for s in wanted:
            results.append(capture_state(g, s, out))
        inst.reset()
        g.restore_params()
    finally:
        if started and not args.keep_running:
            inst.stop()
    write_sources(args.out)
    total = sum(r["bytes"] for r in results)
    print(f"done: {len(results)} states, {total // 1024} KiB, {time.monotonic() - t0:.0f}s "
          f"({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
