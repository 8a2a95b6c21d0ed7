"""Issue 32 §3: a pasted `zpool status` is read whole, or says where it ends early.

Every input is a real output (tests/fixtures/parsers/zpool-status/SOURCES.md), or a real
output cut at a stated line (a paste that ends early).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.paths import PARSERS
from zconsole.cli import main
from zconsole.parsers.errors import ParseError
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json

STATUS = PARSERS / "zpool-status"
V21 = STATUS / "guest-zfs-2.1.11-permanent-errors-v.txt"
V23 = STATUS / "guest-zfs-2.3.2-permanent-errors-v.txt"
J23 = STATUS / "guest-zfs-2.3.2-permanent-errors-j-json-int-v.json"
CUT = STATUS / "guest-zfs-2.1.11-permanent-errors-v.head14.txt"
FILES_21 = ("<metadata>:<0x48>", "<metadata>:<0x4a>", "<metadata>:<0x4b>", "<metadata>:<0x59>",
            "<metadata>:<0x5c>", "<metadata>:<0x5d>", "<metadata>:<0x61>", "<metadata>:<0x63>",
            "<metadata>:<0x66>", "<metadata>:<0x68>", "<metadata>:<0x69>", "<metadata>:<0x6c>",
            "tank:<0x0>", "tank:<0x24>", "tank/data:<0x0>", "/tank/data/blob1",
            "/tank/data/dir with space/blob 2")


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str,
        *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    rc = main(["parse", "zpool-status", *argv, "-"])
    out, err = capsys.readouterr()
    return rc, out, err


# -- a paste cut short ----------------------------------------------------------------------

def test_a_paste_cut_inside_the_config_says_where_and_what_was_expected() -> None:
    (pool,) = parse_zpool_status(CUT.read_text(), pasted=True)
    assert pool.truncated is not None
    assert pool.truncated.startswith("the paste ends at line 14 (`vdb")
    assert "`raidz1-0` lists 1 device where it has at least 2" in pool.truncated
    assert "`errors:`" in pool.truncated
    # the readable part is still read
    assert pool.state == "DEGRADED" and [v.name for v in pool.vdevs[0].children] == ["vdb"]


def test_the_whole_output_is_not_called_cut() -> None:
    for path in (V21, V23, STATUS / "guest-zfs-2.1.11-data-errors-no-v.txt",
                 STATUS / "mtlynch-resilver-replacing-no-estimate.txt"):
        assert [p.truncated for p in parse_zpool_status(path.read_text(), pasted=True)] \
            == [None], path.name


@pytest.mark.parametrize(("lines", "said"), [
    (8, "line 8 (`scan: scrub repaired 33K in 00:00:03 with 1029 errors on Sun`) before "
        "the `config:` table"),
    (9, "line 9 (`config:`) after `config:`, before the table's rows"),
    (11, "line 11 (`NAME        STATE     READ WRITE CKSUM`) after `config:`"),
    (13, "`raidz1-0` lists 0 devices where it has at least 2"),
    (16, "line 16 (`vdd     OFFLINE      0     0     0`) inside the config table; more rows "
         "or the `errors:` line were expected"),
])
def test_every_cut_of_a_real_output_is_named(lines: int, said: str) -> None:
    """The real 2.1 output cut after each part of the grammar: header, `config:`, the NAME
    header, a container without its devices, the last row before `errors:`."""
    text = "\n".join(V21.read_text().split("\n")[:lines]) + "\n"
    (pool,) = parse_zpool_status(text, pasted=True)
    assert said in (pool.truncated or ""), pool.truncated


def _cut_at_errors(path: Path, last: str | None, keep_next: int = 0) -> str:
    """`path`'s lines up to its `errors:` line, that line given as `last` (None: as it is),
    and `keep_next` lines after it."""
    lines = path.read_text().split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("errors:"))
    return "\n".join([*lines[:i], lines[i] if last is None else last,
                      *lines[i + 1:i + 1 + keep_next]]) + "\n"


@pytest.mark.parametrize(("path", "last", "keep", "said"), [
    (V23, None, 0, "after the `errors:` line, before the files it lists"),
    (V23, None, 1, "after the `errors:` line, before the files it lists"),  # the blank line
    (V21, "errors: Permanent errors have been det", 0,
     "inside the `errors:` line (zpool prints `Permanent errors have been detected in the "
     "following files:`)"),
    (V21, "errors: No known data", 0, "inside the `errors:` line (zpool prints `No known data "
                                      "errors`)"),
    (V21, "errors: 17 data err", 0, "(zpool prints `data errors, use '-v' for a list`)"),
    (V21, "errors: 17", 0, "(zpool prints `data errors, use '-v' for a list`)"),
])
def test_a_paste_cut_in_the_errors_part_says_so(path: Path, last: str | None, keep: int,
                                                said: str) -> None:
    """Issue 32's audit: a `-v` paste cut right after its `errors:` line, or inside that
    line, was read as whole. The real outputs cut there say where; the pool is still read."""
    (pool,) = parse_zpool_status(_cut_at_errors(path, last, keep), pasted=True)
    assert pool.truncated is not None and said in pool.truncated, pool.truncated
    assert pool.truncated.startswith("the paste ends at line ")
    assert pool.state == "DEGRADED" and pool.vdevs


@pytest.mark.parametrize("last", ["errors: No known data errors",
                                  "errors: 17 data errors, use '-v' for a list",
                                  "errors: List of errors unavailable: permission denied"])
def test_every_whole_errors_line_is_not_called_cut(last: str) -> None:
    (pool,) = parse_zpool_status(_cut_at_errors(V21, last), pasted=True)
    assert pool.truncated is None, pool.truncated
    (pool,) = parse_zpool_status(_cut_at_errors(V23, None, 2), pasted=True)  # one file
    assert pool.truncated is None and pool.error_files == ("<metadata>:<0x5b>",), pool


def test_a_paste_cut_in_the_next_pools_header_keeps_the_pools_before_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """jc's three-pool paste cut after the third `pool:` line (line 17): the two whole pools
    are read, the cut is said on the last one; a host's own output is still refused."""
    text = "\n".join((STATUS / "jc-zpool-status-v-multipool-noblank.txt")
                     .read_text().split("\n")[:17]) + "\n"
    pools = parse_zpool_status(text, pasted=True)
    assert [p.name for p in pools] == ["zhgstera6", "zint500"]
    assert pools[0].truncated is None
    assert pools[1].truncated == ("the paste ends at line 17 inside the header of the next pool "
                                  "`zsam53`, before its `state:` line; that pool is left out")
    with pytest.raises(ParseError, match="has no `state:` line"):
        parse_zpool_status(text)
    rc, out, _ = run(capsys, monkeypatch, text)
    assert rc == 0 and "pool zint500" in out and "zsam53`, before its `state:` line" in out


def test_parse_shows_the_cut_in_both_forms(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rc, out, _ = run(capsys, monkeypatch, CUT.read_text())
    assert rc == 0
    assert "  ! cut short: the paste ends at line 14" in out and "    raidz1-0" in out
    rc, out, _ = run(capsys, monkeypatch, CUT.read_text(), "--json")
    assert rc == 0
    (pool,) = json.loads(out)["pools"]
    assert pool["truncated"].startswith("the paste ends at line 14")
    rc, out, _ = run(capsys, monkeypatch, V21.read_text(), "--json")
    assert json.loads(out)["pools"][0]["truncated"] is None


# -- the pool row, see:, the error files ----------------------------------------------------

def test_the_pool_row_and_see_link_are_kept(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    rc, out, _ = run(capsys, monkeypatch, V21.read_text())
    assert rc == 0
    assert "  see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A" in out
    assert "\n  tank        ▲ DEGRADED     0     0     0\n    raidz1-0" in out
    rc, out, _ = run(capsys, monkeypatch, V21.read_text(), "--json")
    (pool,) = json.loads(out)["pools"]
    assert pool["see"] == "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A"
    assert pool["pool_row"] == {"state": "DEGRADED", "read_errors": 0, "write_errors": 0,
                                "checksum_errors": 0, "note": None}


def test_permanent_error_files_are_a_list_as_printed(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (pool,) = parse_zpool_status(V21.read_text(), pasted=True)
    assert pool.errors == "Permanent errors have been detected in the following files:"
    assert pool.error_files == FILES_21 and pool.unparsed == ()
    rc, out, _ = run(capsys, monkeypatch, V21.read_text(), "--json")
    (doc,) = json.loads(out)["pools"]
    assert doc["error_files"] == list(FILES_21)
    assert doc["errors"] == "Permanent errors have been detected in the following files:"
    rc, out, _ = run(capsys, monkeypatch, V21.read_text())
    assert ("  errors: Permanent errors have been detected in the following files:\n"
            "          <metadata>:<0x48>\n") in out
    assert "          /tank/data/dir with space/blob 2\n" in out


def test_without_v_the_count_line_and_no_files() -> None:
    (pool,) = parse_zpool_status((STATUS / "guest-zfs-2.1.11-data-errors-no-v.txt").read_text())
    assert pool.errors == "989 data errors, use '-v' for a list" and pool.error_files == ()


def test_error_files_are_hostile_safe(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A file name is host text: an escape sequence in it never reaches the terminal raw,
    and JSON escapes it; the name is kept as printed in the model."""
    text = V21.read_text().replace("/tank/data/blob1", "/tank/data/x\x1b]52;c;aGk=\x07y")
    (pool,) = parse_zpool_status(text)
    assert "/tank/data/x\x1b]52;c;aGk=\x07y" in pool.error_files
    rc, out, _ = run(capsys, monkeypatch, text)
    assert rc == 0 and "\x1b" not in out and "\x07" not in out and "/tank/data/x" in out
    rc, out, _ = run(capsys, monkeypatch, text, "--json")
    assert "\x1b" not in out and "/tank/data/x\x1b]52;c;aGk=\x07y" in \
        json.loads(out)["pools"][0]["error_files"]


def test_degraded_rows_keep_their_counters_under_the_headers(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`DEGRADED` is wider than the 7 columns the state had: READ/WRITE/CKSUM of such rows
    sat one column right of their headers. Every counter now ends under its header."""
    rc, out, _ = run(capsys, monkeypatch, V21.read_text())
    lines = out.split("\n")
    head = next(ln for ln in lines if ln.strip().startswith("NAME"))
    ends = [head.index(h) + len(h) for h in ("READ", "WRITE", "CKSUM")]
    rows = [ln for ln in lines if ln.startswith(("  tank ", "    raidz1-0", "      vd"))]
    assert len(rows) == 5
    for row in rows:
        counters = row.split()[-3:]
        assert all(row[e - len(c):e] == c and row[e - len(c) - 1] == " "
                   for c, e in zip(counters, ends, strict=True)), row


# -- the 2.3 JSON gives the same fields for the same pool -----------------------------------

def test_json_and_text_agree_on_pool_row_see_and_files() -> None:
    (text,) = parse_zpool_status(V23.read_text())
    (js,) = parse_zpool_status_json(J23.read_text())
    assert js.see == text.see == "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A"
    assert js.error_files == text.error_files == (
        "<metadata>:<0x5b>", "<metadata>:<0x5c>", "<metadata>:<0x60>", "<metadata>:<0x62>",
        "tank:<0x24>", "/tank/data/blob1", "/tank/data/dir with space/blob 2")
    assert js.root is not None and text.root is not None
    row = [(v.name, v.state, v.read_errors, v.write_errors, v.checksum_errors)
           for v in (js.root, text.root)]
    assert row[0] == row[1] == ("tank", "DEGRADED", 0, 0, 0)
    assert js.truncated is None and text.truncated is None


def test_the_text_counts_data_errors_as_the_json_does() -> None:
    """`zpool status -p` (the 2.1 read) prints `N data errors, use '-v' for a list`: the
    same count 2.3's JSON gives as `error_count`, so a 2.1 pool with permanent errors is
    judged as a 2.3 one is (services/health/pools.py's `data-errors` finding)."""
    from zconsole.services.health.pools import judge_pool

    (text,) = parse_zpool_status((STATUS / "guest-zfs-2.3.2-data-errors-no-v.txt").read_text())
    (js,) = parse_zpool_status_json(J23.read_text())
    assert text.error_count == js.error_count == 1695
    (p21,) = parse_zpool_status((STATUS / "guest-zfs-2.1.11-data-errors-no-v.txt").read_text())
    assert p21.error_count == 989
    assert parse_zpool_status(V21.read_text())[0].error_count is None  # -v prints no count
    clean = parse_zpool_status((STATUS / "mtlynch-resilver-replacing-no-estimate.txt")
                               .read_text())[0]
    assert clean.error_count == 0
    found = [f for f in judge_pool(p21) if f.kind == "data-errors"]
    assert [f.message for f in found] == ["tank has 989 permanent data errors"]
