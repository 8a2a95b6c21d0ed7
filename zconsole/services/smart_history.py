"""SMART's history across runs (issue 30): each disk's counter tracks (`CounterTrack`: its
value when zconsole first saw it, and when; its last value; when it last grew) and the
self-test log entries already seen, kept per host in zconsole's state directory, so that
"48 pending sectors, up from 8 when first seen 3 d ago" survives a restart of the console
and every `zconsole check`, and a self-test result reaches the Timeline once, not at each
start.

One JSON file per host: `<state>/smart/<host>.json` (`hosts.journal.state_dir()`, the demo
host's in `demo_state_dir()`), `{"format": 1, "disks": {"MODEL|SERIAL": {"tracks": {KEY:
{"first", "first_seen", "last", "grew_at"}}, "tests": [[KIND, HOURS, STATUS], ...]}}}`,
keyed by model and serial (a kernel name moves to another disk; a serial does not), written
atomically (`write_atomically`, mode 0600) after a poll that changed it. Disks seen in other
runs and not in this one are kept.

The file is the operator's, but it is read as hostile input: a file that is not JSON, or
not this shape, is ignored with a note (`History.note`) and kept beside as `*.damaged` at
the next write; an entry whose figures are not what zconsole writes (a negative or huge
counter, a time no clock can show, a key too long) is left out, never trusted.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zconsole.model.smart import CounterTrack, SmartReading

FORMAT = 1
MAX_DISKS = 4096
MAX_TESTS = 64  # self-test log entries remembered per disk (an ATA log holds 21)
MAX_TEXT = 200
_KEY = re.compile(r"^[a-z]+-[A-Za-z0-9_]{1,40}$", re.ASCII)
_MAX_COUNT = 1 << 128  # NVMe counters are 128-bit
_EPOCH_MAX = 253_402_128_000.0  # model.timeline.EPOCH_MAX (not imported: no Timeline here)

SeenTest = tuple[str, int | None, str]  # (kind, power-on hours, status words)


def identity(reading: SmartReading | None) -> str | None:
    """"MODEL|SERIAL" of the disk that answered, None when it gave no serial."""
    if reading is None or not reading.serial:
        return None
    return f"{reading.model or ''}|{reading.serial}"[:MAX_TEXT]


@dataclass(frozen=True)
class DiskHistory:
    tracks: Mapping[str, CounterTrack] = field(default_factory=dict)
    tests: tuple[SeenTest, ...] = ()


def _count(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < _MAX_COUNT \
        else None


def _time(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    t = float(v)
    return t if math.isfinite(t) and 0.0 <= t <= _EPOCH_MAX else None


def _track(key: str, raw: object) -> CounterTrack | None:
    if not isinstance(raw, dict) or not _KEY.match(key):
        return None
    first, last = _count(raw.get("first")), _count(raw.get("last"))
    seen = _time(raw.get("first_seen"))
    grew_raw = raw.get("grew_at")
    grew = _time(grew_raw) if grew_raw is not None else None
    if first is None or last is None or seen is None or (grew_raw is not None and grew is None):
        return None
    return CounterTrack(key, first=first, first_seen=seen, last=last, grew_at=grew)


def _test(raw: object) -> SeenTest | None:
    if not isinstance(raw, list) or len(raw) != 3:
        return None
    kind, hours, status = raw
    if not isinstance(kind, str) or not isinstance(status, str) or len(kind) > 40 \
            or len(status) > MAX_TEXT or (hours is not None and _count(hours) is None):
        return None
    return kind, hours, status


def _disk(raw: object) -> DiskHistory | None:
    if not isinstance(raw, dict):
        return None
    tracks_raw = raw.get("tracks")
    tests_raw = raw.get("tests")
    tracks = {k: t for k, v in (tracks_raw.items() if isinstance(tracks_raw, dict) else ())
              if isinstance(k, str) and (t := _track(k, v)) is not None}
    tests = tuple(seen for v in (tests_raw if isinstance(tests_raw, list) else ())[:MAX_TESTS]
                  if (seen := _test(v)) is not None)
    return DiskHistory(tracks, tests)


def parse_history(text: str) -> dict[str, DiskHistory]:
    """The file's disks; ValueError when it is not a SMART history at all."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT \
            or not isinstance(doc.get("disks"), dict):
        raise ValueError("not a zconsole SMART history (format 1)")
    out: dict[str, DiskHistory] = {}
    for ident, raw in list(doc["disks"].items())[:MAX_DISKS]:
        if not isinstance(ident, str) or not ident or len(ident) > MAX_TEXT:
            continue
        disk = _disk(raw)
        if disk is not None:
            out[ident] = disk
    return out


def dump_history(disks: Mapping[str, DiskHistory]) -> str:
    doc = {"format": FORMAT, "disks": {
        ident: {"tracks": {k: {"first": t.first, "first_seen": t.first_seen, "last": t.last,
                               "grew_at": t.grew_at} for k, t in sorted(d.tracks.items())},
                "tests": [list(t) for t in d.tests[:MAX_TESTS]]}
        for ident, d in sorted(disks.items())}}
    return json.dumps(doc, ensure_ascii=False) + "\n"  # compact: the C encoder (bench smart)


def history_path(host_label: str, *, simulated: bool) -> Path:
    """Where one host's SMART history lives (the host's label made a safe file name)."""
    from zconsole.hosts.journal import demo_state_dir, state_dir

    safe = re.sub(r"[^A-Za-z0-9._@-]", "_", host_label)[:120].lstrip(".") or "host"
    return (demo_state_dir() if simulated else state_dir()) / "smart" / f"{safe}.json"


class History:
    """One host's SMART history file: `load()` once, `save(disks)` after a poll changed
    it. Never raises for what is in the file; a write that fails is said in `note`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.note = ""  # a damaged file ignored, a write that failed: said once, never raised
        self._damaged = False
        self._saved: dict[str, DiskHistory] = {}

    def load(self) -> dict[str, DiskHistory]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as e:
            self._ignore(f"cannot be read ({type(e).__name__})")
            return {}
        try:
            self._saved = parse_history(text)
        except (ValueError, RecursionError) as e:
            self._ignore(f"is damaged ({str(e)[:80]})")
            return {}
        return dict(self._saved)

    def _ignore(self, why: str) -> None:
        self._damaged = True
        self.note = (f"SMART history {self.path} {why}: ignored, the counters are followed "
                     f"from now (the file is kept as {self.path.name}.damaged)")

    def save(self, disks: Mapping[str, DiskHistory]) -> bool:
        """Write the history when it changed (the disks of earlier runs kept); whether it
        was written."""
        merged = {**self._saved, **disks}
        if merged == self._saved and not self._damaged:
            return False
        from zconsole.hosts.journal import write_atomically

        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self._damaged and self.path.exists():
                os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
            write_atomically(self.path, dump_history(merged), mode=0o600)
        except (OSError, ValueError) as e:
            self.note = f"SMART history not kept: {e}"[:300]
            return False
        self._saved, self._damaged = merged, False
        return True
