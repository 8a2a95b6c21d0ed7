"""ReplayHost: answers from outputs captured on a real machine (`zconsole capture`).

A capture directory holds `manifest.json`:

    {
      "format": 1,
      "zfs_version": "2.3.2", "kernel": "6.1.0-...", "host": "zfsvm",
      "captured_at": "2026-11-21T23:00:00Z", "source": "how and where it was captured",
      "state": "a short description of the pool state",
      "commands": [{"argv": [...], "returncode": 0, "stdout": "cmd/003.out",
                    "stderr": "", "duration": 0.21}, ...],
      "files": {"/proc/diskstats": "files/proc_diskstats"},
      "dirs": {"/sys/class/net": ["br0", "eth0", "lo"]},
      "links": {"/sys/class/block/vdb1": "/sys/devices/pci0000:00/.../vdb/vdb1"}
    }

`stdout` and file contents are paths relative to the directory. When the same argv was captured
several times (samples over an interval) the answers are given in order, the last repeated.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from zconsole.hosts.base import BaseHost, HostError, PathNotFound, Result

MANIFEST = "manifest.json"
FORMAT = 1


class ReplayMiss(HostError):
    """The capture holds no answer for this command or path."""


class ReplayHost(BaseHost):
    kind = "replay"

    def __init__(self, directory: str, *, clock: float | None = None) -> None:
        self.directory = directory
        path = os.path.join(directory, MANIFEST)
        try:
            with open(path, encoding="utf-8") as f:
                self.manifest: dict[str, Any] = json.load(f)
        except FileNotFoundError:
            raise PathNotFound(path) from None
        if self.manifest.get("format") != FORMAT:
            raise HostError(f"{path}: unknown capture format {self.manifest.get('format')!r}")
        self._commands: dict[tuple[str, ...], list[Result]] = {}  # answers in capture order
        for entry in self.manifest.get("commands", []):
            if entry.get("returncode") is None:
                continue  # recorded as an error (not found, timed out): nothing to replay
            argv = tuple(entry["argv"])
            out = self._load(entry["stdout"]) if entry.get("stdout") else ""
            self._commands.setdefault(argv, []).append(
                Result(
                    argv,
                    int(entry["returncode"]),
                    out,
                    entry.get("stderr", ""),
                    float(entry.get("duration", 0.0)),
                )
            )
        self._served: dict[tuple[str, ...], int] = {}
        self._clock = clock if clock is not None else self._captured_epoch()

    def _load(self, rel: str) -> str:
        with open(os.path.join(self.directory, rel), encoding="utf-8", errors="replace") as f:
            return f.read()

    def _captured_epoch(self) -> float:
        return float(self.manifest.get("captured_epoch", 0.0))

    @property
    def label(self) -> str:
        return f"replay: {self.manifest.get('host', os.path.basename(self.directory))}"

    @property
    def zfs_version(self) -> str | None:
        v = self.manifest.get("zfs_version")
        return str(v) if v else None

    def commands(self) -> list[tuple[str, ...]]:
        return list(self._commands)

    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        answers = self._commands.get(args)
        if not answers:
            raise ReplayMiss(f"no captured output for: {' '.join(args)}")
        i = self._served.get(args, 0)
        self._served[args] = i + 1
        return answers[min(i, len(answers) - 1)]

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        raise ReplayMiss("a capture holds no pipelines (they write)")

    def read_text(self, path: str) -> str:
        rel = self.manifest.get("files", {}).get(path)
        if rel is None:
            raise PathNotFound(path)
        return self._load(rel)

    def list_dir(self, path: str) -> list[str]:
        entries = self.manifest.get("dirs", {}).get(path)
        if entries is None:
            raise PathNotFound(path)
        return sorted(entries)

    def realpath(self, path: str) -> str:
        return str(self.manifest.get("links", {}).get(path, path))

    def now(self) -> float:
        return self._clock

    def is_root(self) -> bool:
        return bool(self.manifest.get("root", True))

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None


class CaptureWriter:
    """Writes a capture directory in the format ReplayHost reads (the counterpart of it).

    Services decide what to record; this class is the only code that writes the files.
    """

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.commands: list[dict[str, Any]] = []
        self.files: dict[str, str] = {}
        self.dirs: dict[str, list[str]] = {}
        self.links: dict[str, str] = {}
        os.makedirs(os.path.join(directory, "cmd"), exist_ok=True)
        os.makedirs(os.path.join(directory, "files"), exist_ok=True)

    def _write(self, rel: str, text: str) -> str:
        with open(os.path.join(self.directory, rel), "w", encoding="utf-8") as f:
            f.write(text)
        return rel

    def add_result(self, result: Result) -> None:
        rel = self._write(f"cmd/{len(self.commands) + 1:03d}.out", result.stdout)
        self.commands.append({"argv": list(result.argv), "returncode": result.returncode,
                              "stdout": rel, "stderr": result.stderr,
                              "duration": round(result.duration, 3)})

    def add_error(self, argv: Sequence[str], error: HostError) -> None:
        """A command that produced no result (not found, timed out): kept for the record,
        ReplayHost does not answer it."""
        self.commands.append({"argv": list(argv), "returncode": None, "stdout": "",
                              "stderr": "", "error": f"{type(error).__name__}: {error}"})

    def add_file(self, path: str, text: str) -> None:
        self.files[path] = self._write("files/" + path.strip("/").replace("/", "_"), text)

    def add_dir(self, path: str, entries: Sequence[str]) -> None:
        self.dirs[path] = list(entries)

    def add_link(self, path: str, target: str) -> None:
        self.links[path] = target

    def finish(self, meta: Mapping[str, Any]) -> str:
        manifest = {"format": FORMAT, **meta, "commands": self.commands, "files": self.files,
                    "dirs": self.dirs, "links": self.links}
        path = os.path.join(self.directory, MANIFEST)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        return path
