"""Read each disk's SMART, far less often than the refresh, and remember how its counters
moved ("48 pending sectors, up from 12 when first seen 3 h ago").

One disk per command: `smartctl --json --all -n standby /dev/X` through `Host.run` (argv,
never a shell string). Why these options (smart-facts.md):
* `--json`: the stable machine format (smartmontools 7.0+; Debian 12 ships 7.3);
* `--all` (`-a`): health, identity, capabilities, attributes or health log, error log and,
  for ATA and SCSI, the self-test log. On NVMe, 7.3's `-a` is `-H -i -c -A -l error` (no
  self-test log: NVMe self-tests need 7.4+); 7.4 adds `-l selftest`. On SCSI `-a` gives the
  grown defect list, the error counter log, the temperature page and the self-test log,
  but not the background-scan log (`-x`). `-x` is not used: on 7.3/7.4 it exits 4 on drives
  without SCT ERC or GP logs (QEMU), and reads far more;
* `-n standby`: a disk in STANDBY or SLEEP is not woken (exit 2, "Device is in STANDBY
  mode"); it is said "asleep, not read" and its last reading is kept. NVMe ignores `-n`
  before 8.0 (the read does not wake it: NVMe has no spin-up).
* NVMe is read at the controller node `/dev/nvmeN`, not the namespace `/dev/nvmeNn1`:
  smartctl 7.4 fails `-a` on some single-namespace drives at the namespace (#217).

Which disks: the whole disks of the inventory. virtio (`vd*`) and Xen (`xvd*`) disks have
no SMART; smartctl's Linux autodetection cannot type them ("Unable to detect device type",
os_linux.cpp), so they are said "no SMART" once without running anything. A disk that
answered "no SMART" is not asked again until someone asks for it (`request`).

Cadence: `SmartWatch.poll` reads what is due: every disk once, then each again after
`interval` (30 min by default, smartd's own check interval), plus any disk `request`ed (on
demand). Nothing here runs on the first refresh: the session calls `poll` from a background
worker after the first frame, at most `limit` disks per call.

History is kept in memory, per kernel name, and reset when the serial changes (another disk
took the name); a disk first read here starts from what earlier runs saw of it (`seed`:
services/smart_history.py, a JSON file per host in the state directory keyed by model and
serial, which `SmartFollow` reads when it makes the watch and writes after a poll).
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from zconsole.hosts.base import CommandNotFound, Host, HostError, PermissionDenied
from zconsole.model.disk import Disk
from zconsole.model.smart import CounterTrack, SmartReading, Unread, counters
from zconsole.parsers.errors import ParseError
from zconsole.parsers.smartctl import parse_smartctl

SMARTCTL = "smartctl"
INTERVAL_S = 1800.0  # smartd's default check interval (smartd.8 -i)
TIMEOUT_S = 30.0
POLL_LIMIT = 8  # disks read per `poll` unless the caller gives its own limit

_NO_SMART_NAME = re.compile(r"^x?vd[a-z]+$")
_NVME_NS = re.compile(r"^(nvme[0-9]+)n[0-9]+$")


def smartctl_argv(device_path: str) -> tuple[str, ...]:
    return (SMARTCTL, "--json", "--all", "-n", "standby", device_path)


def device_path(disk: Disk) -> str:
    """The node smartctl is given: /dev/nvmeN for an NVMe namespace, else /dev/NAME."""
    m = _NVME_NS.match(disk.name)
    return f"/dev/{m.group(1)}" if m else f"/dev/{disk.name}"


def no_smart_by_nature(disk: Disk) -> str | None:
    """Why this disk cannot have SMART without asking (None: ask smartctl)."""
    if disk.transport == "virtio" or _NO_SMART_NAME.match(disk.name):
        return "a virtio disk: the hypervisor does not pass SMART through"
    return None


def read_smart(host: Host, disk: Disk, *, timeout: float = TIMEOUT_S) -> SmartReading:
    """One disk's SMART, or why not (`SmartReading.unread`). A timeout or output that is
    not smartctl JSON raises (HostError / ParseError): the watch keeps the last reading."""
    path = device_path(disk)
    why = no_smart_by_nature(disk)
    if why:
        return SmartReading(device=path, unread=Unread.NO_SMART, unread_detail=why)
    try:
        result = host.run(smartctl_argv(path), timeout=timeout, check=False)
    except CommandNotFound:
        return SmartReading(device=path, unread=Unread.MISSING)
    except PermissionDenied as e:
        return SmartReading(device=path, unread=Unread.NOT_ROOT, unread_detail=str(e)[:200])
    if result.returncode == 127 and not result.stdout.strip():
        return SmartReading(device=path, unread=Unread.MISSING)  # a remote shell's "not found"
    try:
        return parse_smartctl(result.stdout, path)
    except ParseError:
        if "permission denied" in result.stderr.lower():
            return SmartReading(device=path, unread=Unread.NOT_ROOT,
                                unread_detail=result.stderr.strip()[:200])
        raise


def advance_tracks(tracks: Mapping[str, CounterTrack], reading: SmartReading,
                   at: float) -> dict[str, CounterTrack]:
    """The tracks after one more reading: new counters start here; a higher value is
    "grew at `at`"; a lower one (a reset, a firmware quirk) is taken as it is."""
    out = dict(tracks)
    for key, value in counters(reading).items():
        old = out.get(key)
        if old is None:
            out[key] = CounterTrack(key, first=value, first_seen=at, last=value)
        elif value > old.last:
            out[key] = dataclasses.replace(old, last=value, grew_at=at)
        elif value < old.last:
            out[key] = dataclasses.replace(old, last=value)
    return out


@dataclass(frozen=True)
class DiskSmart:
    """What the watch knows of one disk."""

    disk: str  # kernel name
    by_id: str | None
    reading: SmartReading | None = None  # the last reading that had data
    read_at: float | None = None  # when `reading` was taken
    unread: SmartReading | None = None  # the last attempt, when it gave no data
    tried_at: float | None = None  # the last attempt (data or not)
    tracks: Mapping[str, CounterTrack] = field(default_factory=dict)
    error: str = ""  # the last attempt failed (timeout, unreadable output)

    @property
    def words(self) -> str:
        """What a face says when there is no fresh data ("" when the last attempt read)."""
        if self.error:
            return f"SMART not read: {self.error}"
        if self.unread is not None and self.unread.unread is not None:
            return self.unread.unread.words
        return "" if self.reading else "SMART not read yet"


class SmartWatch:
    """Each disk's SMART, read at most every `interval` seconds, and its counter history.
    `clock` is injectable (tests never use wall-clock time)."""

    def __init__(self, host: Host, *, interval: float = INTERVAL_S, limit: int = POLL_LIMIT,
                 clock: Callable[[], float] = time.time,
                 read: Callable[[Host, Disk], SmartReading] = read_smart,
                 seed: Callable[[SmartReading], Mapping[str, CounterTrack]] | None = None
                 ) -> None:
        """`seed`: a disk's tracks from earlier runs (services/smart_history.py), asked when
        a disk is first read here, or another disk took its name."""
        self._host, self._interval, self._limit = host, interval, limit
        self._clock, self._read, self._seed = clock, read, seed
        self._disks: dict[str, DiskSmart] = {}
        self._requested: list[str] = []

    def request(self, disk: str) -> None:
        """Read this disk at the next poll, whatever its age (on demand)."""
        if disk not in self._requested:
            self._requested.append(disk)

    def state(self, disk: str) -> DiskSmart | None:
        return self._disks.get(disk)

    def states(self) -> tuple[DiskSmart, ...]:
        return tuple(self._disks.values())

    def _due(self, d: Disk, now: float) -> bool:
        s = self._disks.get(d.name)
        if s is None or s.tried_at is None:
            return True
        if s.unread is not None and s.unread.unread is Unread.NO_SMART:
            return False  # never changes by itself
        return now - s.tried_at >= self._interval

    def due(self, disks: Iterable[Disk]) -> list[Disk]:
        """The whole disks to read now: requested first, then never read, then oldest."""
        now = self._clock()
        whole = {d.name: d for d in disks if d.kind == "disk"}
        asked = [whole[n] for n in self._requested if n in whole]
        rest = sorted((d for n, d in whole.items() if n not in self._requested
                       and self._due(d, now)),
                      key=lambda d: (self._disks[d.name].tried_at or 0.0)
                      if d.name in self._disks else -1.0)
        return [*asked, *rest]

    def poll(self, disks: Iterable[Disk], limit: int | None = None) -> list[str]:
        """Read up to `limit` due disks (the watch's own limit when None); the names read.
        smartctl missing on one disk is missing on all: the rest of this poll is not run."""
        done: list[str] = []
        missing: SmartReading | None = None
        for d in self.due(disks)[:self._limit if limit is None else limit]:
            now = self._clock()
            if d.name in self._requested:
                self._requested.remove(d.name)
            if missing is not None:
                self._note(d, dataclasses.replace(missing, device=device_path(d)), now)
                continue
            try:
                reading = self._read(self._host, d)
            except (HostError, ParseError) as e:
                self._fail(d, str(e)[:200], now)
                continue
            if reading.unread is Unread.MISSING:
                missing = reading
            self._note(d, reading, now)
            done.append(d.name)
        return done

    def _fail(self, d: Disk, error: str, now: float) -> None:
        old = self._disks.get(d.name) or DiskSmart(d.name, d.preferred_id)
        self._disks[d.name] = dataclasses.replace(old, tried_at=now, error=error)

    def _note(self, d: Disk, reading: SmartReading, now: float) -> None:
        old = self._disks.get(d.name) or DiskSmart(d.name, d.preferred_id)
        if not reading.read:
            self._disks[d.name] = dataclasses.replace(old, unread=reading, tried_at=now,
                                                      error="")
            return
        tracks = old.tracks
        if old.reading is not None and old.reading.serial != reading.serial:
            tracks = {}  # another disk took this kernel name
        if not tracks and self._seed is not None:
            tracks = self._seed(reading)  # what earlier runs saw of this disk
        self._disks[d.name] = DiskSmart(
            d.name, d.preferred_id, reading=reading, read_at=now, unread=None, tried_at=now,
            tracks=advance_tracks(tracks, reading, now))
