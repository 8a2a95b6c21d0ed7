"""hosts.journal: the append-only, fsynced audit log and the atomic plan store."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from zconsole.hosts import journal
from zconsole.hosts.journal import AuditLog, PlanStore, state_dir


def test_state_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ZCONSOLE_STATE_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "zconsole"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")  # the spec wants absolute paths
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "zconsole"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == tmp_path / "xdg" / "zconsole"
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "mine"))
    assert state_dir() == tmp_path / "mine"
    assert AuditLog.default().path == tmp_path / "mine" / "audit.jsonl"
    assert PlanStore.default().directory == tmp_path / "mine" / "plans"


def test_audit_is_append_only_one_json_line_per_record(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "state" / "audit.jsonl")
    log.append({"event": "command", "argv": ["zpool", "attach", "tank", "a", "b"],
                "stderr": "line one\nline two\n", "exit_code": 1})
    first = log.path.read_bytes()
    assert first.endswith(b"\n") and first.count(b"\n") == 1  # newlines in values escaped
    log.append({"event": "plan-end", "note": "naïve ✓"})
    both = log.path.read_bytes()
    assert both.startswith(first)  # earlier bytes never rewritten
    lines = both.decode().splitlines()
    assert [json.loads(x)["event"] for x in lines] == ["command", "plan-end"]
    assert json.loads(lines[0])["stderr"] == "line one\nline two\n"
    assert [r["event"] for r in log.records()] == ["command", "plan-end"]
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.path.parent.stat().st_mode) == 0o700


def test_audit_fsyncs_every_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(journal.os, "fsync", spy)
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"a": 1})
    n1 = len(synced)
    log.append({"a": 2})
    assert n1 >= 1 and len(synced) == n1 + 1  # the file each time (+ the directory once)


def test_audit_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    big = "x" * 70000  # larger than a pipe buffer: still one complete line

    def writer(n: int) -> None:
        log = AuditLog(path)  # separate objects: the file lock, not the thread lock, orders
        for i in range(20):
            log.append({"writer": n, "i": i, "blob": big})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 80
    docs = [json.loads(x) for x in lines]
    assert sorted((d["writer"], d["i"]) for d in docs) == [(n, i) for n in range(4)
                                                           for i in range(20)]


def test_audit_refuses_what_would_not_be_one_line(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"obj": object()})  # default=str: written as its repr, still one line
    assert len(log.path.read_text().splitlines()) == 1


def test_plan_store_save_load_in_flight_finish(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "plans")
    assert store.in_flight() == []
    store.save({"id": "aa11", "title": "one"}, [{"step_id": "s", "status": "running"}])
    store.save({"id": "bb22", "title": "two"}, [])
    store.save({"id": "aa11", "title": "one"}, [{"step_id": "s", "status": "done"}])
    plan, outcomes = store.load("aa11")
    assert plan == {"id": "aa11", "title": "one"}
    assert outcomes == [{"step_id": "s", "status": "done"}]
    assert sorted(p["id"] for p, _ in store.in_flight()) == ["aa11", "bb22"]
    # atomic replace: no temp files left, private mode
    names = sorted(x.name for x in (tmp_path / "plans").iterdir())
    assert names == ["aa11.json", "bb22.json"]
    assert stat.S_IMODE((tmp_path / "plans" / "aa11.json").stat().st_mode) == 0o600
    store.finish("aa11")
    assert [p["id"] for p, _ in store.in_flight()] == ["bb22"]
    assert (tmp_path / "plans" / "done" / "aa11.json").exists()
    with pytest.raises(FileNotFoundError):
        store.load("aa11")
    store.finish("aa11")  # finishing twice is harmless


def test_plan_store_rejects_path_like_ids(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "plans")
    for bad in ("../escape", "a/b", "", ".hidden"):
        with pytest.raises(ValueError):
            store.save({"id": bad}, [])


def test_plan_store_failed_write_leaves_the_old_copy(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    store = PlanStore(tmp_path / "plans")
    store.save({"id": "cc33", "v": 1}, [])

    def boom(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(journal.os, "replace", boom)
    with pytest.raises(OSError):
        store.save({"id": "cc33", "v": 2}, [])
    monkeypatch.undo()
    assert store.load("cc33")[0] == {"id": "cc33", "v": 1}
    assert sorted(x.name for x in (tmp_path / "plans").iterdir()) == ["cc33.json"]


def test_plan_store_names_unreadable_files(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "plans")
    store.save({"id": "dd44"}, [])
    (tmp_path / "plans" / "junk.json").write_text("[1, 2]")
    assert [p["id"] for p, _ in store.in_flight()] == ["dd44"]
    assert len(store.problems) == 1 and "junk.json" in store.problems[0]


def test_a_record_holding_line_separators_is_read_whole(tmp_path: Path) -> None:
    """Issue 27 item 4: a record with U+2028, U+2029 or U+0085 (a command's output, a diff)
    was cut in two by the reader's splitlines() and both halves dropped as torn: the
    command-intent of a write vanished. Written as ASCII, read on \\n only; a log written
    before (the characters raw) is read whole too."""
    from zconsole.hosts.journal import AuditLog

    log = AuditLog(tmp_path / "audit.jsonl")
    odd = "a\u2028b\u2029c\u0085d\x1ce\x0cf"
    log.append({"event": "command-intent", "argv": ["zfs", "set", f"x:note={odd}", "tank"]})
    log.append({"event": "command", "stdout": odd})
    raw = (tmp_path / "audit.jsonl").read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 2
    got = list(log.records())
    assert [r["event"] for r in got] == ["command-intent", "command"]
    assert got[0]["argv"] == ["zfs", "set", f"x:note={odd}", "tank"] and got[1]["stdout"] == odd
    older = tmp_path / "older.jsonl"
    older.write_text('{"event":"command-intent","x":"a\u2028b"}\n{"event":"command"}\n',
                     encoding="utf-8")
    assert [r["event"] for r in AuditLog(older).records()] == ["command-intent", "command"]
