"""`zconsole parse`: pasted output rendered, or printed as the documented JSON shape."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from zconsole.cli import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "parsers"
STATUS = FIX / "zpool-status"

POOL_KEYS = {"name", "state", "status", "action", "scan", "errors", "vdevs", "logs", "cache",
             "spares", "special", "dedup"}
NODE_KEYS = {"name", "type", "state", "read_errors", "write_errors", "checksum_errors", "note",
             "path"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def check_node(node: dict[str, object]) -> None:
    keys = set(node)
    assert NODE_KEYS <= keys and keys - NODE_KEYS <= {"children"}
    if "children" in node:
        assert node["children"], "a container lists its children; a leaf has no children key"
        for child in node["children"]:  # type: ignore[attr-defined]
            check_node(child)
    for k in ("read_errors", "write_errors", "checksum_errors"):
        assert node[k] is None or isinstance(node[k], int)


def test_json_shape_for_real_2_3_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "parse", "zpool-status", "--json",
                     str(STATUS / "openzfs-2.3.2-status-j.json"))
    assert rc == 0
    doc = json.loads(out)
    assert list(doc) == ["pools"]
    (pool,) = doc["pools"]
    assert set(pool) == POOL_KEYS
    assert pool["name"] == "tank" and pool["state"] == "ONLINE"
    mirror = pool["vdevs"][0]
    assert mirror["name"] == "mirror-0" and mirror["type"] == "mirror"
    assert [c["name"] for c in mirror["children"]] == ["vdb", "vdc"]
    assert mirror["children"][0]["path"] == "/dev/vdb1"
    for top in pool["vdevs"]:
        check_node(top)


def test_json_shape_for_text_with_scan_logs_cache(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "parse", "zpool-status", "--json",
                     str(STATUS / "zol-0.6-issue3267-resilver-logs-cache.txt"))
    assert rc == 0
    (pool,) = json.loads(out)["pools"]
    assert pool["scan"]["function"] == "resilver"
    assert pool["scan"]["state"] == "in_progress"
    assert pool["scan"]["percent_done"] == pytest.approx(0.39)
    assert isinstance(pool["scan"]["eta_seconds"], int)
    assert [v["name"] for v in pool["logs"]] == ["mirror-1"]
    assert [v["name"] for v in pool["cache"]] == ["sda4", "sdb4"]
    assert "children" not in pool["cache"][0]
    for section in ("vdevs", "logs", "cache"):
        for top in pool[section]:
            check_node(top)


def test_human_rendering_shows_states_as_words_and_symbols(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "parse", "zpool-status",
                     str(STATUS / "zol-0.6.5.9-issue7577-spare-inuse.txt"))
    assert rc == 0
    assert "INUSE" in out and "spares" in out
    assert "✔ ONLINE" in out


def test_stdin_and_not_zpool_status(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("this is not zpool output\n"))
    rc, out, err = run(capsys, "parse", "zpool-status", "-")
    assert rc == 3 and out == ""
    assert "does not read as zpool-status" in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "parse", "zpool-status", "/nonexistent/status.txt")
    assert rc == 4 and "cannot read /nonexistent/status.txt" in err


def test_option_after_kind_and_file_order(capsys: pytest.CaptureFixture[str]) -> None:
    f = str(STATUS / "openzfs-2.3.2-status-j.json")
    a = run(capsys, "parse", "zpool-status", "--json", f)
    b = run(capsys, "parse", "zpool-status", f, "--json")
    assert a == b and a[0] == 0


@pytest.mark.parametrize("kind,fixture,expect", [
    ("zpool-list", "zpool-list/2.3.2-tank-mirror-v.txt", ["tank", "mirror-0", "vdb"]),
    ("zpool-iostat", "zpool-iostat/2.3.2-tank-vlHp-1-2.txt", ["mirror-0/vdc", "36154441"]),
    ("arcstats", "arcstats/2.3.2-head3-plus-grep-excerpt.txt", ["c_max", "1289003520"]),
    ("zfs-list", "zfs-list/2.3.2-copy-name-used-refer.txt", ["tank/copy"]),
])
def test_other_kinds_render_and_json(capsys: pytest.CaptureFixture[str], kind: str,
                                     fixture: str, expect: list[str]) -> None:
    extra = ["--columns", "name,used,refer"] if kind == "zfs-list" else []
    rc, out, _ = run(capsys, "parse", kind, str(FIX / fixture), *extra)
    assert rc == 0
    for word in expect:
        assert word in out
    rc, out, _ = run(capsys, "parse", kind, str(FIX / fixture), "--json", *extra)
    assert rc == 0
    assert json.loads(out)


def test_capture_accepts_host_before_or_after_the_subcommand(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[str, str, str | None]] = []

    def fake(dest: str, directory: str, *, ssh_config: str | None = None,
             state: str = "") -> int:
        seen.append((dest, directory, ssh_config))
        return 0

    monkeypatch.setattr("zconsole.cli.commands.capture.run_capture", fake)
    assert main(["capture", "--host", "root@box", "--ssh-config", "cfg", "out"]) == 0
    assert main(["--host", "root@box", "--ssh-config", "cfg", "capture", "out"]) == 0
    assert seen == [("root@box", "out", "cfg"), ("root@box", "out", "cfg")]
    assert main(["capture", "out"]) == 2
    assert "--host is required" in capsys.readouterr().err


def test_host_choice_without_zfs(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from zconsole.cli.main import build_parser, choose_host

    # `zconsole.cli.main` as an attribute is the re-exported function; patch the module.
    monkeypatch.setattr(sys.modules["zconsole.cli.main"], "has_zfs", lambda host: False)
    host, notice = choose_host(build_parser().parse_args([]))
    assert host.kind == "demo" and notice and "--local" in notice
    host, notice = choose_host(build_parser().parse_args(["--local"]))
    assert host.kind == "local" and notice is None
    host, _ = choose_host(build_parser().parse_args(["--demo", "degraded"]))
    assert host.kind == "demo" and "degraded" in host.label


CONTROL = [chr(c) for c in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))]
OSC52 = "\x1b]52;c;Y3VybCBodHRwOi8vZS52aWwveCB8IHNo\x1b\\"


@pytest.mark.parametrize("as_json", [False, True])
def test_hostile_names_never_reach_the_terminal(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, as_json: bool) -> None:
    """A pool and devices named with escape sequences (the 2.3 JSON path accepts any string):
    `zconsole parse` shows them as visible escapes and never passes them on."""
    doc = json.loads((STATUS / "openzfs-2.3.2-status-j.json").read_text())
    pools = doc["pools"]
    [(name, pool)] = list(pools.items())
    evil = f"tank{OSC52}\x1b]0;owned\x07\u202e"
    pool["name"] = evil
    pools[evil] = pools.pop(name)
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    rc, out, err = run(capsys, "parse", "zpool-status", str(path), *(["--json"] if as_json else []))
    assert rc == 0
    assert not any(c in out or c in err for c in CONTROL)
    if not as_json:
        assert "tank\\x1b]52;c;" in out and "\\u202e" in out
