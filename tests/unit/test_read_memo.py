"""ParseMemo: a read whose text has not changed since the last refresh is not parsed again
(a quiet host's zpool status / list / zfs list), and never when the value depends on more than
the text (a running scan's ETA follows the time of the reading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import DelegatingHost
from zconsole.hosts.base import Result
from zconsole.hosts.demo import DemoHost
from zconsole.model.pool import ScanState
from zconsole.model.reading import DiskState, ZfsInfo, ZfsPresence
from zconsole.parsers.errors import ParseError
from zconsole.services.read.collect import read_pool_status
from zconsole.services.read.memo import ParseMemo
from zconsole.services.session import HostSession

RESILVER = Path(__file__).parents[1] / (
    "fixtures/capture/zfs-2.3.2/resilver-in-progress/cmd/017.out")


def test_same_text_is_parsed_once_other_text_again() -> None:
    calls: list[str] = []

    def parse(text: str) -> tuple[str, ...]:
        calls.append(text)
        return tuple(text.split())

    memo = ParseMemo()
    first = memo.parse("k", "a b", parse)
    assert memo.parse("k", "a b", parse) is first
    assert memo.parse("k", "a c", parse) == ("a", "c")
    assert memo.parse("other", "a c", parse) == ("a", "c")  # keys do not share
    assert calls == ["a b", "a c", "a c"] and memo.hits == 1


def test_a_failed_parse_or_a_value_not_kept_is_parsed_again() -> None:
    memo, calls = ParseMemo(), []

    def bad(text: str) -> int:
        calls.append(text)
        raise ParseError("t", "no")

    for _ in range(2):
        with pytest.raises(ParseError):
            memo.parse("k", "x", bad)
    assert memo.parse("k", "x", len, keep=lambda _v: False) == 1
    assert memo.parse("k", "x", lambda t: 7) == 7  # not the value that was not kept
    assert len(calls) == 2 and memo.hits == 0


def test_a_quiet_host_is_not_parsed_again_between_refreshes() -> None:
    session = HostSession(DemoHost("big100", clock=lambda: 1795302010.0, seed=0))
    first = session.refresh().reading
    second = session.refresh().reading
    assert session.memo.hits >= 3  # status, zpool list, zfs list
    assert second.pool_status.value is first.pool_status.value
    assert second.pool_usage.value is first.pool_usage.value
    assert second.datasets.value is first.datasets.value
    hits = session.memo.hits
    forced = session.refresh(force=True).reading  # ctrl+r: everything read and parsed afresh
    assert session.memo.hits == hits
    assert forced.pool_status.value is not first.pool_status.value
    assert forced.pool_status.value == first.pool_status.value


class _Fixed:
    """A host whose `zpool status -j` always prints the same bytes, at a clock we move."""

    def __init__(self, text: str, t: float = 1_795_308_322.0) -> None:
        self.text, self.t = text, t

    def now(self) -> float:
        return self.t

    def run(self, argv: list[str], *, timeout: float = 30.0, check: bool = True,
            stdin: str | None = None) -> Result:
        return Result(tuple(argv), 0, self.text, "", 0.0)


def test_a_running_scan_is_parsed_at_each_reading_its_eta_follows_the_clock() -> None:
    text = RESILVER.read_text()
    began = json.loads(text)["pools"]["tank"]["scan_stats"]["pass_start"]
    host = _Fixed(text, float(began) + 5)  # 5 s after the resilver began
    zfs = ZfsInfo(ZfsPresence.PRESENT, "", version=(2, 3, 2), json_status=True)
    memo = ParseMemo()
    pools, _ = read_pool_status(host, zfs, memo=memo)  # type: ignore[arg-type]
    scan = pools[0].scan
    assert scan is not None and scan.state is ScanState.IN_PROGRESS
    host.t += 5  # half the rate so far: the ETA doubles
    later, _ = read_pool_status(host, zfs, memo=memo)  # type: ignore[arg-type]
    assert later is not pools and memo.hits == 0
    assert later[0].scan is not None and later[0].scan.eta_seconds != scan.eta_seconds
    assert scan.eta_seconds and later[0].scan.eta_seconds  # read, not clamped to nothing
    assert abs(later[0].scan.eta_seconds - 2 * scan.eta_seconds) <= 1  # whole seconds


class _Mounts(DelegatingHost):
    """The demo, with lines added to /proc/mounts when the test says."""

    def __init__(self, inner: DemoHost) -> None:
        super().__init__(inner)
        self.extra = ""

    def read_text(self, path: str) -> str:
        text = super().read_text(path)
        return text + self.extra if path == "/proc/mounts" else text


def test_disk_roles_are_judged_again_only_when_the_disks_or_pools_change() -> None:
    t = [1795302010.0]
    host = _Mounts(DemoHost("degraded", clock=lambda: t[0], seed=0))
    session = HostSession(host)
    first = session.refresh().reading.disks.value
    t[0] += 1
    second = session.refresh().reading.disks.value
    assert first is not None and second is first  # the same inventory, the same pools
    # a filesystem mounted on a free disk since: its role is judged again, at once
    free = next(r.disk for r in first.roles if r.state is DiskState.FREE)
    host.extra = f"/dev/{free} /mnt/scratch ext4 rw,relatime 0 0\n"
    t[0] += 1
    third = session.refresh().reading.disks.value
    assert third is not None and third is not first
    role = next(r for r in third.roles if r.disk == free)
    assert role.state is DiskState.IN_USE, role


# every real `zpool status -j --json-int` capture (the form the console reads: plain integers)
STATUS_JSON = sorted(
    p for p in (Path(__file__).parents[1] / "fixtures/capture/zfs-2.3.2").glob("*/cmd/*.out")
    if p.read_text()[:80].startswith('{"output_version":{"command":"zpool status"')
    and '"txg":"' not in p.read_text())


@pytest.mark.parametrize("path", STATUS_JSON, ids=lambda p: f"{p.parts[-3]}-{p.stem}")
def test_the_status_parser_never_reads_the_fields_left_out_of_the_comparison(
        path: Path) -> None:
    """txg and alloc_space move with every transaction group of a pool being written; the
    memo compares the text without them, which is right only while the parser never reads
    them: changed here in every real 2.3 capture, the model is the same."""
    import re

    from zconsole.parsers.zpool_status_json import parse_zpool_status_json

    text = path.read_text()
    moved = re.sub(r'"(txg|alloc_space)":(\d+)',
                   lambda m: f'"{m[1]}":{int(m[2]) * 7 + 12345}', text)
    assert moved != text
    assert parse_zpool_status_json(moved, now=1_795_308_322) == \
        parse_zpool_status_json(text, now=1_795_308_322)


def test_a_pool_being_written_is_not_parsed_again_but_a_state_change_is() -> None:
    text = (Path(__file__).parents[1] /
            "fixtures/capture/zfs-2.3.2/healthy/cmd/005.out").read_text()
    host = _Fixed(text)
    zfs = ZfsInfo(ZfsPresence.PRESENT, "", version=(2, 3, 2), json_status=True)
    memo = ParseMemo()
    first, _ = read_pool_status(host, zfs, memo=memo)  # type: ignore[arg-type]
    host.text = text.replace('"txg":4', '"txg":977').replace(
        '"alloc_space":75994112', '"alloc_space":85994112')
    assert host.text != text
    busy, _ = read_pool_status(host, zfs, memo=memo)  # type: ignore[arg-type]
    assert busy is first and memo.hits == 1
    host.text = host.text.replace('"state":"ONLINE"', '"state":"DEGRADED"', 1)
    changed, _ = read_pool_status(host, zfs, memo=memo)  # type: ignore[arg-type]
    assert changed is not first and changed[0].state == "DEGRADED"
