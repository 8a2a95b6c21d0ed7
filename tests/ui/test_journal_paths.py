"""ui/journal.py: where the console keeps a host's journal, and the mutes read at each
refresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zconsole.hosts import journal
from zconsole.hosts.demo import DemoHost
from zconsole.model.advice import Mute
from zconsole.ui.journal import journal_dir, read_mutes


class _App:
    """What journal_dir asks of the app: its explicit state directory and its host."""

    def __init__(self, host: Any, state_directory: Path | None = None) -> None:
        self.host = host
        self.state_directory = state_directory


def test_a_demo_run_reads_no_mutes_before_its_state_exists(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The demo's own state directory is made at its first write: the mutes read of the
    first refresh neither makes it nor fails."""
    monkeypatch.setattr(journal, "_run_demo_dir", [])

    def no_mkdtemp(*a: Any, **k: Any) -> str:
        raise AssertionError("the demo state directory was made for a read")

    monkeypatch.setattr(journal.tempfile, "mkdtemp", no_mkdtemp)
    host = DemoHost("showcase")
    assert read_mutes(_App(host), host, "demo") == ()  # type: ignore[arg-type]
    assert journal._run_demo_dir == []


def test_mutes_written_in_the_demo_state_are_read_back(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "_run_demo_dir", [tmp_path / "demo-run"])
    host = DemoHost("showcase")
    app = _App(host)
    where = journal_dir(app, host)  # type: ignore[arg-type]
    assert where == tmp_path / "demo-run"
    journal.MuteStore(where / journal.MUTES_FILE).mute("demo", Mute("dedup", "tank", "known", 1.0))
    assert read_mutes(app, host, "demo") == (  # type: ignore[arg-type]
        Mute("dedup", "tank", "known", 1.0),)


def test_an_explicit_state_directory_wins(tmp_path: Path) -> None:
    host = DemoHost("showcase")
    assert journal_dir(_App(host, tmp_path / "s"), host) == tmp_path / "s"  # type: ignore[arg-type]
