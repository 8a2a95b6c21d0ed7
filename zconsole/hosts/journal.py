"""zconsole's own local files: the audit log and the saved progress of plans.

This and `hosts/cache.py` are the only code that writes files on the operator's machine
(never on the host being looked at: a plan run over SSH keeps its journal where zconsole runs).

* `state_dir()`: `$ZCONSOLE_STATE_DIR`, else `$XDG_STATE_HOME/zconsole`, else
  `~/.local/state/zconsole`.
* `demo_state_dir()`: the demo host's own (its rehearsals' audit log, plans and muted advice):
  `$ZCONSOLE_DEMO_STATE` (the console's `--demo-state DIR`), else a directory of this run
  alone, removed when it ends: a fresh demo starts with no history its pools never had.
* `demo_machine_log(scenario, zfs_version)`: with `--demo-state DIR`, where the demo machine
  keeps what was done to it (`demo-machine-SCENARIO-VERSION.jsonl`: the writes it ran, the
  hands at its rack, with their times), so that the next console rebuilds the same machine
  beside the plans in flight and a resume after a kill is rehearsed (`DemoHost`, `log`).
* `AuditLog`: append-only JSON lines. Each record is one `write()` on a descriptor opened with
  O_APPEND (mode 0600), under an exclusive `flock`, then `fsync`: a record is either complete
  on disk or absent, earlier bytes are never rewritten, and two consoles appending at once do
  not interleave.
* `MuteStore`: the advice muted per host, each with its reason (`advice-mutes.json`),
  replaced atomically on every change.
* `PlanStore`: one JSON document per plan in flight (`<dir>/<plan id>.json`), replaced
  atomically (temp file, fsync, rename, fsync of the directory) after every step;
  `finish()` moves it to `<dir>/done/`.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: the console's first frame needs no advice
    from zconsole.model.advice import Mute

AUDIT_FILE = "audit.jsonl"
MUTES_FILE = "advice-mutes.json"
PLANS_DIR = "plans"
DONE_DIR = "done"
FORMAT = 1

_PLAN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def state_dir() -> Path:
    """Where zconsole keeps its own state (created on first write, not here)."""
    override = os.environ.get("ZCONSOLE_STATE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "zconsole"
    return Path.home() / ".local" / "state" / "zconsole"


DEMO_STATE_ENV = "ZCONSOLE_DEMO_STATE"
_run_demo_dir: list[Path] = []  # this run's own demo state, made on first use


def demo_state_named() -> bool:
    """Whether the demo's state lives in a place the operator named (kept across runs)."""
    return bool(os.environ.get(DEMO_STATE_ENV, "").strip())


def demo_state_made() -> bool:
    """Whether this run's demo state exists yet (named, or made by a first write): before,
    there is nothing in it to read."""
    return demo_state_named() or bool(_run_demo_dir)


def demo_state_dir() -> Path:
    """Where the demo host's audit log, plans and muted advice live (see the module doc)."""
    named = os.environ.get(DEMO_STATE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    if not _run_demo_dir:
        import atexit
        import shutil

        made = Path(tempfile.mkdtemp(prefix="zconsole-demo-"))
        atexit.register(shutil.rmtree, made, True)
        _run_demo_dir.append(made)
    return _run_demo_dir[0]


def remove_demo_state_on_signals() -> None:
    """A hang-up (the operator's SSH session dropped, a tmux window killed) or a TERM ends the
    process without `atexit`: this run's own demo state was left in /tmp each time (issue 32's
    audit). From the main thread, before anything starts: on SIGHUP or SIGTERM whose
    disposition is the default, the directory (if made) is removed, then the signal is raised
    again with its default action, so the process ends as it would have. A signal ignored
    (nohup) or handled by someone else stays theirs."""
    import signal

    def removed_then_default(signum: int, _frame: object) -> None:
        if _run_demo_dir:
            import shutil

            shutil.rmtree(_run_demo_dir[0], ignore_errors=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for sig in (signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, removed_then_default)


def demo_machine_log(scenario: str, zfs_version: str) -> AuditLog | None:
    """The demo machine's own record in the named demo state (None without `--demo-state`:
    a fresh machine each run, and nothing kept)."""
    if not demo_state_named():
        return None
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"{scenario}-{zfs_version}")
    return AuditLog(demo_state_dir() / f"demo-machine-{safe}.jsonl")


class UnsafeDirectory(OSError):
    """A directory other users can write to: a file zconsole writes there is refused."""


def ensure_own_dir(path: Path) -> None:
    """Make zconsole's own directory (0700) or check the one found: another user who can
    write in it could forge the audit log or the plans a resume trusts, so a directory
    writable by others is refused with the command that fixes it (issue 27)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.stat(path)
    # group-writable by our own group is fine (a user private group, umask 002)
    others_write = st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP
                                                 and st.st_gid != os.getegid())
    if others_write or st.st_uid not in (os.geteuid(), 0):
        raise UnsafeDirectory(
            f"refusing to keep zconsole's state in {path}: it is "
            + (f"owned by uid {st.st_uid}" if st.st_uid not in (os.geteuid(), 0)
               else f"writable by others (mode {stat.S_IMODE(st.st_mode):04o})")
            + f"; another user could forge its records (chmod 700 {path})")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_directory(path: Path) -> None:
    """Refuse a directory that another user can write to (world-writable, group-writable by
    another group, or owned by another user than us or root): there they could plant links,
    swap the file after the rename or own what we write."""
    st = os.stat(path)
    why = ("writable by every user" if st.st_mode & stat.S_IWOTH
           else f"writable by its group ({st.st_gid})" if st.st_mode & stat.S_IWGRP
           and st.st_gid != os.getegid()
           else f"owned by another user (uid {st.st_uid})"
           if st.st_uid not in (os.geteuid(), 0) else "")
    if why:
        raise UnsafeDirectory(f"refusing to write in {path}: it is {why} "
                              f"(mode {stat.S_IMODE(st.st_mode):04o}); another user could "
                              "replace or read what zconsole writes there")


def write_atomically(path: str | os.PathLike[str], text: str | bytes,
                     mode: int = 0o644) -> None:
    """Write `text` (UTF-8, or bytes as they are) to a temporary file beside `path`, fsync it
    and rename it over `path`: a reader (node_exporter's textfile collector, the next
    console's CSS cache) sees the old file or the new, never half.

    The temporary file is made by `mkstemp` (O_CREAT|O_EXCL with a random name: a planted
    link or file is never opened, issue 27), given `mode` on its descriptor, and renamed over
    `path` (a link planted at `path` is replaced, never followed). A directory another user
    can write to is refused (`check_directory`)."""
    target = Path(path)
    check_directory(target.parent if str(target.parent) else Path("."))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        try:
            os.fchmod(fd, mode)
            _write_all(fd, text.encode("utf-8") if isinstance(text, str) else text)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _private(fd: int, path: Path) -> bytes:
    """The audit file as only its owner may write it: one of another user's is refused; one
    of ours that others could write (0666) is made 0600 and a record says so (returned, to
    go before the next one)."""
    st = os.fstat(fd)
    if st.st_uid not in (os.geteuid(), 0):
        raise UnsafeDirectory(f"refusing to append to {path}: it is owned by uid {st.st_uid}")
    if not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return b""
    os.fchmod(fd, 0o600)
    note = {"ts": time.time(), "event": "audit-tightened", "path": str(path),
            "was": f"{stat.S_IMODE(st.st_mode):04o}", "now": "0600"}
    return (json.dumps(note, separators=(",", ":")) + "\n").encode("ascii")


class AuditLog:
    """Append-only JSON lines, one record per executed command (and per plan event)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> AuditLog:
        return cls(state_dir() / AUDIT_FILE)

    def append(self, record: Mapping[str, object]) -> None:
        """Write one record as one line, then fsync. Raises OSError when it cannot: an
        operation whose command could not be recorded must not go on silently."""
        # ASCII: U+2028, U+2029 or U+0085 in a command's output would be a line break to
        # any reader that splits like str.splitlines() (issue 27)
        line = json.dumps(dict(record), ensure_ascii=True, separators=(",", ":"),
                          default=str)
        if "\n" in line:  # json.dumps escapes newlines in strings; keep the guarantee explicit
            raise ValueError("an audit record must serialise to one line")
        data = (line + "\n").encode("utf-8")
        with self._lock:
            created = not self.path.exists()
            ensure_own_dir(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                         | os.O_NOFOLLOW, 0o600)  # a link planted there is refused (ELOOP)
            try:
                data = _private(fd, self.path) + data
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    _write_all(fd, data)
                    os.fsync(fd)
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
            if created:
                _fsync_dir(self.path.parent)

    def records(self) -> Iterator[dict[str, object]]:
        """Every complete record, oldest first (a torn last line, impossible by construction
        but possible after a disk fault, is skipped)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        for line in text.split("\n"):  # records end at \n only (older ones hold U+2028 raw)
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if isinstance(doc, dict):
                yield doc


class PlanStore:
    """Saved progress of plans in flight, one JSON file per plan id."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.problems: list[str] = []  # files in_flight() could not read, with the reason
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> PlanStore:
        return cls(state_dir() / PLANS_DIR)

    @property
    def done_directory(self) -> Path:
        return self.directory / DONE_DIR

    def _file(self, plan_id: str) -> Path:
        if not _PLAN_ID.match(plan_id):
            raise ValueError(f"not a plan id: {plan_id!r}")
        return self.directory / f"{plan_id}.json"

    def save(self, plan_doc: dict[str, object], outcomes: list[dict[str, object]]) -> None:
        plan_id = str(plan_doc.get("id", ""))
        target = self._file(plan_id)
        doc = {"format": FORMAT, "saved_at": time.time(), "plan": plan_doc,
               "outcomes": list(outcomes)}
        data = json.dumps(doc, ensure_ascii=False, indent=1, default=str).encode("utf-8")
        with self._lock:
            ensure_own_dir(self.directory)
            fd, tmp = tempfile.mkstemp(prefix=f".{plan_id}.", suffix=".tmp",
                                       dir=self.directory)
            try:
                try:
                    _write_all(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.chmod(tmp, 0o600)
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
                raise
            _fsync_dir(self.directory)

    @staticmethod
    def _read(path: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("plan"), dict) \
                or not isinstance(doc.get("outcomes"), list):
            raise ValueError(f"{path}: not a saved plan")
        return doc["plan"], [o for o in doc["outcomes"] if isinstance(o, dict)]

    def load(self, plan_id: str) -> tuple[dict[str, object], list[dict[str, object]]]:
        """(plan document, outcome documents). Raises FileNotFoundError when the plan is not
        in flight (finished plans are under done/)."""
        return self._read(self._file(plan_id))

    def in_flight(self) -> list[tuple[dict[str, object], list[dict[str, object]]]]:
        """Every saved plan not finished, oldest save first. Unreadable files are skipped and
        named in `problems` (never deleted)."""
        self.problems = []
        if not self.directory.is_dir():
            return []
        found: list[tuple[float, dict[str, object], list[dict[str, object]]]] = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                plan, outcomes = self._read(path)
                mtime = path.stat().st_mtime
            except (OSError, ValueError) as e:
                self.problems.append(f"{path}: {e}")
                continue
            found.append((mtime, plan, outcomes))
        found.sort(key=lambda x: x[0])
        return [(p, o) for _, p, o in found]

    def finish(self, plan_id: str) -> None:
        """Move the plan to done/ (kept as a record; no longer offered for resume)."""
        src = self._file(plan_id)
        with self._lock:
            if not src.exists():
                return
            ensure_own_dir(self.done_directory)
            os.replace(src, self.done_directory / src.name)
            _fsync_dir(self.done_directory)
            _fsync_dir(self.directory)


class MuteStore:
    """Advice the operator muted, per host, with the reason they gave (model.advice.Mute).

    One JSON document, `{"format": 1, "hosts": {LABEL: [{"kind", "subject", "reason",
    "at"}]}}`, mode 0600, replaced atomically (temp file, fsync, rename) under an exclusive
    lock on a file beside it, so two consoles muting at once both keep theirs."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def default(cls, *, simulated: bool = False) -> MuteStore:
        """In `state_dir()`; the demo host's in `demo_state_dir()` (never mixed with real
        hosts)."""
        return cls((demo_state_dir() if simulated else state_dir()) / MUTES_FILE)

    def _read(self) -> dict[str, list[dict[str, object]]]:
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise ValueError(f"cannot read the muted advice in {self.path}: {e}") from e
        hosts = doc.get("hosts") if isinstance(doc, dict) else None
        if not isinstance(hosts, dict):
            raise ValueError(f"{self.path} is not a muted-advice file")
        return {str(h): [m for m in v if isinstance(m, dict)] for h, v in hosts.items()
                if isinstance(v, list)}

    def load(self, host: str) -> tuple[Mute, ...]:
        entries = self._read().get(host, [])
        if not entries:  # most hosts: the model is not imported for nothing at the first frame
            return ()
        from zconsole.model.advice import Mute

        out = []
        for m in entries:
            try:
                out.append(Mute(str(m["kind"]), str(m["subject"]), str(m["reason"]),
                                float(str(m.get("at", 0)))))
            except (KeyError, ValueError):
                continue
        return tuple(out)

    def _change(self, host: str, keep: Mute | None, drop: tuple[str, str]) -> None:
        ensure_own_dir(self.path.parent)
        with open(self.path.with_name(f".{self.path.name}.lock"), "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            hosts = self._read()
            mine = [m for m in hosts.get(host, []) if (m.get("kind"), m.get("subject")) != drop]
            if keep is not None:
                mine.append({"kind": keep.kind, "subject": keep.subject,
                             "reason": keep.reason, "at": keep.at})
            if mine:
                hosts[host] = mine
            else:
                hosts.pop(host, None)
            write_atomically(self.path, json.dumps({"format": FORMAT, "hosts": hosts},
                                                   ensure_ascii=False, indent=1) + "\n",
                             mode=0o600)

    def mute(self, host: str, mute: Mute) -> None:
        """Mute (kind, subject) on `host` with its reason (replacing an earlier one)."""
        if not mute.reason.strip():
            raise ValueError("a muted finding keeps its reason: give one")
        self._change(host, mute, (mute.kind, mute.subject))

    def unmute(self, host: str, kind: str, subject: str) -> None:
        self._change(host, None, (kind, subject))
