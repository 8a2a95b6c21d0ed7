"""`zconsole parse`: pasted output rendered, or printed as the documented JSON shape."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.paths import PARSERS
from zconsole.cli import main
from zconsole.cli.commands.parse import KINDS, parse_text
from zconsole.parsers import ParseError

FIX = PARSERS
STATUS = FIX / "zpool-status"

POOL_KEYS = {"name", "state", "status", "action", "scan", "errors", "vdevs", "logs", "cache",
             "spares", "special", "dedup", "scans", "expand", "remove", "classes", "see",
             "pool_row", "error_files", "truncated"}
NODE_KEYS = {"name", "type", "state", "read_errors", "write_errors", "checksum_errors", "note",
             "path", "removing"}


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


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_names_a_parser_that_exists(kind: str) -> None:
    """The kinds are imported when first parsed: a misspelt module or parser name shows here
    (as AttributeError or ImportError), not at an operator's first paste."""
    try:
        parse_text(kind, "nothing a parser knows\n")
    except ParseError:
        pass


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


# ------------------------------------------------------------------ issue 10: pasted human forms

# the JSON shapes are documented in docs/parse.md (in the README before issue 32)
PARSE_DOC = (Path(__file__).resolve().parents[2] / "docs" / "parse.md").read_text()


def test_human_zpool_list_json_keeps_the_tree_and_says_what_is_rounded(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "parse", "zpool-list", "--json",
                     str(FIX / "zpool-list" / "belgianbeer-debian-list-v-indirect-0-expandsz.txt"))
    assert rc == 0
    (pool,) = json.loads(out)
    assert pool["name"] == "zroot" and pool["exact"] is False and pool["altroot"] == "/mnt"
    assert pool["size"] == round(99.5 * 2**30) and pool["expandsize"] == 132 * 2**30
    assert [(v["name"], v["depth"], v["parent"], v["section"]) for v in pool["vdevs"]] == [
        ("indirect-0", 0, None, "vdevs"), ("mirror-1", 0, None, "vdevs"),
        ("sdc", 1, 1, "vdevs"), ("sdb", 1, 1, "vdevs")]
    assert pool["vdevs"][0]["exact"] is True  # all `-`
    rc, out, _ = run(capsys, "parse", "zpool-list",
                     str(FIX / "zpool-list" / "belgianbeer-debian-list-v-indirect-0-expandsz.txt"))
    assert rc == 0 and "indirect-0" in out and "mirror-1" in out


def test_human_zpool_iostat_reports_and_since_boot(capsys: pytest.CaptureFixture[str]) -> None:
    f = str(FIX / "zpool-iostat" / "issue3633-zol-iostat-pool-1-3-old-header.txt")
    rc, out, _ = run(capsys, "parse", "zpool-iostat", "--json", f)
    assert rc == 0
    reports = json.loads(out)
    assert [[(p["pool"], p["report"], p["since_boot"]) for p in r] for r in reports] == [
        [("backup", 0, True)], [("backup", 1, False)], [("backup", 2, False)]]
    assert reports[0][0]["pool_row"]["write_bytes"] == 266 * 1024
    rc, out, _ = run(capsys, "parse", "zpool-iostat", "--json", "-y", f)
    assert rc == 0 and json.loads(out)[0][0]["since_boot"] is False
    rc, out, _ = run(capsys, "parse", "zpool-iostat", f)
    assert rc == 0 and "backup" in out and "(nothing)" not in out


@pytest.mark.parametrize(("text", "shown"), [
    ("this is not iostat\n", "this is not iostat"),
    ("              capacity     operations     bandwidth\n"
     "pool        alloc   free   read  write   read  write\n"
     "----------  -----  -----  -----  -----  -----  -----\n"
     "tank        1G  2G  3  4  5K  6Q\n", "line 4"),
])
def test_iostat_that_does_not_read_exits_3_with_the_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str,
        shown: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    rc, out, err = run(capsys, "parse", "zpool-iostat", "-")
    assert rc == 3 and out == "" and shown in err


def test_histograms_are_refused_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "parse", "zpool-iostat",
                       str(FIX / "zpool-iostat" / "wener-iostat-r-request-size-histogram.txt"))
    assert rc == 3 and out == "" and "histogram" in err


def test_status_json_carries_long_operations(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "parse", "zpool-status", "--json",
                     str(STATUS / "belgianbeer-freebsd-remove-evacuation-in-progress.txt"))
    assert rc == 0
    (pool,) = json.loads(out)["pools"]
    assert pool["remove"]["vdev"] == "/dev/da0p4" and pool["remove"]["state"] == "in_progress"
    assert pool["remove"]["percent_done"] == 22.57 and pool["expand"] is None
    assert [v["removing"] for v in pool["vdevs"]] == [True, False]
    rc, out, _ = run(capsys, "parse", "zpool-status", "--json",
                     str(STATUS / "issue16803-truenas-expand-over-100pct-head-fragment.txt"))
    (pool,) = json.loads(out)["pools"]
    assert pool["expand"]["slow"] is True and pool["expand"]["percent_done"] == 100.25
    rc, out, _ = run(capsys, "parse", "zpool-status", "--json",
                     str(STATUS / "openzfs-docs-msg-K4-logs-faulted-bad-intent-log.txt"))
    (pool,) = json.loads(out)["pools"]
    assert pool["classes"] == {"logs": {"state": "FAULTED", "read_errors": 0,
                                        "write_errors": 0, "checksum_errors": 0,
                                        "note": "bad intent log"}}
    assert [v["name"] for v in pool["vdevs"]] == ["c3t2d0"]
    rc, out, _ = run(capsys, "parse", "zpool-status",
                     str(STATUS / "openzfs-docs-msg-K4-logs-faulted-bad-intent-log.txt"))
    assert rc == 0 and "logs  ✖ FAULTED  bad intent log" in out


def test_the_parse_page_documents_every_key_the_json_has(capsys: pytest.CaptureFixture[str]) -> None:
    block = PARSE_DOC.split("For `zpool-status --json` the shape is stable")[1].split("```")[1]
    for name in ("belgianbeer-freebsd-remove-evacuation-in-progress.txt",
                 "mtlynch-expand-finished-full-wide-usb-names.txt",
                 "openzfs-docs-msg-K4-logs-degraded.txt"):
        rc, out, _ = run(capsys, "parse", "zpool-status", "--json", str(STATUS / name))
        (pool,) = json.loads(out)["pools"]
        keys = set(pool) | set(pool["scan"] or {}) | set(pool["expand"] or {}) \
            | set(pool["remove"] or {}) | {k for c in pool["classes"].values() for k in c}
        keys |= {k for v in pool["vdevs"] for k in v}
        for key in keys:
            assert f'"{key}"' in block, key


@pytest.mark.parametrize("text", [
    "  pool: tank\n",
    "  pool: tank\n status: something\n",
    "pool: x\npool: x\npool: x\n",  # a host answering garbage to everything
    # (a readable pool before the one cut in its header: issue 32, tests/unit/test_parse_paste.py)
])
def test_a_pool_line_without_a_state_is_no_pool(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                text: str) -> None:
    """Issue 27 item 5: `pool:` with no `state:` was a pool in an empty state (`check` said
    `WARNING: tank is  |`, `parse` exited 0 with `pool tank: ?`). A ParseError now: rc 3."""
    from zconsole.parsers.errors import ParseError
    from zconsole.parsers.zpool_status import parse_zpool_status

    with pytest.raises(ParseError, match="has no `state:` line"):
        parse_zpool_status(text)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    rc, out, err = run(capsys, "parse", "zpool-status", "-")
    assert rc == 3 and out == "" and "has no `state:` line" in err
