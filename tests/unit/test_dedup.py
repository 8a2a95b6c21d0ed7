"""services.dedup: the DDT read per version (2.1 per-entry sizes vs 2.3 totals), the datasets
with dedup on, RAM at stake, failed reads kept as failures; the demo's table stays consistent
(entries = histogram blocks) while it shrinks."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from zconsole.hosts.base import CommandFailed, Result
from zconsole.hosts.demo import DemoHost
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.read.dedup import followers, read_dedup, roots, shrink_sentence

T0 = 1795302000.0


def demo(scenario: str, version: str) -> DemoHost:
    return DemoHost(scenario, version, clock=lambda: T0)


@pytest.mark.parametrize("version,totals", [("2.1", False), ("2.3", True)])
def test_ddt_sizes_per_version(version: str, totals: bool) -> None:
    r = read_dedup(demo("showcase", version), "tank")
    assert r.ddt is not None and r.ddt.sizes_are_totals is totals
    assert r.entries == 1176735
    # 2.1 prints 331 B / 144 B per entry; 2.3 prints the totals (371M / 162M)
    assert r.ram_bytes is not None and 160 << 20 < r.ram_bytes < 170 << 20
    assert r.disk_bytes is not None and 360 << 20 < r.disk_bytes < 380 << 20
    lines = r.lines()
    assert lines[0].startswith("Dedup table (DDT) of tank: 1,176,735 entries")
    assert ("OpenZFS 2.1 prints per-entry sizes: 331 B on disk and 144 B in core per entry"
            in lines[0]) is (version == "2.1")
    assert ("OpenZFS 2.3 prints totals" in lines[0]) is totals
    assert "% of the ARC's maximum" in lines[1]
    assert r.dedupratio == pytest.approx(1.46)
    assert (r.table_size is not None) is totals  # dedup_table_size exists from 2.3
    assert r.histogram[0].startswith("bucket")
    assert r.errors == ()


def test_datasets_roots_and_followers() -> None:
    r = read_dedup(demo("showcase", "2.3"), "tank")
    assert [(d.name, d.set_here, d.kind) for d in r.datasets] == [
        ("tank/vm", True, "filesystem"),
        ("tank/vm/debian12", False, "volume"),
        ("tank/vm/debian12-test", False, "volume"),
        ("tank/vm/debian12-test2", False, "volume"),
        ("tank/vm/win11", False, "volume")]
    assert r.datasets[1].inherited_from == "tank/vm"
    assert [d.name for d in roots(r)] == ["tank/vm"]
    assert [d.name for d in roots(r, ["tank/vm/win11", "tank/vm"])] == ["tank/vm"]
    assert [d.name for d in roots(r, ["tank/vm/win11"])] == ["tank/vm/win11"]
    assert len(followers(r, "tank/vm")) == 4
    with pytest.raises(ValueError, match="tank/home"):
        roots(r, ["tank/home"])


def test_no_dedup_at_all() -> None:
    r = read_dedup(demo("healthy", "2.1"), "tank")
    assert r.entries == 0 and r.datasets == ()
    assert r.lines()[0] == "tank has no DDT entries: nothing is deduplicated."


class Failing:
    """A demo host whose `zpool status -D` fails: the failure is kept, nothing is guessed."""

    def __init__(self) -> None:
        self.inner = demo("showcase", "2.3")

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def run(self, argv: Sequence[str], **kw: object) -> Result:
        if list(argv[:3]) == ["zpool", "status", "-D"]:
            raise CommandFailed(Result(tuple(argv), 1, "", "internal error: out of memory", 0))
        return self.inner.run(argv, **kw)  # type: ignore[arg-type]


def test_failed_read_is_reported_not_guessed() -> None:
    r = read_dedup(Failing(), "tank")  # type: ignore[arg-type]
    assert r.ddt is None and r.ram_bytes is None
    assert any("zpool status -D -p tank" in e and "out of memory" in e for e in r.errors)
    assert r.lines()[0] == "The dedup table of tank could not be read."
    assert r.datasets  # the other reads still answered


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_demo_table_shrinks_consistently_when_deduplicated_data_is_destroyed(
        version: str) -> None:
    h = demo("showcase", version)
    before = read_dedup(h, "tank")
    h.run(["zfs", "destroy", "tank/vm/win11"])
    after = read_dedup(h, "tank")
    assert before.entries is not None and after.entries is not None
    assert 0 < after.entries < before.entries
    # `zpool status -D`: DDT entries equal the histogram's allocated blocks
    text = h.run(["zpool", "status", "-D", "tank"]).stdout
    pool = parse_zpool_status(text, ddt_sizes_are_totals=version == "2.3")[0]
    assert pool.ddt is not None and pool.ddt.entries == after.entries
    assert shrink_sentence(before, after).startswith(
        f"DDT of tank: {before.entries:,} -> {after.entries:,} entries (")
    # destroying everything that was written deduplicated empties the table
    h.run(["zfs", "destroy", "-r", "tank/vm"])
    assert "dedup: no DDT entries" in h.run(["zpool", "status", "-D", "tank"]).stdout
    # data written without dedup does not touch the table
    h2 = demo("showcase", version)
    n = read_dedup(h2, "tank").entries
    h2.run(["zfs", "destroy", "-r", "tank/home/bob"])
    assert read_dedup(h2, "tank").entries == n
